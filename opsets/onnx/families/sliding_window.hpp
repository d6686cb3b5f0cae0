// The sliding window that convolutions (conv.cpp) and pools (pool.cpp) share: its attributes
// (kernel, strides, dilations, pads, auto_pad, ceil_mode, as each operator version defines them)
// and the output size of a window over an input dim (expressions.md, Symbolic shape inference
// rules). The shape rules and the im2col / col2im scratch estimators (semantics.md, Peak scratch
// memory) both recompute output dims through it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

// ---- window attributes -------------------------------------------------------------------------

enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

/// Which optional window attributes an operator version defines (older versions ignore them).
struct WindowTraits {
  bool dilations = true;
  bool ceil_mode = false;
  bool auto_pad = true;
  /// Pooling: the output size truncates toward zero, as ONNX Runtime's pooling kernels and
  /// ONNX's own inference compute it, so a window larger than the padded input by less than a
  /// stride still gives one output (floor arithmetic would give 0). Conv keeps floor: ONNX
  /// Runtime refuses a Conv whose kernel is larger than its padded input.
  bool truncating = false;
};

/// The sliding-window attributes of one node, per spatial axis.
struct Window {
  std::vector<Dim> kernel;  ///< empty when unknown (no kernel_shape, weight shape unknown)
  std::vector<std::int64_t> strides, dilations;
  std::vector<std::int64_t> pads;  ///< begin values, then end values
  AutoPad auto_pad = AutoPad::kNotSet;
  bool ceil_mode = false;
  bool truncating = false;  ///< WindowTraits::truncating

  std::size_t spatial() const { return strides.size(); }
  std::int64_t pad_begin(std::size_t i) const { return pads[i]; }
  std::int64_t pad_end(std::size_t i) const { return pads[i + spatial()]; }
  bool kernel_known() const { return !kernel.empty(); }
  bool same_padding() const {
    return auto_pad == AutoPad::kSameUpper || auto_pad == AutoPad::kSameLower;
  }
  /// The pads the output size counts: none under VALID.
  std::int64_t counted_pad_begin(std::size_t i) const {
    return auto_pad == AutoPad::kValid ? 0 : pad_begin(i);
  }
  std::int64_t counted_pad_end(std::size_t i) const {
    return auto_pad == AutoPad::kValid ? 0 : pad_end(i);
  }
  /// The kernel's extent with its dilation; needs kernel_known().
  Dim effective_kernel(std::size_t i) const { return (kernel[i] - 1) * dilations[i] + 1; }
};

inline bool parse_auto_pad(const INodeView& node, AutoPad* mode, std::string* error) {
  const std::string text = attr_string_or(node, "auto_pad", "NOTSET");
  if (text == "NOTSET") {
    *mode = AutoPad::kNotSet;
  } else if (text == "SAME_UPPER") {
    *mode = AutoPad::kSameUpper;
  } else if (text == "SAME_LOWER") {
    *mode = AutoPad::kSameLower;
  } else if (text == "VALID") {
    *mode = AutoPad::kValid;
  } else {
    *error = "unknown auto_pad '" + text + "'";
    return false;
  }
  return true;
}

/// Kernel dims from `kernel_shape`, else from the weight's dims [2:] (`weight` may be unknown).
inline bool read_kernel(const INodeView& node, std::size_t spatial, const Shape& weight,
                        std::vector<Dim>* kernel, std::string* error) {
  std::vector<std::int64_t> attr;
  if (attr_ints_vec(node, "kernel_shape", &attr)) {
    if (attr.size() != spatial) {
      *error = "attribute 'kernel_shape' has " + std::to_string(attr.size()) +
               " values, expected " + std::to_string(spatial);
      return false;
    }
    for (std::int64_t k : attr) {
      if (k < 1) {
        *error = "kernel_shape value " + std::to_string(k) + " is not positive";
        return false;
      }
      kernel->push_back(node.constant(k));
    }
    return true;
  }
  if (!weight.known) return true;  // unknown kernel
  if (weight.rank() != spatial + 2) {
    *error = "weight has rank " + std::to_string(weight.rank()) + ", expected " +
             std::to_string(spatial + 2);
    return false;
  }
  kernel->assign(weight.dims.begin() + 2, weight.dims.end());
  return true;
}

inline bool read_window(const INodeView& node, std::size_t spatial, const Shape& weight,
                        WindowTraits traits, Window* w, std::string* error) {
  if (!read_kernel(node, spatial, weight, &w->kernel, error)) return false;
  if (!ints_attr(node, "strides", spatial, 1, &w->strides, error)) return false;
  if (traits.dilations) {
    if (!ints_attr(node, "dilations", spatial, 1, &w->dilations, error)) return false;
  } else {
    w->dilations.assign(spatial, 1);
  }
  for (std::size_t i = 0; i < spatial; ++i) {
    if (w->strides[i] < 1 || w->dilations[i] < 1) {
      *error = "strides and dilations must be positive (axis " + std::to_string(i + 2) +
               ": stride " + std::to_string(w->strides[i]) + ", dilation " +
               std::to_string(w->dilations[i]) + ")";
      return false;
    }
  }
  if (traits.auto_pad && !parse_auto_pad(node, &w->auto_pad, error)) return false;
  if (w->auto_pad == AutoPad::kNotSet) {
    if (!ints_attr(node, "pads", 2 * spatial, 0, &w->pads, error)) return false;
  } else {
    w->pads.assign(2 * spatial, 0);  // computed from the mode, never read
  }
  w->ceil_mode = traits.ceil_mode && node.attr_int_or("ceil_mode", 0) != 0;
  w->truncating = traits.truncating;
  return true;
}

