// The runtime's graph rewrites through the real binary (docs/design/rewrites.md): the shipped
// onnxruntime-cpu-no-arena profile plans a residual block as ONNX Runtime runs it at
// level all, and every report says so; the unoptimised profile's reports are unchanged.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::contains;
using test::quoted;
using test::run_cctx;
using Json = nlohmann::json;

class Rewrites : public ::testing::Test {
 protected:
  void SetUp() override {
    // x -> Conv -> r0 -> Conv -> BatchNormalization -> Relu -> Conv -> Add(r0) -> Relu ->
    // Identity -> y: a residual block with 16 channels (one AVX-512 NCHWc block).
    test::ModelBuilder b(17);
    b.input("x", test::kFloat, {"N", std::int64_t{16}, "H", "W"});
    const std::vector<std::int64_t> pads{1, 1, 1, 1};
    b.initializer(test::tensor_zeros("w0", test::kFloat, {16, 16, 1, 1}));
    b.initializer(test::tensor_zeros("w1", test::kFloat, {16, 16, 3, 3}));
    b.initializer(test::tensor_zeros("w2", test::kFloat, {16, 16, 3, 3}));
    for (const char* p : {"s", "t", "m", "v"}) {
      b.initializer(test::tensor_zeros(p, test::kFloat, {16}));
    }
    b.node("Conv", {"x", "w0"}, {"r0"}, {}, "", "conv0");
    b.node("Conv", {"r0", "w1"}, {"c1"}, {test::attr("pads", pads)}, "", "conv1");
    b.node("BatchNormalization", {"c1", "s", "t", "m", "v"}, {"b1"}, {}, "", "bn1");
    b.node("Relu", {"b1"}, {"r1"}, {}, "", "relu1");
    b.node("Conv", {"r1", "w2"}, {"c2"}, {test::attr("pads", pads)}, "", "conv2");
    b.node("Add", {"c2", "r0"}, {"a"}, {}, "", "add");
    b.node("Relu", {"a"}, {"r2"}, {}, "", "relu2");
    b.node("Identity", {"r2"}, {"y"}, {}, "", "out");
    b.output("y", test::kFloat);
    test::write_file(model_, b.build().proto().SerializeAsString());
  }
  Json report(const std::string& profile) const {
    const test::RunResult r = run_cctx("analyze " + quoted(model_) + " --profile " + profile +
                                       " --format json --eval N=2,H=9,W=11");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json::parse(r.out);
  }
  test::TempDir dir_;
  std::filesystem::path model_ = dir_ / "rewrite_block.onnx";
};

TEST_F(Rewrites, OptimizedProfilePlansTheGraphOnnxRuntimeRuns) {
  const Json j = report("onnxruntime-cpu-no-arena");
  // Conv, Conv+BN+Relu and Conv+Add+Relu as three NCHWc Convs, the last adding r0 itself (its
  // Sum input); the Identity goes (the graph output is written directly), and a ReorderOutput
  // writes y from the last Conv's blocked result.
  ASSERT_EQ(j["nodes"].size(), 4u);
  EXPECT_EQ(j["nodes"][1]["domain"], "com.microsoft.nchwc");
  EXPECT_EQ(j["nodes"][1]["rewritten_from"]["nodes"], Json({"conv1", "bn1", "relu1"}));
  EXPECT_EQ(j["nodes"][1]["rewritten_from"]["rules"],
            Json({"ConvBNFusion", "ConvActivationFusion", "NchwcFusedConv"}));
  EXPECT_EQ(j["nodes"][2]["rewritten_from"]["nodes"], Json({"conv2", "add", "relu2"}));
  EXPECT_EQ(j["nodes"][2]["inputs"], Json({"r1", "w2", "", "r0"}));
  EXPECT_EQ(j["nodes"][3]["op_type"], "ReorderOutput");
  EXPECT_EQ(j["nodes"][3]["outputs"], Json({"y"}));
  EXPECT_EQ(j["rewrites"]["nodes_before"], 8);
  EXPECT_EQ(j["rewrites"]["nodes_after"], 4);
  EXPECT_EQ(j["rewrites"]["initializers_dropped"], 4);  // the BatchNormalization's

  // Run memory: fewer buffers than the unoptimised plan, and at least r1 and the output (x is a
  // graph input, which the NCHWc Conv does not write into).
  const std::int64_t buffer = std::int64_t{2} * 16 * 9 * 11 * 4;  // N*16*H*W floats
  const Json& ev = j["peak"]["evaluations"][0];
  const Json plain = report("onnxruntime-cpu-unoptimized-no-arena")["peak"]["evaluations"][0];
  EXPECT_LT(ev["run_bytes"].get<std::int64_t>(), plain["run_bytes"].get<std::int64_t>());
  EXPECT_GE(ev["run_bytes"].get<std::int64_t>(), 2 * buffer);

  const test::RunResult table =
      run_cctx("analyze " + quoted(model_) + " --profile onnxruntime-cpu-no-arena");
  EXPECT_TRUE(
      contains(table.out,
               "Graph as the runtime rewrites it before planning: 8 nodes -> 4 (ConvBNFusion x1, "
               "IdentityEliminationAtGraphOutput x1, ConvActivationFusion x1, NchwcConv x2, "
               "NchwcFusedConv x1, NchwcConvSumFusion x1, NchwcConvReluFusion x1, "
               "NchwcReorderGraphOutput x1)"))
      << table.out;
  const test::RunResult explain =
      run_cctx("explain " + quoted(model_) + " 2 --profile onnxruntime-cpu-no-arena");
  EXPECT_TRUE(contains(explain.out,
                       "the runtime's rewrite of the model's nodes conv2, add, relu2 "
                       "(NchwcConv, NchwcConvSumFusion, NchwcConvReluFusion, "
                       "NchwcReorderGraphOutput)"))
      << explain.out << explain.err;
}

