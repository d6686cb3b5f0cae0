// The quantized com.microsoft operators (families/qlinear.cpp) through the real pipeline: a
// QOperator-format residual block as ONNX Runtime's quantizer writes it (QLinearConv,
// QLinearAdd, QLinearGlobalAveragePool, QGemm) and the channels-last forms ONNX Runtime's
// optimiser writes (QLinearConv with channels_last, NhwcMaxPool), with symbolic N, H, W.
#include <gtest/gtest.h>

#include "microsoft_test_support.hpp"
#include "model_builder.hpp"

namespace cctx {
namespace {

using test::attr;
using test::Dims;
using test::kFloat;
using test::kInt8;
using test::kMs;
using test::ModelBuilder;
using test::ruled;

/// Scale and zero point initializers `NAME_s`, `NAME_z` (int8).
void quantization(ModelBuilder& b, const std::string& name) {
  b.initializer(test::tensor_floats(name + "_s", {0.01F}, {}));
  b.initializer(test::tensor_ints(name + "_z", {0}, {}, kInt8));
}

TEST(MicrosoftQLinear, AQuantizedResidualBlockAndItsHead) {
  ModelBuilder b = test::ms_model();
  b.input("X", kInt8, {"N", 16, "H", "W"});
  for (const char* q : {"x", "w", "c", "y", "p", "g", "fc"}) quantization(b, q);
  b.initializer(test::tensor_zeros("W", kInt8, {16, 16, 3, 3}));
  b.initializer(test::tensor_zeros("FC", kInt8, {10, 16}));
  b.node("QLinearConv", {"X", "x_s", "x_z", "W", "w_s", "w_z", "c_s", "c_z"}, {"C"},
         {attr("pads", std::vector<std::int64_t>{1, 1, 1, 1})});
  b.node("QLinearAdd", {"C", "c_s", "c_z", "X", "x_s", "x_z", "y_s", "y_z"}, {"Y"}, {}, kMs);
  b.node("QLinearGlobalAveragePool", {"Y", "y_s", "y_z", "p_s", "p_z"}, {"P"}, {}, kMs);
  b.initializer(test::tensor_ints("flat", {0, -1}, {2}));
  b.node("Reshape", {"P", "flat"}, {"F"});
  b.node("QGemm", {"F", "p_s", "p_z", "FC", "w_s", "w_z", "", "fc_s", "fc_z"}, {"G"},
         {attr("transB", 1)}, kMs);
  b.node("QGemm", {"F", "p_s", "p_z", "FC", "w_s", "w_z"}, {"Gf"}, {attr("transB", 1)}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("C"), (Dims{"N", "16", "H", "W"}));
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "16", "H", "W"}));
  EXPECT_EQ(a.dtype("Y"), kInt8);
  EXPECT_EQ(a.dims("P"), (Dims{"N", "16", "1", "1"}));
  EXPECT_EQ(a.dims("G"), (Dims{"N", "10"}));
  EXPECT_EQ(a.dtype("G"), kInt8);
  EXPECT_EQ(a.dtype("Gf"), kFloat);  // no y_scale: dequantized output
  EXPECT_EQ(a.warnings(), "");
}

TEST(MicrosoftQLinear, ChannelsLastConvPoolsAndConcat) {
  ModelBuilder b = test::ms_model();
  b.input("X", kInt8, {"N", "H", "W", 32});
  for (const char* q : {"x", "w", "y", "a", "b"}) quantization(b, q);
  b.initializer(test::tensor_zeros("W", kInt8, {64, 32, 3, 3}));
  b.node("QLinearConv", {"X", "x_s", "x_z", "W", "w_s", "w_z", "y_s", "y_z"}, {"Y"},
         {attr("channels_last", 1), attr("strides", std::vector<std::int64_t>{2, 2})}, kMs);
  b.node("NhwcMaxPool", {"Y"}, {"M"},
         {attr("kernel_shape", std::vector<std::int64_t>{2, 2}),
          attr("strides", std::vector<std::int64_t>{2, 2})},
         kMs);
  b.node("QLinearGlobalAveragePool", {"M", "y_s", "y_z", "a_s", "a_z"}, {"G"},
         {attr("channels_last", 1)}, kMs);
  b.node("QLinearConcat", {"b_s", "b_z", "Y", "y_s", "y_z", "Y", "y_s", "y_z"}, {"K"},
         {attr("axis", 3)}, kMs);
  b.node("QLinearSigmoid", {"K", "b_s", "b_z", "a_s", "a_z"}, {"S"}, {}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "(H+1)//2-1", "(W+1)//2-1", "64"}));  // (H-3)//2+1
  // A pool truncates toward zero: one output at least.
  EXPECT_EQ(a.dims("M"), (Dims{"N", "max((H+3)//4-1,1)", "max((W+3)//4-1,1)", "64"}));
  EXPECT_EQ(a.dims("G"), (Dims{"N", "1", "1", "64"}));
  EXPECT_EQ(a.dims("K"), (Dims{"N", "(H+1)//2-1", "(W+1)//2-1", "128"}));
  EXPECT_EQ(a.dims("S"), a.dims("K"));
}

TEST(MicrosoftQLinear, ConcatInputsComeInThrees) {
  ModelBuilder b = test::ms_model();
  b.input("X", kInt8, {"N", 8});
  quantization(b, "x");
  b.node("QLinearConcat", {"x_s", "x_z", "X", "x_s", "x_z", "X"}, {"K"}, {attr("axis", 1)}, kMs);
  auto a = test::analyze(b);
  EXPECT_NE(a.warnings().find("come in threes"), std::string::npos) << a.warnings();
}

}  // namespace
}  // namespace cctx
