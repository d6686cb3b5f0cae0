// `cctx explain MODEL NODE`: the buffers alive at a node, its outputs, the in-place decisions
// (with the decision log's events) and why other reuses were refused, and the scratch.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model_builder.hpp"
#include "report_files.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

nlohmann::json explain_json(const std::string& args) {
  const auto r =
      test::run_cctx("explain " + test::quoted(test::seed_model()) + " " + args + " --format json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

TEST(ReportExplain, ConcatSeesTheSeedsLiveBuffers) {
  const nlohmann::json doc = explain_json("1 --eval N=8");
  EXPECT_EQ(doc["format"], "cctx.explain/1");
  EXPECT_EQ(doc["node"]["op_type"], "Concat");
  EXPECT_EQ(doc["already_allocated_bytes"]["formula"], "32*N+64");
  EXPECT_EQ(doc["total_bytes"]["evaluated"], nlohmann::json::array({576}));
  // X and W from the start, M made by node 0: 16*N + 64 + 16*N, the seed's already_allocated.
  ASSERT_EQ(doc["live_buffers"].size(), 3u) << doc["live_buffers"].dump(1);
  std::map<std::string, nlohmann::json> live;
  for (const auto& b : doc["live_buffers"]) live[b["buffer"]] = b;
  EXPECT_EQ(live["X"]["source"], "input");
  EXPECT_EQ(live["X"]["bytes"]["formula"], "16*N");
  EXPECT_EQ(live["W"]["source"], "initializer");
  EXPECT_EQ(live["W"]["bytes"]["formula"], 64);
  EXPECT_EQ(live["W"]["tag"], "weight");
  EXPECT_EQ(live["M"]["source"], "intermediate");
  EXPECT_EQ(live["M"]["created"], "output of node 0 (MatMul)");
  EXPECT_EQ(live["M"]["last_read"]["M"], 1) << "Concat is M's last reader";
  EXPECT_EQ(live["M"]["freed"], "after node 1 (Concat)");
  EXPECT_EQ(live["M"]["read_by_inputs"], nlohmann::json::array({0}));
  EXPECT_EQ(live["X"]["read_by_inputs"], nlohmann::json::array({1}));
  EXPECT_TRUE(doc["live_buffers_match_memory_profile"].get<bool>());
  EXPECT_EQ(doc["outputs"][0]["name"], "C");
  EXPECT_EQ(doc["outputs"][0]["bytes"]["formula"], "32*N");
  EXPECT_TRUE(doc["outputs"][0]["allocated"].get<bool>());
  EXPECT_TRUE(doc["peak"]["is_peak_node"].get<bool>());
  // Concat has no in-place policy in the ai.onnx plugin: nothing is a candidate.
  ASSERT_EQ(doc["inplace"]["refused"].size(), 1u);
  EXPECT_NE(doc["inplace"]["refused"][0]["reason"].get<std::string>().find("no in-place policy"),
            std::string::npos);
}

TEST(ReportExplain, RebuiltBuffersAddUpAtEveryNode) {
  for (int n = 0; n < 5; ++n) {
    const nlohmann::json doc = explain_json(std::to_string(n));
    EXPECT_TRUE(doc["live_buffers_match_memory_profile"].get<bool>()) << "node " << n;
  }
}

TEST(ReportExplain, AbsReusesConcatsBufferPerTheDecisionLog) {
  const auto r = test::run_cctx("explain " + test::quoted(test::seed_model()) + " 3 --eval N=1,8");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Node 3 (Abs), tag weight: A = Abs(C)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("total_bytes 48*N+80 (N=1: 128, N=8: 464)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("decision log: inplace, output 0 takes input 0's buffer (equal, may_reuse)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("none: joins C's buffer (may_reuse, equal)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("last read"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Scratch: 0"), std::string::npos) << r.out;
}

TEST(ReportExplain, StructuralFallbackSaysWhyEachInputWasRefused) {
  const auto profile = test::profile_dir() / "structural.yaml";
  const nlohmann::json doc = explain_json("1 --profile " + test::quoted(profile));
  std::map<std::string, std::string> reasons;
  for (const auto& r : doc["inplace"]["refused"]) reasons[r["value"]] = r["reason"];
  ASSERT_EQ(reasons.size(), 2u) << doc["inplace"].dump(1);
  EXPECT_NE(reasons["X"].find("graph input X"), std::string::npos) << reasons["X"];
  EXPECT_NE(reasons["M"].find("not provably no larger"), std::string::npos) << reasons["M"];
}

TEST(ReportExplain, ScratchFormulaAndEstimator) {
  const nlohmann::json doc = explain_json("0");
  EXPECT_EQ(doc["scratch"]["bytes"]["formula"], 0);
  EXPECT_FALSE(doc["scratch"]["estimator"].is_null()) << "MatMul's estimator is named";
}

TEST(ReportExplain, NodeByName) {
  test::TempDir dir;
  test::ModelBuilder b(18);
  b.input("X", test::kFloat, {"N", 4});
  b.node("Relu", {"X"}, {"R"}, {}, "", "first_relu");
  b.node("Sigmoid", {"R"}, {"Y"}, {}, "", "gate");
  b.output("Y");
  b.build().save(dir / "named.onnx");
  auto r = test::run_cctx("explain " + test::quoted(dir / "named.onnx") + " gate --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["node"]["index"], 1);
  EXPECT_EQ(doc["node"]["name"], "gate");
  r = test::run_cctx("explain " + test::quoted(dir / "named.onnx") + " nosuch");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'nosuch'"), std::string::npos) << r.err;
}

TEST(ReportExplain, IndexOutOfRangeIsAUsageError) {
  const auto r = test::run_cctx("explain " + test::quoted(test::seed_model()) + " 5");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("5 nodes"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

}  // namespace
}  // namespace cctx
