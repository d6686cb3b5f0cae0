// Shape and value rules of the generators (Constant, ConstantOfShape, Range, EyeLike, OneHot;
// expressions.md section 9 row 42, section 8), through the real plugin.
#include <gtest/gtest.h>

#include "model_builder.hpp"

namespace cctx {
namespace {

using test::attr;
using test::Dims;
using test::kFloat;
using test::kInt64;
using test::ModelBuilder;

TEST(GeneratorOps, ConstantValueTensorAndIntegerAttributes) {
  ModelBuilder b;
  b.node("Constant", {}, {"T"},
         {attr("value", test::tensor_ints("t", {2, 3, 4, 5, 6, 7}, {2, 3}))});
  b.node("Constant", {}, {"I"}, {attr("value_int", 7)});
  b.node("Constant", {}, {"L"}, {attr("value_ints", std::vector<std::int64_t>{-1, 0, 4})});
  b.node("Constant", {}, {"F"}, {attr("value_floats", std::vector<float>{0.5f, 1.5f})});
  b.node("Constant", {}, {"G"}, {attr("value_float", 2.0f)});
  b.node("Constant", {}, {"S"}, {attr("value_strings", std::vector<std::string>{"a", "b", "c"})});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("T"), (Dims{"2", "3"}));
  EXPECT_EQ(a.value("T"), (Dims{"2", "3", "4", "5", "6", "7"}));
  EXPECT_EQ(a.dims("I"), Dims{});
  EXPECT_EQ(a.dtype("I"), kInt64);
  EXPECT_EQ(a.value("I"), (Dims{"7"}));
  EXPECT_EQ(a.dims("L"), (Dims{"3"}));
  EXPECT_EQ(a.value("L"), (Dims{"-1", "0", "4"}));
  EXPECT_EQ(a.dims("F"), (Dims{"2"}));
  EXPECT_EQ(a.dtype("F"), kFloat);
  EXPECT_TRUE(a.value("F").empty());
  EXPECT_EQ(a.dims("G"), Dims{});
  EXPECT_EQ(a.dims("S"), (Dims{"3"}));
  EXPECT_EQ(a.dtype("S"), test::kString);
}

TEST(GeneratorOps, ConstantFeedsAReshape) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 4});
  b.node("Constant", {}, {"s"}, {attr("value", test::tensor_ints("t", {-1, 2}))});
  b.node("Reshape", {"X", "s"}, {"Y"});
  EXPECT_EQ(test::analyze(b).dims("Y"), (Dims{"2*N", "2"}));
}

TEST(GeneratorOps, ConstantOfShapeFromAShapeValue) {
  ModelBuilder b;
  b.input("X", kFloat, {"b", "s"});
  b.node("Shape", {"X"}, {"S"});
  b.node("ConstantOfShape", {"S"}, {"Z"});
  b.node("ConstantOfShape", {"S"}, {"O"}, {attr("value", test::tensor_ints("v", {1}, {1}))});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Z"), (Dims{"b", "s"}));
  EXPECT_EQ(a.dtype("Z"), kFloat);
  EXPECT_EQ(a.dims("O"), (Dims{"b", "s"}));
  EXPECT_EQ(a.dtype("O"), kInt64);
  EXPECT_TRUE(a.value("O").empty());
}

TEST(GeneratorOps, ConstantOfShapeFillsASmallIntegerValue) {
  ModelBuilder b;
  b.initializer_ints("shape", {3});
  b.node("ConstantOfShape", {"shape"}, {"O"}, {attr("value", test::tensor_ints("v", {1}, {1}))});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("O"), (Dims{"3"}));
  EXPECT_EQ(a.value("O"), (Dims{"1", "1", "1"}));
}

TEST(GeneratorOps, ConstantOfShapeUnknownValueOfKnownLength) {
  ModelBuilder b;
  b.input("shape", kInt64, {2});
  b.node("ConstantOfShape", {"shape"}, {"O"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("O"), (Dims{"ConstantOfShape_0_o0_d0", "ConstantOfShape_0_o0_d1"}));
}

TEST(GeneratorOps, RangeRow42SymbolicLimit) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"});
  b.initializer_ints("start", {0}, {})
      .initializer_ints("delta", {2}, {})
      .initializer_ints("zero", {0}, {});
  b.node("Shape", {"X"}, {"S"}).node("Gather", {"S", "zero"}, {"limit"});
  b.node("Range", {"start", "limit", "delta"}, {"R"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("R"), (Dims{"(N+1)//2"}));
  EXPECT_EQ(a.dtype("R"), kInt64);
}

TEST(GeneratorOps, RangeValueAndNegativeDeltaAndFloats) {
  ModelBuilder b;
  b.initializer_ints("s", {10}, {}).initializer_ints("l", {3}, {}).initializer_ints("d", {-3}, {});
  b.initializer_floats("fs", {0.0f}, {})
      .initializer_floats("fl", {1.0f}, {})
      .initializer_floats("fd", {0.25f}, {});
  b.input("u", kFloat, {});
  b.node("Range", {"s", "l", "d"}, {"R"});
  b.node("Range", {"fs", "fl", "fd"}, {"F"});
  b.node("Range", {"fs", "u", "fd"}, {"U"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("R"), (Dims{"3"}));
  EXPECT_EQ(a.value("R"), (Dims{"10", "7", "4"}));
  EXPECT_EQ(a.dims("F"), (Dims{"4"}));
  EXPECT_EQ(a.dims("U"), (Dims{"Range_2_o0_d0"}));
}

TEST(GeneratorOps, RangeDeltaZeroIsAnError) {
  ModelBuilder b;
  b.initializer_ints("s", {0}, {}).initializer_ints("l", {3}, {}).initializer_ints("d", {0}, {});
  b.node("Range", {"s", "l", "d"}, {"R"});
  EXPECT_TRUE(test::analyze(b).has_warning("delta is 0"));
}

TEST(GeneratorOps, EyeLikeAndOneHot) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", "M"}).input("I", kInt64, {"B", "S"});
  b.initializer_ints("depth", {10}, {}).initializer_floats("fdepth", {5.0f}, {1});
  b.initializer_floats("vals", {0.0f, 1.0f});
  b.input("udepth", kInt64, {});
  b.node("EyeLike", {"X"}, {"E"}, {attr("dtype", static_cast<std::int64_t>(kInt64))});
  b.node("OneHot", {"I", "depth", "vals"}, {"H"});
  b.node("OneHot", {"I", "fdepth", "vals"}, {"H0"}, {attr("axis", 0)});
  b.node("OneHot", {"I", "udepth", "vals"}, {"HU"}, {attr("axis", 1)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("E"), (Dims{"N", "M"}));
  EXPECT_EQ(a.dtype("E"), kInt64);
  EXPECT_EQ(a.dims("H"), (Dims{"B", "S", "10"}));
  EXPECT_EQ(a.dtype("H"), kFloat);
  EXPECT_EQ(a.dims("H0"), (Dims{"5", "B", "S"}));
  EXPECT_EQ(a.dims("HU"), (Dims{"B", "OneHot_3_o0_d1", "S"}));
}

}  // namespace
}  // namespace cctx
