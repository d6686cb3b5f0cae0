// The com.microsoft normalizations through the real pipeline: SkipLayerNormalization (every
// optional output), SkipSimplifiedLayerNormalization, SimplifiedLayerNormalization, the contrib
// LayerNormalization (with the row-statistics scratch) and EmbedLayerNormalization.
#include <gtest/gtest.h>

#include "microsoft_test_support.hpp"
#include "model_builder.hpp"

namespace cctx {
namespace {

using test::attr;
using test::Dims;
using test::kFloat;
using test::kFloat16;
using test::kInt32;
using test::ModelBuilder;

using test::kMs;
using test::ms_model;
using test::ruled;

TEST(MicrosoftSkipLayerNorm, EveryOptionalOutput) {
  ModelBuilder b = ms_model();
  b.input("X", kFloat16, {"B", "S", 768}).input("skip", kFloat16, {"B", "S", 768});
  for (const char* p : {"gamma", "beta", "bias"}) b.input(p, kFloat16, {768});
  b.node("SkipLayerNormalization", {"X", "skip", "gamma", "beta", "bias"},
         {"Y", "mean", "inv_std", "sum"}, {attr("epsilon", 1e-12f)}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"B", "S", "768"}));
  EXPECT_EQ(a.dtype("Y"), kFloat16);
  EXPECT_EQ(a.dims("mean"), (Dims{"B", "S", "1"}));
  EXPECT_EQ(a.dtype("mean"), kFloat);
  EXPECT_EQ(a.dims("inv_std"), (Dims{"B", "S", "1"}));
  EXPECT_EQ(a.dims("sum"), (Dims{"B", "S", "768"}));
  EXPECT_EQ(a.dtype("sum"), kFloat16);
  EXPECT_EQ(a.warnings(), "");
}

TEST(MicrosoftSkipLayerNorm, SkipMayDropLeadingDimsAndSumSkipsMeanOutputs) {
  ModelBuilder b = ms_model();
  b.input("X", kFloat, {"B", "S", 64})
      .input("skip", kFloat, {"S", 64})
      .input("gamma", kFloat, {64});
  b.node("SkipLayerNormalization", {"X", "skip", "gamma"}, {"Y", "", "", "sum"}, {}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("sum"), (Dims{"B", "S", "64"}));
}

TEST(MicrosoftSkipLayerNorm, MismatchedGammaIsAnError) {
  ModelBuilder b = ms_model();
  b.input("X", kFloat, {"B", "S", 64}).input("gamma", kFloat, {32});
  b.node("SkipLayerNormalization", {"X", "X", "gamma"}, {"Y"}, {}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(a.has_warning("gamma length differs from the hidden size: 64 vs 32")) << a.warnings();
}

TEST(MicrosoftSkipSimplifiedLayerNorm, TokensByHidden) {
  ModelBuilder b = ms_model();
  b.input("X", kFloat, {"T", 4096})
      .input("skip", kFloat, {"T", 4096})
      .input("gamma", kFloat, {4096});
  b.node("SkipSimplifiedLayerNormalization", {"X", "skip", "gamma"}, {"Y", "", "inv", "sum"}, {},
         kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"T", "4096"}));
  EXPECT_EQ(a.dims("inv"), (Dims{"T", "1"}));
  EXPECT_EQ(a.dims("sum"), (Dims{"T", "4096"}));
}

TEST(MicrosoftSimplifiedLayerNorm, InvStdDevAndScratch) {
  ModelBuilder b = ms_model();
  b.input("X", kFloat16, {"B", "S", 2048}).input("scale", kFloat16, {2048});
  b.node("SimplifiedLayerNormalization", {"X", "scale"}, {"Y"}, {}, kMs);
  b.node("SimplifiedLayerNormalization", {"X", "scale"}, {"Y2", "inv"}, {attr("axis", 1)}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"B", "S", "2048"}));
  EXPECT_EQ(a.dims("inv"), (Dims{"B", "1", "1"}));
  EXPECT_EQ(a.dtype("inv"), kFloat);
  EXPECT_EQ(a.scratch(0), "4*B*S");  // one float statistic per row
  EXPECT_EQ(a.scratch(1), "0");      // kept in the output
}

