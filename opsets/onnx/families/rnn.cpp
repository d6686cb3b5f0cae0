// Recurrent operators RNN, GRU and LSTM: every output in both layouts (the `layout` attribute
// exists from opset 14), uni- and bidirectional, and the gate-buffer scratch estimate
// D * S * B * G * H * e (semantics.md "Peak scratch memory").
#include <string>
#include <vector>

#include "families.hpp"
#include "nn_common.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

using nn::has_output;

/// Gates per cell: LSTM 4 (i, o, f, c), GRU 3 (z, r, h), RNN 1.
std::int64_t gate_count(const INodeView& node) {
  if (node.is_op("LSTM")) return 4;
  if (node.is_op("GRU")) return 3;
  return 1;
}

bool num_directions(const INodeView& node, std::int64_t* count, std::string* error) {
  const std::string direction = attr_string_or(node, "direction", "forward");
  if (direction == "forward" || direction == "reverse") {
    *count = 1;
  } else if (direction == "bidirectional") {
    *count = 2;
  } else {
    *error = "unknown direction '" + direction + "'";
    return false;
  }
  return true;
}

/// `layout` (opset >= 14): 0 = X [seq, batch, input], 1 = X [batch, seq, input].
bool batch_major(const INodeView& node) {
  return node.opset_version() >= 14 && node.attr_int_or("layout", 0) != 0;
}

/// The dims the outputs are built from; invalid = unknown.
struct RecurrentDims {
  Dim seq, batch, hidden;
  std::int64_t directions = 1;
};

/// hidden_size from the attribute, else from R [D, G*H, H] (exact), else unknown.
Dim hidden_size(const INodeView& node) {
  std::int64_t h;
  if (node.attr_int("hidden_size", &h)) return node.constant(h);
  Shape r;
  if (nn::known_shape(node, 2, &r, 3)) return r.dims[2];
  return Dim();
}

bool recurrent_dims(const INodeView& node, IShapeSink* out, RecurrentDims* d, std::string* error) {
  if (!num_directions(node, &d->directions, error)) return false;
  Shape x;
  if (nn::known_shape(node, 0, &x)) {
    if (x.rank() != 3) {
      *error = "X has rank " + std::to_string(x.rank()) + ", expected 3";
      return false;
    }
    const bool bm = batch_major(node);
    d->seq = x.dims[bm ? 1 : 0];
    d->batch = x.dims[bm ? 0 : 1];
  }
  d->hidden = hidden_size(node);
  Shape w;
  if (out != nullptr && nn::known_shape(node, 1, &w, 3)) {
    Dim unified;
    if (!nn::unify(*out, w.dims[0], node.constant(d->directions), &unified, error)) {
      *error = "W's directions differ from 'direction': " + *error;
      return false;
    }
    if (d->hidden.valid() &&
        !nn::unify(*out, w.dims[1], d->hidden * gate_count(node), &unified, error)) {
      *error = "W's gate rows differ from " + std::to_string(gate_count(node)) +
               " x hidden_size: " + *error;
      return false;
    }
  }
  return true;
}

Status recurrent(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 3);
  RecurrentDims d;
  std::string error;
  if (!recurrent_dims(node, &out, &d, &error)) return fail(error);
  const std::int32_t dtype = node.input_dtype(0);
  const Dim dirs = node.constant(d.directions);
  const bool bm = batch_major(node);
  if (has_output(node, 0)) {
    std::vector<Dim> y = bm ? std::vector<Dim>{d.batch, d.seq, dirs, d.hidden}
                            : std::vector<Dim>{d.seq, dirs, d.batch, d.hidden};
    check(set_shape(out, 0, dtype, nn::fill_unknown(node, out, 0, y)));
  }
  // Y_h, and Y_c for LSTM: the last hidden (cell) state per direction.
  const std::uint32_t states = node.is_op("LSTM") ? 3 : 2;
  for (std::uint32_t o = 1; o < states; ++o) {
    if (!has_output(node, o)) continue;
    std::vector<Dim> h =
        bm ? std::vector<Dim>{d.batch, dirs, d.hidden} : std::vector<Dim>{dirs, d.batch, d.hidden};
    check(set_shape(out, o, dtype, nn::fill_unknown(node, out, o, h)));
  }
  return Status::kOk;
}

Status recurrent_scratch(const INodeView& node, IScratchSink& out) {
  RecurrentDims d;
  std::string why;
  if (!recurrent_dims(node, nullptr, &d, &why)) return unsupported(why);
  if (!d.seq.valid()) return unsupported("shape of X unknown");
  if (!d.hidden.valid()) return unsupported("no hidden_size attribute and R's shape unknown");
  std::int64_t e;
  if (!nn::input_element_bytes(node, 0, &e, &why)) return unsupported(why);
  return out.set_bytes(d.seq * d.batch * d.hidden * (d.directions * gate_count(node) * e));
}

constinit const FnShapeRule kRecurrent{&recurrent};
constinit const FnScratchEstimator kRecurrentScratch{&recurrent_scratch};

}  // namespace

void register_rnn(Registration& reg) {
  reg.shape("RNN", {1, 7, 14, 22}, kRecurrent);
  reg.shape("GRU", {1, 3, 7, 14, 22}, kRecurrent);
  reg.shape("LSTM", {1, 7, 14, 22}, kRecurrent);
  for (const char* op : {"RNN", "GRU", "LSTM"}) reg.scratch(op, 1, kRecurrentScratch);
}

}  // namespace cctx::opsets::onnx