TEST_F(Rewrites, UnoptimizedProfileAndTheSeedsAreUntouched) {
  for (const char* profile : {"onnxruntime-cpu-unoptimized-no-arena", "default"}) {
    const Json j = report(profile);
    EXPECT_EQ(j["nodes"].size(), 8u) << profile;
    EXPECT_FALSE(j.contains("rewrites")) << profile;
  }
}

TEST_F(Rewrites, PluginsListsTheRewritesAProfileRegisters) {
  const test::RunResult r = run_cctx("plugins --profile onnxruntime-cpu");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "graph rewrites (pass: pattern => replacement):")) << r.out;
  EXPECT_TRUE(contains(r.out, "    0 IdentityElimination: y = Identity(x) => y = x\n")) << r.out;
  EXPECT_TRUE(contains(r.out, " NchwcConvSumFusion: c = com.microsoft.nchwc:Conv{!activation}"))
      << r.out;
  const test::RunResult json = run_cctx("plugins --profile onnxruntime-cpu --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  bool listed = false;
  for (const Json& p : Json::parse(json.out)) {
    if (p.contains("rewrites")) listed = p["name"] == "onnxruntime" && p["rewrites"].size() > 10;
  }
  EXPECT_TRUE(listed) << json.out;
  // With optimisation off ONNX Runtime still inlines the functions of operators without a CPU
  // kernel, and nothing else.
  const test::RunResult lab = run_cctx("plugins --profile onnxruntime-cpu-unoptimized");
  EXPECT_TRUE(contains(lab.out, "    0 FunctionInlining(HardSwish): y = HardSwish(x) => "))
      << lab.out;
  EXPECT_FALSE(contains(lab.out, "IdentityElimination")) << lab.out;
}

TEST_F(Rewrites, AnUnknownLevelIsOneLineNamingThePlugin) {
  const std::filesystem::path profile = dir_ / "fast.yaml";
  test::write_file(profile,
                   "plugins:\n  - name: onnx\n  - name: microsoft\n  - name: onnxruntime\n"
                   "    override: true\n    options: {graph_optimization: fastest}\n");
  const test::RunResult r = run_cctx("analyze " + quoted(model_) + " --profile " + quoted(profile));
  test::expect_error(r, 3,
                     {"onnxruntime",
                      "option 'graph_optimization' must be disabled, basic, "
                      "extended or all"});
}

TEST_F(Rewrites, AnnotationsOfARewrittenGraphAreRefused) {
  const test::RunResult r =
      run_cctx("analyze " + quoted(model_) + " --profile onnxruntime-cpu-no-arena " +
               "--write-model " + quoted(dir_ / "annotated.onnx"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "the profile's runtime rewrote the graph")) << r.err;
}

}  // namespace
}  // namespace cctx
