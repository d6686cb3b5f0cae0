// The com.microsoft attention family through the real pipeline and the real plugins: Attention,
// PackedAttention, MultiHeadAttention (its four layouts), GroupQueryAttention and RotaryEmbedding,
// with present = past + new lengths, the scores scratch B*H*Sq*Skv*e (semantics.md "Peak scratch
// memory") and the past -> present buffer reuse of a shared KV cache.
#include <gtest/gtest.h>

#include <string>

#include "microsoft_test_support.hpp"
#include "model_builder.hpp"

namespace cctx {
namespace {

using test::attr;
using test::Dims;
using test::kFloat;
using test::kFloat16;
using test::kInt32;
using test::ModelBuilder;

using test::kMs;
using test::ms_model;
using test::ruled;

// ---- Attention ----------------------------------------------------------------------------------

TEST(MicrosoftAttention, BertSelfAttention) {
  ModelBuilder b = ms_model();
  b.input("X", kFloat, {"B", "S", 768})
      .input("W", kFloat, {768, 2304})
      .input("bias", kFloat, {2304});
  b.input("mask", kInt32, {"B", "S"});
  b.node("Attention", {"X", "W", "bias", "mask"}, {"Y"}, {attr("num_heads", 12)}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"B", "S", "768"}));
  EXPECT_EQ(a.dtype("Y"), kFloat);
  EXPECT_EQ(a.scratch(0), "48*B*S*S");  // B * 12 heads * S * S * 4 bytes
  EXPECT_EQ(a.warnings(), "");
}

TEST(MicrosoftAttention, PastGrowsIntoPresent) {
  ModelBuilder b = ms_model();
  b.input("X", kFloat, {"B", "S", 768})
      .input("W", kFloat, {768, 2304})
      .input("bias", kFloat, {2304});
  b.input("past", kFloat, {2, "B", 12, "P", 64});
  b.node("Attention", {"X", "W", "bias", "", "past"}, {"Y", "present"},
         {attr("num_heads", 12), attr("unidirectional", 1)}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"B", "S", "768"}));
  EXPECT_EQ(a.dims("present"), (Dims{"2", "B", "12", "P+S", "64"}));
  EXPECT_EQ(a.scratch(0), "48*B*P*S+48*B*S*S");  // B * 12 * S * (P + S) * 4
}

TEST(MicrosoftAttention, PresentWithoutPastAndHalfPrecision) {
  ModelBuilder b = ms_model();
  b.input("X", kFloat16, {"B", "S", 256}).input("W", kFloat16, {256, 768});
  b.node("Attention", {"X", "W"}, {"Y", "present"}, {attr("num_heads", 4)}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"B", "S", "256"}));  // widths from the weights without a bias
  EXPECT_EQ(a.dims("present"), (Dims{"2", "B", "4", "S", "64"}));
  EXPECT_EQ(a.dtype("present"), kFloat16);
  EXPECT_EQ(a.scratch(0), "8*B*S*S");  // B * 4 * S * S * 2
}

TEST(MicrosoftAttention, QkvHiddenSizesGiveTheValueWidth) {
  ModelBuilder b = ms_model();
  b.input("X", kFloat, {"B", "S", 512})
      .input("W", kFloat, {512, 1280})
      .input("bias", kFloat, {1280});
  b.node("Attention", {"X", "W", "bias"}, {"Y"},
         {attr("num_heads", 8), attr("qkv_hidden_sizes", std::vector<std::int64_t>{512, 512, 256})},
         kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"B", "S", "256"}));
}

