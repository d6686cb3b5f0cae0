#include "rewrite/dim_origins.hpp"

#include <string_view>
#include <unordered_set>

#include "rewrite/node_attributes.hpp"

namespace cctx::detail {

namespace {

DimOrigins own(const std::string& value) {
  DimOrigins out;
  for (DimOrigin& o : out) o.value = value;
  return out;
}

/// The operators whose output's dims derive from their first input's.
bool derives_from_input(const onnx::NodeProto& n) {
  static const std::unordered_set<std::string_view> kOps = {"Relu",
                                                            "Sigmoid",
                                                            "Tanh",
                                                            "QuickGelu",
                                                            "BatchNormalization",
                                                            "Add",
                                                            "Sum",
                                                            "Mul",
                                                            "Conv",
                                                            "MaxPool",
                                                            "AveragePool",
                                                            "GlobalMaxPool",
                                                            "GlobalAveragePool",
                                                            "Concat"};
  return kOps.count(n.op_type()) != 0;
}

/// A window keeps the size of spatial axes where pads + 1 = kernel (or SAME padding), with
/// dilation 1 and stride 1 or 2: `out` takes `in`'s origin there, halved once more by a stride
/// of 2.
void window_origins(const onnx::NodeProto& n, const std::vector<std::int64_t>& kernel,
                    const DimOrigins& in, DimOrigins& out) {
  std::vector<std::int64_t> pads = ints_attribute(n, "pads");
  const std::vector<std::int64_t> strides = ints_attribute(n, "strides");
  const std::vector<std::int64_t> dilations = ints_attribute(n, "dilations");
  if (kernel.size() != 2 || (!pads.empty() && pads.size() != 4) ||
      (!strides.empty() && strides.size() != 2) || (!dilations.empty() && dilations.size() != 2)) {
    return;
  }
  bool same_padding = false;
  const std::string auto_pad = string_attribute(n, "auto_pad");
  if (!auto_pad.empty() && auto_pad != "NOTSET") {
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      same_padding = true;
    } else if (auto_pad != "VALID") {
      return;
    }
    pads.clear();
  }
  for (std::size_t i = 0; i < 2; ++i) {
    if (!dilations.empty() && dilations[i] != 1) continue;
    const std::int64_t stride = strides.empty() ? 1 : strides[i];
    if (stride != 1 && stride != 2) continue;
    const std::int64_t padding = pads.empty() ? 0 : pads[i] + pads[i + 2];
    if (padding + 1 == kernel[i] || same_padding) {
      out[2 + i] = in[2 + i];
      out[2 + i].shifts += static_cast<std::size_t>(stride - 1);
    }
  }
}

/// The origins of node `n`'s output `produced` from those of its first input.
DimOrigins derived(const DerivationGraph& g, const DerivationNode& node, const DimOrigins& in,
                   const std::string& produced) {
  const onnx::NodeProto& n = *node.proto;
  const std::string& op = n.op_type();
  const std::vector<std::string>& inputs = *node.inputs;
  if (!derives_from_input(n)) return own(produced);
  const onnx::TensorProto* w = op == "Conv" && inputs.size() > 1 ? g.constant(inputs[1]) : nullptr;
  if (w != nullptr && w->dims_size() == 1) return in;  // a BatchNormalization as a 1x1 Conv
  if (op != "Conv" && op != "MaxPool" && op != "AveragePool" && op != "GlobalMaxPool" &&
      op != "GlobalAveragePool") {
    if (op != "Concat") return in;
    DimOrigins out = in;
    out[1] = DimOrigin{produced, 0};
    return out;
  }
  DimOrigins out = own(produced);
  out[0] = in[0];
  if (op == "GlobalMaxPool" || op == "GlobalAveragePool") return out;
  std::vector<std::int64_t> kernel;
  if (op == "Conv") {
    if (w == nullptr || w->dims_size() != 4) return out;
    kernel = {w->dims(2), w->dims(3)};
    // A Conv that reads fewer channels than a block (`nchwc_block`) reads its input as NCHW,
    // reordered out of the layout: it starts afresh.
    const std::int64_t block = int_attribute(n, "nchwc_block", 0);
    if (block > 0 && int_attribute(n, "group", 1) == 1 && w->dims(1) < block) {
      return own(produced);
    }
  } else {
    kernel = ints_attribute(n, "kernel_shape");
  }
  window_origins(n, kernel, in, out);
  return out;
}

}  // namespace

DimOrigins dim_origins(const DerivationGraph& g, const std::string& value) {
  // Up the chain of first inputs to the node that starts afresh, then down again.
  std::vector<DerivationNode> chain;
  for (std::string at = value;;) {
    const DerivationNode node = g.layout_producer(at);
    if (node.proto == nullptr) break;
    if (chain.size() > g.node_count) return own(value);  // a cycle
    chain.push_back(node);
    const std::vector<std::string>& inputs = *node.inputs;
    if (inputs.empty() || !derives_from_input(*node.proto) ||
        g.layout_producer(inputs[0]).proto == nullptr) {
      break;
    }
    at = inputs[0];
  }
  if (chain.empty()) return own(value);
  DimOrigins out = own(chain.back().outputs->front());
  for (auto it = chain.rbegin() + 1; it != chain.rend(); ++it) {
    out = derived(g, *it, out, it->outputs->front());
  }
  return out;
}

}  // namespace cctx::detail
