// The com.microsoft.nchwc operators (ONNX Runtime's blocked-layout CNN graph) through the real
// pipeline: every operator's output dims with symbolic N/H/W, channel counts padded up to the
// block size 8, and a ReorderInput -> Conv -> MaxPool -> GlobalAveragePool -> ReorderOutput chain
// that analyses without fallback and evaluates to a number.
#include <gtest/gtest.h>

#include "microsoft_test_support.hpp"
#include "model_builder.hpp"

namespace cctx {
namespace {

using test::attr;
using test::Dims;
using test::kFloat;
using test::ModelBuilder;
using test::ruled;

constexpr const char* kNchwc = "com.microsoft.nchwc";

/// A model importing ai.onnx 17 and com.microsoft.nchwc 1.
ModelBuilder nchwc_model() {
  ModelBuilder b(17);
  b.opset(kNchwc, 1);
  return b;
}

TEST(MicrosoftNchwcReorder, InputPadsChannelsToTheBlock) {
  ModelBuilder b = nchwc_model();
  b.input("rgb", kFloat, {"N", 3, "H", "W"}).input("wide", kFloat, {"N", 20, "H", "W"});
  b.input("nhwc", kFloat, {"N", "H", "W", 16});
  b.node("ReorderInput", {"rgb"}, {"rgb_b"}, {}, kNchwc);
  b.node("ReorderInput", {"wide"}, {"wide_b"}, {}, kNchwc);
  b.node("ReorderInput", {"nhwc"}, {"nhwc_b"}, {attr("channels_last", 1)}, kNchwc);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("rgb_b"), (Dims{"N", "8", "H", "W"}));
  EXPECT_EQ(a.dims("wide_b"), (Dims{"N", "24", "H", "W"}));
  EXPECT_EQ(a.dims("nhwc_b"), (Dims{"N", "16", "H", "W"}));
  EXPECT_EQ(a.dtype("wide_b"), kFloat);
  EXPECT_EQ(a.warnings(), "");
}

TEST(MicrosoftNchwcReorder, OutputDropsThePadding) {
  ModelBuilder b = nchwc_model();
  b.input("X", kFloat, {"N", 24, "H", "W"});
  b.node("ReorderOutput", {"X"}, {"nchw"}, {attr("channels", 20)}, kNchwc);
  b.node("ReorderOutput", {"X"}, {"nhwc"}, {attr("channels", 20), attr("channels_last", 1)},
         kNchwc);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("nchw"), (Dims{"N", "20", "H", "W"}));
  EXPECT_EQ(a.dims("nhwc"), (Dims{"N", "H", "W", "20"}));
}

TEST(MicrosoftNchwcReorder, OutputChannelsMustFitTheBlockedTensor) {
  ModelBuilder b = nchwc_model();
  b.input("X", kFloat, {"N", 8, "H", "W"});
  b.node("ReorderOutput", {"X"}, {"Y"}, {attr("channels", 9)}, kNchwc);
  b.node("ReorderOutput", {"X"}, {"Z"}, {}, kNchwc);
  auto a = test::analyze(b);
  EXPECT_TRUE(a.has_warning("attribute 'channels' 9 exceeds the blocked channels 8"))
      << a.warnings();
  // Without `channels` (cctx's own rewrite into NCHWc leaves it out after a pool, whose
  // channels are whole blocks) the blocked count stands.
  EXPECT_EQ(a.dims("Z"), (test::Dims{"N", "8", "H", "W"}));
}

TEST(MicrosoftNchwcConv, NchwcBlockAttributePadsToItsBlock) {
  // cctx's rewrite writes the machine's block (16 with AVX-512) on the Convs it blocks: their
  // weights are the model's, unpadded. 20 maps pad to 32 (24 with the default 8).
  ModelBuilder b = nchwc_model();
  b.input("image", kFloat, {"N", 3, "H", "W"}).input("w1", kFloat, {20, 3, 1, 1});
  b.node("Conv", {"image", "w1"}, {"y16"}, {attr("nchwc_block", std::int64_t{16})}, kNchwc);
  b.node("Conv", {"image", "w1"}, {"y8"}, {}, kNchwc);
  b.node("Conv", {"image", "w1"}, {"bad"}, {attr("nchwc_block", std::int64_t{4})}, kNchwc);
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("y16"), (test::Dims{"N", "32", "H", "W"}));
  EXPECT_EQ(a.dims("y8"), (test::Dims{"N", "24", "H", "W"}));
  EXPECT_TRUE(a.has_warning("attribute 'nchwc_block' must be 8 or 16")) << a.warnings();
}

