// Einsum (expressions.md "Symbolic shape inference rules (ai.onnx plugin)", row 46) with its
// transpose-copy scratch estimate (semantics.md "Peak scratch memory"), and the loss operators,
// through the real plugin.
#include <gtest/gtest.h>

#include "model_builder.hpp"

namespace cctx {
namespace {

using test::attr;
using test::Dims;
using test::kFloat;
using test::ModelBuilder;

TEST(NnEinsum, AttentionScores) {  // row 46
  ModelBuilder b(12);
  b.input("Q", kFloat, {"b", "h", "q", "d"}).input("K", kFloat, {"b", "h", "k", "d"});
  b.node("Einsum", {"Q", "K"}, {"Y"}, {attr("equation", "bhqd,bhkd->bhqk")});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"b", "h", "q", "k"}));
  EXPECT_EQ(a.scratch(0), "0");  // both operands already [batch, kept, contracted]
  EXPECT_EQ(a.warnings(), "");
}

TEST(NnEinsum, ImplicitOutputAndEllipsisBroadcast) {
  ModelBuilder b(12);
  b.input("A", kFloat, {5, 1, 2, 3}).input("B", kFloat, {3, 4});
  b.input("P", kFloat, {"N", 1, "i", "j"}).input("R", kFloat, {1, "M", "j", "k"});
  b.input("T", kFloat, {"n", "n"}).input("U", kFloat, {"x", "y", "z"});
  b.node("Einsum", {"A", "B"}, {"Y"}, {attr("equation", "...ij,jk")});
  b.node("Einsum", {"P", "R"}, {"Z"}, {attr("equation", "...ij,...jk->...ik")});
  b.node("Einsum", {"T"}, {"S"}, {attr("equation", "ii")});
  b.node("Einsum", {"U"}, {"V"}, {attr("equation", "Bab")});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"5", "1", "2", "4"}));
  EXPECT_EQ(a.dims("Z"), (Dims{"N", "M", "i", "k"}));
  EXPECT_EQ(a.dims("S"), Dims{});                 // a trace
  EXPECT_EQ(a.dims("V"), (Dims{"x", "y", "z"}));  // ASCII order: 'B' < 'a' < 'b'
}

TEST(NnEinsum, RepeatedLabelsAreUnified) {
  ModelBuilder b(12);
  b.input("A", kFloat, {"m", "n"})
      .input("B", kFloat, {"p", 7})
      .input("C", kFloat, {2, 3})
      .input("D", kFloat, {4, 5});
  b.node("Einsum", {"A", "B"}, {"Y"}, {attr("equation", "ij,jk->ik")});
  b.node("Einsum", {"C", "D"}, {"Z"}, {attr("equation", "ij,jk->ik")}, "", "mismatch");
  b.node("Einsum", {"C", "D"}, {"W"}, {attr("equation", "ij,jk->iz")}, "", "stray");
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"m", "7"}));
  ASSERT_EQ(a.ctx->constraints().size(), 1u);
  EXPECT_EQ(a.ctx->constraints()[0].kind, Constraint::Kind::kEq);
  EXPECT_TRUE(a.has_warning("operand 1 axis 0: 3 vs 4")) << a.warnings();
  EXPECT_TRUE(a.has_warning("output label 'z' is in no input")) << a.warnings();
}

TEST(NnEinsum, TransposedOperandsCostACopy) {
  ModelBuilder b(12);
  b.input("Q", kFloat, {"b", "q", "h", "d"}).input("K", kFloat, {"b", "k", "h", "d"});
  b.input("A", kFloat, {2, 3})
      .input("B", kFloat, {3, 4})
      .input("C", kFloat, {4, 5})
      .input("Bt", kFloat, {4, 3});
  b.node("Einsum", {"Q", "K"}, {"Y"}, {attr("equation", "bqhd,bkhd->bhqk")});
  b.node("Einsum", {"A", "Bt"}, {"Z"}, {attr("equation", "ij,kj->ki")});         // plain GEMMs
  b.node("Einsum", {"A", "B", "C"}, {"W"}, {attr("equation", "ij,jk,kl->il")});  // holds [i,k]
  b.node("Einsum", {"A"}, {"T"}, {attr("equation", "ij->ji")});    // the output is the copy
  b.node("Einsum", {"Q"}, {"R"}, {attr("equation", "bqhd->hb")});  // reduce after a copy
  auto a = test::analyze(b);
  EXPECT_EQ(a.scratch(0), "4*b*d*h*k+4*b*d*h*q");
  EXPECT_EQ(a.scratch(1), "0");
  EXPECT_EQ(a.scratch(2), "32");
  EXPECT_EQ(a.scratch(3), "0");
  EXPECT_EQ(a.scratch(4), "4*b*d*h*q");
}

TEST(NnEinsum, UnknownRankWithEllipsis) {
  ModelBuilder b(12);
  b.input("A", kFloat, test::ShapeSpec::unknown()).input("B", kFloat, {"j", "k"});
  b.node("Einsum", {"A", "B"}, {"Y"}, {attr("equation", "...j,jk->...k")});
  b.node("Einsum", {"A", "B"}, {"Z"}, {attr("equation", "ij,jk->ik")});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"<unknown rank>"}));
  EXPECT_EQ(a.dims("Z"), (Dims{"Einsum_1_o0_d0", "k"}));
  EXPECT_EQ(a.scratch(0), "scratch_Einsum_0");
}

TEST(NnLoss, ReductionShapesAndLogProb) {
  ModelBuilder b(13);
  b.input("X", kFloat, {"N", "C", "D"}).input("L", test::kInt64, {"N", "D"});
  b.node("SoftmaxCrossEntropyLoss", {"X", "L"}, {"Y", "P"}, {attr("reduction", "none")});
  b.node("SoftmaxCrossEntropyLoss", {"X", "L"}, {"M"});
  b.node("NegativeLogLikelihoodLoss", {"X", "L"}, {"S"}, {attr("reduction", "sum")});
  b.node("NegativeLogLikelihoodLoss", {"X", "L"}, {"E"}, {attr("reduction", "none")});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "D"}));
  EXPECT_EQ(a.dims("P"), (Dims{"N", "C", "D"}));
  EXPECT_EQ(a.dims("M"), Dims{});
  EXPECT_EQ(a.dims("S"), Dims{});
  EXPECT_EQ(a.dims("E"), (Dims{"N", "D"}));
  EXPECT_EQ(a.dtype("E"), kFloat);
  EXPECT_EQ(a.warnings(), "");
}

TEST(NnLoss, ContractViolations) {
  ModelBuilder b(13);
  b.input("X", kFloat, {"N", 3, 4}).input("L", test::kInt64, {"N", 5});
  b.node("NegativeLogLikelihoodLoss", {"X", "L"}, {"Y"}, {attr("reduction", "none")});
  b.node("NegativeLogLikelihoodLoss", {"X", "L"}, {"Z"}, {attr("reduction", "average")});
  auto a = test::analyze(b);
  EXPECT_TRUE(a.has_warning("labels differ from the scores at axis 1: 4 vs 5")) << a.warnings();
  EXPECT_TRUE(a.has_warning("unknown reduction 'average'")) << a.warnings();
}

}  // namespace
}  // namespace cctx
