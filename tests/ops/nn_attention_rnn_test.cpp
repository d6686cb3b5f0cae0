// Attention (23), RotaryEmbedding and the recurrent operators through the real plugin
// (expressions.md "Symbolic shape inference rules (ai.onnx plugin)", row 49), with their scratch
// estimates (semantics.md "Test checklist" items 42-43).
#include <gtest/gtest.h>

#include "model_builder.hpp"

namespace cctx {
namespace {

using test::attr;
using test::Dims;
using test::kFloat;
using test::ModelBuilder;

TEST(NnAttention, FourDimensionalWithPast) {  // row 49
  ModelBuilder b(23);
  b.input("Q", kFloat, {"B", 8, "S", 64})
      .input("K", kFloat, {"B", 2, "S", 64})
      .input("V", kFloat, {"B", 2, "S", 64});
  b.input("pk", kFloat, {"B", 2, "P", 64}).input("pv", kFloat, {"B", 2, "P", 64});
  b.node("Attention", {"Q", "K", "V", "", "pk", "pv"}, {"Y", "k", "v", "qk"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"B", "8", "S", "64"}));
  EXPECT_EQ(a.dims("k"), (Dims{"B", "2", "P+S", "64"}));
  EXPECT_EQ(a.dims("v"), (Dims{"B", "2", "P+S", "64"}));
  EXPECT_EQ(a.dims("qk"), (Dims{"B", "8", "S", "P+S"}));
  EXPECT_EQ(a.warnings(), "");
}

TEST(NnAttention, ThreeDimensionalSplitsHeads) {
  ModelBuilder b(23);
  b.input("Q", kFloat, {"B", "S", 512})
      .input("K", kFloat, {"B", "L", 128})
      .input("V", kFloat, {"B", "L", 256});
  b.node("Attention", {"Q", "K", "V"}, {"Y", "k", "v", "qk"},
         {attr("q_num_heads", 8), attr("kv_num_heads", 2)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"B", "S", "1024"}));  // 8 heads of value size 128
  EXPECT_EQ(a.dims("k"), (Dims{"B", "2", "L", "64"}));
  EXPECT_EQ(a.dims("v"), (Dims{"B", "2", "L", "128"}));
  EXPECT_EQ(a.dims("qk"), (Dims{"B", "8", "S", "L"}));
}

TEST(NnAttention, SymbolicHiddenRecordsDivisibility) {
  ModelBuilder b(23);
  b.input("Q", kFloat, {"B", "S", "E"});
  b.node("Attention", {"Q", "Q", "Q"}, {"Y"}, {attr("q_num_heads", 4), attr("kv_num_heads", 4)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"B", "S", "E"}));
  ASSERT_FALSE(a.ctx->constraints().empty());
  EXPECT_EQ(a.ctx->constraints()[0].kind, Constraint::Kind::kDivides);
}

TEST(NnAttention, ContractViolations) {
  ModelBuilder b(23);
  b.input("Q3", kFloat, {"B", "S", 64})
      .input("Q", kFloat, {"B", 4, "S", 64})
      .input("K", kFloat, {"B", 4, "S", 32});
  b.node("Attention", {"Q3", "Q3", "Q3"}, {"Y"}, {}, "", "no_heads");
  b.node("Attention", {"Q", "K", "K"}, {"Z"}, {}, "", "bad_head");
  auto a = test::analyze(b);
  EXPECT_TRUE(a.has_warning("3-D Q needs the 'q_num_heads' attribute")) << a.warnings();
  EXPECT_TRUE(a.has_warning("query/key head sizes differ: 64 vs 32")) << a.warnings();
}

TEST(NnAttention, ScoreScratch) {  // semantics.md "Test checklist" item 42
  ModelBuilder b(23);
  b.input("Q", kFloat, {2, 4, 8, 32}).input("K", kFloat, {2, 4, 32, 32});
  b.input("Qs", kFloat, {"B", 8, "S", 64}).input("pk", kFloat, {"B", 8, "P", 64});
  b.node("Attention", {"Q", "K", "K"}, {"Y"});
  b.node("Attention", {"Qs", "Qs", "Qs"}, {"Z"});
  b.node("Attention", {"Qs", "Qs", "Qs", "", "pk", "pk"}, {"W"});
  b.node("Attention", {"Qs", "Qs", "Qs"}, {"H"}, {attr("softmax_precision", test::kFloat16)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.scratch(0), "8192");
  EXPECT_EQ(a.scratch(1), "32*B*S*S");
  EXPECT_EQ(a.scratch(2), "32*B*P*S+32*B*S*S");
  EXPECT_EQ(a.scratch(3), "16*B*S*S");
}

TEST(NnAttention, RotaryEmbeddingKeepsTheShape) {
  ModelBuilder b(23);
  b.input("X", kFloat, {"B", "S", 64})
      .input("c", kFloat, {"M", 32})
      .input("p", test::kInt64, {"B", "S"});
  b.node("RotaryEmbedding", {"X", "c", "c", "p"}, {"Y"}, {attr("num_heads", 4)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"B", "S", "64"}));
  EXPECT_EQ(a.warnings(), "");
}

