// The shape stage: fallbacks (ONNX schema, declared shapes, unknown rank), fresh and opaque
// symbols, strict mode, declarations refining inferences.
#include <gtest/gtest.h>

#include "cctx/errors.hpp"
#include "model/metadata.hpp"
#include "stage_test_support.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using namespace stage_test;

TEST(Shapes, UnnamedDeclaredDimGetsAnUnkSymbol) {
  ModelBuilder b;
  b.input("in.1", kFloat, {"", 4}).node("Relu", {"in.1"}, {"Y"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"unk_in_1_d0", "4"}));
}

TEST(Shapes, UnparseableDimParamBecomesAnOpaqueSymbol) {
  ModelBuilder b;
  b.input("X", kFloat, {"batch size", 4}).node("Relu", {"X"}, {"Y"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"batch size", "4"}));
}

TEST(Shapes, OnnxSchemaFallbackForAnOpWithoutRule) {
  // No plugin at all, opset 13: ONNX's own inference runs; symbolic dims pass through as
  // dim_params and come back as the same symbols.
  ModelBuilder b(13);
  b.input("A", kFloat, {"N", 4}).input("B", kFloat, {4, "M"}).node("MatMul", {"A", "B"}, {"C"});
  Profile p;
  auto a = test::analyze(b.build(), p);
  EXPECT_EQ(a.dims("C"), (Dims{"N", "M"}));
  EXPECT_TRUE(a.has_warning("used ONNX schema inference")) << a.warnings();
}

TEST(Shapes, OnnxSchemaUnknownDimsBecomeProducerNamedSymbols) {
  ModelBuilder b(13);
  b.input("X", kFloat, {"N", 4});
  b.node("Relu", {"X"}, {"R"}).node("Relu", {"R"}, {"S"}).node("Relu", {"S"}, {"T"});
  b.node("NonZero", {"T"}, {"Y"});
  Profile p;
  auto a = test::analyze(b.build(), p);
  ASSERT_EQ(a.dims("Y").size(), 2u);
  EXPECT_EQ(a.dims("Y")[0], "2");
  EXPECT_EQ(a.dims("Y")[1], "NonZero_3_o0_d1");
}

TEST(Shapes, NewerOpsetSkipsTheSchemaFallback) {
  ModelBuilder b(18);
  b.input("A", kFloat, {"N", 4}).input("B", kFloat, {4, "M"}).node("MatMul", {"A", "B"}, {"C"});
  auto a = test::analyze(b.build(), Profile{});
  EXPECT_EQ(a.dims("C"), (Dims{"<unknown rank>"}));
  EXPECT_TRUE(a.has_warning("opset 18 is newer than the linked ONNX schemas (17)")) << a.warnings();
}

TEST(Shapes, CustomOpUsesItsDeclaredShape) {
  ModelBuilder b;
  b.opset("com.acme", 1).input("X", kFloat, {"N", 8});
  b.node("Foo", {"X"}, {"Y"}, {}, "com.acme").value_info("Y", kFloat, {"N", 8});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "8"}));
  EXPECT_TRUE(a.has_warning("used the declared output shapes")) << a.warnings();
}

TEST(Shapes, UndeclaredCustomOpHasUnknownRankAndASymbolicSize) {
  ModelBuilder b;
  b.opset("com.acme", 1).input("X", kFloat, {"N", 8});
  b.node("Foo", {"X"}, {"Y"}, {}, "com.acme").node("Relu", {"Y"}, {"Z"}).output("Z", kFloat);
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"<unknown rank>"}));
  EXPECT_TRUE(a.has_warning("'Y' get an unknown rank")) << a.warnings();
  EXPECT_EQ(names(a, a.ctx->unknown_rank_values()), (std::vector<std::string>{"Y", "Z"}));
  const MemoryProfile& p = a.ctx->memory(0);
  ASSERT_EQ(p.outputs.size(), 1u);
  EXPECT_EQ(a.print(p.outputs[0].second), "bytes_Y");
}

TEST(Shapes, StrictModeMakesAnUnknownOpAnError) {
  ModelBuilder b;
  b.opset("com.acme", 3)
      .input("X", kFloat, {"N", 8})
      .node("Foo", {"X"}, {"Y"}, {}, "com.acme", "foo1");
  Profile p = test::default_profile();
  p.shapes.strict = true;
  try {
    test::analyze(b.build(), p);
    FAIL() << "no error";
  } catch (const AnalysisError& e) {
    EXPECT_EQ(std::string(e.what()),
              "node 0 'foo1' (com.acme:Foo) [domain 'com.acme', opset 3]: no shape rule and no "
              "declared shape for 'Y'");
  }
}

TEST(Shapes, DeclaredIntegerRefinesAnInferredSymbol) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 4}).node("Relu", {"X"}, {"Y"}).output("Y", kFloat, {8, 4});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"8", "4"}));
  ASSERT_EQ(a.ctx->constraints().size(), 1u);
  EXPECT_EQ(a.ctx->constraints()[0].kind, Constraint::Kind::kEq);
}

TEST(Shapes, ConflictingDeclarationWarnsAndKeepsTheInference) {
  ModelBuilder b;
  b.input("X", kFloat, {3, 4}).node("Relu", {"X"}, {"Y"}).output("Y", kFloat, {5, 4});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"3", "4"}));
  EXPECT_TRUE(a.has_warning("'Y' dim 0 is declared 5 but inferred 3")) << a.warnings();
}

}  // namespace
}  // namespace cctx
