// The com.microsoft plugin and its non-attention operators through the real pipeline: the plugin
// listing, contrib activations, BiasAdd, the matrix products (FusedMatMul, MatMulNBits, quantized
// MatMuls), (De)QuantizeLinear, GatherBlockQuantized, FusedConv, NhwcConv, Range, Trilu and
// BeamSearch.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "microsoft_test_support.hpp"
#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::attr;
using test::Dims;
using test::kFloat;
using test::kFloat16;
using test::kInt32;
using test::kInt64;
using test::kInt8;
using test::kUint8;
using test::ModelBuilder;

using Ints = std::vector<std::int64_t>;

using test::kMs;
using test::ms_model;
using test::ruled;

// ---- plugin -------------------------------------------------------------------------------------

TEST(MicrosoftPlugin, DefaultProfileListsTheContribDomain) {
  test::RunResult r = test::run_cctx("plugins --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"name\": \"microsoft\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"domain\": \"com.microsoft\""), std::string::npos) << r.out;
  for (const char* op : {"Attention", "MultiHeadAttention", "GroupQueryAttention",
                         "SkipLayerNormalization", "MatMulNBits", "BeamSearch"}) {
    EXPECT_NE(r.out.find("\"com.microsoft::" + std::string(op) + "\""), std::string::npos) << op;
  }
}

// ---- activations --------------------------------------------------------------------------------

TEST(MicrosoftActivations, KeepTheInputShape) {
  ModelBuilder b = ms_model();
  b.input("X", kFloat, {"B", "S", 3072}).input("bias", kFloat, {3072});
  b.node("Gelu", {"X"}, {"g"}, {}, kMs);
  b.node("QuickGelu", {"X"}, {"q"}, {attr("alpha", 1.702f)}, kMs);
  b.node("FastGelu", {"X", "bias"}, {"f"}, {}, kMs);
  b.node("BiasGelu", {"X", "bias"}, {"bg"}, {}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  for (const char* v : {"g", "q", "f", "bg"}) {
    EXPECT_EQ(a.dims(v), (Dims{"B", "S", "3072"})) << v;
    EXPECT_EQ(a.dtype(v), kFloat) << v;
  }
}

TEST(MicrosoftActivations, BiasMustMatchTheLastDim) {
  ModelBuilder b = ms_model();
  b.input("X", kFloat, {"B", 64}).input("bias", kFloat, {32});
  b.node("FastGelu", {"X", "bias"}, {"Y"}, {}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(a.has_warning("bias length differs from the last dim of the input: 64 vs 32"))
      << a.warnings();
}

TEST(MicrosoftActivations, OnlyFastGeluWritesOverItsInput) {
  ModelBuilder b = ms_model();
  b.input("X", kFloat, {"N", 16});
  b.node("Relu", {"X"}, {"A"});
  b.node("FastGelu", {"A"}, {"F"}, {}, kMs);
  b.node("Relu", {"X"}, {"C"});
  b.node("Gelu", {"C"}, {"G"}, {}, kMs);
  b.output("F").output("G");
  auto a = test::analyze(b);
  ASSERT_EQ(a.ctx->inplace(1).size(), 1u);
  EXPECT_EQ(a.ctx->inplace(1)[0].input, 0u);
  EXPECT_TRUE(a.ctx->inplace(3).empty());  // onnxruntime's contrib Gelu allocates its output
}

TEST(MicrosoftBiasAdd, AddsBiasAndSkip) {
  ModelBuilder b = ms_model();
  b.input("X", kFloat16, {"N", "HW", 320}).input("bias", kFloat16, {320});
  b.input("skip", kFloat16, {"N", "HW", 320});
  b.node("BiasAdd", {"X", "bias", "skip"}, {"Y"}, {}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "HW", "320"}));
  EXPECT_EQ(a.dtype("Y"), kFloat16);
}

// ---- matrix products ----------------------------------------------------------------------------

TEST(MicrosoftFusedMatMul, TransposeFlags) {
  ModelBuilder b = ms_model();
  b.input("A", kFloat, {"B", "S", 64}).input("W", kFloat, {64, 256}).input("Wt", kFloat, {256, 64});
  b.input("Q", kFloat, {"B", 8, "S", 32}).input("K", kFloat, {"B", 8, "L", 32});
  b.input("X", kFloat, {"S", "B", 64});
  b.node("FusedMatMul", {"A", "W"}, {"Y1"}, {attr("alpha", 0.5f)}, kMs);
  b.node("FusedMatMul", {"A", "Wt"}, {"Y2"}, {attr("transB", 1)}, kMs);
  b.node("FusedMatMul", {"Q", "K"}, {"Y3"}, {attr("transB", 1)}, kMs);
  // transBatchA: [S, B, 64] is read as batch [B], matrix [S, 64].
  b.node("FusedMatMul", {"X", "W"}, {"Y4"}, {attr("transBatchA", 1)}, kMs);
  b.node("FusedMatMul", {"X", "W"}, {"Y5"}, {attr("transBatchA", 1), attr("transA", 1)}, kMs);
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y1"), (Dims{"B", "S", "256"}));
  EXPECT_EQ(a.dims("Y2"), (Dims{"B", "S", "256"}));
  EXPECT_EQ(a.dims("Y3"), (Dims{"B", "8", "S", "L"}));
  EXPECT_EQ(a.dims("Y4"), (Dims{"B", "S", "256"}));
  EXPECT_EQ(a.dims("Y5"), (Dims{"B", "64", "256"}));  // [64, S] @ [64, 256] assumes S = 64
  EXPECT_FALSE(a.ctx->constraints().empty());
}

