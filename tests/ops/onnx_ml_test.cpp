// Shape rules of the ai.onnx.ml operator set, through the real pipeline with the default profile
// (which loads both libcctx_onnx.so and libcctx_onnx_ml.so).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::attr;
using test::Dims;
using test::kDouble;
using test::kFloat;
using test::kInt32;
using test::kInt64;
using test::kString;
using test::ModelBuilder;

constexpr const char* kMl = "ai.onnx.ml";

using Ints = std::vector<std::int64_t>;
using Floats = std::vector<float>;
using Strings = std::vector<std::string>;

/// A model importing ai.onnx.ml at `ml_opset` (and ai.onnx 18).
ModelBuilder ml_model(std::int64_t ml_opset = 3) {
  ModelBuilder b(18);
  b.opset(kMl, ml_opset);
  return b;
}

/// Turns graph input `name` into a map(key, value): ModelBuilder declares tensors only.
Model with_map_input(const ModelBuilder& b, const std::string& name, int key, int value) {
  Model m = b.build();
  for (onnx::ValueInfoProto& vi : *m.proto().mutable_graph()->mutable_input()) {
    if (vi.name() != name) continue;
    vi.mutable_type()->Clear();
    onnx::TypeProto::Map* map = vi.mutable_type()->mutable_map_type();
    map->set_key_type(key);
    map->mutable_value_type()->mutable_tensor_type()->set_elem_type(value);
  }
  return m;
}

/// Bytes of a value as canonical text ("" when unsized).
std::string bytes(const test::Analysis& a, const std::string& name) {
  std::optional<Expr> b = a.ctx->value_bytes(a.id(name));
  return b ? a.print(*b) : std::string();
}

/// True when no node fell back to the ONNX schema, the declarations or an unknown rank.
::testing::AssertionResult ruled(const test::Analysis& a) {
  if (a.has_warning("no shape rule") || a.has_warning("no cctx shape rule") ||
      a.has_warning("using the fallbacks")) {
    return ::testing::AssertionFailure() << a.warnings();
  }
  return ::testing::AssertionSuccess();
}

// ---- plugin -------------------------------------------------------------------------------------

TEST(OnnxMlPlugin, DefaultProfileListsBothPlugins) {
  test::RunResult r = test::run_cctx("plugins --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"name\": \"onnx\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"name\": \"onnx_ml\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"domain\": \"ai.onnx.ml\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"ai.onnx.ml::TreeEnsembleClassifier\""), std::string::npos);
  EXPECT_NE(r.out.find("\"ai.onnx.ml::ZipMap\""), std::string::npos);
}

// ---- preprocessing ------------------------------------------------------------------------------

TEST(OnnxMlOps, ArrayFeatureExtractorSelectsLastAxis) {
  ModelBuilder b = ml_model();
  b.input("X", kFloat, {"N", 10}).input("V", kFloat, {10}).input("K", kInt64, {"k"});
  b.initializer_ints("idx", {0, 4, 7});
  b.node("ArrayFeatureExtractor", {"X", "idx"}, {"Z"}, {}, kMl);
  b.node("ArrayFeatureExtractor", {"V", "idx"}, {"Z1"}, {}, kMl);  // 1-D: one row
  b.node("ArrayFeatureExtractor", {"X", "K"}, {"ZK"}, {}, kMl);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Z"), (Dims{"N", "3"}));
  EXPECT_EQ(a.dtype("Z"), kFloat);
  EXPECT_EQ(a.dims("Z1"), (Dims{"1", "3"}));
  EXPECT_EQ(a.dims("ZK"), (Dims{"N", "k"}));
  EXPECT_EQ(bytes(a, "Z"), "12*N");
}

TEST(OnnxMlOps, BinarizerAndImputerKeepShapeAndType) {
  ModelBuilder b = ml_model();
  b.input("X", kDouble, {"N", 4}).input("I", kInt64, {"N", 3});
  b.node("Binarizer", {"X"}, {"Y"}, {attr("threshold", 0.5f)}, kMl);
  b.node("Imputer", {"I"}, {"J"},
         {attr("imputed_value_int64s", Ints{0}), attr("replaced_value_int64", std::int64_t{-1})},
         kMl);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "4"}));
  EXPECT_EQ(a.dtype("Y"), kDouble);
  EXPECT_EQ(a.dims("J"), (Dims{"N", "3"}));
  EXPECT_EQ(a.dtype("J"), kInt64);
}

