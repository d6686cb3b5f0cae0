// `cctx plan` through the real binary (docs/deployers.md, "A static memory plan"): the JSON
// document a runtime replays, checked here by an independent replay (offsets from `below`, no two
// buffers alive together at overlapping addresses), the table, the check, the HTML figure, and the
// refusals.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::contains;
using test::expect_error;
using test::quoted;
using test::run_cctx;
using Json = nlohmann::json;

class Plan : public ::testing::Test {
 protected:
  void SetUp() override {
    // An attention block in miniature: scores [B, S, S] against activations [B, S, 8], so that
    // which buffer is larger depends on S.
    test::ModelBuilder b(18);
    b.input("x", test::kFloat, {"B", "S", 8});
    b.node("Relu", {"x"}, {"q"});
    b.node("Transpose", {"q"}, {"kt"}, {test::attr("perm", std::vector<std::int64_t>{0, 2, 1})});
    b.node("MatMul", {"q", "kt"}, {"scores"});
    b.node("Softmax", {"scores"}, {"p"}, {test::attr("axis", std::int64_t{-1})});
    b.node("MatMul", {"p", "q"}, {"o"});
    b.node("Add", {"o", "x"}, {"y"});
    b.output("y", test::kFloat);
    test::write_file(model_, b.build().proto().SerializeAsString());
  }
  Json plan_json(const std::string& extra) const {
    const test::RunResult r = run_cctx("plan " + quoted(model_) + " --format json " + extra);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json::parse(r.out);
  }
  test::TempDir dir_;
  std::filesystem::path model_ = dir_ / "attention.onnx";
};

/// Replays the document at its evaluation k as a runtime would, and checks it.
void replay(const Json& doc, std::size_t k) {
  const Json& buffers = doc["buffers"];
  const Json& e = doc["evaluations"][k];
  std::vector<std::int64_t> offset(buffers.size(), 0);
  for (const Json& b : doc["order"]) {
    const std::size_t i = b.get<std::size_t>();
    std::int64_t at = 0;
    for (const Json& j : buffers[i]["below"]) {
      const std::size_t jj = j.get<std::size_t>();
      at = std::max(at, offset[jj] + e["sizes"][jj].get<std::int64_t>());
    }
    offset[i] = at;
  }
  std::int64_t arena = 0;
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    EXPECT_EQ(offset[i], e["offsets"][i].get<std::int64_t>()) << i;
    arena = std::max(arena, offset[i] + e["sizes"][i].get<std::int64_t>());
  }
  EXPECT_EQ(arena, e["arena"].get<std::int64_t>());
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    for (std::size_t j = i + 1; j < buffers.size(); ++j) {
      const bool meet =
          buffers[i]["first"] <= buffers[j]["last"] && buffers[j]["first"] <= buffers[i]["last"];
      if (!meet) continue;
      const std::int64_t si = e["sizes"][i], sj = e["sizes"][j];
      const bool apart = offset[i] + si <= offset[j] || offset[j] + sj <= offset[i];
      EXPECT_TRUE(apart || si == 0 || sj == 0) << "buffers " << i << " and " << j;
    }
  }
}

TEST_F(Plan, TheDocumentReplaysAtEveryAssignmentGiven) {
  const Json doc = plan_json("--eval B=1,3,7 --eval S=1,2,40,97");
  EXPECT_EQ(doc["format"], "cctx.memory_plan");
  EXPECT_EQ(doc["version"], 1);
  EXPECT_EQ(doc["alignment"], 64);
  ASSERT_EQ(doc["symbols"].size(), 2U);
  EXPECT_EQ(doc["symbols"][0]["name"], "B");
  EXPECT_TRUE(doc["symbols"][0]["upper"].is_null());
  ASSERT_EQ(doc["evaluations"].size(), 12U);
  std::size_t last = 12;
  for (std::size_t k = 0; k < 12; ++k) {
    replay(doc, k);
    if (doc["evaluations"][k]["assignment"] == Json{{"B", 7}, {"S", 97}}) last = k;
  }
  ASSERT_LT(last, 12U);
  // The scores at B=7, S=97: 7*97*97 floats, rounded up to 64 bytes.
  bool found = false;
  for (std::size_t i = 0; i < doc["buffers"].size(); ++i) {
    const Json& b = doc["buffers"][i];
    if (b["kind"] == "tensor" && b["values"][0] == "scores") {
      found = true;
      EXPECT_EQ(doc["evaluations"][last]["sizes"][i], (7 * 97 * 97 * 4 + 63) / 64 * 64);
    }
  }
  EXPECT_TRUE(found);
  // The floor is what no layout beats.
  for (const Json& e : doc["evaluations"]) EXPECT_GE(e["arena"], e["floor"]);
}