TEST(OnnxRuntimeOnnxDomainNorms, SimplifiedLayerNormalizationInTheOnnxDomain) {
  // As onnxruntime-genai's builder writes it: the ONNX domain, no com.microsoft import needed.
  for (const std::int64_t opset : {14, 17, 21}) {
    ModelBuilder b(opset);
    b.input("X", kFloat, {"B", "S", 256}).input("scale", kFloat, {256});
    b.node("SimplifiedLayerNormalization", {"X", "scale"}, {"Y"}, {attr("epsilon", 1e-6f)});
    b.node("MatMul", {"Y", "X"}, {"Z"});
    auto a = test::analyze(b);
    EXPECT_TRUE(ruled(a)) << opset;
    EXPECT_EQ(a.dims("Y"), (Dims{"B", "S", "256"})) << opset;
    EXPECT_EQ(a.scratch(0), "4*B*S") << opset;
  }
}

TEST(OnnxRuntimeOnnxDomainNorms, LayerNormalizationBeforeOpset17) {
  // ONNX Runtime's own LayerNormalization (ONNX domain, version 1) in an opset-13 graph, where
  // ONNX has none; from 17 on the ai.onnx plugin's LayerNormalization-17 serves it.
  ModelBuilder b(13);
  b.input("X", kFloat, {"B", "S", 64}).input("g", kFloat, {64}).input("beta", kFloat, {64});
  b.node("LayerNormalization", {"X", "g", "beta"}, {"Y"}, {attr("axis", -1)});
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"B", "S", "64"}));
  EXPECT_EQ(a.scratch(0), "8*B*S");  // mean and inverse std-dev, neither an output
}

TEST(MicrosoftLayerNorm, ContribVersionMatchesTheOnnxOne) {
  ModelBuilder b = ms_model();
  b.input("X", kFloat, {"B", "S", 768}).input("g", kFloat, {768}).input("beta", kFloat, {768});
  b.node("LayerNormalization", {"X", "g", "beta"}, {"Y", "mean"}, {}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"B", "S", "768"}));
  EXPECT_EQ(a.dims("mean"), (Dims{"B", "S", "1"}));
  EXPECT_EQ(a.scratch(0), "4*B*S");  // InvStdDev is not an output
}

TEST(MicrosoftEmbedLayerNorm, BertEmbeddings) {
  ModelBuilder b = ms_model();
  b.input("ids", kInt32, {"B", "S"}).input("segments", kInt32, {"B", "S"});
  b.input("mask", kInt32, {"B", "S"});
  b.input("word", kFloat, {30522, 768}).input("pos", kFloat, {512, 768});
  b.input("seg", kFloat, {2, 768}).input("gamma", kFloat, {768}).input("beta", kFloat, {768});
  b.node("EmbedLayerNormalization",
         {"ids", "segments", "word", "pos", "seg", "gamma", "beta", "mask"},
         {"Y", "mask_index", "sum"}, {}, kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"B", "S", "768"}));
  EXPECT_EQ(a.dtype("Y"), kFloat);
  EXPECT_EQ(a.dims("mask_index"), (Dims{"B"}));
  EXPECT_EQ(a.dtype("mask_index"), kInt32);
  EXPECT_EQ(a.dims("sum"), (Dims{"B", "S", "768"}));
  EXPECT_EQ(a.warnings(), "");
}

TEST(MicrosoftEmbedLayerNorm, HiddenSizesMustAgree) {
  ModelBuilder b = ms_model();
  b.input("ids", kInt32, {"B", "S"});
  b.input("word", kFloat, {100, 64}).input("pos", kFloat, {512, 32});
  b.input("gamma", kFloat, {64}).input("beta", kFloat, {64});
  b.node("EmbedLayerNormalization", {"ids", "", "word", "pos", "", "gamma", "beta"}, {"Y"}, {},
         kMs);
  auto a = test::analyze(b);
  EXPECT_TRUE(a.has_warning("position_embedding hidden sizes differ: 64 vs 32")) << a.warnings();
}

}  // namespace
}  // namespace cctx