TEST(OnnxMlOps, NormalizerAndScalerGiveFloat) {
  ModelBuilder b = ml_model();
  b.input("X", kInt64, {"N", 4}).input("D", kDouble, {"N", 3});
  b.node("Normalizer", {"X"}, {"Y"}, {attr("norm", "L2")}, kMl);
  b.node("Scaler", {"D"}, {"S"}, {attr("offset", Floats{0.f}), attr("scale", Floats{2.f})}, kMl);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "4"}));
  EXPECT_EQ(a.dtype("Y"), kFloat);
  EXPECT_EQ(a.dims("S"), (Dims{"N", "3"}));
  EXPECT_EQ(a.dtype("S"), kFloat);
  EXPECT_EQ(bytes(a, "S"), "12*N");
}

TEST(OnnxMlOps, FeatureVectorizerSumsWidths) {
  ModelBuilder b = ml_model();
  b.input("A", kFloat, {"N", 2}).input("B", kInt64, {"N", 3}).input("C", kFloat, {"N", "K"});
  b.node("FeatureVectorizer", {"A", "B"}, {"Y"}, {attr("inputdimensions", Ints{2, 3})}, kMl);
  b.node("FeatureVectorizer", {"A", "C"}, {"Z"}, {}, kMl);  // widths from the input shapes
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "5"}));
  EXPECT_EQ(a.dtype("Y"), kFloat);
  EXPECT_EQ(a.dims("Z"), (Dims{"N", "K+2"}));
}

TEST(OnnxMlOps, FeatureVectorizerRejectsAMismatchedInputDimensions) {
  ModelBuilder b = ml_model();
  b.input("A", kFloat, {"N", 2}).input("B", kFloat, {"N", 3});
  b.node("FeatureVectorizer", {"A", "B"}, {"Y"}, {attr("inputdimensions", Ints{2})}, kMl);
  auto a = test::analyze(b);
  EXPECT_TRUE(a.has_warning("'inputdimensions' has 1 entries for 2 inputs")) << a.warnings();
}

// ---- encoders -----------------------------------------------------------------------------------

TEST(OnnxMlOps, CategoryMapperSwapsStringAndInt) {
  ModelBuilder b = ml_model();
  b.input("S", kString, {"N"}).input("I", kInt64, {"N", 2});
  const Strings cats{"a", "b"};
  b.node("CategoryMapper", {"S"}, {"SI"},
         {attr("cats_strings", cats), attr("cats_int64s", Ints{1, 2})}, kMl);
  b.node("CategoryMapper", {"I"}, {"IS"},
         {attr("cats_strings", cats), attr("cats_int64s", Ints{1, 2})}, kMl);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("SI"), (Dims{"N"}));
  EXPECT_EQ(a.dtype("SI"), kInt64);
  EXPECT_EQ(a.dims("IS"), (Dims{"N", "2"}));
  EXPECT_EQ(a.dtype("IS"), kString);
}

TEST(OnnxMlOps, LabelEncoderOpset1SwapsStringAndInt) {
  ModelBuilder b = ml_model(1);
  b.input("S", kString, {"N", 1});
  b.node("LabelEncoder", {"S"}, {"Y"},
         {attr("classes_strings", Strings{"x", "y"}), attr("default_int64", std::int64_t{-1})},
         kMl);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "1"}));
  EXPECT_EQ(a.dtype("Y"), kInt64);
}

TEST(OnnxMlOps, LabelEncoderOpset2TypeFromValues) {
  ModelBuilder b = ml_model(2);
  b.input("S", kString, {"N"});
  b.node("LabelEncoder", {"S"}, {"Y"},
         {attr("keys_strings", Strings{"x", "y"}), attr("values_floats", Floats{1.f, 2.f})}, kMl);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"N"}));
  EXPECT_EQ(a.dtype("Y"), kFloat);
}

