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
  return conv_output(node, out, input_shape(node, 0), input_shape(node, 1), node.is_op("NhwcConv"),
                     node.input_dtype(0));
}

constinit const FnShapeRule kConv{&conv};

}  // namespace

void register_conv(Registration& reg) {
  reg.shape("FusedConv", 1, kConv);
  reg.shape("NhwcConv", 1, kConv);
}

}  // namespace cctx::opsets::microsoft
