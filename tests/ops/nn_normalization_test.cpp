// Normalization operators and Dropout through the real plugin (expressions.md "Symbolic shape
// inference rules (ai.onnx plugin)", row 48), with the LayerNormalization and Softmax scratch
// estimates (semantics.md "Peak scratch memory", 15 item 43) and the BatchNormalization/Dropout
// in-place policies.
#include <gtest/gtest.h>

#include "model_builder.hpp"

namespace cctx {
namespace {

using test::attr;
using test::Dims;
using test::kFloat;
using test::ModelBuilder;
using Ints = std::vector<std::int64_t>;

TEST(NnLayerNorm, StatisticsKeepTheLeadingDims) {  // row 48
  ModelBuilder b(17);
  b.input("X", kFloat, {"b", "s", "d"}).input("g", kFloat, {"d"});
  b.node("LayerNormalization", {"X", "g"}, {"Y", "M", "I"});
  b.node("LayerNormalization", {"X", "g"}, {"Y1", "M1"}, {attr("axis", 1)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"b", "s", "d"}));
  EXPECT_EQ(a.dims("M"), (Dims{"b", "s", "1"}));
  EXPECT_EQ(a.dims("I"), (Dims{"b", "s", "1"}));
  EXPECT_EQ(a.dims("M1"), (Dims{"b", "1", "1"}));
  EXPECT_EQ(a.warnings(), "");
}

TEST(NnLayerNorm, StatisticsTakeTheStashType) {
  ModelBuilder b(17);
  b.input("X", test::kFloat16, {"b", "d"}).input("g", test::kFloat16, {"d"});
  b.node("LayerNormalization", {"X", "g"}, {"Y", "M"});
  b.node("LayerNormalization", {"X", "g"}, {"Z", "Mz"}, {attr("stash_type", test::kFloat16)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dtype("Y"), test::kFloat16);
  EXPECT_EQ(a.dtype("M"), kFloat);  // stash_type defaults to float
  EXPECT_EQ(a.dtype("Mz"), test::kFloat16);
}

TEST(NnLayerNorm, AxisOutOfRangeIsAnError) {
  ModelBuilder b(17);
  b.input("X", kFloat, {"b", "d"}).input("g", kFloat, {"d"});
  b.node("LayerNormalization", {"X", "g"}, {"Y"}, {attr("axis", 2)});
  auto a = test::analyze(b);
  EXPECT_TRUE(a.has_warning("axis 2 out of range for rank 2")) << a.warnings();
}

TEST(NnLayerNorm, ScratchCountsTheMissingStatistics) {  // semantics.md "Test checklist" item 43
  ModelBuilder b(17);
  b.input("X", kFloat, {"N", "S", "D"}).input("g", kFloat, {"D"});
  b.input("H", test::kFloat16, {"N", "S", "D"}).input("h", test::kFloat16, {"D"});
  b.node("LayerNormalization", {"X", "g"}, {"Y0"}, {attr("axis", -1)});
  b.node("LayerNormalization", {"X", "g"}, {"Y1", "M1"});
  b.node("LayerNormalization", {"X", "g"}, {"Y2", "M2", "I2"});
  b.node("LayerNormalization", {"H", "h"}, {"Y3"},
         {attr("stash_type", test::kFloat16), attr("axis", 1)});
  b.node("LayerNormalization", {"H", "h"}, {"Y4", "", "I4"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.scratch(0), "8*N*S");
  EXPECT_EQ(a.scratch(1), "4*N*S");
  EXPECT_EQ(a.scratch(2), "0");
  EXPECT_EQ(a.scratch(3), "4*N");    // stash in the input's fp16: 2 rows * 2 bytes
  EXPECT_EQ(a.scratch(4), "4*N*S");  // float stash even for fp16 input
}

TEST(NnBatchNorm, OutputsByVersion) {
  ModelBuilder b9(9);
  b9.input("X", kFloat, {"N", "C", "H", "W"});
  for (const char* p : {"s", "o", "m", "v"}) b9.input(p, kFloat, {"C"});
  b9.node("BatchNormalization", {"X", "s", "o", "m", "v"}, {"Y", "rm", "rv", "sm", "sv"});
  auto a9 = test::analyze(b9);
  EXPECT_EQ(a9.dims("Y"), (Dims{"N", "C", "H", "W"}));
  for (const char* o : {"rm", "rv", "sm", "sv"}) EXPECT_EQ(a9.dims(o), (Dims{"C"})) << o;

  ModelBuilder b15(15);
  b15.input("X", test::kFloat16, {"N", "C", "H", "W"});
  for (const char* p : {"s", "o"}) b15.input(p, test::kFloat16, {"C"});
  for (const char* p : {"m", "v"}) b15.input(p, kFloat, {"C"});
  b15.node("BatchNormalization", {"X", "s", "o", "m", "v"}, {"Y", "rm", "rv"},
           {attr("training_mode", 1)});
  auto a15 = test::analyze(b15);
  EXPECT_EQ(a15.dtype("Y"), test::kFloat16);
  EXPECT_EQ(a15.dims("rm"), (Dims{"C"}));
  EXPECT_EQ(a15.dtype("rm"), kFloat);  // T2: the running statistics' own type
  EXPECT_EQ(a15.warnings(), "");
}

TEST(NnBatchNorm, StatisticsWithoutTrainingModeAreAnError) {
  ModelBuilder b(15);
  b.input("X", kFloat, {"N", "C"});
  for (const char* p : {"s", "o", "m", "v"}) b.input(p, kFloat, {"C"});
  b.node("BatchNormalization", {"X", "s", "o", "m", "v"}, {"Y", "rm", "rv"});
  auto a = test::analyze(b);
  EXPECT_TRUE(a.has_warning("running_mean/running_var requested but training_mode is 0"))
      << a.warnings();
}

TEST(NnBatchNorm, InferenceMayWriteOverItsInput) {
  ModelBuilder b(15);
  b.input("X", kFloat, {"N", "C", "H", "W"});
  for (const char* p : {"s", "o", "m", "v"}) b.input(p, kFloat, {"C"});
  b.node("Relu", {"X"}, {"A"});
  b.node("BatchNormalization", {"A", "s", "o", "m", "v"}, {"Y"});
  b.node("Relu", {"X"}, {"B"});
  b.node("BatchNormalization", {"B", "s", "o", "m", "v"}, {"Z", "rm", "rv"},
         {attr("training_mode", 1)});
  b.output("Y").output("Z");
  auto a = test::analyze(b);
  ASSERT_EQ(a.ctx->inplace(1).size(), 1u);
  EXPECT_EQ(a.ctx->inplace(1)[0].mode, ReuseMode::kMayReuse);
  EXPECT_TRUE(a.ctx->inplace(3).empty());  // training reads X for the statistics
}

TEST(NnNormalization, SameShapeFamily) {
  ModelBuilder b(23);
  b.input("X", kFloat, {"N", "C", "H", "W"}).input("c", kFloat, {"C"}).input("w", kFloat, {"W"});
  b.node("InstanceNormalization", {"X", "c", "c"}, {"A"});
  b.node("LRN", {"X"}, {"B"}, {attr("size", 3)});
  b.node("MeanVarianceNormalization", {"X"}, {"C2"});
  b.node("LpNormalization", {"X"}, {"D"}, {attr("axis", 1)});
  b.node("RMSNormalization", {"X", "w"}, {"E"});
  auto a = test::analyze(b);
  for (const char* o : {"A", "B", "C2", "D", "E"}) {
    EXPECT_EQ(a.dims(o), (Dims{"N", "C", "H", "W"})) << o;
  }
  EXPECT_EQ(a.warnings(), "");
}

TEST(NnGroupNorm, ScaleLengthByVersion) {
  ModelBuilder b18(18);
  b18.input("X", kFloat, {"N", 6, "H", "W"}).input("g", kFloat, {3});
  b18.node("GroupNormalization", {"X", "g", "g"}, {"Y"}, {attr("num_groups", 3)});
  auto a18 = test::analyze(b18);
  EXPECT_EQ(a18.dims("Y"), (Dims{"N", "6", "H", "W"}));
  EXPECT_EQ(a18.warnings(), "");

  ModelBuilder b21(21);
  b21.input("X", kFloat, {"N", 6, "H", "W"}).input("g", kFloat, {3});
  b21.node("GroupNormalization", {"X", "g", "g"}, {"Y"}, {attr("num_groups", 3)});
  auto a21 = test::analyze(b21);
  EXPECT_TRUE(a21.has_warning("scale length differs: 3 vs 6")) << a21.warnings();
}

TEST(NnGroupNorm, ChannelsMustSplitIntoGroups) {
  ModelBuilder b(21);
  b.input("X", kFloat, {"N", 6, "H"}).input("g", kFloat, {6});
  b.input("S", kFloat, {"N", "C", "H"}).input("h", kFloat, {"C"});
  b.node("GroupNormalization", {"X", "g", "g"}, {"Y"}, {attr("num_groups", 4)});
  b.node("GroupNormalization", {"S", "h", "h"}, {"Z"}, {attr("num_groups", 2)});
  auto a = test::analyze(b);
  EXPECT_TRUE(a.has_warning("channels do not split into num_groups: 6 is not divisible by 4"))
      << a.warnings();
  EXPECT_EQ(a.dims("Z"), (Dims{"N", "C", "H"}));
  ASSERT_EQ(a.ctx->constraints().size(), 1u);
  EXPECT_EQ(a.ctx->constraints()[0].kind, Constraint::Kind::kDivides);
}

TEST(NnDropout, MaskTypeByVersion) {
  ModelBuilder b7(7), b12(12);
  b7.input("X", kFloat, {"N", "D"});
  b7.node("Dropout", {"X"}, {"Y", "M"});
  b12.input("X", kFloat, {"N", "D"});
  b12.node("Dropout", {"X"}, {"Y", "M"});
  auto a7 = test::analyze(b7), a12 = test::analyze(b12);
  EXPECT_EQ(a7.dtype("M"), kFloat);
  EXPECT_EQ(a12.dtype("M"), test::kBool);
  EXPECT_EQ(a12.dims("M"), (Dims{"N", "D"}));
  EXPECT_EQ(a12.dims("Y"), (Dims{"N", "D"}));
}

TEST(NnDropout, ReusesADyingInputButNeverAliases) {
  ModelBuilder b(13);
  b.input("X", kFloat, {"N", "D"});
  b.node("Relu", {"X"}, {"A"}).node("Dropout", {"A"}, {"Y"});
  b.node("Relu", {"X"}, {"B"}).node("Dropout", {"B"}, {"Z"}).node("Relu", {"B"}, {"R"});
  b.output("Y").output("Z").output("R");
  auto a = test::analyze(b);
  ASSERT_EQ(a.ctx->inplace(1).size(), 1u);
  EXPECT_EQ(a.ctx->inplace(1)[0].mode, ReuseMode::kMayReuse);
  EXPECT_TRUE(a.ctx->inplace(3).empty());  // B is still read: Z gets its own buffer
}

TEST(NnSoftmaxScratch, IsZero) {
  ModelBuilder b(13);
  b.input("X", kFloat, {"N", "D"});
  b.node("Softmax", {"X"}, {"Y"}).node("LogSoftmax", {"X"}, {"Z"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.scratch(0), "0");
  EXPECT_EQ(a.scratch(1), "0");
  EXPECT_NE(a.ctx->registry().resolve("", "Softmax", 13).scratch, nullptr);
  EXPECT_NE(a.ctx->registry().resolve("", "LogSoftmax", 1).scratch, nullptr);
}

}  // namespace
}  // namespace cctx
