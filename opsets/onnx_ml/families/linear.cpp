// Linear and SVM models. Classifiers give the predicted label Y [N] (string or int64, by which
// class-label list is set) and the scores Z [N, E] (float); regressors give Y [N, targets]. The
// score widths come from the attributes; where the spec leaves them open they follow
// onnxruntime's kernels, which are what allocates those buffers.
#include "families.hpp"
#include "ml_kit.hpp"

namespace cctx::opsets::onnx_ml {

namespace {

// E = one score per intercept; a binary model stores one intercept for its two labels and reports
// both scores (E = 2). Without intercepts the scores are one per class label.
Status linear_classifier(const INodeView& node, IShapeSink& out) {
  require_x(node);
  const ClassLabels labels = class_labels(node, "classlabels_ints");
  const std::int64_t intercepts = attr_length(node, "intercepts");
  std::int64_t scores;
  if (intercepts > 0) {
    scores = intercepts == 1 && labels.count == 2 ? 2 : intercepts;
  } else if (labels.count > 0) {
    scores = labels.count;
  } else {
    return fail("cannot tell the class count: neither 'intercepts' nor class labels are set");
  }
  Dim n;
  check(batch_rows(node, out, 0, &n));
  check(set_tensor_output(node, out, 0, labels.dtype, {n}));
  return set_tensor_output(node, out, 1, dtype::kFloat, {n, node.constant(scores)});
}

Status linear_regressor(const INodeView& node, IShapeSink& out) {
  require_x(node);
  const std::int64_t targets = node.attr_int_or("targets", 1);
  if (targets < 1) return fail("'targets' must be >= 1, got " + std::to_string(targets));
  Dim n;
  check(batch_rows(node, out, 0, &n));
  return set_tensor_output(node, out, 0, dtype::kFloat, {n, node.constant(targets)});
}

// C = the label count (1 without labels). A one-vs-one SVC (support vectors present) without
// probability coefficients reports one raw score per pair of classes, C*(C-1)/2, and 2 for a
// binary model; otherwise one score per class (a linear SVM, or probabilities from prob_a/prob_b).
Status svm_classifier(const INodeView& node, IShapeSink& out) {
  require_x(node);
  const ClassLabels labels = class_labels(node, "classlabels_ints");
  const std::int64_t classes = labels.count > 0 ? labels.count : 1;
  std::vector<std::int64_t> per_class;
  attr_ints_vec(node, "vectors_per_class", &per_class);
  std::int64_t vectors = 0;
  for (std::int64_t v : per_class) vectors += v;
  const bool one_vs_one = vectors > 0 && !attr_set(node, "prob_a");
  const std::int64_t scores =
      one_vs_one ? (classes > 2 ? classes * (classes - 1) / 2 : 2) : classes;
  Dim n;
  check(batch_rows(node, out, 0, &n));
  check(set_tensor_output(node, out, 0, labels.dtype, {n}));
  return set_tensor_output(node, out, 1, dtype::kFloat, {n, node.constant(scores)});
}

// One target: Y [N, 1].
Status svm_regressor(const INodeView& node, IShapeSink& out) {
  require_x(node);
  Dim n;
  check(batch_rows(node, out, 0, &n));
  return set_tensor_output(node, out, 0, dtype::kFloat, {n, node.constant(1)});
}

constinit const FnShapeRule kLinearClassifier{&linear_classifier};
constinit const FnShapeRule kLinearRegressor{&linear_regressor};
constinit const FnShapeRule kSvmClassifier{&svm_classifier};
constinit const FnShapeRule kSvmRegressor{&svm_regressor};

}  // namespace

void register_linear(Registration& reg) {
  reg.shape("LinearClassifier", 1, kLinearClassifier);
  reg.shape("LinearRegressor", 1, kLinearRegressor);
  reg.shape("SVMClassifier", 1, kSvmClassifier);
  reg.shape("SVMRegressor", 1, kSvmRegressor);
}

}  // namespace cctx::opsets::onnx_ml
