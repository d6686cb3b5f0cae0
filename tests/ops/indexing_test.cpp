// Shape and value rules of the indexing and data-movement operators (expressions.md section 9
// rows 21-28, 40-41, section 8), through the real plugin.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "model_builder.hpp"

namespace cctx {
namespace {

using test::attr;
using test::Dims;
using test::kFloat;
using test::kInt64;
using test::ModelBuilder;

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

/// Adds `count` Identity nodes so that the next node gets index `count` (fresh-symbol names).
void pad_nodes(ModelBuilder& b, int count) {
  b.input("pad_in", kFloat, {1});
  std::string prev = "pad_in";
  for (int k = 0; k < count; ++k) {
    std::string next = "pad_" + std::to_string(k);
    b.node("Identity", {prev}, {next});
    prev = next;
  }
}

bool has_constraint(const test::Analysis& a, Constraint::Kind kind) {
  for (const Constraint& c : a.ctx->constraints()) {
    if (c.kind == kind) return true;
  }
  return false;
}

// ---- Gather family ------------------------------------------------------------------------------

TEST(IndexingOps, GatherRow21IndicesVectorAndScalar) {
  ModelBuilder b;
  b.input("X", kFloat, {"b", "s", "d"}).input("I", kInt64, {"k"}).initializer_ints("i", {3}, {});
  b.node("Gather", {"X", "I"}, {"Y"}, {attr("axis", 1)});
  b.node("Gather", {"X", "i"}, {"Z"}, {attr("axis", 1)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"b", "k", "d"}));
  EXPECT_EQ(a.dims("Z"), (Dims{"b", "d"}));
}

TEST(IndexingOps, GatherValuesWithNegativeIndices) {
  ModelBuilder b;
  b.input("X", kFloat, {"batch", "seq", 64});
  b.initializer_ints("last", {-1}, {}).initializer_ints("pick", {2, 0, -2});
  b.node("Shape", {"X"}, {"S"});
  b.node("Gather", {"S", "last"}, {"L"}).node("Gather", {"S", "pick"}, {"P"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("L"), Dims{});
  EXPECT_EQ(a.value("L"), (Dims{"64"}));
  EXPECT_EQ(a.dims("P"), (Dims{"3"}));
  EXPECT_EQ(a.value("P"), (Dims{"64", "batch", "seq"}));
}

TEST(IndexingOps, GatherValueOfA2DConstantAlongAxis1) {
  ModelBuilder b;
  b.initializer(test::tensor_ints("T", {1, 2, 3, 4, 5, 6}, {2, 3}));
  b.initializer_ints("i", {2, 0});
  b.node("Gather", {"T", "i"}, {"Y"}, {attr("axis", 1)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"2", "2"}));
  EXPECT_EQ(a.value("Y"), (Dims{"3", "1", "6", "4"}));
}

TEST(IndexingOps, GatherIndexOutOfRangeIsAnError) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 4}).initializer_ints("i", {4}, {});
  b.node("Gather", {"X", "i"}, {"Y"}, {attr("axis", 1)}, "", "g");
  auto a = test::analyze(b);
  EXPECT_TRUE(a.has_warning("index 4 out of range for axis 1 of size 4")) << a.warnings();
}

TEST(IndexingOps, GatherElementsTakesTheIndicesShape) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 5}).input("I", kInt64, {"N", "k"});
  b.node("GatherElements", {"X", "I"}, {"Y"}, {attr("axis", 1)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "k"}));
  EXPECT_EQ(a.dtype("Y"), kFloat);
}

TEST(IndexingOps, GatherNDRow22AndBatchDims) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 5, 6}).input("I", kInt64, {"M", 2});
  b.input("P", kFloat, {"B", 5, 6, 7}).input("J", kInt64, {"B", "K", 1});
  b.node("GatherND", {"X", "I"}, {"Y"});
  b.node("GatherND", {"P", "J"}, {"Z"}, {attr("batch_dims", 1)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"M", "6"}));
  EXPECT_EQ(a.dims("Z"), (Dims{"B", "K", "6", "7"}));
}

