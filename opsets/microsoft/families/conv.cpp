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
  std::vector<Dim> sizes;
  if (const Status s = conv_spatial_outputs(node, out, x, w, nhwc, &sizes); s != Status::kOk) {
    return s;
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