TEST(NnRnn, LstmOutputsAndScratch) {  // semantics.md "Test checklist" item 43
  ModelBuilder b(14);
  b.input("X", kFloat, {10, 2, 8}).input("W", kFloat, {1, 64, 8}).input("R", kFloat, {1, 64, 16});
  b.node("LSTM", {"X", "W", "R"}, {"Y", "Yh", "Yc"}, {attr("hidden_size", 16)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"10", "1", "2", "16"}));
  EXPECT_EQ(a.dims("Yh"), (Dims{"1", "2", "16"}));
  EXPECT_EQ(a.dims("Yc"), (Dims{"1", "2", "16"}));
  EXPECT_EQ(a.scratch(0), "5120");
  EXPECT_EQ(a.warnings(), "");
}

TEST(NnRnn, BidirectionalBatchMajorGru) {
  ModelBuilder b(14);
  b.input("X", kFloat, {"batch", "seq", 4})
      .input("W", kFloat, {2, 15, 4})
      .input("R", kFloat, {2, 15, 5});
  b.node("GRU", {"X", "W", "R"}, {"Y", "Yh"},
         {attr("hidden_size", 5), attr("layout", 1), attr("direction", "bidirectional")});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"batch", "seq", "2", "5"}));
  EXPECT_EQ(a.dims("Yh"), (Dims{"batch", "2", "5"}));
  EXPECT_EQ(a.scratch(0), "120*batch*seq");  // 2 * 3 * 5 * 4 bytes per step and sample
}

TEST(NnRnn, LayoutOnlyFromOpset14) {
  ModelBuilder b(7);
  b.input("X", kFloat, {"seq", "batch", 4})
      .input("W", kFloat, {1, 5, 4})
      .input("R", kFloat, {1, 5, 5});
  b.node("RNN", {"X", "W", "R"}, {"Y"}, {attr("hidden_size", 5), attr("layout", 1)});
  EXPECT_EQ(test::analyze(b).dims("Y"), (Dims{"seq", "1", "batch", "5"}));
}

TEST(NnRnn, HiddenSizeFromRecurrenceWeights) {
  ModelBuilder b(22);
  b.input("X", kFloat, {"seq", "batch", 4})
      .input("W", kFloat, {1, "hid", 4})
      .input("R", kFloat, {1, "hid", "hid"});
  b.node("RNN", {"X", "W", "R"}, {"", "Yh"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Yh"), (Dims{"1", "batch", "hid"}));
  EXPECT_EQ(a.scratch(0), "4*batch*hid*seq");
}

TEST(NnRnn, ContractViolations) {
  ModelBuilder b(14);
  b.input("X", kFloat, {"seq", "batch", 4})
      .input("W", kFloat, {1, 12, 4})
      .input("R", kFloat, {1, 12, 3});
  b.node("LSTM", {"X", "W", "R"}, {"Y"}, {attr("hidden_size", 3), attr("direction", "sideways")});
  b.node("LSTM", {"X", "W", "R"}, {"Z"},
         {attr("hidden_size", 3), attr("direction", "bidirectional")});
  auto a = test::analyze(b);
  EXPECT_TRUE(a.has_warning("unknown direction 'sideways'")) << a.warnings();
  EXPECT_TRUE(a.has_warning("W's directions differ from 'direction': 1 vs 2")) << a.warnings();
}

TEST(NnRnn, ScratchWithoutHiddenSizeIsANamedUnknown) {
  ModelBuilder b(14);
  b.input("X", kFloat, {"seq", "batch", 4}).input("W", kFloat, test::ShapeSpec::unknown());
  b.input("R", kFloat, test::ShapeSpec::unknown());
  b.node("LSTM", {"X", "W", "R"}, {"Y"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.scratch(0), "scratch_LSTM_0");
  EXPECT_EQ(a.dims("Y"), (Dims{"seq", "1", "batch", "LSTM_0_o0_d3"}));
}

}  // namespace
}  // namespace cctx