TEST(IndexingOps, GatherNDWithSymbolicDepthHasUnknownRank) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 5, 6}).input("I", kInt64, {"M", "q"});
  b.node("GatherND", {"X", "I"}, {"Y"});
  EXPECT_EQ(test::analyze(b).dims("Y"), (Dims{"<unknown rank>"}));
}

// ---- Scatter family -----------------------------------------------------------------------------

TEST(IndexingOps, ScattersKeepTheDataShape) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", "C"}).input("I", kInt64, {"M", 1}).input("U", kFloat, {"M", "C"});
  b.input("E", kInt64, {"N", 2}).input("F", kFloat, {"N", 2});
  b.node("ScatterND", {"X", "I", "U"}, {"Y"});
  b.node("ScatterElements", {"X", "E", "F"}, {"Z"}, {attr("axis", 1)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "C"}));
  EXPECT_EQ(a.dims("Z"), (Dims{"N", "C"}));
}

TEST(IndexingOps, ScatterNDUpdatesA1DValue) {
  ModelBuilder b;
  b.input("X", kFloat, {"b", "s", 64});
  b.initializer(test::tensor_ints("i", {2}, {1, 1})).initializer_ints("u", {-1});
  b.node("Shape", {"X"}, {"S"}).node("ScatterND", {"S", "i", "u"}, {"Y"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.value("Y"), (Dims{"b", "s", "-1"}));
}

TEST(IndexingOps, TensorScatterKeepsTheCacheShape) {
  ModelBuilder b(24);
  b.input("past", kFloat, {"B", 8, 1024, 64}).input("upd", kFloat, {"B", 8, "S", 64});
  b.input("idx", kInt64, {"B"});
  b.node("TensorScatter", {"past", "upd", "idx"}, {"present"}, {attr("axis", 2)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("present"), (Dims{"B", "8", "1024", "64"}));
  EXPECT_TRUE(has_constraint(a, Constraint::Kind::kLe));
}

TEST(IndexingOps, ScatterElementsReusesItsDeadDataBuffer) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 4}).input("I", kInt64, {"N", 1}).input("U", kFloat, {"N", 1});
  b.node("Relu", {"X"}, {"R"});
  b.node("ScatterElements", {"R", "I", "U"}, {"Y"}, {attr("axis", 1)});
  b.output("Y", kFloat);
  auto a = test::analyze(b);
  const auto& decisions = a.ctx->inplace(1);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].input, 0u);
  EXPECT_EQ(decisions[0].mode, ReuseMode::kMayReuse);
}

// ---- Slice --------------------------------------------------------------------------------------

TEST(IndexingOps, SliceRow23NegativeEnd) {
  ModelBuilder b;
  b.input("X", kFloat, {"a", "b", "c"});
  b.initializer_ints("st", {0}).initializer_ints("en", {-1}).initializer_ints("ax", {2});
  b.node("Slice", {"X", "st", "en", "ax"}, {"Y"});
  EXPECT_EQ(test::analyze(b).dims("Y"), (Dims{"a", "b", "c-1"}));
}

TEST(IndexingOps, SliceRow24StepTwoToTheEnd) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"});
  b.initializer_ints("st", {1}).initializer_ints("en", {kInt64Max}).initializer_ints("ax", {0});
  b.initializer_ints("sp", {2});
  b.node("Slice", {"X", "st", "en", "ax", "sp"}, {"Y"});
  EXPECT_EQ(test::analyze(b).dims("Y"), (Dims{"N//2"}));
}

TEST(IndexingOps, SliceRow25LastThree) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"});
  b.initializer_ints("st", {-3}).initializer_ints("en", {kInt64Max});
  b.node("Slice", {"X", "st", "en"}, {"Y"});
  EXPECT_EQ(test::analyze(b).dims("Y"), (Dims{"N-max(0,N-3)"}));
  auto bounded = test::analyze(b, [](Profile& p) { p.symbols["N"] = Interval{3, 4096}; });
  EXPECT_EQ(bounded.dims("Y"), (Dims{"3"}));
}

