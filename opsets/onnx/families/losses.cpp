// Loss operators SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss: scores [N, C, D1..Dk],
// labels [N, D1..Dk]; reduction "none" keeps the per-element loss [N, D1..Dk], "mean"/"sum"
// give a scalar; SoftmaxCrossEntropyLoss's optional log_prob has the scores' shape.
#include <string>
#include <vector>

#include "families.hpp"
#include "nn_common.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

/// The per-element loss shape: scores without the class axis, else the labels' shape.
bool element_loss_shape(IShapeSink& out, const Shape& scores, const Shape& labels, Shape* loss,
                        std::string* error) {
  if (!scores.known) {
    *loss = labels;
    return true;
  }
  std::vector<Dim> dims{scores.dims[0]};
  dims.insert(dims.end(), scores.dims.begin() + 2, scores.dims.end());
  if (labels.known) {
    if (labels.rank() != dims.size()) {
      *error = "labels have rank " + std::to_string(labels.rank()) + ", expected " +
               std::to_string(dims.size());
      return false;
    }
    for (std::size_t a = 0; a < dims.size(); ++a) {
      if (!nn::unify(out, dims[a], labels.dims[a], &dims[a], error)) {
        *error = "labels differ from the scores at axis " + std::to_string(a) + ": " + *error;
        return false;
      }
    }
  }
  *loss = Shape::of(std::move(dims));
  return true;
}

Status loss(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  const std::int32_t dtype = node.input_dtype(0);
  const Shape scores = input_shape(node, 0), labels = input_shape(node, 1);
  if (scores.known && scores.rank() < 2) {
    return fail("scores have rank " + std::to_string(scores.rank()) + ", expected >= 2");
  }
  const std::string reduction = attr_string_or(node, "reduction", "mean");
  Shape result;
  if (reduction == "none") {
    std::string error;
    if (!element_loss_shape(out, scores, labels, &result, &error)) return fail(error);
  } else if (reduction == "mean" || reduction == "sum") {
    result = Shape::of({});
  } else {
    return fail("unknown reduction '" + reduction + "'");
  }
  check(set_shape(out, 0, dtype, result));
  if (node.is_op("SoftmaxCrossEntropyLoss")) return nn::set_if_present(node, out, 1, dtype, scores);
  return Status::kOk;
}

constinit const FnShapeRule kLoss{&loss};

}  // namespace

void register_losses(Registration& reg) {
  reg.shape("SoftmaxCrossEntropyLoss", {12, 13}, kLoss);
  reg.shape("NegativeLogLikelihoodLoss", {12, 13, 22}, kLoss);
}

}  // namespace cctx::opsets::onnx
