// Shape rules of the core operators (expressions.md section 9 rows 1-21, 36-37, 47), through
// the real plugin.
#include <gtest/gtest.h>

#include "model_builder.hpp"

namespace cctx {
namespace {

using test::attr;
using test::Dims;
using test::kFloat;
using test::kInt64;
using test::ModelBuilder;

TEST(CoreOps, SeedChainShapesAndValues) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 4}).initializer(test::tensor_zeros("W", kFloat, {4, 4}));
  b.node("MatMul", {"X", "W"}, {"M"}).node("Concat", {"M", "X"}, {"C"}, {attr("axis", 0)});
  b.node("Shape", {"C"}, {"S"}).node("Abs", {"C"}, {"A"}).node("Reshape", {"A", "S"}, {"Z"});
  b.output("Z", kFloat);
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("M"), (Dims{"N", "4"}));
  EXPECT_EQ(a.dims("C"), (Dims{"2*N", "4"}));
  EXPECT_EQ(a.dims("S"), (Dims{"2"}));
  EXPECT_EQ(a.value("S"), (Dims{"2*N", "4"}));
  EXPECT_EQ(a.dims("Z"), (Dims{"2*N", "4"}));
}

TEST(CoreOps, BroadcastSymbolsAndOnes) {
  ModelBuilder b;
  b.input("A", kFloat, {"N", 1}).input("B", kFloat, {1, "B"});
  b.node("Add", {"A", "B"}, {"Y"}).output("Y");
  EXPECT_EQ(test::analyze(b).dims("Y"), (Dims{"N", "B"}));
}

TEST(CoreOps, BroadcastDifferentSymbolsGivesMaxAndAConstraint) {
  ModelBuilder b;
  b.input("A", kFloat, {"N"}).input("B", kFloat, {"M"});
  b.node("Add", {"A", "B"}, {"Y"}).output("Y");
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"max(M,N)"}));
  ASSERT_EQ(a.ctx->constraints().size(), 1u);
  EXPECT_EQ(a.ctx->constraints()[0].kind, Constraint::Kind::kBroadcast);
}

TEST(CoreOps, BroadcastConcreteAgainstSymbol) {
  ModelBuilder b;
  b.input("A", kFloat, {"N"}).input("B", kFloat, {4});
  b.node("Add", {"A", "B"}, {"Y"}).output("Y");
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"4"}));
  ASSERT_EQ(a.ctx->constraints().size(), 1u);
  EXPECT_EQ(a.ctx->constraints()[0].kind, Constraint::Kind::kOneOf);
}

TEST(CoreOps, BroadcastMismatchWarnsAndFallsBack) {
  ModelBuilder b;
  b.input("A", kFloat, {3}).input("B", kFloat, {4});
  b.node("Add", {"A", "B"}, {"Y"}, {}, "", "add_7").output("Y");
  auto a = test::analyze(b);
  EXPECT_TRUE(a.has_warning("node 0 'add_7' (Add): cannot broadcast 3 with 4 at output axis 0"))
      << a.warnings();
  EXPECT_EQ(a.dims("Y"), (Dims{"<unknown rank>"}));
}

TEST(CoreOps, ConcatAxisTwoAndMixedSizes) {
  ModelBuilder b;
  b.input("P", kFloat, {"b", "s", "d"}).input("Q", kFloat, {"b", "s", "d"});
  b.input("R", kFloat, {"N", 2}).input("T", kFloat, {3, 2});
  b.node("Concat", {"P", "Q"}, {"Y"}, {attr("axis", 2)})
      .node("Concat", {"R", "T"}, {"Z"}, {attr("axis", 0)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"b", "s", "2*d"}));
  EXPECT_EQ(a.dims("Z"), (Dims{"N+3", "2"}));
}

TEST(CoreOps, SplitNumOutputsAndEqualParts) {
  ModelBuilder b18;
  b18.input("X", kFloat, {"N", 4});
  b18.node("Split", {"X"}, {"A", "B"}, {attr("axis", 0), attr("num_outputs", 2)});
  b18.node("Concat", {"A", "B"}, {"C"}, {attr("axis", 0)});
  auto a = test::analyze(b18);
  EXPECT_EQ(a.dims("A"), (Dims{"(N+1)//2", "4"}));
  EXPECT_EQ(a.dims("B"), (Dims{"N//2", "4"}));
  EXPECT_EQ(a.dims("C"), (Dims{"N", "4"}));  // Hermite: (N+1)//2 + N//2 = N

  ModelBuilder b13(13);
  b13.input("X", kFloat, {"N", 4}).node("Split", {"X"}, {"A", "B"}, {attr("axis", 0)});
  auto c = test::analyze(b13);
  EXPECT_EQ(c.dims("A"), (Dims{"N/:2", "4"}));
}

TEST(CoreOps, ReshapeMinusOneAndZeroCopy) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 4}).initializer_ints("s", {-1, 2});
  b.input("P", kFloat, {"b", "s", "2*d"}).initializer_ints("t", {0, 0, -1});
  b.node("Reshape", {"X", "s"}, {"Y"}).node("Reshape", {"P", "t"}, {"Q"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"2*N", "2"}));
  EXPECT_EQ(a.dims("Q"), (Dims{"b", "s", "2*d"}));
}

