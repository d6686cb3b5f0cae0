// End to end: an onnxruntime-optimized BERT block built only from com.microsoft fusions and
// MatMul (EmbedLayerNormalization -> Attention -> MatMul -> SkipLayerNormalization -> MatMul ->
// FastGelu -> MatMul -> SkipLayerNormalization) through the real pipeline and plugins. Every value
// must get a shape in the model's symbols only, and the peak must be a formula in batch and seq.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "microsoft_test_support.hpp"
#include "model_builder.hpp"

namespace cctx {
namespace {

using test::attr;
using test::Dims;
using test::kFloat;
using test::kInt32;
using test::ModelBuilder;

using test::kMs;
using test::ms_model;
using test::ruled;
constexpr std::int64_t kHidden = 64, kHeads = 4, kInner = 256, kVocab = 1000;

ModelBuilder transformer_block() {
  ModelBuilder b(17);
  b.opset(kMs, 1);
  b.input("ids", kInt32, {"batch", "seq"}).input("segments", kInt32, {"batch", "seq"});
  b.input("mask", kInt32, {"batch", "seq"});
  b.input("word", kFloat, {kVocab, kHidden}).input("pos", kFloat, {512, kHidden});
  b.input("seg", kFloat, {2, kHidden});
  for (const char* p : {"emb_gamma", "emb_beta", "ln1_gamma", "ln1_beta", "ln2_gamma", "ln2_beta",
                        "out_bias", "ffn_out_bias"}) {
    b.input(p, kFloat, {kHidden});
  }
  b.input("qkv_w", kFloat, {kHidden, 3 * kHidden}).input("qkv_b", kFloat, {3 * kHidden});
  b.input("out_w", kFloat, {kHidden, kHidden});
  b.input("ffn_in_w", kFloat, {kHidden, kInner}).input("ffn_in_b", kFloat, {kInner});
  b.input("ffn_out_w", kFloat, {kInner, kHidden});

  b.node("EmbedLayerNormalization",
         {"ids", "segments", "word", "pos", "seg", "emb_gamma", "emb_beta", "mask"},
         {"embedded", "mask_index"}, {attr("epsilon", 1e-12f)}, kMs);
  b.node("Attention", {"embedded", "qkv_w", "qkv_b", "mask_index"}, {"context"},
         {attr("num_heads", kHeads)}, kMs);
  b.node("MatMul", {"context", "out_w"}, {"projected"});
  b.node("SkipLayerNormalization", {"projected", "embedded", "ln1_gamma", "ln1_beta", "out_bias"},
         {"ln1"}, {attr("epsilon", 1e-12f)}, kMs);
  b.node("MatMul", {"ln1", "ffn_in_w"}, {"inner"});
  b.node("FastGelu", {"inner", "ffn_in_b"}, {"activated"}, {}, kMs);
  b.node("MatMul", {"activated", "ffn_out_w"}, {"ffn"});
  b.node("SkipLayerNormalization", {"ffn", "ln1", "ln2_gamma", "ln2_beta", "ffn_out_bias"},
         {"block_out"}, {attr("epsilon", 1e-12f)}, kMs);
  b.output("block_out");
  return b;
}

/// True when every symbol of `names` is batch or seq.
bool only_batch_and_seq(const std::vector<std::string>& names) {
  for (const std::string& n : names) {
    if (n != "batch" && n != "seq") return false;
  }
  return true;
}

TEST(MicrosoftTransformerBlock, EveryValueResolvesInBatchAndSeq) {
  auto a = test::analyze(transformer_block());
  EXPECT_EQ(a.warnings(), "");
  const GraphView& graph = a.ctx->graph();
  for (ValueId v = 0; v < graph.values().size(); ++v) {
    const ValueEntry& entry = graph.value(v);
    if (entry.graph != 0 || entry.name.empty()) continue;
    const ValueShape& shape = a.ctx->shape(v);
    ASSERT_TRUE(shape.known_rank) << entry.name;
    for (Expr d : shape.dims) {
      EXPECT_TRUE(only_batch_and_seq(a.ctx->pool().symbols_of(d)))
          << entry.name << ": " << a.print(d);
    }
  }
  EXPECT_EQ(a.dims("embedded"), (Dims{"batch", "seq", "64"}));
  EXPECT_EQ(a.dims("mask_index"), (Dims{"batch"}));
  EXPECT_EQ(a.dims("context"), (Dims{"batch", "seq", "64"}));
  EXPECT_EQ(a.dims("activated"), (Dims{"batch", "seq", "256"}));
  EXPECT_EQ(a.dims("block_out"), (Dims{"batch", "seq", "64"}));
}

TEST(MicrosoftTransformerBlock, PeakIsAFormulaInBatchAndSeq) {
  auto a = test::analyze(transformer_block());
  const Expr peak = a.ctx->peak_total_bytes();
  const std::vector<std::string> symbols = a.ctx->pool().symbols_of(peak);
  EXPECT_EQ(symbols, (std::vector<std::string>{"batch", "seq"})) << a.print(peak);
  EXPECT_EQ(a.scratch(1), "16*batch*seq*seq");  // Attention: batch * 4 heads * seq^2 * 4 bytes
  // The peak grows with both dims: quadratically in seq through the attention scores.
  const PeakEvaluation small = a.ctx->evaluate_peak({{"batch", 1}, {"seq", 128}});
  const PeakEvaluation longer = a.ctx->evaluate_peak({{"batch", 1}, {"seq", 256}});
  const PeakEvaluation wider = a.ctx->evaluate_peak({{"batch", 2}, {"seq", 128}});
  EXPECT_GT(small.bytes, 0);
  EXPECT_GT(longer.bytes, small.bytes);
  EXPECT_GT(wider.bytes, small.bytes);
}

TEST(MicrosoftTransformerBlock, FastGeluWritesOverTheFeedForwardProduct) {
  auto a = test::analyze(transformer_block());
  // Node 5 is FastGelu: its MatMul input dies there and has its size, so the output takes the
  // buffer over and allocates nothing (onnxruntime's MayInplace(0, 0)).
  ASSERT_EQ(a.ctx->graph().node(5).op_type, "FastGelu");
  ASSERT_EQ(a.ctx->inplace(5).size(), 1u);
  EXPECT_EQ(a.ctx->inplace(5)[0].output, 0u);
  EXPECT_EQ(a.ctx->inplace(5)[0].input, 0u);
  EXPECT_EQ(a.print(a.ctx->memory(5).output_allocation), "0");
  // The attention and normalizations declare no reuse: each allocates its output.
  EXPECT_TRUE(a.ctx->inplace(1).empty());
  EXPECT_EQ(a.print(a.ctx->memory(1).output_allocation),
            "256*batch*seq");  // [batch, seq, 64] floats
  EXPECT_TRUE(a.ctx->inplace(7).empty());
}

}  // namespace
}  // namespace cctx
