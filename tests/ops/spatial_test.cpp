// Shape rules of the spatial operators (Resize, Upsample, DepthToSpace, SpaceToDepth,
// CenterCropPad, Col2Im; expressions.md section 9 row 45), through the real plugin.
#include <gtest/gtest.h>

#include "model_builder.hpp"

namespace cctx {
namespace {

using test::attr;
using test::Dims;
using test::kFloat;
using test::kInt64;
using test::ModelBuilder;

TEST(SpatialOps, ResizeRow45DyadicScales) {
  ModelBuilder b(13);
  b.input("X", kFloat, {"N", "C", "H", "W"}).initializer_floats("scales", {1.0f, 1.0f, 2.0f, 0.5f});
  b.node("Resize", {"X", "", "scales"}, {"Y"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "C", "2*H", "W//2"}));
  EXPECT_EQ(a.scratch(0), "0");
}

TEST(SpatialOps, ResizeOpset10AndNonDyadicScales) {
  ModelBuilder b(10);
  b.input("X", kFloat, {"N", 3, "H", 10}).initializer_floats("scales", {1.0f, 1.0f, 1.5f, 0.3f});
  b.node("Resize", {"X", "scales"}, {"Y"});
  EXPECT_EQ(test::analyze(b).dims("Y"), (Dims{"N", "3", "(3*H)//2", "3"}));

  ModelBuilder c(13);
  c.input("X", kFloat, {"N", "H"}).initializer_floats("scales", {1.0f, 0.3f});
  c.node("Resize", {"X", "", "scales"}, {"Y"});
  // 0.3f is exactly 5033165/2^24, so floor(H*0.3f) is exact for every H (H=10 gives 3).
  auto a = test::analyze(c);
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "(5033165*H)//16777216"}));

  // A scale too small to keep exactly (e > 40) gets a fresh dim bounded by the scaled bounds.
  ModelBuilder d(13);
  d.input("X", kFloat, {"N", "H"}).initializer_floats("scales", {1.0f, 1.0e-13f});
  d.node("Resize", {"X", "", "scales"}, {"Y"});
  auto t = test::analyze(d, [](Profile& p) { p.symbols["H"] = Interval{10, 100}; });
  EXPECT_EQ(t.dims("Y"), (Dims{"N", "Resize_0_o0_d1"}));
  const SymbolInfo* s = t.ctx->pool().find_symbol("Resize_0_o0_d1");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->bounds, (Interval{0, 0}));
}

TEST(SpatialOps, ResizeSizesFromAShapeValue) {
  ModelBuilder b(13);
  b.input("X", kFloat, {"N", "C", "H", "W"}).input("R", kFloat, {"N", "C", "P", "Q"});
  b.node("Shape", {"R"}, {"sizes"});
  b.node("Resize", {"X", "", "", "sizes"}, {"Y"});
  EXPECT_EQ(test::analyze(b).dims("Y"), (Dims{"N", "C", "P", "Q"}));
}

TEST(SpatialOps, ResizeAxesAndKeepAspectRatio) {
  ModelBuilder b(18);
  b.input("X", kFloat, {"N", 3, 20, 40}).input("Z", kFloat, {"N", 3, "H", "W"});
  b.initializer_ints("sizes", {10, 10});
  b.node("Resize", {"X", "", "", "sizes"}, {"S"}, {attr("axes", std::vector<std::int64_t>{2, 3})});
  b.node("Resize", {"X", "", "", "sizes"}, {"L"},
         {attr("axes", std::vector<std::int64_t>{2, 3}),
          attr("keep_aspect_ratio_policy", "not_larger")});
  b.node("Resize", {"X", "", "", "sizes"}, {"G"},
         {attr("axes", std::vector<std::int64_t>{-2, -1}),
          attr("keep_aspect_ratio_policy", "not_smaller")});
  b.node("Resize", {"Z", "", "", "sizes"}, {"F"},
         {attr("axes", std::vector<std::int64_t>{2, 3}),
          attr("keep_aspect_ratio_policy", "not_larger")});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("S"), (Dims{"N", "3", "10", "10"}));
  EXPECT_EQ(a.dims("L"), (Dims{"N", "3", "5", "10"}));
  EXPECT_EQ(a.dims("G"), (Dims{"N", "3", "10", "20"}));
  EXPECT_EQ(a.dims("F"), (Dims{"N", "3", "Resize_3_o0_d2", "Resize_3_o0_d3"}));
}

TEST(SpatialOps, UpsampleAttributeAndInputScales) {
  ModelBuilder b7(7);
  b7.input("X", kFloat, {"N", "C", "H", "W"});
  b7.node("Upsample", {"X"}, {"Y"}, {attr("scales", std::vector<float>{1.0f, 1.0f, 2.0f, 2.0f})});
  EXPECT_EQ(test::analyze(b7).dims("Y"), (Dims{"N", "C", "2*H", "2*W"}));

  ModelBuilder b9(9);
  b9.input("X", kFloat, {"N", "C", "H", "W"}).initializer_floats("s", {1.0f, 1.0f, 4.0f, 0.25f});
  b9.node("Upsample", {"X", "s"}, {"Y"});
  EXPECT_EQ(test::analyze(b9).dims("Y"), (Dims{"N", "C", "4*H", "W//4"}));
}

TEST(SpatialOps, DepthToSpaceAndSpaceToDepth) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 16, "H", "W"}).input("Z", kFloat, {"N", "C", "H", "W"});
  b.node("DepthToSpace", {"X"}, {"D"}, {attr("blocksize", 2)});
  b.node("SpaceToDepth", {"Z"}, {"S"}, {attr("blocksize", 2)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("D"), (Dims{"N", "4", "2*H", "2*W"}));
  EXPECT_EQ(a.dims("S"), (Dims{"N", "4*C", "H/:2", "W/:2"}));
  int divides = 0;
  for (const Constraint& c : a.ctx->constraints()) divides += c.kind == Constraint::Kind::kDivides;
  EXPECT_EQ(divides, 2);
}

TEST(SpatialOps, DepthToSpaceIndivisibleChannelsIsAnError) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 6, "H", "W"});
  b.node("DepthToSpace", {"X"}, {"D"}, {attr("blocksize", 2)});
  EXPECT_TRUE(test::analyze(b).has_warning("channels 6 is not a multiple of 4"));
}

TEST(SpatialOps, CenterCropPadAndCol2Im) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", "H", "W", 3}).initializer_ints("crop", {32, 48});
  b.input("C", kFloat, {"N", 36, "L"})
      .initializer_ints("img", {5, 5})
      .initializer_ints("blk", {2, 3});
  b.node("CenterCropPad", {"X", "crop"}, {"Y"}, {attr("axes", std::vector<std::int64_t>{1, 2})});
  b.node("Col2Im", {"C", "img", "blk"}, {"I"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "32", "48", "3"}));
  EXPECT_EQ(a.dims("I"), (Dims{"N", "6", "5", "5"}));
}

}  // namespace
}  // namespace cctx
