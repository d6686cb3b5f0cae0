// Convolutions of com.microsoft (ContribOperators.md): FusedConv (Conv + activation, NCHW: X
// [N, C, D...] -> [N, M, O...]) and NhwcConv (channels last: X [N, D..., C] -> [N, O..., M]). The
// weight is [M, C / group, k...] in both. Each output size follows Conv (window.hpp).
#include <string>
#include <vector>

#include "families.hpp"
#include "ms_kit.hpp"
#include "window.hpp"

namespace cctx::opsets::microsoft {

namespace {

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
  if (!window_outputs(win, x, first_spatial, &sizes, &error)) return fail(error);
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
