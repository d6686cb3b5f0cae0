// Convolution, pooling and sampling rules through the real plugin (expressions.md "Symbolic shape
// inference rules (ai.onnx plugin)" and 9 rows 29-35), with the im2col / col2im scratch estimates
// (semantics.md "Peak scratch memory" and 15 item 41).
#include <gtest/gtest.h>

#include "model_builder.hpp"

namespace cctx {
namespace {

using test::attr;
using test::Dims;
using test::kFloat;
using test::kInt64;
using test::ModelBuilder;
using Ints = std::vector<std::int64_t>;

ModelBuilder image_input(std::int64_t opset = 18) {
  ModelBuilder b(opset);
  b.input("X", kFloat, {"N", "C", "H", "W"});
  return b;
}

TEST(NnConv, KernelThreeStrideOneAndTwo) {  // rows 29, 30
  ModelBuilder b;
  b.input("X", kFloat, {"N", 3, "H", "W"})
      .initializer(test::tensor_zeros("K", kFloat, {8, 3, 3, 3}));
  b.node("Conv", {"X", "K"}, {"Y"});
  b.node("Conv", {"X", "K"}, {"Z"}, {attr("strides", Ints{2, 2})});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "8", "H-2", "W-2"}));
  EXPECT_EQ(a.dims("Z"), (Dims{"N", "8", "(H+1)//2-1", "(W+1)//2-1"}));
  EXPECT_EQ(a.dtype("Y"), kFloat);
  EXPECT_EQ(a.warnings(), "");
}

TEST(NnConv, StemConvThenMaxPool) {  // rows 31, 32
  ModelBuilder b;
  b.input("X", kFloat, {"N", 3, "H", "W"})
      .initializer(test::tensor_zeros("K", kFloat, {64, 3, 7, 7}));
  b.node("Conv", {"X", "K"}, {"C"},
         {attr("strides", Ints{2, 2}), attr("pads", Ints{3, 3, 3, 3}),
          attr("kernel_shape", Ints{7, 7})});
  b.node("MaxPool", {"C"}, {"P"},
         {attr("kernel_shape", Ints{3, 3}), attr("strides", Ints{2, 2}),
          attr("pads", Ints{1, 1, 1, 1})});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("C"), (Dims{"N", "64", "(H+1)//2", "(W+1)//2"}));
  EXPECT_EQ(a.dims("P"), (Dims{"N", "64", "(H+3)//4", "(W+3)//4"}));
}

TEST(NnConv, DilationsAutoPadAndOneSpatialAxis) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 2, "H", "W"})
      .initializer(test::tensor_zeros("K", kFloat, {4, 2, 3, 3}));
  b.input("S", kFloat, {"N", 2, "L"}).initializer(test::tensor_zeros("K1", kFloat, {5, 2, 4}));
  b.node("Conv", {"X", "K"}, {"D"}, {attr("dilations", Ints{2, 1})});
  b.node("Conv", {"X", "K"}, {"V"}, {attr("auto_pad", "VALID"), attr("strides", Ints{3, 3})});
  b.node("Conv", {"X", "K"}, {"L"}, {attr("auto_pad", "SAME_LOWER"), attr("strides", Ints{2, 3})});
  b.node("Conv", {"S", "K1"}, {"O"}, {attr("pads", Ints{1, 2})});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("D"), (Dims{"N", "4", "H-4", "W-2"}));
  EXPECT_EQ(a.dims("V"), (Dims{"N", "4", "H//3", "W//3"}));  // (H-3)//3+1
  EXPECT_EQ(a.dims("L"), (Dims{"N", "4", "(H+1)//2", "(W+2)//3"}));
  EXPECT_EQ(a.dims("O"), (Dims{"N", "5", "L"}));
  EXPECT_EQ(a.warnings(), "");
}

TEST(NnConv, GroupedConvChecksChannels) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 8, "H", "W"})
      .initializer(test::tensor_zeros("K", kFloat, {16, 4, 1, 1}));
  b.node("Conv", {"X", "K"}, {"Y"}, {attr("group", 2)});
  b.node("Conv", {"X", "K"}, {"Z"}, {attr("group", 3)}, "", "bad_group");
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "16", "H", "W"}));
  EXPECT_TRUE(a.has_warning("input channels differ from weight channels x group 3: 8 vs 12"))
      << a.warnings();
  EXPECT_EQ(a.dims("Z"), (Dims{"<unknown rank>"}));
}

