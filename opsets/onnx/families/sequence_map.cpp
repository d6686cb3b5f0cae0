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
  require_inputs(node, 1);
  if (node.input_kind(0) != ValueKind::kSequence && node.input_kind(0) != ValueKind::kUnknown) {
    return fail("input 0 must be a sequence");
  }
  std::vector<BodyValue> inputs, results;
  const BodyValue first = node_input(node, 0);
  for (std::uint32_t i = 0; i < node.input_count(); ++i) {
    BodyValue v = node_input(node, i);
    inputs.push_back(v.kind == ValueKind::kSequence || i == 0 ? element_of(v) : v);
  }
  check(infer_body(node, out, "body", inputs, &results));
  if (results.size() < node.output_count()) return fail("body has fewer outputs than the node");
  for (std::uint32_t o = 0; o < node.output_count(); ++o) {
    if (!node.has_output(o)) continue;
    BodyValue element = element_of(results[o]);
    element.kind = ValueKind::kSequence;
    // One output element per element of input 0 (uniform when input 0's are).
    element.has_length = first.has_length;
    element.length = first.length;
    check(set_body_value(out, o, element));
  }
  return Status::kOk;
}

}  // namespace

constinit const FnShapeRule kSequenceMap{&sequence_map};

}  // namespace cctx::opsets::onnx
