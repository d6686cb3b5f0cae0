// Reductions through the real plugin: axes as attribute or input, keepdims, noop_with_empty_axes,
// unknown axes, value folding (expressions.md "Symbolic shape inference rules (ai.onnx plugin)", 8,
// rows 38-39), ArgMax/ArgMin, zero scratch.
#include <gtest/gtest.h>

#include "cctx/registry.hpp"
#include "model_builder.hpp"

namespace cctx {
namespace {

using test::attr;
using test::Dims;
using test::kFloat;
using test::kInt64;
using test::ModelBuilder;

using Ints = std::vector<std::int64_t>;

TEST(Reduce, MeanAxesInputKeepsDims) {  // row 38
  ModelBuilder b(18);
  b.input("X", kFloat, {"b", "s", "d"}).initializer_ints("axes", {-1});
  b.node("ReduceMean", {"X", "axes"}, {"Y"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"b", "s", "1"}));
  EXPECT_EQ(a.dtype("Y"), kFloat);
}

TEST(Reduce, SumWithoutAxesReducesEverything) {  // row 39
  ModelBuilder b(13);
  b.input("X", kFloat, {"b", "s"});
  b.node("ReduceSum", {"X"}, {"Y"}, {attr("keepdims", 0)});
  b.node("ReduceSum", {"X"}, {"Z"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), Dims{});
  EXPECT_EQ(a.dims("Z"), (Dims{"1", "1"}));
}

TEST(Reduce, AxesAttributeUntilTheirOpset) {
  // ReduceSum reads the attribute until 12, the others until 17.
  ModelBuilder b(17);
  b.input("X", kFloat, {"N", "C", 4});
  b.node("ReduceMax", {"X"}, {"Y"}, {attr("axes", Ints{0, 2})});
  b.node("ReduceL2", {"X"}, {"Z"}, {attr("axes", Ints{1}), attr("keepdims", 0)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"1", "C", "1"}));
  EXPECT_EQ(a.dims("Z"), (Dims{"N", "4"}));

  ModelBuilder b11(11);
  b11.input("X", kFloat, {"N", "C", 4});
  b11.node("ReduceSum", {"X"}, {"Y"}, {attr("axes", Ints{-2}), attr("keepdims", 0)});
  EXPECT_EQ(test::analyze(b11).dims("Y"), (Dims{"N", "4"}));
}

TEST(Reduce, NoopWithEmptyAxesIsIdentity) {
  ModelBuilder b(18);
  b.input("X", kFloat, {"N", 4});
  b.node("ReduceLogSumExp", {"X"}, {"Y"}, {attr("noop_with_empty_axes", 1), attr("keepdims", 0)});
  b.node("ReduceLogSumExp", {"X"}, {"Z"}, {attr("keepdims", 0)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "4"}));
  EXPECT_EQ(a.dims("Z"), Dims{});
}

TEST(Reduce, UnknownAxesGiveFreshDimsOfKnownRank) {
  ModelBuilder b(18);
  b.input("X", kFloat, {"N", 1, 4}).input("axes", kInt64, {2});
  b.node("ReduceSumSquare", {"X", "axes"}, {"K"});
  b.node("ReduceProd", {"X", "axes"}, {"D"}, {attr("keepdims", 0)});
  auto a = test::analyze(b);
  // A dim already 1 stays 1 whether reduced or not; the others are fresh.
  EXPECT_EQ(a.dims("K"), (Dims{"ReduceSumSquare_0_o0_d0", "1", "ReduceSumSquare_0_o0_d2"}));
  // Two of three axes removed: rank 1, a fresh dim.
  EXPECT_EQ(a.dims("D"), (Dims{"ReduceProd_1_o0_d0"}));
}

TEST(Reduce, UnknownAxesOfUnknownLengthWithoutKeepdimsHaveUnknownRank) {
  ModelBuilder b(18);
  b.input("X", kFloat, {"N", 4}).input("axes", kInt64, {"k"});
  b.node("ReduceMin", {"X", "axes"}, {"Y"}, {attr("keepdims", 0)});
  EXPECT_EQ(test::analyze(b).dims("Y"), (Dims{"<unknown rank>"}));
}

TEST(Reduce, FoldsOneDimensionalValues) {
  ModelBuilder b(18);
  b.input("X", kFloat, {"N", "M", 4});
  b.node("Shape", {"X"}, {"S"});
  b.node("ReduceSum", {"S"}, {"sum"}, {attr("keepdims", 0)});
  b.node("ReduceProd", {"S"}, {"prod"}, {attr("keepdims", 0)});
  b.node("ReduceMax", {"S"}, {"max"});
  b.node("ReduceMin", {"S"}, {"min"}, {attr("keepdims", 0)});
  b.node("ReduceMean", {"S"}, {"mean"}, {attr("keepdims", 0)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.value("sum"), (Dims{"M+N+4"}));
  EXPECT_EQ(a.value("prod"), (Dims{"4*M*N"}));
  EXPECT_EQ(a.dims("max"), (Dims{"1"}));
  EXPECT_EQ(a.value("max"), (Dims{"max(4,M,N)"}));
  EXPECT_EQ(a.value("min"), (Dims{"min(4,M,N)"}));
  EXPECT_EQ(a.value("mean"), Dims{});  // only sum, prod, max and min fold
}

TEST(Reduce, FoldedValueFeedsReshape) {
  // Flatten by hand: Reshape(X, [ReduceProd(Shape(X))]).
  ModelBuilder b(13);
  b.input("X", kFloat, {"N", 3});
  b.node("Shape", {"X"}, {"S"}).node("ReduceProd", {"S"}, {"P"});
  b.node("Reshape", {"X", "P"}, {"Y"});
  EXPECT_EQ(test::analyze(b).dims("Y"), (Dims{"3*N"}));
}

TEST(Reduce, AxisOutOfRangeFallsBack) {
  ModelBuilder b(18);
  b.input("X", kFloat, {"N", 4}).initializer_ints("axes", {2});
  b.node("ReduceMean", {"X", "axes"}, {"Y"});
  auto a = test::analyze(b);
  EXPECT_TRUE(a.has_warning("axis 2 out of range for rank 2")) << a.warnings();
}

TEST(Reduce, ArgMaxArgMin) {
  ModelBuilder b(13);
  b.input("X", kFloat, {"N", "C", 4});
  b.node("ArgMax", {"X"}, {"Y"}, {attr("axis", 1), attr("keepdims", 0)});
  b.node("ArgMin", {"X"}, {"Z"}, {attr("axis", -2), attr("select_last_index", 1)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "4"}));
  EXPECT_EQ(a.dims("Z"), (Dims{"N", "1", "4"}));
  EXPECT_EQ(a.dtype("Y"), kInt64);
}

TEST(Reduce, ScratchIsZero) {
  ModelBuilder b(18);
  b.input("X", kFloat, {"N", 4});
  b.node("ReduceL1", {"X"}, {"Y"});
  auto a = test::analyze(b);
  EXPECT_NE(a.ctx->registry().resolve("", "ReduceL1", 18).scratch, nullptr);
  EXPECT_EQ(a.scratch(0), "0");
}

}  // namespace
}  // namespace cctx
