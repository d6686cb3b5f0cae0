// Normalization operators and Dropout (expressions.md "Symbolic shape inference rules (ai.onnx
// plugin)"): BatchNormalization (outputs by version), InstanceNormalization, LayerNormalization
// (Mean/InvStdDev), GroupNormalization, RMSNormalization, MeanVarianceNormalization,
// LpNormalization, LRN. Also the scratch estimators of LayerNormalization and Softmax/LogSoftmax
// (semantics.md "Peak scratch memory") and the in-place policies of BatchNormalization and Dropout
// (semantics.md "In-place reuse: Policies").
#include <string>
#include <vector>

#include "families.hpp"
#include "nn_common.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

using nn::has_input;
using nn::has_output;
using nn::set_if_present;

/// Y = X: one output with the input's shape and type.
Status like_input(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  return set_shape(out, 0, node.input_dtype(0), input_shape(node, 0));
}

// ---- BatchNormalization -------------------------------------------------------------------------

/// Statistics outputs: running mean/var (1, 2) and, before opset 14, saved mean/var (3, 4). They
/// take the shape of the matching input (mean = input 3, var = input 4), which is [C], or
/// [C, D1..Dn] for opset-7 `spatial=0`.
Shape statistic_shape(const INodeView& node, std::uint32_t input, const Shape& x) {
  if (has_input(node, input)) {
    Shape s = input_shape(node, input);
    if (s.known) return s;
  }
  if (x.known && x.rank() >= 2) return Shape::of({x.dims[1]});
  return Shape::unknown();
}

bool batch_norm_training(const INodeView& node) {
  return node.opset_version() >= 14 && node.attr_int_or("training_mode", 0) != 0;
}

Status batch_norm(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 5);
  const std::int64_t version = node.opset_version();
  std::uint32_t present = 0;
  for (std::uint32_t o = 1; o < node.output_count(); ++o) present += has_output(node, o) ? 1 : 0;
  if (version >= 14) {
    if (node.output_count() > 3) {
      return fail("has " + std::to_string(node.output_count()) + " outputs; opset " +
                  std::to_string(version) + " defines at most 3");
    }
    if (!batch_norm_training(node) && present > 0) {
      return fail("running_mean/running_var requested but training_mode is 0");
    }
  }
  const Shape x = input_shape(node, 0);
  check(set_shape(out, 0, node.input_dtype(0), x));
  for (std::uint32_t o = 1; o < node.output_count() && o <= 4; ++o) {
    const std::uint32_t input = o % 2 == 1 ? 3 : 4;  // mean-like outputs 1, 3; var-like 2, 4
    // Opset 14 gives the statistics their own type (U, then T2); before, they share X's.
    std::int32_t dtype = node.input_dtype(0);
    if (version >= 14 && node.input_dtype(input) != dtype::kUndefined)
      dtype = node.input_dtype(input);
    check(set_if_present(node, out, o, dtype, statistic_shape(node, input, x)));
  }
  return Status::kOk;
}

/// Inference batch normalization is an affine map per element, so a kernel may write Y over X.
/// Training mode (or any statistics output) reads X twice, so it gets no policy.
Status batch_norm_inplace(const INodeView& node, IInplaceSink& out) {
  for (std::uint32_t o = 1; o < node.output_count(); ++o) {
    if (has_output(node, o)) return Status::kOk;
  }
  if (batch_norm_training(node)) return Status::kOk;
  return out.may_reuse(0, 0);
}

// ---- LayerNormalization, GroupNormalization, RMSNormalization -----------------------------------

bool normalized_axis(const INodeView& node, const Shape& x, std::int64_t* axis,
                     std::string* error) {
  const std::int64_t raw = node.attr_int_or("axis", -1);
  if (normalize_axis(raw, static_cast<std::int64_t>(x.rank()), axis)) return true;
  *error = "axis " + std::to_string(raw) + " out of range for rank " + std::to_string(x.rank());
  return false;
}

/// Y = X; Mean and InvStdDev = X with the dims from `axis` on set to 1, typed by `stash_type`.
Status layer_norm(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  const Shape x = input_shape(node, 0);
  check(set_shape(out, 0, node.input_dtype(0), x));
  const auto stash = static_cast<std::int32_t>(node.attr_int_or("stash_type", dtype::kFloat));
  Shape stats = Shape::unknown();
  if (x.known) {
    std::int64_t axis;
    std::string error;
    if (!normalized_axis(node, x, &axis, &error)) return fail(error);
    stats = x;
    for (std::size_t a = static_cast<std::size_t>(axis); a < x.rank(); ++a)
      stats.dims[a] = node.constant(1);
  }
  for (std::uint32_t o = 1; o <= 2; ++o) {
    check(set_if_present(node, out, o, stash, stats));
  }
  return Status::kOk;
}

Status rms_norm(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  const Shape x = input_shape(node, 0);
  if (x.known) {
    std::int64_t axis;
    std::string error;
    if (!normalized_axis(node, x, &axis, &error)) return fail(error);
  }
  return set_shape(out, 0, node.input_dtype(0), x);
}

