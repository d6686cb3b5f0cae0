// Contrib layer normalizations (ContribOperators.md): SkipLayerNormalization and
// SkipSimplifiedLayerNormalization (output, mean, inv_std_var, input_skip_bias_sum), and the two
// onnxruntime registers for old exporters, LayerNormalization (Y, Mean, InvStdDev) and
// SimplifiedLayerNormalization (Y, inv_std_var). Statistics have the input's shape with the
// normalized dims set to 1 and are float (stash_type). LayerNormalization and its simplified form
// get the ai.onnx row-statistics scratch estimate (semantics.md "Peak scratch memory"). None
// declares in-place reuse: each row is read twice (statistics, then the normalized values), and
// onnxruntime's kernels allocate their outputs.
#include <string>
#include <vector>

#include "families.hpp"
#include "ms_kit.hpp"

namespace cctx::opsets::microsoft {

namespace {

/// `x` with the dims from `axis` on set to 1 (the shape of the per-row statistics).
Shape statistics_shape(const INodeView& node, const Shape& x, std::size_t axis) {
  if (!x.known) return x;
  Shape s = x;
  for (std::size_t a = axis; a < s.rank(); ++a) s.dims[a] = node.constant(1);
  return s;
}

/// The normalized axis (attribute `axis`, default -1) of a known shape.
bool normalized_axis(const INodeView& node, const Shape& x, std::size_t* axis, std::string* error) {
  const std::int64_t raw = node.attr_int_or("axis", -1);
  std::int64_t a;
  if (!normalize_axis(raw, static_cast<std::int64_t>(x.rank()), &a)) {
    *error = "axis " + std::to_string(raw) + " out of range for rank " + std::to_string(x.rank());
    return false;
  }
  *axis = static_cast<std::size_t>(a);
  return true;
}

/// A 1-D parameter (gamma, beta, bias) must have the hidden size.
bool check_parameter(const INodeView& node, IShapeSink& out, std::uint32_t i, const char* name,
                     Dim hidden, std::string* error) {
  if (!has_input(node, i) || !hidden.valid()) return true;
  const Shape p = input_shape(node, i);
  if (!p.known) return true;
  if (p.rank() != 1) {
    *error = std::string(name) + " has rank " + std::to_string(p.rank()) + ", expected 1";
    return false;
  }
  Dim unified;
  if (unify(out, hidden, p.dims[0], &unified, error)) return true;
  *error = std::string(name) + " length differs from the hidden size: " + *error;
  return false;
}

// ---- SkipLayerNormalization, SkipSimplifiedLayerNormalization -----------------------------------

/// input [B, S, H] or [T, H]; skip [B, S, H], [1, S, H] or [S, H] (only H is checked: the kernel
/// broadcasts the leading dims). Outputs: 0 and 3 input's shape and type; 1 and 2 (mean,
/// inv_std_var) float with the last dim 1.
Status skip_layer_norm(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 3);
  const Shape x = input_shape(node, 0);
  const bool simplified = node.is_op("SkipSimplifiedLayerNormalization");
  std::string error;
  Dim hidden;
  if (x.known) {
    if (x.rank() != 2 && x.rank() != 3) {
      return fail("input has rank " + std::to_string(x.rank()) + ", expected 2 or 3");
    }
    hidden = x.dims.back();
    const Shape skip = input_shape(node, 1);
    if (skip.known) {
      if (skip.rank() < 2 || skip.rank() > x.rank()) {
        return fail("skip has rank " + std::to_string(skip.rank()) + ", expected 2.." +
                    std::to_string(x.rank()));
      }
      Dim unified;
      if (!unify(out, hidden, skip.dims.back(), &unified, &error)) {
        return fail("skip hidden size differs: " + error);
      }
    }
  }
  const std::uint32_t bias_index = simplified ? 3 : 4;
  if (!check_parameter(node, out, 2, "gamma", hidden, &error) ||
      (!simplified && !check_parameter(node, out, 3, "beta", hidden, &error)) ||
      !check_parameter(node, out, bias_index, "bias", hidden, &error)) {
    return fail(error);
  }
  const std::int32_t type = node.input_dtype(0);
  check(set_shape(out, 0, type, x));
  const Shape stats = x.known ? statistics_shape(node, x, x.rank() - 1) : x;
  for (std::uint32_t o = 1; o <= 2; ++o) {
    check(set_if_present(node, out, o, dtype::kFloat, stats));
  }
  return set_if_present(node, out, 3, type, x);
}

// ---- LayerNormalization, SimplifiedLayerNormalization -------------------------------------------

/// Y = X; the statistics outputs (Mean and InvStdDev, or inv_std_var for the simplified form) are X
/// with the dims from `axis` on set to 1, typed by `stash_type` (default float).
Status layer_norm(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  const Shape x = input_shape(node, 0);
  Shape stats = x;
  if (x.known) {
    std::size_t axis;
    std::string error;
    if (!normalized_axis(node, x, &axis, &error)) return fail(error);
    stats = statistics_shape(node, x, axis);
  }
  check(set_shape(out, 0, node.input_dtype(0), x));
  const auto stash = static_cast<std::int32_t>(node.attr_int_or("stash_type", dtype::kFloat));
  const std::uint32_t last = node.is_op("SimplifiedLayerNormalization") ? 1 : 2;
  for (std::uint32_t o = 1; o <= last; ++o) {
    check(set_if_present(node, out, o, stash, stats));
  }
  return Status::kOk;
}

/// Row statistics the kernel keeps when they are not outputs, as for ai.onnx LayerNormalization:
/// (statistics - present statistics outputs) * R * s, R = product of X dims before `axis`, s = 4
/// for stash_type 1 (float) else X's element size. The simplified form keeps one statistic.
Status layer_norm_scratch(const INodeView& node, IScratchSink& out) {
  Shape x;
  if (!known_shape(node, 0, &x)) return unsupported("rank of X unknown");
  const std::int64_t raw = node.attr_int_or("axis", -1);
  std::int64_t axis;
  if (!normalize_axis(raw, static_cast<std::int64_t>(x.rank()), &axis)) {
    return unsupported("axis " + std::to_string(raw) + " out of range");
  }
  const bool simplified = node.is_op("SimplifiedLayerNormalization");
  std::int64_t missing = simplified ? 1 : 2;
  for (std::uint32_t o = 1; o <= (simplified ? 1u : 2u); ++o)
    missing -= has_output(node, o) ? 1 : 0;
  std::int64_t s = 4;
  std::string why;
  if (node.attr_int_or("stash_type", dtype::kFloat) != dtype::kFloat &&
      !input_element_bytes(node, 0, &s, &why)) {
    return unsupported(why);
  }
  const Dim rows = product(node, x.dims, 0, static_cast<std::size_t>(axis));
  return out.set_bytes(rows * (missing * s));
}

constinit const FnShapeRule kSkipLayerNorm{&skip_layer_norm};
constinit const FnShapeRule kLayerNorm{&layer_norm};
constinit const FnScratchEstimator kLayerNormScratch{&layer_norm_scratch};

}  // namespace

