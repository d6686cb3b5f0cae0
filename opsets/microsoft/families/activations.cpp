// Elementwise contrib activations (ContribOperators.md): Gelu, QuickGelu, FastGelu (optional
// bias), BiasGelu, and BiasAdd (X + bias + skip). Every output has input 0's shape and type; a bias
// must be 1-D with the length of X's last dim. FastGelu may write over X (onnxruntime's CPU kernel
// declares MayInplace(0, 0)); BiasAdd inherits Add's backward weight tagging.
#include <string>

#include "families.hpp"
#include "ms_kit.hpp"

namespace cctx::opsets::microsoft {

namespace {

/// A bias input (1-D, X's last dim) must match X; a proven mismatch is an error.
bool check_bias(const INodeView& node, IShapeSink& out, std::uint32_t bias_index, const Shape& x,
                std::string* error) {
  if (!has_input(node, bias_index) || !x.known || x.rank() == 0) return true;
  const Shape bias = input_shape(node, bias_index);
  if (!bias.known) return true;
  if (bias.rank() != 1) {
    *error = "bias has rank " + std::to_string(bias.rank()) + ", expected 1";
    return false;
  }
  Dim unified;
  if (unify(out, x.dims.back(), bias.dims[0], &unified, error)) return true;
  *error = "bias length differs from the last dim of the input: " + *error;
  return false;
}

/// Y = X, with the bias (input 1, when present) checked against X's last dim.
Status biased_unary(const INodeView& node, IShapeSink& out) {
  require_inputs(node, node.is_op("BiasGelu") ? 2 : 1);
  const Shape x = input_shape(node, 0);
  std::string error;
  if (!check_bias(node, out, 1, x, &error)) return fail(error);
  return set_shape(out, 0, node.input_dtype(0), x);
}

/// BiasAdd: Y = X + bias + skip with X and skip [N, S, C] and bias [C].
Status bias_add(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 3);
  Shape x = input_shape(node, 0);
  const Shape skip = input_shape(node, 2);
  std::string error;
  if (x.known && x.rank() != 3) {
    return fail("input X has rank " + std::to_string(x.rank()) + ", expected 3 (N, S, C)");
  }
  if (!check_bias(node, out, 1, x, &error)) return fail(error);
  if (x.known && skip.known) {
    if (skip.rank() != 3) return fail("skip must have X's shape (N, S, C)");
    for (std::size_t a = 0; a < 3; ++a) {
      if (!unify_into(out, &x.dims[a], skip.dims[a], "X and skip dims", &error)) {
        return fail(error + " at axis " + std::to_string(a));
      }
    }
  }
  return set_shape(out, 0, node.input_dtype(0), x.known ? x : skip);
}

constinit const FnShapeRule kBiasedUnary{&biased_unary};
constinit const FnShapeRule kBiasAdd{&bias_add};

}  // namespace

void register_activations(Registration& reg) {
  for (const char* op : {"Gelu", "QuickGelu", "FastGelu", "BiasGelu"}) {
    reg.shape(op, 1, kBiasedUnary);
  }
  reg.shape("BiasAdd", 1, kBiasAdd);
  // onnxruntime's CPU FastGelu computes each element from the same element of X, and declares
  // MayInplace(0, 0). Its Gelu, QuickGelu and BiasGelu kernels declare nothing, so they get no
  // policy: a reuse the runtime does not make would under-report memory.
  reg.inplace("FastGelu", 1, kReuseInput0);
  // BiasAdd is an Add: a weight result makes both summands weight (semantics.md "Tags: Per-node
  // rule" step 7).
  TagTraits add_like;
  add_like.backward = TagBackward::kInputs01WeightOnly;
  reg.tags("BiasAdd", add_like);
}

}  // namespace cctx::opsets::microsoft
