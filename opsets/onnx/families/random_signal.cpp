// Random generators (RandomNormal/Uniform and their *Like forms, Bernoulli, Multinomial) and
// signal processing (DFT, STFT, the Blackman/Hamming/Hann windows, MelWeightMatrix).
#include <algorithm>

#include "families.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

/// The known value of a scalar (or one-element) integer input.
bool scalar_value(const INodeView& node, std::uint32_t i, Dim* value) {
  std::vector<Dim> v;
  if (!input_values(node, i, &v) || v.size() != 1) return false;
  *value = v[0];
  return true;
}

/// A size read from a scalar input, or a fresh dim (output o, axis) when its value is unknown.
Dim size_from_input(const INodeView& node, IShapeSink& out, std::uint32_t i, std::uint32_t o,
                    std::uint32_t axis) {
  Dim v;
  return scalar_value(node, i, &v) ? v : fresh(node, out, o, axis, 0, kPosInf);
}

// ---- random -------------------------------------------------------------------------------------

/// RandomNormal, RandomUniform: the `shape` attribute, `dtype` (default float).
Status random_from_attributes(const INodeView& node, IShapeSink& out) {
  std::vector<std::int64_t> shape;
  if (!attr_ints_vec(node, "shape", &shape)) return fail("missing 'shape' attribute");
  std::vector<Dim> dims;
  for (std::int64_t d : shape) {
    if (d < 0) return fail("negative dim " + std::to_string(d) + " in 'shape'");
    dims.push_back(node.constant(d));
  }
  const auto dtype = static_cast<std::int32_t>(node.attr_int_or("dtype", dtype::kFloat));
  return set_shape(out, 0, dtype, Shape::of(std::move(dims)));
}

/// RandomNormalLike, RandomUniformLike, Bernoulli: the input's shape; `dtype` or the input's.
Status random_like(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const auto dtype = static_cast<std::int32_t>(node.attr_int_or("dtype", node.input_dtype(0)));
  return set_shape(out, 0, dtype, input_shape(node, 0));
}

/// Multinomial: input [batch, classes] -> [batch, sample_size], int32 unless `dtype` says.
Status multinomial(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const auto dtype = static_cast<std::int32_t>(node.attr_int_or("dtype", dtype::kInt32));
  const Shape in = input_shape(node, 0);
  if (in.known && in.rank() != 2) return fail("input must be 2-D [batch_size, class_size]");
  const Dim batch = in.known ? in.dims[0] : fresh(node, out, 0, 0, 0, kPosInf);
  return set_shape(out, 0, dtype,
                   Shape::of({batch, node.constant(node.attr_int_or("sample_size", 1))}));
}

// ---- DFT ----------------------------------------------------------------------------------------

/// The DFT axis: attribute (opset 17, default 1) or input 2 (opset 20, default -2). False when
/// the input has no known value.
bool dft_axis(const INodeView& node, std::int64_t* axis) {
  if (node.opset_version() < 20) {
    *axis = node.attr_int_or("axis", 1);
    return true;
  }
  *axis = -2;
  if (!node.has_input(2)) return true;
  std::vector<std::int64_t> v;
  if (!input_ints(node, 2, &v) || v.size() != 1) return false;
  *axis = v[0];
  return true;
}

/// Output [.., n, .., 2]: the signal axis becomes dft_length (when given) and floor(n/2)+1 when
/// onesided; the last axis holds real and imaginary parts.
Status dft(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const std::int32_t dtype = node.input_dtype(0);
  Shape s = known_input(node, out, 0, dtype);
  const auto rank = static_cast<std::int64_t>(s.rank());
  if (rank < 2) return fail("input must have rank >= 2 (the last axis holds the complex parts)");
  const bool onesided = node.attr_int_or("onesided", 0) != 0;
  const bool inverse = node.attr_int_or("inverse", 0) != 0;
  const bool has_length = node.has_input(1);
  std::int64_t axis;
  if (!dft_axis(node, &axis)) {
    // Unknown signal axis: only a plain transform keeps every dim.
    for (std::size_t k = 0; k + 1 < s.rank() && (onesided || has_length); ++k) {
      s.dims[k] = fresh(node, out, 0, static_cast<std::uint32_t>(k), 0, kPosInf);
    }
    s.dims.back() = node.constant(2);
    return set_shape(out, 0, dtype, s);
  }
  if (axis < -rank || axis == -1 || axis >= rank - 1) {
    return fail("axis " + std::to_string(axis) + " is invalid for rank " + std::to_string(rank));
  }
  const auto at = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
  Dim n = s.dims[at];
  if (has_length) n = size_from_input(node, out, 1, 0, static_cast<std::uint32_t>(at));
  s.dims.back() = node.constant(2);
  if (onesided && inverse) {
    // A one-sided inverse (newer revisions of DFT-20) returns a real signal whose length the
    // spectrum alone does not fix: without dft_length the axis is fresh, and the part axis is
    // left open between real (1) and complex (2).
    out.warn("one-sided inverse DFT: signal length and output parts are not derived");
    if (!has_length) n = fresh(node, out, 0, static_cast<std::uint32_t>(at), 0, kPosInf);
    s.dims.back() = fresh(node, out, 0, static_cast<std::uint32_t>(rank - 1), 1, 2);
  } else if (onesided) {
    n = floor_div(n, 2) + 1;
  }
  s.dims[at] = n;
  return set_shape(out, 0, dtype, s);
}