TEST(NnConv, SymbolicChannelsRecordAnAssumption) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", "C", "H", "W"})
      .initializer(test::tensor_zeros("K", kFloat, {8, 3, 3, 3}));
  b.node("Conv", {"X", "K"}, {"Y"}, {attr("pads", Ints{1, 1, 1, 1})});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "8", "H", "W"}));
  ASSERT_EQ(a.ctx->constraints().size(), 1u);
  EXPECT_EQ(a.ctx->constraints()[0].kind, Constraint::Kind::kEq);
  EXPECT_EQ(a.print(a.ctx->constraints()[0].a), "C");
}

TEST(NnConv, UnknownWeightGivesFreshDims) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 3, "H", "W"}).input("K", kFloat, test::ShapeSpec::unknown());
  b.node("Conv", {"X", "K"}, {"Y"})
      .node("Conv", {"X", "K"}, {"Z"}, {attr("auto_pad", "SAME_UPPER")});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "Conv_0_o0_d1", "Conv_0_o0_d2", "Conv_0_o0_d3"}));
  // SAME needs no kernel: ceil(x / stride).
  EXPECT_EQ(a.dims("Z"), (Dims{"N", "Conv_1_o0_d1", "H", "W"}));
}

TEST(NnConv, UnknownRankInputsStayUnknownRank) {
  ModelBuilder b;
  b.input("X", kFloat, test::ShapeSpec::unknown()).input("K", kFloat, {8, 3, 3, 3});
  b.node("Conv", {"X", "K"}, {"Y"});
  b.node("MaxPool", {"X"}, {"P", "I"}, {attr("kernel_shape", Ints{2, 2})});
  b.node("GlobalAveragePool", {"X"}, {"G"});
  auto a = test::analyze(b);
  for (const char* o : {"Y", "P", "I", "G"}) EXPECT_EQ(a.dims(o), (Dims{"<unknown rank>"})) << o;
  EXPECT_EQ(a.dtype("I"), kInt64);
  EXPECT_EQ(a.scratch(0), "scratch_Conv_0");
}

TEST(NnConv, EmptyOutputIsAnError) {
  ModelBuilder b;
  b.input("X", kFloat, {1, 3, 2, 2}).initializer(test::tensor_zeros("K", kFloat, {8, 3, 3, 3}));
  b.node("Conv", {"X", "K"}, {"Y"});
  auto a = test::analyze(b);
  EXPECT_TRUE(a.has_warning("output size 0 of spatial axis 2 is not positive")) << a.warnings();
}

TEST(NnConv, IntegerAndQuantizedVariants) {
  ModelBuilder b(13);
  b.input("X", test::kUint8, {"N", 3, "H", "W"}).input("Wq", test::kUint8, {8, 3, 3, 3});
  b.initializer(test::tensor_zeros("xs", kFloat, {}))
      .initializer(test::tensor_zeros("xz", test::kUint8, {}));
  b.initializer(test::tensor_zeros("ws", kFloat, {}))
      .initializer(test::tensor_zeros("wz", test::kUint8, {}));
  b.initializer(test::tensor_zeros("ys", kFloat, {}))
      .initializer(test::tensor_zeros("yz", test::kInt8, {}));
  b.node("ConvInteger", {"X", "Wq"}, {"I"});
  b.node("QLinearConv", {"X", "xs", "xz", "Wq", "ws", "wz", "ys", "yz"}, {"Q"},
         {attr("pads", Ints{1, 1, 1, 1})});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("I"), (Dims{"N", "8", "H-2", "W-2"}));
  EXPECT_EQ(a.dtype("I"), test::kInt32);
  EXPECT_EQ(a.dims("Q"), (Dims{"N", "8", "H", "W"}));
  EXPECT_EQ(a.dtype("Q"), test::kInt8);
}

TEST(NnConv, DeformConvUsesTheConvFormula) {
  ModelBuilder b(19);
  b.input("X", kFloat, {"N", 4, "H", "W"}).input("K", kFloat, {6, 4, 3, 3});
  b.input("off", kFloat, {"N", 18, "Ho", "Wo"});
  b.node("DeformConv", {"X", "K", "off"}, {"Y"}, {attr("strides", Ints{2, 2})});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "6", "(H+1)//2-1", "(W+1)//2-1"}));
}