TEST(MicrosoftAttention, SharedBufferKeepsThePastShapeAndReusesIt) {
  ModelBuilder b = ms_model();
  b.input("X", kFloat, {"B", 1, 768}).input("W", kFloat, {768, 2304}).input("bias", kFloat, {2304});
  b.input("cache", kFloat, {2, "B", 12, "M", 64});
  b.initializer(test::tensor_ints("past_len", {7}, {1}, kInt32));
  b.node("Relu", {"cache"}, {"past"});  // an intermediate: graph inputs are never overwritten
  b.node("Attention", {"X", "W", "bias", "", "past", "", "past_len"}, {"Y", "present"},
         {attr("num_heads", 12), attr("past_present_share_buffer", 1)}, kMs);
  b.output("Y").output("present");
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("present"), (Dims{"2", "B", "12", "M", "64"}));
  ASSERT_EQ(a.ctx->inplace(1).size(), 1u);
  EXPECT_EQ(a.ctx->inplace(1)[0].output, 1u);
  EXPECT_EQ(a.ctx->inplace(1)[0].input, 4u);
  EXPECT_EQ(a.scratch(1), "384*B");  // B * 12 * 1 * (7 past + 1 new) * 4
}

TEST(MicrosoftAttention, GrowingPresentIsNotReused) {
  ModelBuilder b = ms_model();
  b.input("X", kFloat, {"B", "S", 64}).input("W", kFloat, {64, 192});
  b.input("cache", kFloat, {2, "B", 2, "P", 32});
  b.node("Relu", {"cache"}, {"past"});
  b.node("Attention", {"X", "W", "", "", "past"}, {"Y", "present"}, {attr("num_heads", 2)}, kMs);
  b.output("Y").output("present");
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("present"), (Dims{"2", "B", "2", "P+S", "32"}));
  EXPECT_TRUE(a.ctx->inplace(1).empty());  // no policy without a shared buffer
}

TEST(MicrosoftAttention, ContractViolations) {
  ModelBuilder b = ms_model();
  b.input("X", kFloat, {"B", "S", 768}).input("W", kFloat, {768, 2304});
  b.input("W2", kFloat, {768, 2300}).input("W3", kFloat, {512, 2304});
  b.node("Attention", {"X", "W"}, {"Y1"}, {}, kMs, "no_heads");
  b.node("Attention", {"X", "W"}, {"Y2"}, {attr("num_heads", 5)}, kMs, "uneven_heads");
  b.node("Attention", {"X", "W2"}, {"Y3"}, {attr("num_heads", 4)}, kMs, "uneven_thirds");
  b.node("Attention", {"X", "W3"}, {"Y4"}, {attr("num_heads", 4)}, kMs, "bad_rows");
  auto a = test::analyze(b);
  EXPECT_TRUE(a.has_warning("missing required attribute 'num_heads'")) << a.warnings();
  EXPECT_TRUE(a.has_warning("does not split into 5 heads")) << a.warnings();
  EXPECT_TRUE(a.has_warning("projection width does not split into Q, K and V")) << a.warnings();
  EXPECT_TRUE(a.has_warning("input hidden size and weights rows differ: 768 vs 512"))
      << a.warnings();
}

TEST(MicrosoftAttention, PackedAttentionScoresFromTokenOffset) {
  ModelBuilder b = ms_model();
  b.input("X", kFloat, {"T", 768}).input("W", kFloat, {768, 2304}).input("bias", kFloat, {2304});
  b.input("offset", kInt32, {"B", "S"}).input("cumulative", kInt32, {"B1"});
  b.node("PackedAttention", {"X", "W", "bias", "offset", "cumulative"}, {"Y"},
         {attr("num_heads", 12)}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"T", "768"}));
  EXPECT_EQ(a.scratch(0), "48*B*S*S");
}

// ---- MultiHeadAttention -------------------------------------------------------------------------

TEST(MicrosoftMultiHeadAttention, SeparateQkvWithPast) {
  ModelBuilder b = ms_model();
  b.input("Q", kFloat, {"B", "S", 512}).input("K", kFloat, {"B", "L", 512});
  b.input("V", kFloat, {"B", "L", 256});
  b.input("pk", kFloat, {"B", 8, "P", 64}).input("pv", kFloat, {"B", 8, "P", 32});
  b.node("MultiHeadAttention", {"Q", "K", "V", "", "", "", "pk", "pv"}, {"Y", "k", "v", "qk"},
         {attr("num_heads", 8)}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"B", "S", "256"}));
  EXPECT_EQ(a.dims("k"), (Dims{"B", "8", "L+P", "64"}));
  EXPECT_EQ(a.dims("v"), (Dims{"B", "8", "L+P", "32"}));
  EXPECT_EQ(a.dims("qk"), (Dims{"B", "8", "S", "L+P"}));
  EXPECT_EQ(a.scratch(0), "32*B*L*S+32*B*P*S");  // B * 8 * S * (P + L) * 4
  EXPECT_EQ(a.warnings(), "");
}