TEST(IndexingOps, SliceInt32SentinelAndOpset1Attributes) {
  ModelBuilder b10(10);
  b10.input("X", kFloat, {"N", "M"});
  b10.initializer_ints("st", {2}).initializer_ints("en", {2147483647}).initializer_ints("ax", {1});
  b10.node("Slice", {"X", "st", "en", "ax"}, {"Y"});
  EXPECT_EQ(test::analyze(b10).dims("Y"), (Dims{"N", "M-min(2,M)"}));

  ModelBuilder b1(9);
  b1.input("X", kFloat, {"N", 10});
  b1.node(
      "Slice", {"X"}, {"Y"},
      {attr("starts", std::vector<std::int64_t>{1}), attr("ends", std::vector<std::int64_t>{-2}),
       attr("axes", std::vector<std::int64_t>{1})});
  EXPECT_EQ(test::analyze(b1).dims("Y"), (Dims{"N", "7"}));
}

TEST(IndexingOps, SliceNegativeStepReverses) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 6});
  b.initializer_ints("st", {-1, 5})
      .initializer_ints("en", {kInt64Min, 0})
      .initializer_ints("ax", {0, 1});
  b.initializer_ints("sp", {-1, -2});
  b.node("Slice", {"X", "st", "en", "ax", "sp"}, {"Y"});
  EXPECT_EQ(test::analyze(b).dims("Y"), (Dims{"N", "3"}));
}

TEST(IndexingOps, SliceSymbolicBoundsFromShapes) {
  // X[:, :S] where S comes from another tensor's shape.
  ModelBuilder b;
  b.input("X", kFloat, {"B", "T"}).input("Q", kFloat, {"S"});
  b.initializer_ints("zero", {0}).initializer_ints("ax", {1});
  b.node("Shape", {"Q"}, {"qs"});
  b.node("Slice", {"X", "zero", "qs", "ax"}, {"Y"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"B", "min(S,T)"}));
}

TEST(IndexingOps, SliceStepZeroIsAnError) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"});
  b.initializer_ints("st", {0})
      .initializer_ints("en", {4})
      .initializer_ints("ax", {0})
      .initializer_ints("sp", {0});
  b.node("Slice", {"X", "st", "en", "ax", "sp"}, {"Y"});
  EXPECT_TRUE(test::analyze(b).has_warning("slice step 0 on axis 0"));
}

TEST(IndexingOps, SliceUnknownBoundsGiveFreshDims) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 8}).input("st", kInt64, {1}).initializer_ints("en", {kInt64Max});
  b.initializer_ints("ax", {1});
  b.node("Slice", {"X", "st", "en", "ax"}, {"Y"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "Slice_0_o0_d1"}));
  const SymbolInfo* s = a.ctx->pool().find_symbol("Slice_0_o0_d1");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->bounds, (Interval{0, 8}));
}

