// SequenceMap (the control-flow family): a body run once per element of its sequence inputs,
// each body output becoming a sequence of such elements.
#include <cstdint>
#include <vector>

#include "body_values.hpp"
#include "control_flow_rules.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

// ---- SequenceMap --------------------------------------------------------------------------------

/// The body runs once per element: sequence inputs contribute their element, tensors themselves;
/// each body output becomes a sequence of such elements.
Status sequence_map(const INodeView& node, IShapeSink& out) {
  Status st;
  if (!require_inputs(node, out, 1, &st)) return st;
  if (node.input_kind(0) != ValueKind::kSequence && node.input_kind(0) != ValueKind::kUnknown) {
    return fail(out, "input 0 must be a sequence");
  }
  std::vector<BodyValue> inputs, results;
  const BodyValue first = node_input(node, 0);
  for (std::uint32_t i = 0; i < node.input_count(); ++i) {
    BodyValue v = node_input(node, i);
    inputs.push_back(v.kind == ValueKind::kSequence || i == 0 ? element_of(v) : v);
  }
  if (Status s = infer_body(node, out, "body", inputs, &results); s != Status::kOk) return s;
  if (results.size() < node.output_count())
    return fail(out, "body has fewer outputs than the node");
  for (std::uint32_t o = 0; o < node.output_count(); ++o) {
    if (!node.has_output(o)) continue;
    BodyValue element = element_of(results[o]);
    element.kind = ValueKind::kSequence;
    // One output element per element of input 0 (uniform when input 0's are).
    element.has_length = first.has_length;
    element.length = first.length;
    if (Status s = set_body_value(out, o, element); s != Status::kOk) return s;
  }
  return Status::kOk;
}

}  // namespace

constinit const FnShapeRule kSequenceMap{&sequence_map};

}  // namespace cctx::opsets::onnx