TEST(MicrosoftMultiHeadAttention, PackedQkv) {
  ModelBuilder b = ms_model();
  b.input("QKV", kFloat, {"B", "S", 8, 3, 64});
  b.node("MultiHeadAttention", {"QKV"}, {"Y", "k", "v"}, {attr("num_heads", 8)}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"B", "S", "512"}));
  EXPECT_EQ(a.dims("k"), (Dims{"B", "8", "S", "64"}));
  EXPECT_EQ(a.scratch(0), "32*B*S*S");
}

TEST(MicrosoftMultiHeadAttention, PackedKvAndCachedCrossAttention) {
  ModelBuilder b = ms_model();
  b.input("Q", kFloat, {"B", "S", 512}).input("KV", kFloat, {"B", "L", 8, 2, 64});
  b.input("K4", kFloat, {"B", 8, "F", 64}).input("V4", kFloat, {"B", 8, "F", 64});
  b.node("MultiHeadAttention", {"Q", "KV"}, {"Y1"}, {attr("num_heads", 8)}, kMs);
  b.node("MultiHeadAttention", {"Q", "K4", "V4"}, {"Y2", "k2", "v2"}, {attr("num_heads", 8)}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y1"), (Dims{"B", "S", "512"}));
  EXPECT_EQ(a.dims("Y2"), (Dims{"B", "S", "512"}));
  EXPECT_EQ(a.dims("k2"), (Dims{"B", "8", "F", "64"}));  // cached keys are not concatenated
  EXPECT_EQ(a.scratch(0), "32*B*L*S");
  EXPECT_EQ(a.scratch(1), "32*B*F*S");
}

TEST(MicrosoftMultiHeadAttention, SharedBufferReusesThePast) {
  ModelBuilder b = ms_model();
  b.input("Q", kFloat, {"B", 1, 512}).input("K", kFloat, {"B", 1, 512});
  b.input("ck", kFloat, {"B", 8, "M", 64}).input("cv", kFloat, {"B", 8, "M", 64});
  b.input("past_len", kInt32, {1});
  b.node("Relu", {"ck"}, {"pk"});
  b.node("Relu", {"cv"}, {"pv"});
  b.node("MultiHeadAttention", {"Q", "K", "K", "", "", "", "pk", "pv", "past_len"}, {"Y", "k", "v"},
         {attr("num_heads", 8)}, kMs);
  b.output("Y").output("k").output("v");
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("k"), (Dims{"B", "8", "M", "64"}));
  ASSERT_EQ(a.ctx->inplace(2).size(), 2u);
  EXPECT_EQ(a.ctx->inplace(2)[0].input, 6u);
  EXPECT_EQ(a.ctx->inplace(2)[1].input, 7u);
  EXPECT_EQ(a.scratch(2), "32*B*M");  // past_sequence_length unknown: the whole buffer
}

TEST(MicrosoftMultiHeadAttention, ContractViolations) {
  ModelBuilder b = ms_model();
  b.input("Q", kFloat, {"B", "S", 512}).input("K", kFloat, {"B", "L", 256});
  b.node("MultiHeadAttention", {"Q"}, {"Y1"}, {attr("num_heads", 8)}, kMs, "no_key");
  b.node("MultiHeadAttention", {"Q", "K", "K"}, {"Y2"}, {attr("num_heads", 8)}, kMs, "heads");
  auto a = test::analyze(b);
  EXPECT_TRUE(a.has_warning("a 3-D query needs a key")) << a.warnings();
  EXPECT_TRUE(a.has_warning("query and key head sizes differ: 64 vs 32")) << a.warnings();
}