/// Y = X. The channels must split into `num_groups`; scale and bias have num_groups values at
/// opset 18 and C values from opset 21.
Status group_norm(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 3);
  std::int64_t groups;
  if (!node.attr_int("num_groups", &groups)) return fail("missing 'num_groups' attribute");
  const Shape x = input_shape(node, 0);
  if (x.known) {
    if (x.rank() < 2)
      return fail("input X has rank " + std::to_string(x.rank()) + ", expected >= 2");
    std::string error;
    Dim per_group;
    if (!nn::split_evenly(out, x.dims[1], groups, &per_group, &error)) {
      return fail("channels do not split into num_groups: " + error);
    }
    const Dim expected = node.opset_version() >= 21 ? x.dims[1] : node.constant(groups);
    for (std::uint32_t i = 1; i <= 2; ++i) {
      Shape p = input_shape(node, i);
      Dim unified;
      if (p.known && p.rank() == 1 && !nn::unify(out, p.dims[0], expected, &unified, &error)) {
        return fail(std::string(i == 1 ? "scale" : "bias") + " length differs: " + error);
      }
    }
  }
  return set_shape(out, 0, node.input_dtype(0), x);
}

// ---- Dropout ------------------------------------------------------------------------------------

/// output = data; mask has data's shape, bool from opset 10 (the data type before).
Status dropout(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const Shape x = input_shape(node, 0);
  check(set_shape(out, 0, node.input_dtype(0), x));
  const std::int32_t mask = node.opset_version() >= 10 ? dtype::kBool : node.input_dtype(0);
  return set_if_present(node, out, 1, mask, x);
}

/// Inference Dropout is an identity and training Dropout is elementwise, so `output` may take
/// over `data`'s buffer when it dies. It is deliberately not an alias: runtimes copy when `data`
/// is still live, and an alias that the runtime does not make would under-report memory.
Status dropout_inplace(const INodeView&, IInplaceSink& out) { return out.may_reuse(0, 0); }

// ---- scratch estimators -------------------------------------------------------------------------

/// Row statistics the kernel keeps when Mean/InvStdDev are not outputs: (2 - present stats) *
/// R * s, R = product of X dims before `axis`, s = 4 for stash_type 1 (float) else X's element.
Status layer_norm_scratch(const INodeView& node, IScratchSink& out) {
  Shape x;
  if (!nn::known_shape(node, 0, &x)) return unsupported("rank of X unknown");
  const std::int64_t raw = node.attr_int_or("axis", -1);
  std::int64_t axis;
  if (!normalize_axis(raw, static_cast<std::int64_t>(x.rank()), &axis)) {
    return unsupported("axis " + std::to_string(raw) + " out of range");
  }
  const std::int64_t missing = 2 - (has_output(node, 1) ? 1 : 0) - (has_output(node, 2) ? 1 : 0);
  std::int64_t s = 4;
  std::string why;
  if (node.attr_int_or("stash_type", dtype::kFloat) != dtype::kFloat &&
      !nn::input_element_bytes(node, 0, &s, &why)) {
    return unsupported(why);
  }
  const Dim rows = product(node, x.dims, 0, static_cast<std::size_t>(axis));
  return out.set_bytes(rows * (missing * s));
}

/// Softmax and LogSoftmax normalise each row in place in the output (semantics.md "Peak scratch
/// memory": 0).
Status zero_scratch(const INodeView& node, IScratchSink& out) {
  return out.set_bytes(node.constant(0));
}

constinit const FnShapeRule kLikeInput{&like_input};
constinit const FnShapeRule kBatchNorm{&batch_norm};
constinit const FnShapeRule kLayerNorm{&layer_norm};
constinit const FnShapeRule kRmsNorm{&rms_norm};
constinit const FnShapeRule kGroupNorm{&group_norm};
constinit const FnShapeRule kDropout{&dropout};
constinit const FnScratchEstimator kLayerNormScratch{&layer_norm_scratch};
constinit const FnScratchEstimator kZeroScratch{&zero_scratch};
constinit const FnInplacePolicy kBatchNormInplace{&batch_norm_inplace};
constinit const FnInplacePolicy kDropoutInplace{&dropout_inplace};

}  // namespace

void register_normalization(Registration& reg) {
  reg.shape("BatchNormalization", {1, 6, 7, 9, 14, 15}, kBatchNorm);
  reg.shape("InstanceNormalization", {1, 6, 22}, kLikeInput);
  reg.shape("LayerNormalization", 17, kLayerNorm);
  reg.shape("GroupNormalization", {18, 21}, kGroupNorm);
  reg.shape("RMSNormalization", 23, kRmsNorm);
  reg.shape("MeanVarianceNormalization", {1, 9, 13}, kLikeInput);
  reg.shape("LpNormalization", {1, 22}, kLikeInput);
  reg.shape("LRN", {1, 13}, kLikeInput);
  reg.shape("Dropout", {1, 6, 7, 10, 12, 13, 22}, kDropout);
  reg.scratch("LayerNormalization", 17, kLayerNormScratch);
  reg.scratch("Softmax", 1, kZeroScratch);
  reg.scratch("LogSoftmax", 1, kZeroScratch);
  // Instance, layer and group normalization read each row twice (statistics, then the
  // normalised values), so they get no in-place policy: a wrong reuse would under-report memory.
  reg.inplace("BatchNormalization", 1, kBatchNormInplace);
  reg.inplace("Dropout", 1, kDropoutInplace);
}

}  // namespace cctx::opsets::onnx