TEST(MicrosoftMatMulNBits, OutputFeaturesFromN) {
  ModelBuilder b = ms_model();
  b.input("A", kFloat16, {"B", "S", 4096}).input("Bq", kUint8, {11008, 128, 16});
  b.input("scales", kFloat16, {11008, 128});
  b.node("MatMulNBits", {"A", "Bq", "scales"}, {"Y"},
         {attr("K", 4096), attr("N", 11008), attr("bits", 4), attr("block_size", 32)}, kMs);
  b.node("MatMulNBits", {"A", "Bq", "scales"}, {"Z"},
         {attr("K", 2048), attr("N", 11008), attr("block_size", 32)}, kMs, "wrong_k");
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"B", "S", "11008"}));
  EXPECT_EQ(a.dtype("Y"), kFloat16);
  EXPECT_TRUE(a.has_warning("A's last dim differs from K: 4096 vs 2048")) << a.warnings();
}

TEST(MicrosoftQuantizedMatMul, OutputTypes) {
  ModelBuilder b = ms_model();
  b.input("A", kFloat, {"B", "S", 64}).input("Bq", kInt8, {64, 32}).input("s", kFloat, {});
  b.input("Aq", kUint8, {"B", "S", 64}).input("s16", kFloat16, {});
  b.input("A8", kInt8, {"B", "S", 64});
  b.node("DynamicQuantizeMatMul", {"A", "Bq", "s"}, {"Y1"}, {}, kMs);
  b.node("MatMulIntegerToFloat", {"Aq", "Bq", "s16", "s16"}, {"Y2"}, {}, kMs);
  b.node("QOrderedMatMul", {"A8", "s", "Bq", "s", "s"}, {"Y3"},
         {attr("order_A", 1), attr("order_B", 0), attr("order_Y", 1)}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  for (const char* v : {"Y1", "Y2", "Y3"}) EXPECT_EQ(a.dims(v), (Dims{"B", "S", "32"})) << v;
  EXPECT_EQ(a.dtype("Y1"), kFloat);
  EXPECT_EQ(a.dtype("Y2"), kFloat16);
  EXPECT_EQ(a.dtype("Y3"), kInt8);
}

// ---- quantization -------------------------------------------------------------------------------

TEST(MicrosoftQuantization, QuantizeAndDequantizeLinear) {
  ModelBuilder b = ms_model();
  b.input("X", kFloat, {"N", 64}).input("s", kFloat, {}).input("zp", kInt8, {});
  b.input("sc", kFloat, {64});
  b.node("QuantizeLinear", {"X", "s", "zp"}, {"q"}, {}, kMs);
  b.node("QuantizeLinear", {"X", "s"}, {"q8"}, {}, kMs);
  b.node("DequantizeLinear", {"q", "sc"}, {"d"}, {attr("axis", 1)}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("q"), (Dims{"N", "64"}));
  EXPECT_EQ(a.dtype("q"), kInt8);
  EXPECT_EQ(a.dtype("q8"), kUint8);
  EXPECT_EQ(a.dims("d"), (Dims{"N", "64"}));
  EXPECT_EQ(a.dtype("d"), kFloat);
}

TEST(MicrosoftGatherBlockQuantized, GathersRowsAndUnpacksBytes) {
  ModelBuilder b = ms_model();
  b.input("ids", kInt64, {"B", "S"});
  b.input("table", kUint8, {32000, 2048}).input("scales", kFloat16, {32000, 128});
  b.node("GatherBlockQuantized", {"table", "ids", "scales"}, {"E"},
         {attr("bits", 4), attr("block_size", 32), attr("quantize_axis", 1)}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("E"), (Dims{"B", "S", "4096"}));  // two 4-bit values per byte
  EXPECT_EQ(a.dtype("E"), kFloat16);
}

// ---- convolutions -------------------------------------------------------------------------------

TEST(MicrosoftConv, FusedConvAndNhwcConv) {
  ModelBuilder b = ms_model();
  b.input("X", kFloat, {"N", 3, "H", "W"}).input("Xh", kFloat16, {"N", "H", "W", 3});
  b.input("Wt", kFloat, {16, 3, 3, 3}).input("Wh", kFloat16, {16, 3, 3, 3});
  b.node("FusedConv", {"X", "Wt"}, {"Y"},
         {attr("activation", "Relu"), attr("pads", Ints{1, 1, 1, 1}), attr("strides", Ints{2, 2})},
         kMs);
  b.node("NhwcConv", {"Xh", "Wh"}, {"Yh"}, {attr("auto_pad", "SAME_UPPER")}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "16", "(H+1)//2", "(W+1)//2"}));
  EXPECT_EQ(a.dims("Yh"), (Dims{"N", "H", "W", "16"}));
  EXPECT_EQ(a.dtype("Yh"), kFloat16);
}