// ---- GroupQueryAttention ------------------------------------------------------------------------

TEST(MicrosoftGroupQueryAttention, PresentIsPastPlusNewWithoutTotalValue) {
  ModelBuilder b = ms_model();
  b.input("Q", kFloat16, {"B", "S", 4096}).input("K", kFloat16, {"B", "S", 1024});
  b.input("V", kFloat16, {"B", "S", 1024});
  b.input("pk", kFloat16, {"B", 8, "P", 128}).input("pv", kFloat16, {"B", 8, "P", 128});
  b.input("seqlens_k", kInt32, {"B"}).input("total", kInt32, {});
  b.node("GroupQueryAttention", {"Q", "K", "V", "pk", "pv", "seqlens_k", "total"}, {"Y", "k", "v"},
         {attr("num_heads", 32), attr("kv_num_heads", 8)}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"B", "S", "4096"}));
  EXPECT_EQ(a.dims("k"), (Dims{"B", "8", "P+S", "128"}));
  EXPECT_EQ(a.dims("v"), (Dims{"B", "8", "P+S", "128"}));
  EXPECT_EQ(a.dtype("k"), kFloat16);
  EXPECT_EQ(a.scratch(0), "64*B*P*S+64*B*S*S");  // B * 32 * S * (P + S) * 2
  EXPECT_EQ(a.warnings(), "");
}

TEST(MicrosoftGroupQueryAttention, KnownTotalLengthBoundsASharedBuffer) {
  ModelBuilder b = ms_model();
  b.input("Q", kFloat, {1, 1, 512}).input("K", kFloat, {1, 1, 128}).input("V", kFloat, {1, 1, 128});
  b.input("ck", kFloat, {1, 2, 4096, 64}).input("cv", kFloat, {1, 2, 4096, 64});
  b.input("seqlens_k", kInt32, {1});
  b.initializer(test::tensor_ints("total", {100}, {}, kInt32));
  b.node("Relu", {"ck"}, {"pk"});
  b.node("Relu", {"cv"}, {"pv"});
  b.node("GroupQueryAttention", {"Q", "K", "V", "pk", "pv", "seqlens_k", "total"},
         {"Y", "k", "v", "qk"}, {attr("num_heads", 8), attr("kv_num_heads", 2)}, kMs);
  b.output("Y").output("k").output("v");
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("k"), (Dims{"1", "2", "4096", "64"}));  // max(past 4096, total 100)
  EXPECT_EQ(a.dims("qk"), (Dims{"1", "8", "1", "100"}));
  ASSERT_EQ(a.ctx->inplace(2).size(), 2u);  // the cache is updated in place
  EXPECT_EQ(a.ctx->inplace(2)[0].input, 3u);
  EXPECT_EQ(a.ctx->inplace(2)[1].input, 4u);
  EXPECT_EQ(a.scratch(2), "3200");  // 1 * 8 * 1 * 100 * 4
}

TEST(MicrosoftGroupQueryAttention, PackedQkvPromptWithoutPast) {
  ModelBuilder b = ms_model();
  b.input("QKV", kFloat, {"B", "S", 3072}).input("seqlens_k", kInt32, {"B"});
  b.input("total", kInt32, {});
  b.node("GroupQueryAttention", {"QKV", "", "", "", "", "seqlens_k", "total"}, {"Y", "k", "v"},
         {attr("num_heads", 16), attr("kv_num_heads", 4)}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"B", "S", "2048"}));  // 3072 = (16 + 2 * 4) * 128
  EXPECT_EQ(a.dims("k"), (Dims{"B", "4", "S", "128"}));
  EXPECT_EQ(a.scratch(0), "64*B*S*S");
}

