// A generator of realistic large ONNX graphs: a Llama-style decoder written the way exporters
// write it (Shape -> Gather -> Unsqueeze -> Concat -> Reshape chains, rotary embedding, attention
// over a KV cache of length `past_seq`, RMS norm, gated MLP), with symbolic `batch`, `seq`,
// `past_seq` and small hidden sizes so that files stay small.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <memory>

namespace cctx::bench {

struct LlamaConfig {
  int layers = 2;
  int hidden = 16;  ///< model width
  int heads = 2;    ///< attention heads (head_dim = hidden / heads)
  int ffn = 32;     ///< MLP inner width
  int vocab = 64;
  std::int64_t opset = 17;  ///< ONNX's own inference (1.12) knows opsets <= 17: the peer needs it
};

/// Nodes per decoder layer of the generated graph (for sizing a graph to a node count).
int llama_nodes_per_layer();

/// Builds the decoder. Node count = llama_nodes_per_layer() * layers + a few.
std::unique_ptr<onnx::ModelProto> make_llama(const LlamaConfig& config);

/// The config whose graph has about `nodes` nodes.
LlamaConfig llama_for_nodes(std::int64_t nodes);

}  // namespace cctx::bench