TEST(IndexingOps, SliceValueOfA1DShape) {
  ModelBuilder b;
  b.input("X", kFloat, {"b", "s", "h", "d"});
  b.initializer_ints("st", {1}).initializer_ints("en", {-1}).initializer_ints("rs", {-1});
  b.initializer_ints("re", {kInt64Min}).initializer_ints("ax", {0});
  b.node("Shape", {"X"}, {"S"});
  b.node("Slice", {"S", "st", "en"}, {"Mid"});
  b.node("Slice", {"S", "rs", "re", "ax", "rs"}, {"Rev"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Mid"), (Dims{"2"}));
  EXPECT_EQ(a.value("Mid"), (Dims{"s", "h"}));
  EXPECT_EQ(a.value("Rev"), (Dims{"d", "h", "s", "b"}));
}

// PyTorch's scripted F.pad: pads [l0, r0, l1, r1] reshaped to [2, 2], rows reversed by a Slice of
// step -1, transposed and flattened give the ONNX order [l1, l0, r1, r0].
TEST(IndexingOps, SliceAndTransposeKeepTheValueOfA2DTensor) {
  ModelBuilder b;
  b.input("X", kFloat, {"b", "s"});
  b.node("Shape", {"X"}, {"S"});
  b.initializer_ints("p", {0, 0, 2, 1}).initializer_ints("rows", {-1, 2});
  b.initializer_ints("st", {-1}).initializer_ints("en", {kInt64Min}).initializer_ints("ax", {0});
  b.initializer_ints("flat", {-1});
  b.node("Concat", {"p", "S"}, {"PS"}, {attr("axis", 0)});
  b.node("Reshape", {"PS", "rows"}, {"R"});
  b.node("Slice", {"R", "st", "en", "ax", "st"}, {"Rev"});
  b.node("Transpose", {"Rev"}, {"T"}, {attr("perm", std::vector<std::int64_t>{1, 0})});
  b.node("Reshape", {"T", "flat"}, {"Pads"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Rev"), (Dims{"3", "2"}));
  EXPECT_EQ(a.value("Rev"), (Dims{"b", "s", "2", "1", "0", "0"}));
  EXPECT_EQ(a.value("T"), (Dims{"b", "2", "0", "s", "1", "0"}));
  EXPECT_EQ(a.value("Pads"), (Dims{"b", "2", "0", "s", "1", "0"}));
}

// ---- Expand, Tile, Pad --------------------------------------------------------------------------

TEST(IndexingOps, ExpandRow26) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 1}).input("Y", kFloat, {"M"});
  b.initializer_ints("one", {1});
  b.node("Shape", {"Y"}, {"ys"}).node("Concat", {"one", "ys"}, {"shape"}, {attr("axis", 0)});
  b.node("Expand", {"X", "shape"}, {"Z"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.value("shape"), (Dims{"1", "M"}));
  EXPECT_EQ(a.dims("Z"), (Dims{"N", "M"}));
}

TEST(IndexingOps, ExpandBroadcastsAValue) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"}).initializer_ints("shape", {3});
  b.node("Shape", {"X"}, {"S"}).node("Expand", {"S", "shape"}, {"E"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("E"), (Dims{"3"}));
  EXPECT_EQ(a.value("E"), (Dims{"N", "N", "N"}));
}

TEST(IndexingOps, ExpandWithUnknownShapeOfKnownLength) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 1}).input("shape", kInt64, {3});
  b.node("Expand", {"X", "shape"}, {"Z"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Z"), (Dims{"Expand_0_o0_d0", "Expand_0_o0_d1", "Expand_0_o0_d2"}));
}

TEST(IndexingOps, TileRow27AndValue) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 3}).initializer_ints("r", {2, 1}).initializer_ints("r1", {2});
  b.node("Tile", {"X", "r"}, {"Y"});
  b.node("Shape", {"X"}, {"S"}).node("Tile", {"S", "r1"}, {"T"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"2*N", "3"}));
  EXPECT_EQ(a.value("T"), (Dims{"N", "3", "N", "3"}));
}

TEST(IndexingOps, PadRow28AndOldAttributes) {
  ModelBuilder b(11);
  b.input("X", kFloat, {"N", "C", "H", "W"}).initializer_ints("p", {0, 0, 1, 1, 0, 0, 1, 1});
  b.node("Pad", {"X", "p"}, {"Y"});
  EXPECT_EQ(test::analyze(b).dims("Y"), (Dims{"N", "C", "H+2", "W+2"}));

  ModelBuilder b2(2);
  b2.input("X", kFloat, {"N", "C"});
  b2.node("Pad", {"X"}, {"Y"}, {attr("pads", std::vector<std::int64_t>{0, 2, 0, -1})});
  EXPECT_EQ(test::analyze(b2).dims("Y"), (Dims{"N", "C+1"}));

  ModelBuilder b1(1);
  b1.input("X", kFloat, {"N", 5});
  b1.node("Pad", {"X"}, {"Y"}, {attr("paddings", std::vector<std::int64_t>{1, 0, 1, 3})});
  EXPECT_EQ(test::analyze(b1).dims("Y"), (Dims{"N+2", "8"}));
}