TEST(NnConvTranspose, UpsamplingByTwo) {  // row 35
  ModelBuilder b;
  b.input("X", kFloat, {"N", 16, "H", "W"})
      .initializer(test::tensor_zeros("K", kFloat, {16, 8, 4, 4}));
  b.node("ConvTranspose", {"X", "K"}, {"Y"},
         {attr("strides", Ints{2, 2}), attr("pads", Ints{1, 1, 1, 1})});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "8", "2*H", "2*W"}));
  EXPECT_EQ(a.warnings(), "");
}

TEST(NnConvTranspose, GroupOutputPaddingAutoPadAndOutputShape) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 4, "H", "W"})
      .initializer(test::tensor_zeros("K", kFloat, {4, 3, 3, 3}));
  b.node("ConvTranspose", {"X", "K"}, {"G"}, {attr("group", 2)});
  b.node("ConvTranspose", {"X", "K"}, {"P"},
         {attr("strides", Ints{2, 2}), attr("output_padding", Ints{1, 0})});
  b.node("ConvTranspose", {"X", "K"}, {"S"},
         {attr("strides", Ints{3, 2}), attr("auto_pad", "SAME_UPPER")});
  b.node("ConvTranspose", {"X", "K"}, {"O"}, {attr("output_shape", Ints{20, 30})});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("G"), (Dims{"N", "6", "H+2", "W+2"}));
  EXPECT_EQ(a.dims("P"), (Dims{"N", "3", "2*H+2", "2*W+1"}));
  EXPECT_EQ(a.dims("S"), (Dims{"N", "3", "3*H", "2*W"}));
  EXPECT_EQ(a.dims("O"), (Dims{"N", "3", "20", "30"}));
}

TEST(NnPool, CeilModeLastWindowStartsInside) {  // row 33
  ModelBuilder b;
  b.input("X", kFloat, {"N", "C", "H", "W"}).input("F", kFloat, {1, 1, 4, 4});
  const auto k2s2 = std::vector<onnx::AttributeProto>{
      attr("kernel_shape", Ints{2, 2}), attr("strides", Ints{2, 2}), attr("ceil_mode", 1)};
  b.node("MaxPool", {"X"}, {"Y"}, k2s2);
  auto padded = k2s2;
  padded.push_back(attr("pads", Ints{0, 0, 1, 1}));
  // ceil((4+1-2)/2)+1 = 3 windows, but the third would start in the right padding.
  b.node("MaxPool", {"F"}, {"Z"}, padded);
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "C", "(H+1)//2", "(W+1)//2"}));
  EXPECT_EQ(a.dims("Z"), (Dims{"1", "1", "2", "2"}));
}

/// A pool of `kernel` x `kernel` with `stride`, `pad` on every side and `ceil_mode` over a
/// [1, 1, h, 5] input; returns Y's dims ({"<unknown rank>"} when the rule fails: the output
/// falls back to an unknown rank).
Dims pool_dims(const char* op, std::int64_t kernel, std::int64_t stride, std::int64_t pad,
               std::int64_t ceil_mode, std::int64_t h) {
  ModelBuilder b(17);
  b.input("X", kFloat, {1, 1, h, 5});
  b.node(op, {"X"}, {"Y"},
         {attr("kernel_shape", Ints{kernel, kernel}), attr("strides", Ints{stride, stride}),
          attr("pads", Ints{pad, pad, pad, pad}), attr("ceil_mode", ceil_mode)});
  return test::analyze(b).dims("Y");
}

