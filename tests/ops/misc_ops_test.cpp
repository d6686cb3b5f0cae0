// Sequences and optionals, quantization, random generators, signal processing, text and image
// operators through the real plugin.
#include <gtest/gtest.h>

#include "model_builder.hpp"

namespace cctx {
namespace {

using test::attr;
using test::Dims;
using test::kBool;
using test::kDouble;
using test::kFloat;
using test::kFloat16;
using test::kInt32;
using test::kInt64;
using test::kInt8;
using test::kString;
using test::kUint8;
using test::ModelBuilder;

using Ints = std::vector<std::int64_t>;

Interval bounds_of(const test::Analysis& a, const std::string& value, std::size_t axis) {
  return a.ctx->pool().interval(a.shape(value).dims[axis]);
}

bool has_constraint(const test::Analysis& a, Constraint::Kind kind) {
  for (const Constraint& c : a.ctx->constraints()) {
    if (c.kind == kind) return true;
  }
  return false;
}

// ---- sequences ----------------------------------------------------------------------------------

TEST(MiscSequence, ConstructMergesElementShapes) {
  ModelBuilder b(17);
  b.input("A", kFloat, {"N", 4}).input("B", kFloat, {"M", 4}).initializer_ints("pos", {1}, {});
  b.node("SequenceConstruct", {"A", "B"}, {"seq"});
  b.node("SequenceAt", {"seq", "pos"}, {"at"});
  b.node("SequenceLength", {"seq"}, {"len"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.shape("seq").kind, ValueKind::kSequence);
  EXPECT_EQ(a.dims("seq"), (Dims{"max(M,N)", "4"}));
  EXPECT_TRUE(has_constraint(a, Constraint::Kind::kOneOf));
  // The positions are known too: SequenceAt at a position value is exact, the length a value.
  EXPECT_EQ(a.shape("at").kind, ValueKind::kTensor);
  EXPECT_EQ(a.dims("at"), (Dims{"M", "4"}));
  EXPECT_EQ(a.dims("len"), Dims{});
  EXPECT_EQ(a.dtype("len"), kInt64);
  EXPECT_EQ(a.value("len"), (Dims{"2"}));
}

TEST(MiscSequence, InsertEraseKeepTheElementShape) {
  ModelBuilder b(17);
  b.input("A", kFloat, {"N", 4}).input("B", kFloat, {"N", 4});
  b.node("SequenceConstruct", {"A"}, {"seq"});
  b.node("SequenceInsert", {"seq", "B"}, {"seq2"});
  b.node("SequenceErase", {"seq2"}, {"seq3"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("seq2"), (Dims{"N", "4"}));
  EXPECT_EQ(a.shape("seq3").kind, ValueKind::kSequence);
  EXPECT_EQ(a.dims("seq3"), (Dims{"N", "4"}));
}

TEST(MiscSequence, EmptySequenceHasItsDtypeAndNoElementShape) {
  // An empty sequence has no element shape, but its length (0) is known, so inserting into it
  // gives exactly the inserted tensor's shape.
  ModelBuilder b(17);
  b.input("A", kFloat, {"N"});
  b.node("SequenceEmpty", {}, {"empty"}, {attr("dtype", kFloat)});
  b.node("SequenceInsert", {"empty", "A"}, {"seq"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.shape("empty").kind, ValueKind::kSequence);
  EXPECT_EQ(a.dtype("empty"), kFloat);
  EXPECT_EQ(a.dims("empty"), (Dims{"<unknown rank>"}));
  EXPECT_EQ(a.dims("seq"), (Dims{"N"}));
}

TEST(MiscSequence, SplitToSequenceElements) {
  ModelBuilder b(17);
  b.input("X", kFloat, {"N", 6}).initializer_ints("two", {2}, {}).initializer_ints("parts", {2, 4});
  b.input("U", kInt64, {2});
  b.node("SplitToSequence", {"X"}, {"ones"}, {attr("axis", 1)});
  b.node("SplitToSequence", {"X"}, {"squeezed"}, {attr("axis", 1), attr("keepdims", 0)});
  b.node("SplitToSequence", {"X", "two"}, {"chunks"}, {attr("axis", 1)});
  b.node("SplitToSequence", {"X", "parts"}, {"listed"}, {attr("axis", -1)});
  b.node("SplitToSequence", {"X", "U"}, {"unknown"}, {attr("axis", 1)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("ones"), (Dims{"N", "1"}));
  EXPECT_EQ(a.dims("squeezed"), (Dims{"N"}));
  EXPECT_EQ(a.dims("chunks"), (Dims{"N", "2"}));
  EXPECT_EQ(a.dims("listed"), (Dims{"N", "4"}));
  EXPECT_EQ(a.dims("unknown"), (Dims{"N", "SplitToSequence_4_o0_d1"}));
  EXPECT_EQ(bounds_of(a, "unknown", 1).hi, 6);
}

TEST(MiscSequence, SplitIntoASymbolicNumberOfRowsKeepsTheLength) {
  // N rows of [4]: uniform elements of a symbolic length, so joining them back is exact.
  ModelBuilder b(17);
  b.input("X", kFloat, {"N", 4}).input("R", kFloat, {4}).input("Q", kFloat, {5});
  b.node("SplitToSequence", {"X"}, {"rows"}, {attr("keepdims", 0)});
  b.node("ConcatFromSequence", {"rows"}, {"cat"}, {attr("axis", 0)});
  b.node("ConcatFromSequence", {"rows"}, {"stack"}, {attr("axis", -1), attr("new_axis", 1)});
  b.node("SequenceLength", {"rows"}, {"n"});
  b.node("SequenceInsert", {"rows", "R"}, {"more"}).node("SequenceLength", {"more"}, {"n_more"});
  b.node("SequenceErase", {"rows"}, {"fewer"}).node("SequenceLength", {"fewer"}, {"n_fewer"});
  // An element of another shape: the elements are no longer uniform, the length is unknown.
  b.node("SequenceInsert", {"rows", "Q"}, {"mixed"}).node("SequenceLength", {"mixed"}, {"n_mixed"});
  b.node("ConcatFromSequence", {"mixed"}, {"mixed_cat"}, {attr("axis", 0)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("rows"), (Dims{"4"}));
  EXPECT_EQ(a.dims("cat"), (Dims{"4*N"}));
  EXPECT_EQ(a.dims("stack"), (Dims{"4", "N"}));
  EXPECT_EQ(a.value("n"), (Dims{"N"}));
  EXPECT_EQ(a.value("n_more"), (Dims{"N+1"}));
  EXPECT_EQ(a.value("n_fewer"), (Dims{"N-1"}));
  EXPECT_EQ(a.value("n_mixed"), Dims{});
  EXPECT_EQ(a.dims("mixed_cat"), (Dims{"ConcatFromSequence_10_o0_d0"}));
}

TEST(MiscSequence, OptionalWrapsAndUnwraps) {
  ModelBuilder b(18);
  b.input("X", kFloat, {"N"});
  b.node("Optional", {"X"}, {"opt"});
  b.node("OptionalHasElement", {"opt"}, {"has"});
  b.node("OptionalGetElement", {"opt"}, {"got"});
  b.node("OptionalHasElement", {"X"}, {"has_tensor"});
  b.node("OptionalHasElement", {}, {"has_none"});
  b.node("OptionalGetElement", {"X"}, {"same"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.shape("opt").kind, ValueKind::kOptional);
  EXPECT_EQ(a.dims("opt"), (Dims{"N"}));
  EXPECT_EQ(a.dtype("has"), kBool);
  EXPECT_EQ(a.dims("has"), Dims{});
  EXPECT_EQ(a.value("has"), Dims{});  // not tracked through the optional
  EXPECT_EQ(a.value("has_tensor"), (Dims{"1"}));
  EXPECT_EQ(a.value("has_none"), (Dims{"0"}));
  EXPECT_EQ(a.shape("got").kind, ValueKind::kTensor);
  EXPECT_EQ(a.dims("got"), (Dims{"N"}));
  EXPECT_EQ(a.dims("same"), (Dims{"N"}));
}

// ---- quantization -------------------------------------------------------------------------------

TEST(MiscQuantization, QuantizeTypeComesFromZeroPointOrDefaultsToUint8) {
  ModelBuilder b(13);
  b.input("X", kFloat, {"N", 3, "H"}).initializer_floats("scale", {1, 1, 1});
  b.initializer(test::tensor_ints("zp", {0, 0, 0}, {3}, kInt8));
  b.node("QuantizeLinear", {"X", "scale", "zp"}, {"q8"});
  b.node("QuantizeLinear", {"X", "scale"}, {"qu8"});
  b.node("DequantizeLinear", {"q8", "scale", "zp"}, {"dq"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("q8"), (Dims{"N", "3", "H"}));
  EXPECT_EQ(a.dtype("q8"), kInt8);
  EXPECT_EQ(a.dtype("qu8"), kUint8);
  EXPECT_EQ(a.dtype("dq"), kFloat);
  EXPECT_EQ(a.dims("dq"), (Dims{"N", "3", "H"}));
}

TEST(MiscQuantization, PerAxisScaleMustMatchTheAxis) {
  ModelBuilder b(13);
  b.input("X", kFloat, {"N", 3}).initializer_floats("scale", {1, 1, 1, 1});
  b.node("QuantizeLinear", {"X", "scale"}, {"Y"});
  auto a = test::analyze(b);
  EXPECT_TRUE(a.has_warning("scale length differs from the axis: 4 vs 3")) << a.warnings();
}

TEST(MiscQuantization, BlockedScalesAndOutputDtype) {
  ModelBuilder b(23);
  b.input("W", kFloat, {"N", 64}).input("S", kFloat, {"N", 2}).input("Bad", kFloat, {"N", 3});
  b.node("QuantizeLinear", {"W", "S"}, {"q"},
         {attr("axis", 1), attr("block_size", 32), attr("output_dtype", 22)});  // int4
  b.node("DequantizeLinear", {"q", "S"}, {"dq"},
         {attr("axis", 1), attr("block_size", 32), attr("output_dtype", kFloat16)});
  b.node("DequantizeLinear", {"q", "Bad"}, {"bad"}, {attr("axis", 1), attr("block_size", 32)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dtype("q"), 22);
  EXPECT_EQ(a.dims("q"), (Dims{"N", "64"}));
  EXPECT_EQ(a.dtype("dq"), kFloat16);
  EXPECT_TRUE(a.has_warning("blocked scale dim 1 does not match: 3 vs 2")) << a.warnings();
}

TEST(MiscQuantization, DynamicQuantizeLinearOutputs) {
  ModelBuilder b(11);
  b.input("X", kFloat, {"N", 4});
  b.node("DynamicQuantizeLinear", {"X"}, {"y", "scale", "zp"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("y"), (Dims{"N", "4"}));
  EXPECT_EQ(a.dtype("y"), kUint8);
  EXPECT_EQ(a.dims("scale"), Dims{});
  EXPECT_EQ(a.dtype("scale"), kFloat);
  EXPECT_EQ(a.dtype("zp"), kUint8);
}

TEST(MiscQuantization, QLinearMatMulHasMatMulShapeAndOutputZeroPointType) {
  ModelBuilder b(21);
  b.input("A", kUint8, {"b", "N", "K"}).input("B", kInt8, {"K", "M"});
  b.initializer_floats("s", {1}, {}).initializer(test::tensor_ints("zu", {0}, {}, kUint8));
  b.initializer(test::tensor_ints("zi", {0}, {}, kInt8));
  b.node("QLinearMatMul", {"A", "s", "zu", "B", "s", "zi", "s", "zi"}, {"Y"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"b", "N", "M"}));
  EXPECT_EQ(a.dtype("Y"), kInt8);
}

// ---- random -------------------------------------------------------------------------------------

TEST(MiscRandom, GeneratorsShapesAndTypes) {
  ModelBuilder b(22);
  b.input("X", kFloat, {"N", 4}).input("P", kFloat, {"B", 10});
  b.node("RandomNormal", {}, {"normal"}, {attr("shape", Ints{2, 3})});
  b.node("RandomUniform", {}, {"uniform"}, {attr("shape", Ints{5}), attr("dtype", kDouble)});
  b.node("RandomUniformLike", {"X"}, {"like"}, {attr("dtype", kDouble)});
  b.node("RandomNormalLike", {"X"}, {"like_same"});
  b.node("Bernoulli", {"X"}, {"coin"});
  b.node("Multinomial", {"P"}, {"draws"}, {attr("sample_size", 5)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("normal"), (Dims{"2", "3"}));
  EXPECT_EQ(a.dtype("normal"), kFloat);
  EXPECT_EQ(a.dtype("uniform"), kDouble);
  EXPECT_EQ(a.dims("like"), (Dims{"N", "4"}));
  EXPECT_EQ(a.dtype("like"), kDouble);
  EXPECT_EQ(a.dtype("like_same"), kFloat);
  EXPECT_EQ(a.dims("coin"), (Dims{"N", "4"}));
  EXPECT_EQ(a.dims("draws"), (Dims{"B", "5"}));
  EXPECT_EQ(a.dtype("draws"), kInt32);
}

// ---- signal -------------------------------------------------------------------------------------

TEST(MiscSignal, DftOpset17) {
  ModelBuilder b(17);
  b.input("X", kFloat, {"B", "L", 1}).initializer_ints("len", {16}, {});
  b.node("DFT", {"X"}, {"full"});
  b.node("DFT", {"X"}, {"half"}, {attr("onesided", 1)});
  b.node("DFT", {"X", "len"}, {"padded"}, {attr("onesided", 1)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("full"), (Dims{"B", "L", "2"}));
  EXPECT_EQ(a.dims("half"), (Dims{"B", "L//2+1", "2"}));
  EXPECT_EQ(a.dims("padded"), (Dims{"B", "9", "2"}));
}

TEST(MiscSignal, DftOpset20AxisInput) {
  ModelBuilder b(20);
  b.input("X", kFloat, {"B", "H", "W", 2}).initializer_ints("ax", {1}, {});
  b.input("unknown_axis", kInt64, {});
  b.node("DFT", {"X"}, {"last"}, {attr("inverse", 1)});
  b.node("DFT", {"X", "", "ax"}, {"on_h"}, {attr("onesided", 1)});
  b.node("DFT", {"X", "", "unknown_axis"}, {"plain"});
  b.node("DFT", {"X", "", "unknown_axis"}, {"unsure"}, {attr("onesided", 1)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("last"), (Dims{"B", "H", "W", "2"}));
  EXPECT_EQ(a.dims("on_h"), (Dims{"B", "H//2+1", "W", "2"}));
  EXPECT_EQ(a.dims("plain"), (Dims{"B", "H", "W", "2"}));
  EXPECT_EQ(a.dims("unsure"), (Dims{"DFT_3_o0_d0", "DFT_3_o0_d1", "DFT_3_o0_d2", "2"}));
}

TEST(MiscSignal, StftFramesAndBins) {
  ModelBuilder b(17);
  b.input("signal", kFloat, {"B", "L", 1}).input("window", kFloat, {400});
  b.initializer_ints("step", {160}, {});
  b.node("STFT", {"signal", "step", "window"}, {"Y"});
  b.node("STFT", {"signal", "step", "window"}, {"Z"}, {attr("onesided", 0)});
  auto a = test::analyze(b);
  // frames = (L-400)//160+1, canonically (L+80)//160-2.
  EXPECT_EQ(a.dims("Y"), (Dims{"B", "(L+80)//160-2", "201", "2"})) << a.warnings();
  EXPECT_EQ(a.dims("Z")[2], "400");
}

TEST(MiscSignal, WindowsAndMelWeightMatrix) {
  ModelBuilder b(17);
  b.input("X", kFloat, {"N"}).initializer_ints("size", {400}, {});
  b.initializer_ints("bins", {80}, {}).initializer_ints("rate", {16000}, {});
  b.initializer_floats("lo", {0}, {}).initializer_floats("hi", {8000}, {});
  b.node("Shape", {"X"}, {"S"}).node("ReduceSum", {"S"}, {"n"}, {attr("keepdims", 0)});
  b.node("HannWindow", {"size"}, {"hann"});
  b.node("HammingWindow", {"n"}, {"hamming"}, {attr("output_datatype", kDouble)});
  b.node("BlackmanWindow", {"n"}, {"blackman"});
  b.node("MelWeightMatrix", {"bins", "size", "rate", "lo", "hi"}, {"mel"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("hann"), (Dims{"400"}));
  EXPECT_EQ(a.dims("hamming"), (Dims{"N"}));
  EXPECT_EQ(a.dtype("hamming"), kDouble);
  EXPECT_EQ(a.dims("blackman"), (Dims{"N"}));
  EXPECT_EQ(a.dims("mel"), (Dims{"201", "80"}));
}

// ---- text and image -----------------------------------------------------------------------------

TEST(MiscText, StringOperators) {
  ModelBuilder b(20);
  b.input("S", kString, {1, "C"}).input("T", kString, {"N", 1}).input("U", kString, {"M"});
  b.input("I", kInt64, {"N", "C"});
  b.node("StringNormalizer", {"S"}, {"same"}, {attr("case_change_action", "LOWER")});
  b.node("StringNormalizer", {"S"}, {"filtered"},
         {attr("stopwords", std::vector<std::string>{"a"})});
  b.node("TfIdfVectorizer", {"I"}, {"tfidf"},
         {attr("ngram_indexes", Ints{0, 1, 2, 5}), attr("max_gram_length", 1),
          attr("min_gram_length", 1), attr("max_skip_count", 0), attr("mode", "TF"),
          attr("ngram_counts", Ints{0}), attr("pool_int64s", Ints{1, 2, 3, 4})});
  b.node("RegexFullMatch", {"U"}, {"match"}, {attr("pattern", "a+")});
  b.node("StringConcat", {"T", "U"}, {"joined"});
  b.node("StringSplit", {"U"}, {"pieces", "counts"}, {attr("maxsplit", 2)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("same"), (Dims{"1", "C"}));
  EXPECT_EQ(a.dims("filtered"), (Dims{"1", "StringNormalizer_1_o0_d1"}));
  EXPECT_EQ(bounds_of(a, "filtered", 1).lo, 1);
  EXPECT_EQ(a.dims("tfidf"), (Dims{"N", "6"}));
  EXPECT_EQ(a.dtype("tfidf"), kFloat);
  EXPECT_EQ(a.dims("match"), (Dims{"M"}));
  EXPECT_EQ(a.dtype("match"), kBool);
  EXPECT_EQ(a.dims("joined"), (Dims{"N", "M"}));
  EXPECT_EQ(a.dtype("joined"), kString);
  EXPECT_EQ(a.dims("pieces"), (Dims{"M", "StringSplit_5_o0_d1"}));
  EXPECT_EQ(bounds_of(a, "pieces", 1).hi, 3);
  EXPECT_EQ(a.dims("counts"), (Dims{"M"}));
  EXPECT_EQ(a.dtype("counts"), kInt64);
}

TEST(MiscImage, ImageDecoderChannels) {
  ModelBuilder b(20);
  b.input("bytes", kUint8, {"n"});
  b.node("ImageDecoder", {"bytes"}, {"rgb"});
  b.node("ImageDecoder", {"bytes"}, {"gray"}, {attr("pixel_format", "Grayscale")});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("rgb"), (Dims{"ImageDecoder_0_o0_d0", "ImageDecoder_0_o0_d1", "3"}));
  EXPECT_EQ(a.dtype("rgb"), kUint8);
  EXPECT_EQ(a.dims("gray")[2], "1");
}

TEST(MiscImage, NonMaxSuppressionCountIsBounded) {
  ModelBuilder b(11);
  b.input("boxes", kFloat, {1, 100, 4}).input("scores", kFloat, {1, 80, 100});
  b.initializer_ints("max_out", {10}, {});
  b.node("NonMaxSuppression", {"boxes", "scores", "max_out"}, {"sel"});
  b.node("NonMaxSuppression", {"boxes", "scores"}, {"none"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("sel"), (Dims{"NonMaxSuppression_0_o0_d0", "3"}));
  EXPECT_EQ(a.dtype("sel"), kInt64);
  EXPECT_EQ(bounds_of(a, "sel", 0).lo, 0);
  EXPECT_EQ(bounds_of(a, "sel", 0).hi, 800);
  EXPECT_EQ(a.dims("none"), (Dims{"0", "3"}));
}

}  // namespace
}  // namespace cctx
