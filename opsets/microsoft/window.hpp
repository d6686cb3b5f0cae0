// The sliding window of the com.microsoft convolutions (families/conv.cpp) and of the
// com.microsoft.nchwc Conv and pools (families/nchwc.cpp): kernel, strides, dilations, pads,
// auto_pad and a pool's ceil_mode, and the output size of one spatial axis. The formulas are
// Conv's (expressions.md "Symbolic shape inference rules (ai.onnx plugin)"): NOTSET
// (x + pb + pe - eff) // s + 1, VALID (x - eff) // s + 1, SAME_* CeilToInt(x, s), with
// eff = d * (k - 1) + 1. The plugins share nothing but the SDK, hence this copy beside the ai.onnx
// plugin's sliding_window.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ms_kit.hpp"

namespace cctx::opsets::microsoft {

/// The window attributes of one node, per spatial axis.
struct Window {
  std::vector<Dim> kernel;                             ///< empty when unknown
  std::vector<std::int64_t> strides, dilations, pads;  ///< pads: begins, then ends
  std::string auto_pad = "NOTSET";
  bool ceil_mode = false;  ///< pools only (ONNX Runtime's PoolAttributes)
  /// Pools: the size truncates toward zero (PoolAttributes), so a window larger than the padded
  /// input by less than a stride still gives one output where floor would give 0. Conv keeps
  /// floor: ONNX Runtime refuses a Conv whose kernel is larger than its padded input.
  bool truncating = false;
};

/// Reads the window of a node with `spatial` spatial axes; the kernel comes from `kernel_shape`,
/// else from the weight `w` ([M, C / group, k...]) when known.
inline bool read_window(const INodeView& node, std::size_t spatial, const Shape& w, Window* win,
                        std::string* error) {
  std::vector<std::int64_t> kernel;
  if (attr_ints_vec(node, "kernel_shape", &kernel)) {
    if (kernel.size() != spatial) {
      *error = "attribute 'kernel_shape' has " + std::to_string(kernel.size()) +
               " values, expected " + std::to_string(spatial);
      return false;
    }
    for (std::int64_t k : kernel) win->kernel.push_back(node.constant(k));
  } else if (w.known && w.rank() == spatial + 2) {
    win->kernel.assign(w.dims.begin() + 2, w.dims.end());
  }
  if (!ints_attr(node, "strides", spatial, 1, &win->strides, error) ||
      !ints_attr(node, "dilations", spatial, 1, &win->dilations, error) ||
      !ints_attr(node, "pads", 2 * spatial, 0, &win->pads, error)) {
    return false;
  }
  for (std::size_t i = 0; i < spatial; ++i) {
    if (win->strides[i] < 1 || win->dilations[i] < 1) {
      *error = "strides and dilations must be positive";
      return false;
    }
  }
  win->auto_pad = attr_string_or(node, "auto_pad", "NOTSET");
  if (win->auto_pad != "NOTSET" && win->auto_pad != "VALID" && win->auto_pad != "SAME_UPPER" &&
      win->auto_pad != "SAME_LOWER") {
    *error = "unknown auto_pad '" + win->auto_pad + "'";
    return false;
  }
  return true;
}

/// Output size of spatial axis i over input size x; invalid when the kernel is unknown.
inline Dim window_output(const Window& w, std::size_t i, Dim x) {
  const std::int64_t s = w.strides[i];
  if (w.auto_pad == "SAME_UPPER" || w.auto_pad == "SAME_LOWER") return ceil_div(x, s);
  if (w.kernel.empty()) return Dim();
  const Dim eff = (w.kernel[i] - 1) * w.dilations[i] + 1;
  if (w.auto_pad == "VALID") return floor_div(x - eff, s) + 1;
  const std::size_t n = w.strides.size();
  const std::int64_t pb = w.pads[i], pe = w.pads[i + n];
  const Dim room = x + pb + pe - eff;
  // ceil_mode rounds up, but ONNX Runtime drops a last window that would start in the end
  // padding: it must start inside the input or the begin padding.
  if (w.ceil_mode) return min(ceil_div(room, s) + 1, floor_div(x + pb - 1, s) + 1);
  if (!w.truncating || s == 1 || room.provably_ge(room.lift(0))) return floor_div(room, s) + 1;
  std::int64_t r;
  if (room.get_int(&r)) return room.lift(r / s + 1);
  return max(floor_div(room, s) + 1, room.lift(1));
}

/// The output sizes of every spatial axis of X (from axis `first`); false with a message when
/// one is provably not positive. Unknown sizes (no kernel) stay invalid for fill_unknown.
inline bool window_outputs(const Window& w, const Shape& x, std::size_t first,
                           std::vector<Dim>* sizes, std::string* error) {
  for (std::size_t i = 0; i < w.strides.size(); ++i) {
    Dim d = window_output(w, i, x.dims[first + i]);
    if (d.valid() && d.lift(0).provably_ge(d)) {
      *error = "output size " + to_string(d) + " of spatial axis " + std::to_string(i) +
               " is not positive";
      return false;
    }
    sizes->push_back(d);
  }
  return true;
}

/// Conv's checks and spatial output sizes, shared by FusedConv, NhwcConv and the nchwc Conv: X of
/// rank >= 3 (channels at axis 1, or last with `channels_last`), W [M, C / group, k...] when
/// known, the window. Appends the spatial sizes to `dims`; a failed Status names the problem.
inline Status conv_spatial_outputs(const INodeView& node, IShapeSink& out, const Shape& x,
                                   const Shape& w, bool channels_last, std::vector<Dim>* dims) {
  if (x.rank() < 3) {
    return fail("input X has rank " + std::to_string(x.rank()) +
                ", expected a batch, channels and spatial dims");
  }
  const std::size_t spatial = x.rank() - 2;
  const std::size_t channel_axis = channels_last ? x.rank() - 1 : 1;
  const std::int64_t group = node.attr_int_or("group", 1);
  if (group < 1) return fail("group " + std::to_string(group) + " is not positive");
  std::string error;
  if (w.known) {
    if (w.rank() != spatial + 2) {
      return fail("weight has rank " + std::to_string(w.rank()) + ", expected " +
                  std::to_string(spatial + 2));
    }
    Dim channels;
    if (!unify(out, x.dims[channel_axis], w.dims[1] * group, &channels, &error)) {
      return fail("input channels differ from weight channels x group: " + error);
    }
  }
  Window win;
  if (!read_window(node, spatial, w, &win, &error)) return fail(error);
  if (!window_outputs(win, x, channels_last ? 1 : 2, dims, &error)) return fail(error);
  return Status::kOk;
}

/// A convolution's output [N, M, O...] ([N, O..., M] channels last) from X and W [M, C/g, k...]
/// (FusedConv, NhwcConv, QLinearConv): sets output 0 of `type`; an unknown X gives an unknown
/// rank.
inline Status conv_output(const INodeView& node, IShapeSink& out, const Shape& x, const Shape& w,
                          bool channels_last, std::int32_t type) {
  if (!x.known) return set_shape(out, 0, type, Shape::unknown());
  std::vector<Dim> sizes;
  if (const Status s = conv_spatial_outputs(node, out, x, w, channels_last, &sizes);
      s != Status::kOk) {
    return s;
  }
  const Dim maps = w.known ? w.dims[0] : Dim();
  std::vector<Dim> dims{x.dims[0]};
  if (!channels_last) dims.push_back(maps);
  dims.insert(dims.end(), sizes.begin(), sizes.end());
  if (channels_last) dims.push_back(maps);
  return set_shape(out, 0, type, fill_unknown(node, out, 0, std::move(dims)));
}

/// A global pool's output: every spatial dim of a known X 1 (its dims from axis 2, or between
/// the batch and the channels when channels last).
inline Shape global_pool_output(const INodeView& node, Shape x, bool channels_last) {
  if (!x.known) return x;
  const std::size_t first = channels_last ? 1 : 2;
  const std::size_t end = channels_last && x.rank() > 0 ? x.rank() - 1 : x.rank();
  for (std::size_t a = first; a < end; ++a) x.dims[a] = node.constant(1);
  return x;
}

/// A MaxPool's or AveragePool's output from X (kernel_shape required, ceil_mode; the size
/// truncates as ONNX Runtime's PoolAttributes): [N, C, O...], or [N, O..., C] channels last.
inline Status pool_output(const INodeView& node, IShapeSink& out, const Shape& x,
                          bool channels_last, std::int32_t type) {
  if (!x.known) return set_shape(out, 0, type, x);
  if (x.rank() < 3) {
    return fail("input X has rank " + std::to_string(x.rank()) +
                ", expected a batch, channels and spatial dims");
  }
  if (node.attribute_type(StringRef("kernel_shape")) == AttrType::kNone) {
    return fail("missing required attribute 'kernel_shape'");
  }
  Window win;
  std::string error;
  if (!read_window(node, x.rank() - 2, Shape::unknown(), &win, &error)) return fail(error);
  win.ceil_mode = node.attr_int_or("ceil_mode", 0) != 0;
  win.truncating = true;
  std::vector<Dim> dims{x.dims[0]};
  if (!channels_last) dims.push_back(x.dims[1]);
  if (!window_outputs(win, x, channels_last ? 1 : 2, &dims, &error)) return fail(error);
  if (channels_last) dims.push_back(x.dims.back());
  return set_shape(out, 0, type, Shape::of(std::move(dims)));
}

}  // namespace cctx::opsets::microsoft