/// Spatial output size of a sliding window over input size x (expressions.md, Symbolic shape
/// inference rules). For SAME_* the kernel is not needed; otherwise the caller has checked
/// `w.kernel_known()`.
inline Dim window_output(const Window& w, std::size_t i, Dim x) {
  const std::int64_t s = w.strides[i];
  if (w.same_padding()) return ceil_div(x, s);
  const std::int64_t pb = w.counted_pad_begin(i), pe = w.counted_pad_end(i);
  // The room left after the first window: the last window starts at most this far in.
  const Dim room = x + pb + pe - w.effective_kernel(i);
  if (w.ceil_mode && w.auto_pad != AutoPad::kValid) {
    // ceil_mode: the last window must start inside the input or the left padding.
    return min(ceil_div(room, s) + 1, floor_div(x + pb - 1, s) + 1);
  }
  // Stride 1 truncates like floor; room >= 0 divides the same either way.
  if (!w.truncating || s == 1 || room.provably_ge(room.lift(0))) return floor_div(room, s) + 1;
  // Truncation toward zero (WindowTraits::truncating): room in (-s, 0) still gives 1.
  std::int64_t r;
  if (room.get_int(&r)) return room.lift(r / s + 1);
  // Symbolic: exact where room > -s, which spatial_outputs records as a constraint.
  return max(floor_div(room, s) + 1, room.lift(1));
}

/// The least input size `x` for which window_output is what the runtime computes: conv (floor)
/// needs room >= 0, a truncating pool room >= 1 - stride. Invalid where every size is exact:
/// SAME_*, a pool's ceil_mode (ceil_div rounds negative room up, as the runtime does) and a
/// pool of stride 1 (room + 1, an empty output where the window does not fit).
inline Dim window_min_input(const Window& w, std::size_t i, Dim x) {
  if (w.same_padding()) return Dim();
  const bool ceil_mode = w.ceil_mode && w.auto_pad != AutoPad::kValid;
  if (w.truncating && (ceil_mode || w.strides[i] == 1)) return Dim();
  const std::int64_t pads = w.counted_pad_begin(i) + w.counted_pad_end(i);
  const std::int64_t slack = w.truncating ? w.strides[i] - 1 : 0;
  return w.effective_kernel(i) - x.lift(pads + slack);
}

/// Output spatial dims of X (rank >= 3) under `w`; fresh dims of output `o` where the kernel is
/// unknown. Fails when a dim is provably not positive.
inline bool spatial_outputs(const INodeView& node, IShapeSink* out, std::uint32_t o,
                            const Window& w, const Shape& x, std::vector<Dim>* dims,
                            std::string* error) {
  for (std::size_t i = 0; i < w.spatial(); ++i) {
    if (!w.same_padding() && !w.kernel_known()) {
      if (out == nullptr) {
        *error = "kernel size unknown";
        return false;
      }
      dims->push_back(fresh(node, *out, o, i + 2));
      continue;
    }
    const Dim in = x.dims[i + 2];
    Dim d = window_output(w, i, in);
    // A pool may give an empty output (a window larger than the padded input by a stride or
    // more), as the runtime does; a Conv may not.
    const bool empty_allowed = w.truncating;
    if (empty_allowed ? d.lift(0).provably_gt(d) : d.lift(0).provably_ge(d)) {
      *error = "output size " + to_string(d) + " of spatial axis " + std::to_string(i + 2) +
               " is not " + (empty_allowed ? "valid" : "positive") + " (input " + to_string(in) +
               ")";
      return false;
    }
    // Where the symbolic formula holds only from some input size on, say so (expressions.md,
    // Symbolic shape inference rules: sliding windows). Concrete sizes are computed exactly. A
    // pool runs below that size (its output is then empty): an assumption. ONNX Runtime refuses
    // a Conv whose window is larger than its padded input: a requirement, which narrows the
    // input's bounds and makes an evaluation there an error (semantics.md "Bounds derived from
    // the model").
    const Dim least = window_min_input(w, i, in);
    std::int64_t a, b;
    const bool concrete = in.get_int(&a) && least.valid() && least.get_int(&b);
    if (out != nullptr && least.valid() && !concrete && !in.provably_ge(least)) {
      if (w.truncating) {
        out->constraint(ConstraintKind::kLe, least.handle(), in.handle(), 0);
      } else {
        out->require(ConstraintKind::kLe, least, in);
      }
    }
    dims->push_back(d);
  }
  return true;
}

inline bool require_spatial_input(const Shape& x, std::string* error) {
  if (x.rank() >= 3) return true;
  *error = "input X has rank " + std::to_string(x.rank()) + ", expected N, C and spatial dims";
  return false;
}

}  // namespace cctx::opsets::onnx