TEST(MicrosoftGroupQueryAttention, ContractViolations) {
  ModelBuilder b = ms_model();
  b.input("Q", kFloat, {"B", "S", 512}).input("K", kFloat, {"B", "S", 96});
  b.input("seqlens_k", kInt32, {"B"}).input("total", kInt32, {});
  b.node("GroupQueryAttention", {"Q", "Q", "Q", "", "", "seqlens_k", "total"}, {"Y1"},
         {attr("num_heads", 8), attr("kv_num_heads", 3)}, kMs, "ratio");
  b.node("GroupQueryAttention", {"Q", "K", "K", "", "", "seqlens_k", "total"}, {"Y2"},
         {attr("num_heads", 8), attr("kv_num_heads", 2)}, kMs, "head_size");
  auto a = test::analyze(b);
  EXPECT_TRUE(a.has_warning("num_heads 8 is not a multiple of kv_num_heads 3")) << a.warnings();
  EXPECT_TRUE(a.has_warning("query and key/value head sizes differ: 64 vs 48")) << a.warnings();
}

TEST(MicrosoftGroupQueryAttention, FourBitCachePacksTheHeadDim) {
  ModelBuilder b = ms_model();
  b.input("Q", kFloat16, {"B", 1, 512}).input("K", kFloat16, {"B", 1, 128});
  b.input("V", kFloat16, {"B", 1, 128});
  b.input("pk", test::kUint8, {"B", 2, "P", 32}).input("pv", test::kUint8, {"B", 2, "P", 32});
  b.input("seqlens_k", kInt32, {"B"}).input("total", kInt32, {});
  b.input("k_scale", kFloat, {1}).input("v_scale", kFloat, {1});
  b.node(
      "GroupQueryAttention",
      {"Q", "K", "V", "pk", "pv", "seqlens_k", "total", "", "", "", "", "", "k_scale", "v_scale"},
      {"Y", "k", "v"},
      {attr("num_heads", 8), attr("kv_num_heads", 2), attr("kv_cache_bit_width", 4),
       attr("k_quant_type", "PER_TENSOR"), attr("v_quant_type", "PER_TENSOR")},
      kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"B", "1", "512"}));  // head size 64, two 4-bit values per byte
  EXPECT_EQ(a.dims("k"), (Dims{"B", "2", "P+1", "32"}));
  EXPECT_EQ(a.dtype("k"), test::kUint8);
  EXPECT_EQ(a.warnings(), "");
}

TEST(MicrosoftGroupQueryAttention, TotalSequenceLengthIsTaggedShape) {
  ModelBuilder b = ms_model();
  b.input("Q", kFloat, {"B", "S", 512}).input("K", kFloat, {"B", "S", 128});
  b.input("V", kFloat, {"B", "S", 128}).input("seqlens_k", kInt32, {"B"});
  b.input("total", kInt32, {});
  b.node("GroupQueryAttention", {"Q", "K", "V", "", "", "seqlens_k", "total"}, {"Y"},
         {attr("num_heads", 8), attr("kv_num_heads", 2)}, kMs);
  auto a = test::analyze(b);
  EXPECT_EQ(a.ctx->value_tag(a.id("total")), Tag::kShape);       // holds the attended length
  EXPECT_EQ(a.ctx->value_tag(a.id("seqlens_k")), Tag::kWeight);  // per-row data, as seeded
  EXPECT_EQ(a.ctx->value_tag(a.id("Y")), Tag::kWeight);          // inherited from the query
  EXPECT_EQ(a.ctx->node_tag(0), Tag::kWeight);
}

// ---- RotaryEmbedding ----------------------------------------------------------------------------

TEST(MicrosoftRotaryEmbedding, KeepsTheInputShape) {
  ModelBuilder b = ms_model();
  b.input("X", kFloat, {"B", "S", 512}).input("pos", test::kInt64, {"B", "S"});
  b.input("cos", kFloat, {"M", 32}).input("sin", kFloat, {"M", 32});
  b.input("X4", kFloat, {"B", 8, "S", 64});
  b.node("RotaryEmbedding", {"X", "pos", "cos", "sin"}, {"Y"}, {}, kMs);
  b.node("RotaryEmbedding", {"X4", "pos", "cos", "sin"}, {"Y4"}, {}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"B", "S", "512"}));
  EXPECT_EQ(a.dims("Y4"), (Dims{"B", "8", "S", "64"}));
}

}  // namespace
}  // namespace cctx
