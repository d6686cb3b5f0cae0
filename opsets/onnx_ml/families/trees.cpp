// Tree ensembles. TreeEnsembleClassifier gives Y [N] (string or int64 labels) and Z [N, E] (float,
// one score per class label); TreeEnsembleRegressor gives Y [N, n_targets] (float); TreeEnsemble
// (opset 5) gives Y [N, n_targets] of X's type. The two older operators are deprecated at opset 5:
// their rules still answer there, with a warning.
#include <algorithm>

#include "families.hpp"
#include "ml_kit.hpp"

namespace cctx::opsets::onnx_ml {

namespace {

Status tree_classifier(const INodeView& node, IShapeSink& out) {
  require_x(node);
  const ClassLabels labels = class_labels(node, "classlabels_int64s");
  if (labels.count == 0) {
    return fail("one of 'classlabels_strings', 'classlabels_int64s' must be set");
  }
  Dim n;
  check(batch_rows(node, out, 0, &n));
  check(set_tensor_output(node, out, 0, labels.dtype, {n}));
  return set_tensor_output(node, out, 1, dtype::kFloat, {n, node.constant(labels.count)});
}

// The target count: `n_targets`, or, when a model omits it, a fresh symbol no smaller than what the
// leaves prove (the largest target id they vote for, plus one).
Status target_count(const INodeView& node, IShapeSink& out, const char* target_ids, Dim* targets) {
  std::int64_t n_targets;
  if (node.attr_int(StringRef("n_targets"), &n_targets)) {
    if (n_targets < 1) return fail("'n_targets' must be >= 1, got " + std::to_string(n_targets));
    *targets = node.constant(n_targets);
    return Status::kOk;
  }
  std::vector<std::int64_t> ids;
  attr_ints_vec(node, target_ids, &ids);
  std::int64_t at_least = 1;
  for (std::int64_t id : ids) at_least = std::max(at_least, id + 1);
  *targets = Dim(&node.expr(), out.fresh_dim(0, 1, at_least, kPosInf));
  return Status::kOk;
}

Status tree_regressor(const INodeView& node, IShapeSink& out) {
  require_x(node);
  Dim n, targets;
  check(batch_rows(node, out, 0, &n));
  check(target_count(node, out, "target_ids", &targets));
  return set_tensor_output(node, out, 0, dtype::kFloat, {n, targets});
}

// Opset 5 computes in X's type (float, double or float16) and writes Y in it.
Status tree_ensemble(const INodeView& node, IShapeSink& out) {
  require_x(node);
  Dim n, targets;
  check(batch_rows(node, out, 0, &n));
  check(target_count(node, out, "leaf_targetids", &targets));
  return set_tensor_output(node, out, 0, node.input_dtype(0), {n, targets});
}

Status tree_classifier_deprecated(const INodeView& node, IShapeSink& out) {
  warn(out,
       "TreeEnsembleClassifier is deprecated in ai.onnx.ml opset 5 (use TreeEnsemble); "
       "analysed with its opset-3 definition");
  return tree_classifier(node, out);
}

Status tree_regressor_deprecated(const INodeView& node, IShapeSink& out) {
  warn(out,
       "TreeEnsembleRegressor is deprecated in ai.onnx.ml opset 5 (use TreeEnsemble); "
       "analysed with its opset-3 definition");
  return tree_regressor(node, out);
}

constinit const FnShapeRule kTreeClassifier{&tree_classifier};
constinit const FnShapeRule kTreeRegressor{&tree_regressor};
constinit const FnShapeRule kTreeEnsemble{&tree_ensemble};
constinit const FnShapeRule kTreeClassifierDeprecated{&tree_classifier_deprecated};
constinit const FnShapeRule kTreeRegressorDeprecated{&tree_regressor_deprecated};

}  // namespace

void register_trees(Registration& reg) {
  // Opset 3 only adds the `*_as_tensor` (double) attributes: same outputs.
  reg.shape("TreeEnsembleClassifier", {1, 3}, kTreeClassifier);
  reg.shape("TreeEnsembleClassifier", 5, kTreeClassifierDeprecated);
  reg.shape("TreeEnsembleRegressor", {1, 3}, kTreeRegressor);
  reg.shape("TreeEnsembleRegressor", 5, kTreeRegressorDeprecated);
  reg.shape("TreeEnsemble", 5, kTreeEnsemble);
}

}  // namespace cctx::opsets::onnx_ml