TEST(IndexingOps, PadWithAxesInput) {
  ModelBuilder b(18);
  b.input("X", kFloat, {"N", "C", "H", "W"})
      .initializer_ints("p", {1, 2, 3, 4})
      .initializer_ints("ax", {-1, 2});
  b.node("Pad", {"X", "p", "", "ax"}, {"Y"});
  EXPECT_EQ(test::analyze(b).dims("Y"), (Dims{"N", "C", "H+6", "W+4"}));
}

TEST(IndexingOps, PadNegativeResultIsAnError) {
  ModelBuilder b(13);
  b.input("X", kFloat, {4}).initializer_ints("p", {-3, -2});
  b.node("Pad", {"X", "p"}, {"Y"});
  EXPECT_TRUE(test::analyze(b).has_warning("negative size")) << test::analyze(b).warnings();
}

TEST(IndexingOps, PadValueOfA1DShape) {
  ModelBuilder b(13);
  b.input("X", kFloat, {"b", "s"}).initializer_ints("p", {1, 1}).initializer_ints("v", {1}, {});
  b.node("Shape", {"X"}, {"S"}).node("Pad", {"S", "p", "v"}, {"P"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.value("P"), (Dims{"1", "b", "s", "1"}));
}

// ---- data-dependent sizes -----------------------------------------------------------------------

TEST(IndexingOps, TopKRow40UnknownK) {
  ModelBuilder b;
  pad_nodes(b, 9);
  b.input("X", kFloat, {"b", 100}).input("K", kInt64, {1});
  b.node("TopK", {"X", "K"}, {"V", "I"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("V"), (Dims{"b", "TopK_9_o0_d1"}));
  EXPECT_EQ(a.dims("I"), (Dims{"b", "TopK_9_o0_d1"}));
  EXPECT_EQ(a.dtype("I"), kInt64);
  const SymbolInfo* k = a.ctx->pool().find_symbol("TopK_9_o0_d1");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->bounds, (Interval{0, 100}));
}

TEST(IndexingOps, TopKFromAttributeAndSymbolicInput) {
  ModelBuilder b1(1);
  b1.input("X", kFloat, {"N", 10});
  b1.node("TopK", {"X"}, {"V", "I"}, {attr("k", 3)});
  EXPECT_EQ(test::analyze(b1).dims("I"), (Dims{"N", "3"}));

  ModelBuilder b;
  b.input("X", kFloat, {"N", "L"}).input("Q", kFloat, {"k"});
  b.node("Shape", {"Q"}, {"K"}).node("TopK", {"X", "K"}, {"V", "I"}, {attr("axis", 1)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("V"), (Dims{"N", "k"}));
  EXPECT_TRUE(has_constraint(a, Constraint::Kind::kLe));
}

TEST(IndexingOps, TopKTooLargeIsAnError) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 10}).initializer_ints("K", {11});
  b.node("TopK", {"X", "K"}, {"V", "I"});
  EXPECT_TRUE(test::analyze(b).has_warning("k = 11 exceeds axis 1 of size 10"));
}

TEST(IndexingOps, TopKScratchIsAnInt64IndexBuffer) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 100}).initializer_ints("K", {5});
  b.node("TopK", {"X", "K"}, {"V", "I"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.scratch(0), "800*N");
}

TEST(IndexingOps, NonZeroRow41) {
  ModelBuilder b;
  pad_nodes(b, 3);
  b.input("X", kFloat, {"N", 4});
  b.node("NonZero", {"X"}, {"Y"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"2", "NonZero_3_o0_d1"}));
  EXPECT_EQ(a.dtype("Y"), kInt64);
  const SymbolInfo* s = a.ctx->pool().find_symbol("NonZero_3_o0_d1");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->bounds.lo, 0);
}

