// Exact float shape arithmetic (issue 19 item 3; expressions.md "Shape-value propagation"): a
// floating tensor whose elements are exact integers keeps its value through Div, Mul, Ceil,
// Floor, Round, Sqrt of perfect squares and Cast, and small floating constants whose elements are
// exact integers (32.0) take part; anything not provably an exact integer carries no value.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "model_builder.hpp"

namespace cctx {
namespace {

using test::attr;
using test::Dims;
using test::kDouble;
using test::kFloat;
using test::kFloat16;
using test::kInt64;
using test::ModelBuilder;

/// A scalar Constant node holding `v` as float32.
void float_constant(ModelBuilder& b, const std::string& name, float v) {
  b.node("Constant", {}, {name}, {attr("value", test::tensor_floats("", {v}, {}))});
}

/// torchvision's GeneralizedRCNNTransform padding (_onnx_batch_images): the padded height is
/// ceil(float(h) / 32.0) * 32, cast back to int64, and the pad amount is that minus h.
ModelBuilder pad_to_stride(test::DimSpec height) {
  ModelBuilder b(17);
  b.input("X", kFloat, {1, 3, height, 8});
  b.initializer_ints("axis2", {2}, {});
  b.node("Shape", {"X"}, {"S"}).node("Gather", {"S", "axis2"}, {"H"});
  b.node("Cast", {"H"}, {"Hf"}, {attr("to", kFloat)});
  float_constant(b, "stride", 32.0f);
  b.node("Div", {"Hf", "stride"}, {"Q"}).node("Ceil", {"Q"}, {"Qc"});
  float_constant(b, "stride2", 32.0f);
  b.node("Mul", {"Qc", "stride2"}, {"Pf"}).node("Cast", {"Pf"}, {"P"}, {attr("to", kInt64)});
  // pads = [0,0,0,0, 0,0,P-H,0]
  b.node("Sub", {"P", "H"}, {"D"});
  b.initializer_ints("axis0", {0});
  b.node("Unsqueeze", {"D", "axis0"}, {"Du"});
  b.initializer_ints("zeros6", {0, 0, 0, 0, 0, 0}).initializer_ints("zeros1", {0});
  b.node("Concat", {"zeros6", "Du", "zeros1"}, {"pads"}, {attr("axis", 0)});
  b.node("Pad", {"X", "pads"}, {"Y"}).output("Y", kFloat);
  return b;
}

TEST(FloatValues, PadToStrideOfAMultipleIsExact) {
  auto a = test::analyze(pad_to_stride(320));
  EXPECT_EQ(a.value("Hf"), (Dims{"320"}));
  EXPECT_EQ(a.value("Q"), (Dims{"10"}));
  EXPECT_EQ(a.value("Qc"), (Dims{"10"}));
  EXPECT_EQ(a.value("P"), (Dims{"320"}));
  EXPECT_EQ(a.value("pads"), (Dims{"0", "0", "0", "0", "0", "0", "0", "0"}));
  EXPECT_EQ(a.dims("Y"), (Dims{"1", "3", "320", "8"}));
}

TEST(FloatValues, NonIntegerQuotientIsAFractionWhoseCeilIsExact) {
  // 300 / 32.0 = 9.375 is the fraction 75/8 (no integer value); its Ceil is 10, so the padded
  // height is 320, as torchvision's transform computes it.
  auto a = test::analyze(pad_to_stride(300));
  EXPECT_EQ(a.value("Hf"), (Dims{"300"}));
  EXPECT_EQ(a.value("Q"), Dims{});
  EXPECT_EQ(a.value("Qc"), (Dims{"10"}));
  EXPECT_EQ(a.value("P"), (Dims{"320"}));
  EXPECT_EQ(a.dims("Y"), (Dims{"1", "3", "320", "8"}));
}

TEST(FloatValues, SymbolicQuotientCeilIsACeilingDivision) {
  // H / 32.0 is the fraction H/32: Ceil makes it (H+31)//32, and the padded size a formula.
  auto a = test::analyze(pad_to_stride("H"));
  EXPECT_EQ(a.value("Hf"), (Dims{"H"}));
  EXPECT_EQ(a.value("Q"), Dims{});
  EXPECT_EQ(a.value("Qc"), (Dims{"(H+31)//32"}));
  EXPECT_EQ(a.value("P"), (Dims{"32*((H+31)//32)"}));
  EXPECT_EQ(a.dims("Y"), (Dims{"1", "3", "32*((H+31)//32)", "8"}));
}

TEST(FloatValues, SymbolicQuotientOnlyWhenProvablyExact) {
  // 2*H / 2.0 is H exactly.
  ModelBuilder b(17);
  b.input("X", kFloat, {"H"});
  b.node("Shape", {"X"}, {"S"}).node("Cast", {"S"}, {"Sf"}, {attr("to", kFloat)});
  float_constant(b, "two", 2.0f);
  b.node("Mul", {"Sf", "two"}, {"M"}).node("Div", {"M", "two"}, {"D"});
  b.node("Floor", {"D"}, {"F"}).node("Round", {"F"}, {"R"}).node("Ceil", {"R"}, {"C"});
  b.node("Cast", {"C"}, {"I"}, {attr("to", kInt64)});
  auto c = test::analyze(b);
  EXPECT_EQ(c.value("M"), (Dims{"2*H"}));
  EXPECT_EQ(c.value("D"), (Dims{"H"}));
  EXPECT_EQ(c.value("F"), (Dims{"H"}));
  EXPECT_EQ(c.value("R"), (Dims{"H"}));
  EXPECT_EQ(c.value("I"), (Dims{"H"}));
}

TEST(FloatValues, SqrtOfPerfectSquaresOnly) {
  ModelBuilder b(17);
  b.initializer_floats("sq", {16.0f, 0.0f, 9.0f}).initializer_floats("nsq", {16.0f, 15.0f});
  b.node("Sqrt", {"sq"}, {"R"}).node("Sqrt", {"nsq"}, {"N"});
  b.input("X", kFloat, {"H"});
  b.node("Shape", {"X"}, {"S"}).node("Cast", {"S"}, {"Sf"}, {attr("to", kFloat)});
  b.node("Mul", {"Sf", "Sf"}, {"SS"}).node("Sqrt", {"SS"}, {"RS"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.value("R"), (Dims{"4", "0", "3"}));
  EXPECT_EQ(a.value("N"), Dims{});   // sqrt(15) is not an integer
  EXPECT_EQ(a.value("RS"), Dims{});  // a symbolic square root is not attempted
}

TEST(FloatValues, BinaryFractionConstantsAreFractions) {
  ModelBuilder b(17);
  b.input("X", kFloat, {"H"});
  b.node("Shape", {"X"}, {"S"}).node("Cast", {"S"}, {"Sf"}, {attr("to", kFloat)});
  float_constant(b, "half", 0.5f);
  b.node("Mul", {"Sf", "half"}, {"M"});
  b.node("Cast", {"half"}, {"HI"}, {attr("to", kInt64)});
  b.node("Reciprocal", {"Sf"}, {"Rec"});
  b.initializer_floats("one", {1.0f});
  b.node("Reciprocal", {"one"}, {"RecOne"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.value("M"), Dims{});        // H/2: a fraction, not an integer value
  EXPECT_EQ(a.value("HI"), (Dims{"0"}));  // Cast truncates 0.5 toward zero
  EXPECT_EQ(a.value("Rec"), Dims{});
  EXPECT_EQ(a.value("RecOne"), (Dims{"1"}));
}

/// Shape(X)[0] as a float32 scalar `Hf` (X is [height]).
ModelBuilder height_as_float(test::DimSpec height) {
  ModelBuilder b(17);
  b.input("X", kFloat, {height});
  b.initializer_ints("at0", {0}, {});
  b.node("Shape", {"X"}, {"S"}).node("Gather", {"S", "at0"}, {"H"});
  b.node("Cast", {"H"}, {"Hf"}, {attr("to", kFloat)});
  return b;
}

TEST(FloatValues, FractionsThroughFloorCastRoundAndRelu) {
  ModelBuilder b = height_as_float("H");
  float_constant(b, "half", 0.5f);
  float_constant(b, "three", 3.0f);
  float_constant(b, "minus_two", -2.0f);
  b.node("Mul", {"Hf", "half"}, {"Half"}).node("Floor", {"Half"}, {"FloorHalf"});
  b.node("Div", {"Hf", "three"}, {"Third"}).node("Ceil", {"Third"}, {"CeilThird"});
  b.node("Cast", {"Third"}, {"TruncThird"}, {attr("to", kInt64)});
  b.node("Div", {"Hf", "minus_two"}, {"NegHalf"}).node("Floor", {"NegHalf"}, {"FloorNegHalf"});
  b.node("Cast", {"NegHalf"}, {"TruncNegHalf"}, {attr("to", kInt64)});
  b.node("Relu", {"NegHalf"}, {"Clamped"}).node("Ceil", {"Clamped"}, {"CeilClamped"});
  // A rounded quotient (H/3 is not a binary fraction) is no exact operand for more arithmetic.
  b.node("Mul", {"Third", "three"}, {"Back"});
  // H * 0.5 is exact: it may go on; Add of two halves is H.
  b.node("Add", {"Half", "Half"}, {"Whole"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.value("FloorHalf"), (Dims{"H//2"}));
  EXPECT_EQ(a.value("CeilThird"), (Dims{"(H+2)//3"}));
  EXPECT_EQ(a.value("TruncThird"), (Dims{"H//3"}));         // H >= 1: truncation is the floor
  EXPECT_EQ(a.value("FloorNegHalf"), (Dims{"(-H)//2"}));    // floor(-H/2)
  EXPECT_EQ(a.value("TruncNegHalf"), (Dims{"(-H+1)//2"}));  // toward zero: ceil(-H/2)
  EXPECT_EQ(a.value("CeilClamped"), (Dims{"0"}));
  EXPECT_EQ(a.value("Back"), Dims{});
  EXPECT_EQ(a.value("Whole"), (Dims{"H"}));
}

TEST(FloatValues, ConcreteFractionsRoundHalfToEven) {
  // ONNX Round: 2.5 -> 2, 3.5 -> 4, -2.5 -> -2, 7/3 -> 2.
  for (const auto& [h, divisor, expected] :
       std::vector<std::tuple<std::int64_t, float, std::string>>{
           {5, 2.0f, "2"}, {7, 2.0f, "4"}, {5, -2.0f, "-2"}, {7, 3.0f, "2"}, {8, 3.0f, "3"}}) {
    ModelBuilder b = height_as_float(h);
    float_constant(b, "d", divisor);
    b.node("Div", {"Hf", "d"}, {"Q"}).node("Round", {"Q"}, {"R"});
    auto a = test::analyze(b);
    EXPECT_EQ(a.value("R"), (Dims{expected})) << h << " / " << divisor;
  }
}

TEST(FloatValues, RangeExpandedTripCountFromAnInexactQuotient) {
  // ONNX's Range function body: ceil(float(limit - start) / float(delta)) iterations;
  // (6 - 10) / -3 = 4/3, so 2, the elements 10 and 7.
  ModelBuilder b(17);
  b.initializer_ints("start", {10}, {}).initializer_ints("limit", {6}, {});
  b.initializer_ints("delta", {-3}, {});
  b.node("Sub", {"limit", "start"}, {"span"});
  b.node("Cast", {"span"}, {"span_f"}, {attr("to", kFloat)});
  b.node("Cast", {"delta"}, {"delta_f"}, {attr("to", kFloat)});
  b.node("Div", {"span_f", "delta_f"}, {"q"}).node("Ceil", {"q"}, {"c"});
  b.node("Relu", {"c"}, {"r"});
  b.node("Cast", {"r"}, {"trips"}, {attr("to", kInt64)});
  b.node("Cast", {"r"}, {"go"}, {attr("to", test::kBool)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.value("q"), Dims{});
  EXPECT_EQ(a.value("trips"), (Dims{"2"}));
  EXPECT_EQ(a.value("go"), (Dims{"1"}));
}

TEST(FloatValues, ConstantAttributesAndOtherFloatTypes) {
  ModelBuilder b(17);
  b.input("X", kFloat, {6});
  b.node("Shape", {"X"}, {"S"});
  // Constant value_float, Cast to int64.
  b.node("Constant", {}, {"vf"}, {attr("value_float", 3.0f)});
  b.node("Cast", {"vf"}, {"vi"}, {attr("to", kInt64)});
  // double: 6.0 / 3.0 = 2
  onnx::TensorProto d;
  d.set_name("d3");
  d.set_data_type(kDouble);
  d.add_double_data(3.0);
  b.initializer(d);
  b.node("Cast", {"S"}, {"Sd"}, {attr("to", kDouble)}).node("Div", {"Sd", "d3"}, {"Qd"});
  // float16: 6 * 2.0 = 12; 4096.0 is beyond float16's exact integers (2^11): no value.
  onnx::TensorProto h;
  h.set_name("h2");
  h.set_data_type(kFloat16);
  h.add_int32_data(0x4000);  // 2.0
  b.initializer(h);
  onnx::TensorProto big;
  big.set_name("h4096");
  big.set_data_type(kFloat16);
  big.add_int32_data(0x6C00);  // 4096.0
  b.initializer(big);
  b.node("Cast", {"S"}, {"Sh"}, {attr("to", kFloat16)}).node("Mul", {"Sh", "h2"}, {"Mh"});
  b.node("Mul", {"Sh", "h4096"}, {"Mbig"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.value("vi"), (Dims{"3"}));
  EXPECT_EQ(a.value("Qd"), (Dims{"2"}));
  EXPECT_EQ(a.value("Mh"), (Dims{"12"}));
  EXPECT_EQ(a.value("Mbig"), Dims{});
}

TEST(FloatValues, ReductionsOfFloatConstants) {
  // torchvision's batch_images with fixed sizes: ReduceMax over a Constant [320.0], then Cast.
  ModelBuilder b(17);
  b.initializer_floats("c", {320.0f, 3.0f});
  b.node("ReduceMax", {"c"}, {"M"}, {attr("keepdims", std::int64_t{0})});
  b.node("Cast", {"M"}, {"I"}, {attr("to", kInt64)});
  b.node("ReduceSum", {"c"}, {"S"}, {attr("keepdims", std::int64_t{0})});
  // 4096 * 4096 = 2^24 is still exact in float32; 2^24 * 2 is not provably so: no value.
  b.initializer_floats("big", {4096.0f, 4096.0f, 2.0f});
  b.node("ReduceProd", {"big"}, {"P"}, {attr("keepdims", std::int64_t{0})});
  b.initializer_floats("edge", {4096.0f, 4096.0f});
  b.node("ReduceProd", {"edge"}, {"E"}, {attr("keepdims", std::int64_t{0})});
  auto a = test::analyze(b);
  EXPECT_EQ(a.value("M"), (Dims{"320"}));
  EXPECT_EQ(a.value("I"), (Dims{"320"}));
  EXPECT_EQ(a.value("S"), (Dims{"323"}));
  EXPECT_EQ(a.value("P"), Dims{});
  EXPECT_EQ(a.value("E"), (Dims{"16777216"}));
}

TEST(FloatValues, ComputedIntegerResizeScales) {
  // scales = Concat([1.0, 1.0], Cast([2, 3]) to float): exact integers, so Resize scales by them.
  ModelBuilder b(17);
  b.input("X", kFloat, {1, 3, "H", "W"});
  b.initializer_floats("ones", {1.0f, 1.0f}).initializer_ints("hw", {2, 3});
  b.node("Cast", {"hw"}, {"hwf"}, {attr("to", kFloat)});
  b.node("Concat", {"ones", "hwf"}, {"scales"}, {attr("axis", 0)});
  b.node("Resize", {"X", "", "scales"}, {"Y"}, {attr("mode", "nearest")}).output("Y", kFloat);
  auto a = test::analyze(b);
  EXPECT_EQ(a.value("scales"), (Dims{"1", "1", "2", "3"}));
  EXPECT_EQ(a.dims("Y"), (Dims{"1", "3", "2*H", "3*W"}));
}

}  // namespace
}  // namespace cctx