// ---- Range, Trilu -------------------------------------------------------------------------------

TEST(MicrosoftMisc, RangeAndTrilu) {
  ModelBuilder b = ms_model();
  b.input("X", kFloat, {"B", "S", "S"});
  b.initializer(test::tensor_ints("zero", {0}, {}));
  b.initializer(test::tensor_ints("ten", {10}, {}));
  b.initializer(test::tensor_ints("three", {3}, {}));
  b.node("Range", {"zero", "ten", "three"}, {"r"}, {}, kMs);
  b.node("Range", {"zero", "ten"}, {"r1"}, {}, kMs);  // delta defaults to 1
  b.node("Trilu", {"X"}, {"T"}, {attr("upper", 0)}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("r"), (Dims{"4"}));
  EXPECT_EQ(a.value("r"), (Dims{"0", "3", "6", "9"}));
  EXPECT_EQ(a.dims("r1"), (Dims{"10"}));
  EXPECT_EQ(a.dims("T"), (Dims{"B", "S", "S"}));
}

// ---- BeamSearch ---------------------------------------------------------------------------------

/// A trivial decoder body: BeamSearch's shape rule does not read it.
onnx::GraphProto decoder_body() {
  test::GraphBuilder g;
  g.input("ids", kInt32, {"b", "s"});
  g.node("Identity", {"ids"}, {"out"});
  g.output("out", kInt32, {"b", "s"});
  return g.graph();
}

TEST(MicrosoftBeamSearch, ShapesFromTheScalarInputs) {
  ModelBuilder b = ms_model();
  b.input("ids", kInt32, {"B", "S"});
  b.initializer(test::tensor_ints("max_length", {64}, {1}, kInt32));
  b.initializer(test::tensor_ints("min_length", {1}, {1}, kInt32));
  b.initializer(test::tensor_ints("beams", {4}, {1}, kInt32));
  b.initializer(test::tensor_ints("returned", {2}, {1}, kInt32));
  b.input("penalty", kFloat, {1});
  b.node("BeamSearch", {"ids", "max_length", "min_length", "beams", "returned", "penalty"},
         {"sequences", "sequences_scores", "scores"},
         {attr("decoder", decoder_body()), attr("eos_token_id", 2), attr("pad_token_id", 0),
          attr("vocab_size", 50257)},
         kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("sequences"), (Dims{"B", "2", "64"}));
  EXPECT_EQ(a.dtype("sequences"), kInt32);
  EXPECT_EQ(a.dims("sequences_scores"), (Dims{"B", "2"}));
  EXPECT_EQ(a.dims("scores"), (Dims{"-S+64", "B", "4", "50257"}));
  EXPECT_EQ(a.dtype("scores"), kFloat);
}

TEST(MicrosoftBeamSearch, InputsThatBecomeDimsAreTaggedShape) {
  ModelBuilder b = ms_model();
  b.input("ids", kInt32, {"B", "S"}).input("max_length", kInt32, {1});
  b.input("min_length", kInt32, {1}).input("beams", kInt32, {1}).input("returned", kInt32, {1});
  b.node("BeamSearch", {"ids", "max_length", "min_length", "beams", "returned"}, {"sequences"},
         {attr("decoder", decoder_body()), attr("eos_token_id", 2), attr("pad_token_id", 0)}, kMs);
  auto a = test::analyze(b);
  for (const char* v : {"max_length", "beams", "returned"}) {
    EXPECT_EQ(a.ctx->value_tag(a.id(v)), Tag::kShape) << v;
  }
  EXPECT_EQ(a.ctx->value_tag(a.id("min_length")), Tag::kWeight);  // bounds, not a dim
  EXPECT_EQ(a.ctx->value_tag(a.id("sequences")), Tag::kWeight);   // inherited from input_ids
}

TEST(MicrosoftBeamSearch, UnknownValuesBecomeSharedSymbols) {
  ModelBuilder b = ms_model();
  b.input("ids", kInt32, {"B", "S"}).input("max_length", kInt32, {1});
  b.input("beams", kInt32, {1}).input("returned", kInt32, {1});
  b.node("BeamSearch", {"ids", "max_length", "", "beams", "returned"},
         {"sequences", "sequences_scores"},
         {attr("decoder", decoder_body()), attr("eos_token_id", 2), attr("pad_token_id", 0)}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  const Dims seq = a.dims("sequences");
  ASSERT_EQ(seq.size(), 3u);
  EXPECT_EQ(seq[0], "B");
  EXPECT_EQ(a.dims("sequences_scores"), (Dims{"B", seq[1]}));  // the same fresh R
}

}  // namespace
}  // namespace cctx