TEST(OnnxMlOps, LabelEncoderOpset4TypeFromValuesTensor) {
  ModelBuilder b = ml_model(4);
  b.input("X", kInt64, {"N", 3});
  b.node("LabelEncoder", {"X"}, {"Y"},
         {attr("keys_tensor", test::tensor_ints("k", {1, 2})),
          attr("values_tensor", test::tensor_ints("v", {10, 20}, {-1}, kInt32)),
          attr("default_tensor", test::tensor_ints("d", {0}, {1}, kInt32))},
         kMl);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "3"}));
  EXPECT_EQ(a.dtype("Y"), kInt32);
  EXPECT_EQ(bytes(a, "Y"), "12*N");
}

TEST(OnnxMlOps, LabelEncoderWithoutValuesFallsBack) {
  ModelBuilder b = ml_model(2);
  b.input("S", kString, {"N"});
  b.node("LabelEncoder", {"S"}, {"Y"}, {attr("keys_strings", Strings{"x"})}, kMl);
  auto a = test::analyze(b);
  EXPECT_TRUE(a.has_warning("LabelEncoder needs one of 'values_tensor'")) << a.warnings();
}

TEST(OnnxMlOps, OneHotEncoderAppendsCategoryAxis) {
  ModelBuilder b = ml_model();
  b.input("X", kInt64, {"N", 2}).input("S", kString, {"N"});
  b.node("OneHotEncoder", {"X"}, {"Y"}, {attr("cats_int64s", Ints{1, 2, 3, 4, 5})}, kMl);
  b.node("OneHotEncoder", {"S"}, {"Z"}, {attr("cats_strings", Strings{"a", "b"})}, kMl);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "2", "5"}));
  EXPECT_EQ(a.dtype("Y"), kFloat);
  EXPECT_EQ(a.dims("Z"), (Dims{"N", "2"}));
  EXPECT_EQ(bytes(a, "Y"), "40*N");
}

// ---- maps ---------------------------------------------------------------------------------------

TEST(OnnxMlOps, CastMapDenseAndSparse) {
  ModelBuilder b = ml_model();
  b.input("M", kFloat, test::ShapeSpec::unknown());
  b.node("CastMap", {"M"}, {"D"}, {attr("cast_to", "TO_INT64")}, kMl);
  b.node("CastMap", {"M"}, {"S"}, {attr("map_form", "SPARSE"), attr("max_map", std::int64_t{8})},
         kMl);
  auto a = test::analyze(with_map_input(b, "M", kInt64, kFloat), test::default_profile());
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.shape("M").kind, ValueKind::kMap);
  EXPECT_EQ(a.dims("D"), (Dims{"1", "CastMap_0_o0_d1"}));  // the map's size: no attribute gives it
  EXPECT_EQ(a.dtype("D"), kInt64);
  EXPECT_EQ(a.dims("S"), (Dims{"1", "8"}));
  EXPECT_EQ(a.dtype("S"), kFloat);
  EXPECT_EQ(bytes(a, "S"), "32");
}

TEST(OnnxMlOps, DictVectorizerWidthIsTheVocabulary) {
  ModelBuilder b = ml_model();
  b.input("M", kFloat, test::ShapeSpec::unknown());
  b.node("DictVectorizer", {"M"}, {"Y"}, {attr("string_vocabulary", Strings{"a", "c", "b", "z"})},
         kMl);
  // The map's value type is the output's type; a declaration supplies it to the analysis.
  b.output("Y", kDouble);
  auto a = test::analyze(with_map_input(b, "M", kString, kDouble), test::default_profile());
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"1", "4"}));
  EXPECT_EQ(a.dtype("Y"), kDouble);
  EXPECT_EQ(bytes(a, "Y"), "32");
}

TEST(OnnxMlOps, ZipMapGivesAnUnsizedSequence) {
  ModelBuilder b = ml_model();
  b.input("P", kFloat, {"N", 3});
  b.node("ZipMap", {"P"}, {"Z"}, {attr("classlabels_strings", Strings{"a", "b", "c"})}, kMl);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.shape("Z").kind, ValueKind::kSequence);
  EXPECT_EQ(a.dims("Z"), (Dims{"<unknown rank>"}));
  EXPECT_EQ(bytes(a, "Z"), "");
}