TEST(CoreOps, ExporterShapeChainKeepsSymbols) {
  // Shape -> Gather -> Unsqueeze -> Concat -> Reshape, as exporters write it.
  ModelBuilder b(13);
  b.input("x", kFloat, {"batch", "seq", 64});
  b.initializer_ints("i0", {0}, {}).initializer_ints("i1", {1}, {}).initializer_ints("ax", {0});
  b.initializer_ints("c4", {4}).initializer_ints("cm1", {-1});
  b.node("Shape", {"x"}, {"sh"});
  b.node("Gather", {"sh", "i0"}, {"g0"}, {attr("axis", 0)});
  b.node("Gather", {"sh", "i1"}, {"g1"}, {attr("axis", 0)});
  b.node("Unsqueeze", {"g0", "ax"}, {"u0"}).node("Unsqueeze", {"g1", "ax"}, {"u1"});
  b.node("Concat", {"u0", "u1", "c4", "cm1"}, {"shape"}, {attr("axis", 0)});
  b.node("Reshape", {"x", "shape"}, {"y"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.value("shape"), (Dims{"batch", "seq", "4", "-1"}));
  EXPECT_EQ(a.dims("y"), (Dims{"batch", "seq", "4", "16"}));
}

TEST(CoreOps, FlattenSqueezeUnsqueezeTranspose) {
  ModelBuilder b(13);
  b.input("X", kFloat, {"N", "C", "H", "W"})
      .input("S", kFloat, {"N", 1, 4})
      .input("U", kFloat, {"N", 4});
  b.input("T", kFloat, {"b", "s", "h", "d"});
  b.initializer_ints("a1", {1}).initializer_ints("a03", {0, 3});
  b.node("Flatten", {"X"}, {"F"}, {attr("axis", 2)});
  b.node("Squeeze", {"S", "a1"}, {"SQ"}).node("Unsqueeze", {"U", "a03"}, {"UQ"});
  b.node("Transpose", {"T"}, {"TT"}, {attr("perm", std::vector<std::int64_t>{0, 2, 1, 3})});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("F"), (Dims{"C*N", "H*W"}));
  EXPECT_EQ(a.dims("SQ"), (Dims{"N", "4"}));
  EXPECT_EQ(a.dims("UQ"), (Dims{"1", "N", "4", "1"}));
  EXPECT_EQ(a.dims("TT"), (Dims{"b", "h", "s", "d"}));
}

TEST(CoreOps, MatMulBatchAndVectorAndGemm) {
  ModelBuilder b;
  b.input("A", kFloat, {"b", "h", "s", "d"}).input("B", kFloat, {"b", "h", "d", "t"});
  b.input("P", kFloat, {"s", "d"}).input("Q", kFloat, {"d"});
  b.input("G", kFloat, {"N", "K"}).input("H", kFloat, {"M", "K"});
  b.node("MatMul", {"A", "B"}, {"Y"}).node("MatMul", {"P", "Q"}, {"Z"});
  b.node("Gemm", {"G", "H"}, {"R"}, {attr("transB", 1)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"b", "h", "s", "t"}));
  EXPECT_EQ(a.dims("Z"), (Dims{"s"}));
  EXPECT_EQ(a.dims("R"), (Dims{"N", "M"}));
}

TEST(CoreOps, WhereBroadcastsThreeWays) {
  ModelBuilder b;
  b.input("c", test::kBool, {"N", 1}).input("x", kFloat, {1, "M"}).input("y", kFloat, {});
  b.node("Where", {"c", "x", "y"}, {"Y"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "M"}));
  EXPECT_EQ(a.dtype("Y"), kFloat);
}

TEST(CoreOps, ShapeStartEndAndSize) {
  ModelBuilder b(15);
  b.input("X", kFloat, {"b", "s", "h", "d"}).input("Y", kFloat, {"b", "s"});
  b.node("Shape", {"X"}, {"S"}, {attr("start", 1), attr("end", -1)}).node("Size", {"Y"}, {"Z"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("S"), (Dims{"2"}));
  EXPECT_EQ(a.value("S"), (Dims{"s", "h"}));
  EXPECT_EQ(a.dims("Z"), Dims{});
  EXPECT_EQ(a.value("Z"), (Dims{"b*s"}));
}

TEST(CoreOps, CastChangesTypeKeepsValue) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"});
  b.node("Shape", {"X"}, {"S"}).node("Cast", {"S"}, {"C"}, {attr("to", test::kInt32)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dtype("C"), test::kInt32);
  EXPECT_EQ(a.value("C"), (Dims{"N"}));
}

TEST(CoreOps, SplitOfAShapeKeepsItsValues) {
  // torchvision's batch_images: `for s1, s2 in zip(max_size, img.shape)` splits a Shape.
  ModelBuilder b(17);
  b.input("X", kFloat, {3, "H", 8});
  b.initializer_ints("sizes", {1, 2});
  b.node("Shape", {"X"}, {"S"}).node("Split", {"S", "sizes"}, {"A", "B"}, {attr("axis", 0)});
  b.node("Split", {"S"}, {"P", "Q", "R"}, {attr("axis", 0), attr("num_outputs", 3)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.value("A"), (Dims{"3"}));
  EXPECT_EQ(a.value("B"), (Dims{"H", "8"}));
  EXPECT_EQ(a.value("P"), (Dims{"3"}));
  EXPECT_EQ(a.value("Q"), (Dims{"H"}));
  EXPECT_EQ(a.value("R"), (Dims{"8"}));
}

}  // namespace
}  // namespace cctx