/// STFT's DFT size: input 3, else the window's length (a fresh bins dim when neither is known).
Dim stft_frame_length(const INodeView& node, IShapeSink& out) {
  Dim length;
  if (node.has_input(3))
    return scalar_value(node, 3, &length) ? length : fresh(node, out, 0, 2, 0, kPosInf);
  const Shape window = input_shape(node, 2);
  if (node.has_input(2) && window.known && window.rank() == 1) return window.dims[0];
  return fresh(node, out, 0, 2, 0, kPosInf);
}

/// STFT: signal [batch, length, 1|2] -> [batch, frames, bins, 2] with
/// frames = (length - frame_length) // frame_step + 1 and bins = frame_length // 2 + 1 when
/// onesided (the default), else frame_length. frame_length is input 3, else the window's length.
Status stft(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  const std::int32_t dtype = node.input_dtype(0);
  const Shape signal = input_shape(node, 0);
  if (signal.known && signal.rank() != 3) return fail("signal must be [batch, length, 1 or 2]");
  const Dim frame_length = stft_frame_length(node, out);
  Dim step;
  const bool step_known = scalar_value(node, 1, &step);
  Dim batch = signal.known ? signal.dims[0] : fresh(node, out, 0, 0, 0, kPosInf);
  Dim frames = signal.known && step_known ? floor_div(signal.dims[1] - frame_length, step) + 1
                                          : fresh(node, out, 0, 1, 0, kPosInf);
  const bool onesided = node.attr_int_or("onesided", 1) != 0;
  Dim bins = onesided ? floor_div(frame_length, 2) + 1 : frame_length;
  return set_shape(out, 0, dtype, Shape::of({batch, frames, bins, node.constant(2)}));
}

/// Blackman/Hamming/Hann windows: [size] of `output_datatype` (default float).
Status window(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const auto dtype = static_cast<std::int32_t>(node.attr_int_or("output_datatype", dtype::kFloat));
  return set_shape(out, 0, dtype, Shape::of({size_from_input(node, out, 0, 0, 0)}));
}

/// MelWeightMatrix: [dft_length // 2 + 1, num_mel_bins] of `output_datatype` (default float).
Status mel_weight_matrix(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 5);
  const auto dtype = static_cast<std::int32_t>(node.attr_int_or("output_datatype", dtype::kFloat));
  Dim dft_length;
  const Dim bins = scalar_value(node, 1, &dft_length) ? floor_div(dft_length, 2) + 1
                                                      : fresh(node, out, 0, 0, 0, kPosInf);
  return set_shape(out, 0, dtype, Shape::of({bins, size_from_input(node, out, 0, 0, 1)}));
}

constinit const FnShapeRule kRandomFromAttributes{&random_from_attributes};
constinit const FnShapeRule kRandomLike{&random_like};
constinit const FnShapeRule kMultinomial{&multinomial};
constinit const FnShapeRule kDft{&dft};
constinit const FnShapeRule kStft{&stft};
constinit const FnShapeRule kWindow{&window};
constinit const FnShapeRule kMelWeightMatrix{&mel_weight_matrix};

}  // namespace

void register_random_signal(Registration& reg) {
  // Opset 22 only adds bfloat16 to the random generators.
  reg.shape("RandomNormal", {1, 22}, kRandomFromAttributes);
  reg.shape("RandomUniform", {1, 22}, kRandomFromAttributes);
  reg.shape("RandomNormalLike", {1, 22}, kRandomLike);
  reg.shape("RandomUniformLike", {1, 22}, kRandomLike);
  reg.shape("Bernoulli", {15, 22}, kRandomLike);
  reg.shape("Multinomial", {7, 22}, kMultinomial);
  reg.shape("DFT", {17, 20}, kDft);
  reg.shape("STFT", 17, kStft);
  for (const char* op : {"BlackmanWindow", "HammingWindow", "HannWindow"})
    reg.shape(op, 17, kWindow);
  reg.shape("MelWeightMatrix", 17, kMelWeightMatrix);
}

}  // namespace cctx::opsets::onnx