TEST(OnnxMlOps, ZipMapChecksTheColumnCount) {
  ModelBuilder b = ml_model();
  b.input("P", kFloat, {"N", 4});
  b.node("ZipMap", {"P"}, {"Z"}, {attr("classlabels_int64s", Ints{0, 1, 2})}, kMl);
  auto a = test::analyze(b);
  EXPECT_TRUE(a.has_warning("X has 4 columns for 3 class labels")) << a.warnings();
}

// ---- linear and SVM -----------------------------------------------------------------------------

TEST(OnnxMlOps, LinearClassifierLabelsAndScores) {
  ModelBuilder b = ml_model();
  b.input("X", kFloat, {"N", 4}).input("V", kDouble, {4});
  b.node("LinearClassifier", {"X"}, {"L", "P"},
         {attr("coefficients", Floats(12, 0.5f)), attr("intercepts", Floats{0.f, 0.f, 0.f}),
          attr("classlabels_strings", Strings{"a", "b", "c"})},
         kMl);
  // Binary: one intercept for two labels, two scores.
  b.node("LinearClassifier", {"V"}, {"L2", "P2"},
         {attr("coefficients", Floats(4, 1.f)), attr("intercepts", Floats{0.f}),
          attr("classlabels_ints", Ints{0, 1})},
         kMl);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("L"), (Dims{"N"}));
  EXPECT_EQ(a.dtype("L"), kString);
  EXPECT_EQ(a.dims("P"), (Dims{"N", "3"}));
  EXPECT_EQ(a.dtype("P"), kFloat);
  EXPECT_EQ(bytes(a, "P"), "12*N");
  EXPECT_EQ(a.dims("L2"), (Dims{"1"}));
  EXPECT_EQ(a.dtype("L2"), kInt64);
  EXPECT_EQ(a.dims("P2"), (Dims{"1", "2"}));
}

TEST(OnnxMlOps, LinearRegressorTargets) {
  ModelBuilder b = ml_model();
  b.input("X", kFloat, {"N", 4});
  b.node("LinearRegressor", {"X"}, {"Y"},
         {attr("coefficients", Floats(8, 1.f)), attr("targets", std::int64_t{2})}, kMl);
  b.node("LinearRegressor", {"X"}, {"Y1"}, {attr("coefficients", Floats(4, 1.f))}, kMl);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "2"}));
  EXPECT_EQ(a.dtype("Y"), kFloat);
  EXPECT_EQ(a.dims("Y1"), (Dims{"N", "1"}));
}

TEST(OnnxMlOps, SvmClassifierScoreWidths) {
  ModelBuilder b = ml_model();
  b.input("X", kFloat, {"N", 2});
  const Ints four{0, 1, 2, 3};
  // One-vs-one SVC without probabilities: one score per class pair, 4*3/2.
  b.node("SVMClassifier", {"X"}, {"L", "S"},
         {attr("classlabels_ints", four), attr("vectors_per_class", Ints{1, 1, 1, 1}),
          attr("support_vectors", Floats(8, 1.f)), attr("coefficients", Floats(12, 1.f)),
          attr("rho", Floats(6, 0.f)), attr("kernel_type", "RBF")},
         kMl);
  // With probabilities: one per class.
  b.node("SVMClassifier", {"X"}, {"LP", "SP"},
         {attr("classlabels_strings", Strings{"a", "b", "c", "d"}),
          attr("vectors_per_class", Ints{1, 1, 1, 1}), attr("support_vectors", Floats(8, 1.f)),
          attr("coefficients", Floats(12, 1.f)), attr("rho", Floats(6, 0.f)),
          attr("prob_a", Floats(6, 1.f)), attr("prob_b", Floats(6, 1.f))},
         kMl);
  // Linear SVM (no support vectors): one per class.
  b.node("SVMClassifier", {"X"}, {"LL", "SL"},
         {attr("classlabels_ints", four), attr("coefficients", Floats(8, 1.f)),
          attr("rho", Floats{0.f})},
         kMl);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("L"), (Dims{"N"}));
  EXPECT_EQ(a.dtype("L"), kInt64);
  EXPECT_EQ(a.dims("S"), (Dims{"N", "6"}));
  EXPECT_EQ(a.dtype("LP"), kString);
  EXPECT_EQ(a.dims("SP"), (Dims{"N", "4"}));
  EXPECT_EQ(a.dims("SL"), (Dims{"N", "4"}));
}