TEST_F(Plan, TheCheckPassesAndReportsTheFloor) {
  const Json doc = plan_json("--check 2000 --bounds B=1:64 --bounds S=1:512");
  const Json& c = doc["check"];
  EXPECT_EQ(c["checked"], 2000);
  EXPECT_EQ(c["overlaps"], 0);
  EXPECT_EQ(c["outside"], 0);
  EXPECT_EQ(c["sampled"]["S"], Json::array({1, 512}));
  EXPECT_GE(c["arena_over_floor"]["median"].get<double>(), 1.0);
  EXPECT_LE(c["arena_over_floor"]["median"].get<double>(), 1.10);
  EXPECT_EQ(c["over_no_reuse"], 0);
}

TEST_F(Plan, TheTableListsBuffersAndTheCheck) {
  const test::RunResult r =
      run_cctx("plan " + quoted(model_) + " --eval B=2,S=3 --check 100 --no-scratch --align 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "Memory plan of")) << r.out;
  EXPECT_TRUE(contains(r.out, "sizes aligned to 1 bytes\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "at B=2,S=3: arena ")) << r.out;
  EXPECT_TRUE(contains(r.out, "offset+size @B=2,S=3")) << r.out;
  EXPECT_TRUE(contains(r.out, "check: 100 assignments checked")) << r.out;
  EXPECT_TRUE(contains(r.out, "overlaps: 0, buffers outside the arena: 0")) << r.out;
  EXPECT_FALSE(contains(r.out, "scratch of node")) << r.out;
}

TEST_F(Plan, TheHtmlPageDrawsEveryBuffer) {
  const test::RunResult r = run_cctx("plan " + quoted(model_) + " --format html --eval B=2,S=5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc = plan_json("--eval B=2,S=5");
  std::size_t drawn = 0;
  for (std::size_t from = 0;
       (from = r.out.find("<rect class=\"buffer\"", from)) != std::string::npos; ++from) {
    ++drawn;
  }
  std::size_t sized = 0;
  for (const Json& s : doc["evaluations"][0]["sizes"]) sized += s.get<std::int64_t>() > 0;
  EXPECT_EQ(drawn, sized);
  EXPECT_TRUE(contains(r.out, "data-kind=\"memory-plan\"")) << r.out.substr(0, 400);
  EXPECT_FALSE(contains(r.out, "\\x0a")) << r.out.substr(0, 1200);  // no escaped newline
}

TEST_F(Plan, Refusals) {
  expect_error(run_cctx("plan " + quoted(model_) + " --format csv"), 2, {"--format"});
  expect_error(run_cctx("plan " + quoted(model_) + " --format html"), 2, {"--eval"});
  expect_error(run_cctx("plan " + quoted(model_) + " --align 0"), 2, {"--align"});
  expect_error(run_cctx("plan " + quoted(model_) + " --check -3"), 2, {"--check"});
  expect_error(run_cctx("plan " + quoted(model_) + " --eval Q=3"), 2, {"'Q'", "B, S"});
  expect_error(run_cctx("plan " + quoted(dir_ / "missing.onnx")), 3, {"missing.onnx"});
}

}  // namespace
}  // namespace cctx