// Windows larger than the input: what ONNX Runtime 1.2x's CPU pooling kernels computed on this
// machine for each case (onnxruntime-node, the [1,1,h,5] inputs below): output sizes truncate
// toward zero, so a window larger than the input by less than a stride gives 1 (floor would give
// 0), by a stride or more gives an empty axis, and a negative size is refused.
TEST(NnPool, WindowLargerThanTheInput) {
  for (const char* op : {"MaxPool", "AveragePool"}) {
    SCOPED_TRACE(op);
    EXPECT_EQ(pool_dims(op, 2, 2, 0, 0, 1), (Dims{"1", "1", "1", "2"}));
    EXPECT_EQ(pool_dims(op, 3, 2, 0, 0, 1), (Dims{"1", "1", "0", "2"}));
    EXPECT_EQ(pool_dims(op, 3, 2, 0, 0, 2), (Dims{"1", "1", "1", "2"}));
    EXPECT_EQ(pool_dims(op, 3, 3, 0, 0, 1), (Dims{"1", "1", "1", "1"}));
    EXPECT_EQ(pool_dims(op, 4, 2, 0, 0, 1), (Dims{"1", "1", "0", "1"}));
    EXPECT_EQ(pool_dims(op, 7, 3, 0, 0, 2), (Dims{"1", "1", "0", "1"}));
    EXPECT_EQ(pool_dims(op, 5, 1, 0, 0, 1), (Dims{"<unknown rank>"}));  // ORT: invalid dim -3
    EXPECT_EQ(pool_dims(op, 2, 2, 0, 1, 1), (Dims{"1", "1", "1", "3"}));
    EXPECT_EQ(pool_dims(op, 3, 2, 0, 1, 1), (Dims{"1", "1", "0", "2"}));
    EXPECT_EQ(pool_dims(op, 3, 3, 0, 1, 1), (Dims{"1", "1", "1", "2"}));
    EXPECT_EQ(pool_dims(op, 4, 2, 0, 1, 1), (Dims{"1", "1", "0", "2"}));
    EXPECT_EQ(pool_dims(op, 2, 2, 1, 1, 3), (Dims{"1", "1", "2", "3"}));
  }
}

// Symbolic: the formula is the runtime's at every size the recorded constraints allow; a stride-2
// pool of a dim that may be 1 keeps 1 (max), and a Conv requires that its window fit (ONNX
// Runtime refuses it otherwise), which narrows H and W to 6 and up: the pool's output then
// simplifies to H//2.
TEST(NnPool, WindowLargerThanTheInputSymbolically) {
  ModelBuilder b(17);
  b.input("X", kFloat, {"N", 1, "H", "W"});
  b.node("MaxPool", {"X"}, {"P"}, {attr("kernel_shape", Ints{2, 2}), attr("strides", Ints{2, 2})});
  auto pool_only = test::analyze(b);
  EXPECT_EQ(pool_only.dims("P"), (Dims{"N", "1", "max(1,H//2)", "max(1,W//2)"}));
  b.initializer(test::tensor_zeros("K", kFloat, {4, 1, 3, 3}));
  b.node("Conv", {"P", "K"}, {"Y"}, {attr("kernel_shape", Ints{3, 3})});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("P"), (Dims{"N", "1", "H//2", "W//2"}));
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "4", "H//2-2", "W//2-2"}));
  std::vector<std::string> narrowed;
  for (const SymbolInfo& s : a.ctx->pool().symbols()) {
    if (!s.narrowed_by.empty()) narrowed.push_back(s.name + ">=" + std::to_string(s.bounds.lo));
  }
  EXPECT_EQ(narrowed, (std::vector<std::string>{"H>=6", "W>=6"}));
}

TEST(NnPool, CeilModeAndDilationsOnlyFromTheirOpset) {
  const auto attrs = std::vector<onnx::AttributeProto>{
      attr("kernel_shape", Ints{2, 2}), attr("strides", Ints{2, 2}), attr("ceil_mode", 1)};
  ModelBuilder b8 = image_input(8);
  b8.node("MaxPool", {"X"}, {"Y"}, attrs);
  // Opset 8 ignores ceil_mode: floor, truncated toward zero as the runtime does (a dim of 1
  // still gives 1; NnPool.WindowLargerThanTheInput).
  EXPECT_EQ(test::analyze(b8).dims("Y"), (Dims{"N", "C", "max(1,H//2)", "max(1,W//2)"}));

  const auto dilated = std::vector<onnx::AttributeProto>{attr("kernel_shape", Ints{2, 2}),
                                                         attr("dilations", Ints{2, 2})};
  ModelBuilder b18 = image_input(18);
  b18.node("AveragePool", {"X"}, {"Y"}, dilated);
  EXPECT_EQ(test::analyze(b18).dims("Y"), (Dims{"N", "C", "H-1", "W-1"}));
  ModelBuilder b19 = image_input(19);
  b19.node("AveragePool", {"X"}, {"Y"}, dilated);
  EXPECT_EQ(test::analyze(b19).dims("Y"), (Dims{"N", "C", "H-2", "W-2"}));

  ModelBuilder lp11 = image_input(11), lp18 = image_input(18);
  lp11.node("LpPool", {"X"}, {"Y"}, attrs);
  lp18.node("LpPool", {"X"}, {"Y"}, attrs);
  EXPECT_EQ(test::analyze(lp11).dims("Y"), (Dims{"N", "C", "max(1,H//2)", "max(1,W//2)"}));
  EXPECT_EQ(test::analyze(lp18).dims("Y"), (Dims{"N", "C", "(H+1)//2", "(W+1)//2"}));
}