TEST(OnnxMlOps, SvmRegressorOneTarget) {
  ModelBuilder b = ml_model();
  b.input("X", kDouble, {"N", 2});
  b.node("SVMRegressor", {"X"}, {"Y"},
         {attr("coefficients", Floats{1.f, 1.f}), attr("support_vectors", Floats(4, 1.f)),
          attr("n_supports", std::int64_t{2}), attr("rho", Floats{0.f})},
         kMl);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "1"}));
  EXPECT_EQ(a.dtype("Y"), kFloat);
}

TEST(OnnxMlOps, ClassifierRejectsRankThree) {
  ModelBuilder b = ml_model();
  b.input("X", kFloat, {"N", 2, 2});
  b.node("LinearRegressor", {"X"}, {"Y"}, {attr("coefficients", Floats(4, 1.f))}, kMl);
  auto a = test::analyze(b);
  EXPECT_TRUE(a.has_warning("expects X of shape [N,F] or [F], got rank 3")) << a.warnings();
}

// ---- trees --------------------------------------------------------------------------------------

// A one-split tree: node 0 splits on feature 0, leaves 1 and 2.
std::vector<onnx::AttributeProto> tree_nodes() {
  return {attr("nodes_treeids", Ints{0, 0, 0}),
          attr("nodes_nodeids", Ints{0, 1, 2}),
          attr("nodes_featureids", Ints{0, 0, 0}),
          attr("nodes_values", Floats{0.5f, 0.f, 0.f}),
          attr("nodes_modes", Strings{"BRANCH_LEQ", "LEAF", "LEAF"}),
          attr("nodes_truenodeids", Ints{1, 0, 0}),
          attr("nodes_falsenodeids", Ints{2, 0, 0})};
}

TEST(OnnxMlOps, TreeEnsembleClassifierLabelsAndScores) {
  ModelBuilder b = ml_model(3);
  b.input("X", kFloat, {"N", 5});
  auto ints = tree_nodes();
  ints.push_back(attr("classlabels_int64s", Ints{0, 1, 2}));
  ints.push_back(attr("class_treeids", Ints{0, 0}));
  ints.push_back(attr("class_nodeids", Ints{1, 2}));
  ints.push_back(attr("class_ids", Ints{0, 2}));
  ints.push_back(attr("class_weights", Floats{1.f, 1.f}));
  b.node("TreeEnsembleClassifier", {"X"}, {"L", "P"}, ints, kMl);
  auto strings = tree_nodes();
  strings.push_back(attr("classlabels_strings", Strings{"no", "yes"}));
  b.node("TreeEnsembleClassifier", {"X"}, {"LS", "PS"}, strings, kMl);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("L"), (Dims{"N"}));
  EXPECT_EQ(a.dtype("L"), kInt64);
  EXPECT_EQ(a.dims("P"), (Dims{"N", "3"}));
  EXPECT_EQ(a.dtype("P"), kFloat);
  EXPECT_EQ(bytes(a, "L"), "8*N");
  EXPECT_EQ(a.dtype("LS"), kString);
  EXPECT_EQ(a.dims("PS"), (Dims{"N", "2"}));
}

TEST(OnnxMlOps, TreeEnsembleClassifierIsDeprecatedAtOpset5) {
  ModelBuilder b = ml_model(5);
  b.input("X", kFloat, {"N", 5});
  auto attrs = tree_nodes();
  attrs.push_back(attr("classlabels_int64s", Ints{0, 1}));
  b.node("TreeEnsembleClassifier", {"X"}, {"L", "P"}, attrs, kMl);
  auto a = test::analyze(b);
  EXPECT_TRUE(a.has_warning("TreeEnsembleClassifier is deprecated in ai.onnx.ml opset 5"))
      << a.warnings();
  EXPECT_EQ(a.dims("P"), (Dims{"N", "2"}));
}