TEST(MicrosoftNchwcConv, PadsOutputChannelsAndFollowsConvSpatialSizes) {
  ModelBuilder b = nchwc_model();
  // The first layer reads the NCHW image (3 channels, below the block); 20 maps pad to 24.
  b.input("image", kFloat, {"N", 3, "H", "W"}).input("w1", kFloat, {20, 3, 3, 3});
  b.input("b1", kFloat, {20});
  b.node("Conv", {"image", "w1", "b1"}, {"same"},
         {attr("kernel_shape", std::vector<std::int64_t>{3, 3}),
          attr("pads", std::vector<std::int64_t>{1, 1, 1, 1}), attr("activation", "Relu")},
         kNchwc);
  b.node("Conv", {"image", "w1"}, {"strided"},
         {attr("strides", std::vector<std::int64_t>{2, 2}), attr("auto_pad", "SAME_UPPER")},
         kNchwc);
  b.node("Conv", {"image", "w1"}, {"valid"}, {}, kNchwc);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("same"), (Dims{"N", "24", "H", "W"}));
  EXPECT_EQ(a.dims("strided"), (Dims{"N", "24", "(H+1)//2", "(W+1)//2"}));
  EXPECT_EQ(a.dims("valid"), (Dims{"N", "24", "H-2", "W-2"}));
}

TEST(MicrosoftNchwcConv, BlockedInputAndFusedSumReusesItsBuffer) {
  ModelBuilder b = nchwc_model();
  b.input("X", kFloat, {"N", 16, "H", "W"}).input("w", kFloat, {16, 16, 1, 1});
  b.input("dw", kFloat, {16, 1, 3, 3});
  b.node("Conv", {"X", "dw"}, {"depthwise"},
         {attr("group", 16), attr("pads", std::vector<std::int64_t>{1, 1, 1, 1})}, kNchwc);
  b.node("Conv", {"X", "w", "", "depthwise"}, {"summed"}, {}, kNchwc);
  b.output("summed");
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("depthwise"), (Dims{"N", "16", "H", "W"}));
  EXPECT_EQ(a.dims("summed"), (Dims{"N", "16", "H", "W"}));
  // The kernel's MayInplace(3, 0): the Sum input dies here and has Y's size.
  ASSERT_EQ(a.ctx->inplace(1).size(), 1u);
  EXPECT_EQ(a.ctx->inplace(1)[0].input, 3u);
  EXPECT_EQ(a.print(a.ctx->memory(1).output_allocation), "0");
}

TEST(MicrosoftNchwcConv, ChannelMismatchIsAnError) {
  ModelBuilder b = nchwc_model();
  b.input("X", kFloat, {"N", 16, "H", "W"}).input("w", kFloat, {16, 8, 3, 3});
  b.node("Conv", {"X", "w"}, {"Y"}, {}, kNchwc);
  auto a = test::analyze(b);
  EXPECT_TRUE(a.has_warning("input channels differ from weight channels x group")) << a.warnings();
}

TEST(MicrosoftNchwcPool, WindowsAndGlobalPools) {
  ModelBuilder b = nchwc_model();
  b.input("X", kFloat, {"N", 24, "H", "W"}).input("odd", kFloat, {2, 8, 7, 7});
  b.input("tiny", kFloat, {2, 8, 1, 1});
  const auto k2 = attr("kernel_shape", std::vector<std::int64_t>{2, 2});
  const auto s2 = attr("strides", std::vector<std::int64_t>{2, 2});
  b.node("MaxPool", {"X"}, {"max"}, {k2, s2}, kNchwc);
  b.node("AveragePool", {"X"}, {"avg"},
         {attr("kernel_shape", std::vector<std::int64_t>{3, 3}),
          attr("pads", std::vector<std::int64_t>{1, 1, 1, 1}), attr("count_include_pad", 1)},
         kNchwc);
  b.node("MaxPool", {"odd"}, {"floor"}, {k2, s2}, kNchwc);
  b.node("MaxPool", {"odd"}, {"ceil"}, {k2, s2, attr("ceil_mode", 1)}, kNchwc);
  // A window wider than the input by less than a stride: ONNX Runtime truncates, one output.
  b.node("MaxPool", {"tiny"}, {"truncated"}, {k2, s2}, kNchwc);
  b.node("GlobalAveragePool", {"X"}, {"gap"}, {}, kNchwc);
  b.node("GlobalMaxPool", {"X"}, {"gmp"}, {}, kNchwc);
  b.node("MaxPool", {"X"}, {"no_kernel"}, {}, kNchwc);
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("max"), (Dims{"N", "24", "max(1,H//2)", "max(1,W//2)"}));
  EXPECT_EQ(a.dims("avg"), (Dims{"N", "24", "H", "W"}));
  EXPECT_EQ(a.dims("floor"), (Dims{"2", "8", "3", "3"}));
  EXPECT_EQ(a.dims("ceil"), (Dims{"2", "8", "4", "4"}));
  EXPECT_EQ(a.dims("truncated"), (Dims{"2", "8", "1", "1"}));
  EXPECT_EQ(a.dims("gap"), (Dims{"N", "24", "1", "1"}));
  EXPECT_EQ(a.dims("gmp"), (Dims{"N", "24", "1", "1"}));
  EXPECT_TRUE(a.has_warning("missing required attribute 'kernel_shape'")) << a.warnings();
}