TEST(NnPool, SameUpperAveragePool) {  // row 34
  ModelBuilder b = image_input();
  b.node("AveragePool", {"X"}, {"Y"},
         {attr("kernel_shape", Ints{3, 3}), attr("strides", Ints{2, 2}),
          attr("auto_pad", "SAME_UPPER")});
  EXPECT_EQ(test::analyze(b).dims("Y"), (Dims{"N", "C", "(H+1)//2", "(W+1)//2"}));
}

TEST(NnPool, MaxPoolIndicesAreInt64LikeY) {
  ModelBuilder b = image_input(12);
  b.node("MaxPool", {"X"}, {"Y", "I"},
         {attr("kernel_shape", Ints{3, 3}), attr("pads", Ints{1, 1, 1, 1})});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("I"), (Dims{"N", "C", "H", "W"}));
  EXPECT_EQ(a.dtype("I"), kInt64);
  EXPECT_EQ(a.dtype("Y"), kFloat);
}

TEST(NnPool, MissingKernelShapeIsAnError) {
  ModelBuilder b = image_input();
  b.node("MaxPool", {"X"}, {"Y"});
  auto a = test::analyze(b);
  EXPECT_TRUE(a.has_warning("missing 'kernel_shape' attribute")) << a.warnings();
}

TEST(NnPool, GlobalPoolsKeepBatchAndChannels) {
  ModelBuilder b = image_input();
  b.input("V", kFloat, {"N", "C", "D", "H", "W"});
  b.node("GlobalAveragePool", {"X"}, {"A"}).node("GlobalMaxPool", {"X"}, {"M"});
  b.node("GlobalLpPool", {"V"}, {"L"}, {attr("p", 3)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("A"), (Dims{"N", "C", "1", "1"}));
  EXPECT_EQ(a.dims("M"), (Dims{"N", "C", "1", "1"}));
  EXPECT_EQ(a.dims("L"), (Dims{"N", "C", "1", "1", "1"}));
}

TEST(NnPool, RoiPoolsTakeTheRoiCount) {
  ModelBuilder b = image_input(16);
  b.input("rois", kFloat, {"R", 5}).input("boxes", kFloat, {"R", 4}).input("idx", kInt64, {"R"});
  b.node("MaxRoiPool", {"X", "rois"}, {"M"}, {attr("pooled_shape", Ints{7, 6})});
  b.node("RoiAlign", {"X", "boxes", "idx"}, {"A"}, {attr("output_height", 14)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("M"), (Dims{"R", "C", "7", "6"}));
  EXPECT_EQ(a.dims("A"), (Dims{"R", "C", "14", "1"}));
}

TEST(NnPool, MaxUnpoolFromWindowOrOutputShape) {
  ModelBuilder b(11);
  b.input("X", kFloat, {"N", "C", "H", "W"}).input("I", kInt64, {"N", "C", "H", "W"});
  b.input("Z", kFloat, {"N", "C", "Hz", "Wz"});
  b.node("MaxUnpool", {"X", "I"}, {"U"},
         {attr("kernel_shape", Ints{2, 2}), attr("strides", Ints{2, 2})});
  b.node("Shape", {"Z"}, {"S"});
  b.node("MaxUnpool", {"X", "I", "S"}, {"V"},
         {attr("kernel_shape", Ints{2, 2}), attr("strides", Ints{2, 2})});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("U"), (Dims{"N", "C", "2*H", "2*W"}));
  EXPECT_EQ(a.dims("V"), (Dims{"N", "C", "Hz", "Wz"}));
}

TEST(NnSampling, GridSampleTakesTheGridsSpatialDims) {
  ModelBuilder b(20);
  b.input("X", kFloat, {"N", "C", "H", "W"}).input("G", kFloat, {"N", "Ho", "Wo", 2});
  b.input("V", kFloat, {"N", "C", "D", "H", "W"}).input("G3", kFloat, {"N", "Do", "Ho", "Wo", 3});
  b.node("GridSample", {"X", "G"}, {"Y"}).node("GridSample", {"V", "G3"}, {"Z"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "C", "Ho", "Wo"}));
  EXPECT_EQ(a.dims("Z"), (Dims{"N", "C", "Do", "Ho", "Wo"}));
}