TEST(OnnxMlOps, TreeEnsembleRegressorTargets) {
  ModelBuilder b = ml_model(3);
  b.input("X", kFloat, {"N", 5});
  auto attrs = tree_nodes();
  attrs.push_back(attr("target_treeids", Ints{0, 0}));
  attrs.push_back(attr("target_nodeids", Ints{1, 2}));
  attrs.push_back(attr("target_ids", Ints{0, 3}));
  attrs.push_back(attr("target_weights", Floats{1.f, 2.f}));
  auto with_n = attrs;
  with_n.push_back(attr("n_targets", std::int64_t{4}));
  b.node("TreeEnsembleRegressor", {"X"}, {"Y"}, with_n, kMl);
  b.node("TreeEnsembleRegressor", {"X"}, {"Y2"}, attrs, kMl);  // no n_targets
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "4"}));
  EXPECT_EQ(a.dtype("Y"), kFloat);
  EXPECT_EQ(bytes(a, "Y"), "16*N");
  // Without n_targets: a fresh count, at least the largest target id + 1.
  const Dims y2 = a.dims("Y2");
  ASSERT_EQ(y2.size(), 2u);
  EXPECT_EQ(y2[1], "TreeEnsembleRegressor_1_o0_d1");
  EXPECT_EQ(a.ctx->pool().interval(a.shape("Y2").dims[1]).lo, 4);
}

TEST(OnnxMlOps, TreeEnsembleOpset5KeepsTheInputType) {
  ModelBuilder b = ml_model(5);
  b.input("X", kDouble, {"N", 5});
  b.node("TreeEnsemble", {"X"}, {"Y"},
         {attr("n_targets", std::int64_t{3}), attr("tree_roots", Ints{0}),
          attr("nodes_splits", test::tensor_zeros("s", kDouble, {1})),
          attr("nodes_featureids", Ints{0}),
          attr("nodes_modes", test::tensor_ints("m", {0}, {1}, test::kUint8)),
          attr("nodes_truenodeids", Ints{0}), attr("nodes_falsenodeids", Ints{1}),
          attr("nodes_trueleafs", Ints{1}), attr("nodes_falseleafs", Ints{1}),
          attr("leaf_targetids", Ints{0, 2}),
          attr("leaf_weights", test::tensor_zeros("w", kDouble, {2}))},
         kMl);
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "3"}));
  EXPECT_EQ(a.dtype("Y"), kDouble);
  EXPECT_EQ(bytes(a, "Y"), "24*N");
}

// ---- a converted pipeline -----------------------------------------------------------------------

// sklearn's StandardScaler + LogisticRegression as skl2onnx writes it: Scaler, LinearClassifier,
// Normalizer, ZipMap. Every node has a rule, and the peak is a formula in N.
TEST(OnnxMlOps, ScalerClassifierZipMapPipeline) {
  ModelBuilder b = ml_model(1);
  b.input("X", kFloat, {"N", 4});
  b.node("Scaler", {"X"}, {"S"}, {attr("offset", Floats(4, 0.f)), attr("scale", Floats(4, 1.f))},
         kMl);
  b.node("LinearClassifier", {"S"}, {"label", "raw"},
         {attr("coefficients", Floats(12, 0.1f)), attr("intercepts", Floats(3, 0.f)),
          attr("classlabels_ints", Ints{0, 1, 2}), attr("multi_class", std::int64_t{1})},
         kMl);
  b.node("Normalizer", {"raw"}, {"prob"}, {attr("norm", "L1")}, kMl);
  b.node("ZipMap", {"prob"}, {"probabilities"}, {attr("classlabels_int64s", Ints{0, 1, 2})}, kMl);
  b.output("label").output("probabilities");
  auto a = test::analyze(b);
  EXPECT_TRUE(ruled(a));
  EXPECT_EQ(a.dims("label"), (Dims{"N"}));
  EXPECT_EQ(a.dims("prob"), (Dims{"N", "3"}));
  EXPECT_EQ(a.shape("probabilities").kind, ValueKind::kSequence);
  EXPECT_EQ(a.print(a.ctx->memory(1).output_allocation), "20*N");  // label 8N + raw 12N
}

}  // namespace
}  // namespace cctx