TEST(MicrosoftNchwcUpsample, ScalesEveryAxis) {
  ModelBuilder b = nchwc_model();
  b.input("X", kFloat, {"N", 16, "H", "W"});
  b.node("Upsample", {"X"}, {"Y"}, {attr("scales", std::vector<std::int64_t>{1, 1, 2, 3})}, kNchwc);
  b.node("Upsample", {"X"}, {"bad"}, {attr("scales", std::vector<std::int64_t>{2, 2})}, kNchwc);
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "16", "2*H", "3*W"}));
  EXPECT_TRUE(a.has_warning("attribute 'scales' has 2 values, expected 4")) << a.warnings();
}

/// ReorderInput -> Conv -> MaxPool -> GlobalAveragePool -> ReorderOutput, weights as
/// initializers: the memory of the graph ONNX Runtime runs, in N, H and W.
ModelBuilder chain() {
  ModelBuilder b = nchwc_model();
  b.input("image", kFloat, {"N", 4, "H", "W"});
  b.initializer(test::tensor_zeros("w", kFloat, {20, 8, 3, 3}));
  b.initializer(test::tensor_zeros("bias", kFloat, {24}));
  b.node("ReorderInput", {"image"}, {"blocked"}, {}, kNchwc);
  b.node("Conv", {"blocked", "w", "bias"}, {"conv"},
         {attr("kernel_shape", std::vector<std::int64_t>{3, 3}),
          attr("pads", std::vector<std::int64_t>{1, 1, 1, 1}), attr("activation", "Relu")},
         kNchwc);
  b.node("MaxPool", {"conv"}, {"pooled"},
         {attr("kernel_shape", std::vector<std::int64_t>{2, 2}),
          attr("strides", std::vector<std::int64_t>{2, 2})},
         kNchwc);
  b.node("GlobalAveragePool", {"pooled"}, {"gap"}, {}, kNchwc);
  b.node("ReorderOutput", {"gap"}, {"features"}, {attr("channels", 20)}, kNchwc);
  b.output("features");
  return b;
}

TEST(MicrosoftNchwcChain, AnalysesWithoutFallbackAndEvaluates) {
  auto a = test::analyze(chain());
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.warnings(), "");
  EXPECT_EQ(a.dims("blocked"), (Dims{"N", "8", "H", "W"}));
  EXPECT_EQ(a.dims("conv"), (Dims{"N", "24", "H", "W"}));
  EXPECT_EQ(a.dims("pooled"), (Dims{"N", "24", "max(1,H//2)", "max(1,W//2)"}));
  EXPECT_EQ(a.dims("features"), (Dims{"N", "20", "1", "1"}));
  const PeakEvaluation peak = a.ctx->evaluate_peak({{"N", 2}, {"H", 64}, {"W", 64}});
  // At the Conv: image 2*4*64*64, blocked 2*8*64*64 and conv 2*24*64*64 floats, the weights.
  const std::int64_t floats = 2 * 64 * 64 * (4 + 8 + 24);
  EXPECT_EQ(peak.bytes, 4 * (floats + 20 * 8 * 9 + 24));
  EXPECT_EQ(peak.node, 1);
}

}  // namespace
}  // namespace cctx