TEST(NnSampling, AffineGridFromASizeValue) {
  ModelBuilder b(20);
  b.input("T", kFloat, {"N", 2, 3}).input("X", kFloat, {"N", "C", "H", "W"});
  b.input("T3", kFloat, {"N", 3, 4}).input("S3", kInt64, {5});
  b.node("Shape", {"X"}, {"S"}).node("AffineGrid", {"T", "S"}, {"Y"});
  b.node("AffineGrid", {"T3", "S3"}, {"Z"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "H", "W", "2"}));
  EXPECT_EQ(a.dims("Z"),
            (Dims{"N", "AffineGrid_2_o0_d1", "AffineGrid_2_o0_d2", "AffineGrid_2_o0_d3", "3"}));
}

// ---- scratch (semantics.md "Test checklist" item 41)
// ----------------------------------------------------------

TEST(NnConvScratch, Im2colColumns) {
  ModelBuilder b;
  b.input("X", kFloat, {1, 3, 32, 32}).initializer(test::tensor_zeros("K", kFloat, {8, 3, 3, 3}));
  b.initializer(test::tensor_zeros("K1", kFloat, {8, 3, 1, 1}));
  b.input("S", kFloat, {"N", 3, "H", "W"});
  b.node("Conv", {"X", "K"}, {"Y"}, {attr("pads", Ints{1, 1, 1, 1})});
  b.node("Conv", {"X", "K1"}, {"P"});
  b.node("Conv", {"S", "K"}, {"Z"});
  b.node("Conv", {"X", "K1"}, {"Q"}, {attr("strides", Ints{2, 2})});
  auto a = test::analyze(b);
  EXPECT_EQ(a.scratch(0), "110592");
  EXPECT_EQ(a.scratch(1), "0");  // pointwise: a plain GEMM
  EXPECT_EQ(a.scratch(2), "108*H*W-216*H-216*W+432");
  EXPECT_EQ(a.scratch(3), "3072");  // strided 1x1 still gathers: 3 * 16 * 16 * 4
}

TEST(NnConvScratch, GroupsDivideTheColumns) {
  ModelBuilder b;
  b.input("X", kFloat, {1, 8, 10, 10}).initializer(test::tensor_zeros("K", kFloat, {8, 4, 3, 3}));
  b.node("Conv", {"X", "K"}, {"Y"}, {attr("group", 2), attr("pads", Ints{1, 1, 1, 1})});
  EXPECT_EQ(test::analyze(b).scratch(0), "14400");  // 4 * 9 * 100 * 4
}

TEST(NnConvScratch, TransposeColumnsBeforeCol2im) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 16, "H", "W"})
      .initializer(test::tensor_zeros("K", kFloat, {16, 8, 4, 4}));
  b.initializer(test::tensor_zeros("K1", kFloat, {16, 8, 1, 1}));
  b.node("ConvTranspose", {"X", "K"}, {"Y"},
         {attr("strides", Ints{2, 2}), attr("pads", Ints{1, 1, 1, 1})});
  b.node("ConvTranspose", {"X", "K1"}, {"Z"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.scratch(0), "512*H*W");  // 8 * 16 * H * W * 4
  EXPECT_EQ(a.scratch(1), "0");
}

TEST(NnConvScratch, UnknownKernelIsANamedUnknown) {  // semantics.md "Test checklist" item 44
  ModelBuilder b;
  b.input("X", kFloat, {"N", 3, "H", "W"}).input("K", kFloat, test::ShapeSpec::unknown());
  b.node("Conv", {"X", "K"}, {"Y"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.scratch(0), "scratch_Conv_0");
  EXPECT_TRUE(a.has_warning("scratch estimate unavailable (kernel size unknown")) << a.warnings();
}

}  // namespace
}  // namespace cctx