void register_normalization(Registration& reg) {
  reg.shape("SkipLayerNormalization", 1, kSkipLayerNorm);
  reg.shape("SkipSimplifiedLayerNormalization", 1, kSkipLayerNorm);
  reg.shape("LayerNormalization", 1, kLayerNorm);
  reg.shape("SimplifiedLayerNormalization", 1, kLayerNorm);
  reg.scratch("LayerNormalization", 1, kLayerNormScratch);
  reg.scratch("SimplifiedLayerNormalization", 1, kLayerNormScratch);
}

void register_onnx_domain_normalization(Registration& onnx) {
  // ONNX Runtime registers both in the ONNX domain at version 1 (its fusions and
  // onnxruntime-genai's builder write them there): served from opset 1, so that a model whose
  // ai.onnx opset predates LayerNormalization-17 still gets a rule; from 17 on, the ai.onnx
  // plugin's own LayerNormalization-17 is the newer key and wins.
  onnx.shape("SimplifiedLayerNormalization", 1, kLayerNorm);
  onnx.scratch("SimplifiedLayerNormalization", 1, kLayerNormScratch);
  onnx.shape("LayerNormalization", 1, kLayerNorm);
  onnx.scratch("LayerNormalization", 1, kLayerNormScratch);
}

}  // namespace cctx::opsets::microsoft