TEST(IndexingOps, UniqueSharesOneFreshCount) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 4}).input("Z", kFloat, {"N", 4});
  b.node("Unique", {"X"}, {"Y", "idx", "inv", "cnt"});
  b.node("Unique", {"Z"}, {"Y2", "", "inv2"}, {attr("axis", 0)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"Unique_0_o0_d0"}));
  EXPECT_EQ(a.dims("idx"), (Dims{"Unique_0_o0_d0"}));
  EXPECT_EQ(a.dims("inv"), (Dims{"4*N"}));
  EXPECT_EQ(a.dims("cnt"), (Dims{"Unique_0_o0_d0"}));
  EXPECT_EQ(a.dtype("cnt"), kInt64);
  EXPECT_EQ(a.dims("Y2"), (Dims{"Unique_1_o0_d0", "4"}));
  EXPECT_EQ(a.dims("inv2"), (Dims{"N"}));
}

TEST(IndexingOps, CompressWithKnownAndUnknownCondition) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 5}).initializer(test::tensor_ints("c", {1, 0, 1}, {3}, test::kBool));
  b.input("d", test::kBool, {5});
  b.node("Compress", {"X", "c"}, {"Y"}, {attr("axis", 1)});
  b.node("Compress", {"X", "d"}, {"Z"}, {attr("axis", 1)});
  b.node("Compress", {"X", "d"}, {"F"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "2"}));
  EXPECT_EQ(a.dims("Z"), (Dims{"N", "Compress_1_o0_d1"}));
  EXPECT_EQ(a.dims("F"), (Dims{"Compress_2_o0_d0"}));
  const SymbolInfo* s = a.ctx->pool().find_symbol("Compress_2_o0_d0");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->bounds, (Interval{0, 5}));
}

TEST(IndexingOps, CompressWithAConstantConditionOnASymbolicAxisIsExact) {
  // Entries past the axis are ignored, so the count of [0,1,1] on an axis of length N is
  // [1 < N] + [2 < N], built exactly and evaluable.
  ModelBuilder b;
  b.input("X", kFloat, {"N", 2}).initializer(test::tensor_ints("c", {0, 1, 1}, {3}, test::kBool));
  b.node("Compress", {"X", "c"}, {"Y"}, {attr("axis", 0)});
  auto a = test::analyze(b);
  const Expr count = a.shape("Y").dims.at(0);
  EXPECT_EQ(a.ctx->pool().eval(count, {{"N", 1}}), 0);
  EXPECT_EQ(a.ctx->pool().eval(count, {{"N", 2}}), 1);
  EXPECT_EQ(a.ctx->pool().eval(count, {{"N", 3}}), 2);
  EXPECT_EQ(a.ctx->pool().eval(count, {{"N", 100}}), 2);
  auto bounded = test::analyze(b, [](Profile& p) { p.symbols["N"] = Interval{3, 4096}; });
  EXPECT_EQ(bounded.dims("Y"), (Dims{"2", "2"}));
}

TEST(IndexingOps, NonZeroOfAKnownValueIsExact) {
  ModelBuilder b;
  b.initializer(test::tensor_ints("m", {1, 0, 0, 1, 1, 0}, {2, 3}, test::kBool));
  b.node("NonZero", {"m"}, {"Y"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"2", "3"}));
  EXPECT_EQ(a.value("Y"), (Dims{"0", "1", "1", "0", "0", "1"}));
}

TEST(IndexingOps, ShapePreservingOpsAndDet) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", "M"}).input("ax", kInt64, {}).input("L", kInt64, {"M"});
  b.input("D", kFloat, {"B", "K", "K"});
  b.node("Trilu", {"X"}, {"T"}).node("CumSum", {"X", "ax"}, {"C"});
  b.node("ReverseSequence", {"X", "L"}, {"R"}, {attr("batch_axis", 1), attr("time_axis", 0)});
  b.node("Det", {"D"}, {"Q"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("T"), (Dims{"N", "M"}));
  EXPECT_EQ(a.dims("C"), (Dims{"N", "M"}));
  EXPECT_EQ(a.dims("R"), (Dims{"N", "M"}));
  EXPECT_EQ(a.dims("Q"), (Dims{"B"}));
}

}  // namespace
}  // namespace cctx
