// LSTM, GRU and RNN as ONNX Runtime's CPU kernels run them (cpu/rnn/deep_cpu_lstm.cc with
// uni_directional_lstm.cc, deep_cpu_gru.cc, rnn.cc): the per-direction workspaces each call
// allocates from the temp-space allocator. A bidirectional node builds both directions' objects
// before running them, so both workspaces are alive together (measured).
#include <cstdint>
#include <string>
#include <vector>

#include "families.hpp"
#include "ort_kit.hpp"

namespace cctx::opsets::onnxruntime {
namespace {

struct RecurrentDims {
  Dim seq, batch, input, hidden;
  std::int64_t directions = 1;
  bool forward = true, reverse = false;  ///< which UniDirectional objects the kernel builds
};

bool recurrent_dims(const INodeView& node, RecurrentDims* d, std::string* why) {
  Shape x;
  if (!known_shape(node, 0, &x, 3)) {
    *why = "X is not of rank 3";
    return false;
  }
  const bool batch_major = node.opset_version() >= 14 && node.attr_int_or("layout", 0) != 0;
  d->seq = batch_major ? x.dims[1] : x.dims[0];
  d->batch = batch_major ? x.dims[0] : x.dims[1];
  d->input = x.dims[2];
  std::int64_t h;
  Shape r;
  if (node.attr_int("hidden_size", &h)) {
    d->hidden = node.constant(h);
  } else if (known_shape(node, 2, &r, 3)) {
    d->hidden = r.dims[2];
  } else {
    *why = "no hidden_size attribute and R's shape unknown";
    return false;
  }
  const std::string direction = attr_string_or(node, "direction", "forward");
  if (direction == "bidirectional") {
    d->directions = 2;
    d->reverse = true;
  } else if (direction == "reverse") {
    d->forward = false;
    d->reverse = true;
  } else if (direction != "forward") {
    *why = "unknown direction '" + direction + "'";
    return false;
  }
  return true;
}

/// LSTM (LSTMBase::ComputeImpl, UniDirectionalLstm), and com.microsoft DynamicQuantizeLSTM
/// (dynamic_quantize_lstm.cc: the same objects over 8-bit weights, its hidden_size attribute
/// required), block by block in the kernel's order, in
/// elements of X's type: D*B*H for Y_h and for Y_c when the node does not produce them; then
/// each direction's object (forward first): H (hidden0), H (internal_memory_prev), 3 x BH
/// (batched hidden0, internal memory prev and clipped), 4HBS (output_iofc), [4 x H with bias B],
/// [reverse: SBI (inputs_reverse), SBH (outputs_reverse)]; then, as each object computes, B int32
/// sequence lengths when sequence_lens is absent. Peepholes are read in place (not copied).
Status lstm_scratch(const INodeView& node, IScratchSink& out) {
  RecurrentDims d;
  std::string why;
  if (!recurrent_dims(node, &d, &why)) return unsupported(why);
  std::int64_t e;
  if (!input_element_bytes(node, 0, &e, &why)) return unsupported(why);
  const Dim h = d.hidden * e;
  const Dim bh = d.batch * d.hidden * e;
  std::vector<Dim> blocks;
  for (std::uint32_t o = 1; o <= 2; ++o) {
    if (!has_output(node, o)) blocks.push_back(d.directions * bh);
  }
  auto object = [&](bool reverse) {
    blocks.insert(blocks.end(), {h, h, bh, bh, bh, 4 * bh * d.seq});
    if (has_input(node, 3)) blocks.insert(blocks.end(), 4, h);
    if (reverse) blocks.insert(blocks.end(), {d.seq * d.batch * d.input * e, d.seq * bh});
  };
  if (d.forward) object(false);
  if (d.reverse) object(true);
  if (!has_input(node, 4)) {
    blocks.insert(blocks.end(), (d.forward ? 1 : 0) + (d.reverse ? 1 : 0), 4 * d.batch);
  }
  if (node.is_op("DynamicQuantizeLSTM")) {
    // UniDirectionalLstm::AllocateQuantizeBuffers, as each direction computes: X (then each
    // step's hidden state) quantized to 8 bits, max(S*B*I, B*H) bytes, and the int32 product of
    // a step, B*4H*4 bytes.
    const Dim quantized_input = max(d.seq * d.batch * d.input, d.batch * d.hidden);
    for (int k = (d.forward ? 1 : 0) + (d.reverse ? 1 : 0); k > 0; --k) {
      blocks.insert(blocks.end(), {quantized_input, d.batch * d.hidden * 16});
    }
  }
  return add_blocks(out, blocks);
}

/// GRU (DeepCpuGruOp::ComputeImpl, UniDirectionalGru), block by block in the kernel's order, in
/// elements of X's type: D*B*H for Y_h when the node does not produce it; then each direction's
/// object, built and run before the next one's is built: 2 x BH (current and initial hidden),
/// [with bias B: 3 x BH, 4 x BH with linear_before_reset] [+ BH with linear_before_reset], 3HBS
/// (outputZRH), [reverse: SBI, SBH], and B int32 sequence lengths when sequence_lens is absent.
Status gru_scratch(const INodeView& node, IScratchSink& out) {
  RecurrentDims d;
  std::string why;
  if (!recurrent_dims(node, &d, &why)) return unsupported(why);
  std::int64_t e;
  if (!input_element_bytes(node, 0, &e, &why)) return unsupported(why);
  const bool lbr = node.attr_int_or("linear_before_reset", 0) != 0;
  const Dim bh = d.batch * d.hidden * e;
  std::vector<Dim> blocks;
  if (!has_output(node, 1)) blocks.push_back(d.directions * bh);
  std::size_t small = 2;
  if (has_input(node, 3)) small += lbr ? 4 : 3;
  if (lbr) small += 1;
  auto object = [&](bool reverse) {
    blocks.insert(blocks.end(), small, bh);
    blocks.push_back(3 * bh * d.seq);
    if (reverse) blocks.insert(blocks.end(), {d.seq * d.batch * d.input * e, d.seq * bh});
    if (!has_input(node, 4)) blocks.push_back(4 * d.batch);
  };
  if (d.forward) object(false);
  if (d.reverse) object(true);
  return add_blocks(out, blocks);
}

/// RNN (rnn.cc): one X*W^T buffer of S*B*H floats, reused by both directions, and an S*D*B*H
/// buffer for Y when the node does not produce Y.
Status rnn_scratch(const INodeView& node, IScratchSink& out) {
  RecurrentDims d;
  std::string why;
  if (!recurrent_dims(node, &d, &why)) return unsupported(why);
  std::int64_t e;
  if (!input_element_bytes(node, 0, &e, &why)) return unsupported(why);
  const Dim sbh = d.seq * d.batch * d.hidden;
  Dim elements = sbh;
  if (!has_output(node, 0)) elements = elements + d.directions * sbh;
  return out.set_bytes(elements * e);
}

constinit const FnScratchEstimator kLstmScratch{&lstm_scratch};
constinit const FnScratchEstimator kGruScratch{&gru_scratch};
constinit const FnScratchEstimator kRnnScratch{&rnn_scratch};

}  // namespace

void register_rnn(Registration& reg) {
  register_every_version(reg, "LSTM", 1, kLstmScratch);
  register_every_version(reg, "GRU", 1, kGruScratch);
  register_every_version(reg, "RNN", 1, kRnnScratch);
}

const sdk::IScratchEstimator& lstm_scratch_estimator() { return kLstmScratch; }

}  // namespace cctx::opsets::onnxruntime
