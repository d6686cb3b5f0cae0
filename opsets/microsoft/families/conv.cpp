// Convolutions of com.microsoft (ContribOperators.md): FusedConv (Conv + activation, NCHW: X
// [N, C, D...] -> [N, M, O...]) and NhwcConv (channels last: X [N, D..., C] -> [N, O..., M]). The
// weight is [M, C / group, k...] in both. Each output size follows Conv (expressions.md "Symbolic
// shape inference rules (ai.onnx plugin)"): NOTSET (x + pb + pe - eff) // s + 1, VALID (x - eff) //
// s + 1, SAME_* CeilToInt(x, s), with eff = d * (k - 1) + 1.
#include <string>
#include <vector>

#include "families.hpp"
#include "ms_kit.hpp"

namespace cctx::opsets::microsoft {

namespace {

/// The window attributes of one node, per spatial axis.
struct Window {
  std::vector<Dim> kernel;                             ///< empty when unknown
  std::vector<std::int64_t> strides, dilations, pads;  ///< pads: begins, then ends
  std::string auto_pad = "NOTSET";
};

bool read_window(const INodeView& node, std::size_t spatial, const Shape& w, Window* win,
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
Dim window_output(const Window& w, std::size_t i, Dim x) {
  const std::int64_t s = w.strides[i];
  if (w.auto_pad == "SAME_UPPER" || w.auto_pad == "SAME_LOWER") return ceil_div(x, s);
  if (w.kernel.empty()) return Dim();
  const Dim eff = (w.kernel[i] - 1) * w.dilations[i] + 1;
  if (w.auto_pad == "VALID") return floor_div(x - eff, s) + 1;
  const std::size_t n = w.strides.size();
  return floor_div(x + w.pads[i] + w.pads[i + n] - eff, s) + 1;
}

Status conv(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  const bool nhwc = node.is_op("NhwcConv");
  const std::int32_t type = node.input_dtype(0);
  const Shape x = input_shape(node, 0), w = input_shape(node, 1);
  if (!x.known) return set_shape(out, 0, type, Shape::unknown());
  if (x.rank() < 3) {
    return fail("input X has rank " + std::to_string(x.rank()) +
                ", expected a batch, channels and spatial dims");
  }
  const std::size_t spatial = x.rank() - 2;
  const std::size_t channel_axis = nhwc ? x.rank() - 1 : 1, first_spatial = nhwc ? 1 : 2;
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
  std::vector<Dim> sizes;
  for (std::size_t i = 0; i < spatial; ++i) {
    Dim d = window_output(win, i, x.dims[first_spatial + i]);
    if (d.valid() && d.lift(0).provably_ge(d)) {
      return fail("output size " + to_string(d) + " of spatial axis " + std::to_string(i) +
                  " is not positive");
    }
    sizes.push_back(d);
  }
  const Dim maps = w.known ? w.dims[0] : Dim();
  std::vector<Dim> dims{x.dims[0]};
  if (!nhwc) dims.push_back(maps);
  dims.insert(dims.end(), sizes.begin(), sizes.end());
  if (nhwc) dims.push_back(maps);
  return set_shape(out, 0, type, fill_unknown(node, out, 0, std::move(dims)));
}

constinit const FnShapeRule kConv{&conv};

}  // namespace

void register_conv(Registration& reg) {
  reg.shape("FusedConv", 1, kConv);
  reg.shape("NhwcConv", 1, kConv);
}

}  // namespace cctx::opsets::microsoft
