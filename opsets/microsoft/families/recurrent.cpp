// com.microsoft DynamicQuantizeLSTM (ContribOperators.md), the LSTM ONNX Runtime's dynamic
// quantization (onnxruntime.quantization.quantize_dynamic) writes in place of an ai.onnx LSTM:
// int8 or uint8 weights W [D, I, 4H] and R [D, H, 4H] (transposed against LSTM's) with their
// scales and zero points. Its outputs are LSTM's without `layout`: Y [S, D, B, H], Y_h and Y_c
// [D, B, H], of X's type.
#include <string>
#include <vector>

#include "families.hpp"
#include "ms_kit.hpp"

namespace cctx::opsets::microsoft {

namespace {

Status dynamic_quantize_lstm(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 3);
  const std::string direction = attr_string_or(node, "direction", "forward");
  std::int64_t directions = 1;
  if (direction == "bidirectional") {
    directions = 2;
  } else if (direction != "forward" && direction != "reverse") {
    return fail("unknown direction '" + direction + "'");
  }
  const std::int32_t type = node.input_dtype(0);
  const Shape x = input_shape(node, 0);
  if (x.known && x.rank() != 3) return fail("X must have rank 3");
  // hidden_size, else R's dim 1 ([D, H, 4H]).
  std::int64_t h = 0;
  Dim hidden;
  const Shape r = input_shape(node, 2);
  if (node.attr_int(StringRef::from_c_str("hidden_size"), &h)) {
    hidden = node.constant(h);
  } else if (r.known && r.rank() == 3) {
    hidden = r.dims[1];
  }
  const Dim seq = x.known ? x.dims[0] : Dim();
  const Dim batch = x.known ? x.dims[1] : Dim();
  const Dim dirs = node.constant(directions);
  if (has_output(node, 0)) {
    check(set_shape(out, 0, type, fill_unknown(node, out, 0, {seq, dirs, batch, hidden})));
  }
  for (std::uint32_t o = 1; o <= 2; ++o) {
    if (!has_output(node, o)) continue;
    check(set_shape(out, o, type, fill_unknown(node, out, o, {dirs, batch, hidden})));
  }
  return Status::kOk;
}

constinit const FnShapeRule kDynamicQuantizeLstm{&dynamic_quantize_lstm};

}  // namespace

void register_recurrent(Registration& reg) {
  reg.shape("DynamicQuantizeLSTM", 1, kDynamicQuantizeLstm);
}

}  // namespace cctx::opsets::microsoft
