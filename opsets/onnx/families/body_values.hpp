// The body-value layer of the control-flow family (if.cpp, loop.cpp, scan.cpp, sequence_map.cpp
// and the loop fixpoint, carried_fixpoint.hpp): a value handed to or returned from a graph body,
// read from a node input, set on a node output, and sent through the host's body inference
// (IShapeSink::infer_body), which infers a body with the input types a rule describes. Outer
// values stay visible to a body, so captures need nothing here.
#pragma once

#include <cstdint>
#include <vector>

#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

/// A value handed to or returned from a body, owned by the plugin (ValueDesc only borrows).
struct BodyValue {
  ValueKind kind = ValueKind::kUnknown;
  std::int32_t dtype = dtype::kUndefined;
  Shape shape;
  bool has_value = false;
  std::vector<Dim> value;
  /// A sequence's length, when known (symbolic or concrete); its elements are all `shape`.
  bool has_length = false;
  Dim length;
  /// A tensor of unknown rank whose number of elements is known (an If whose branches differ in
  /// rank, not in size): the host counts its bytes from it.
  bool has_elements = false;
  Dim elements;
};

/// Node input `i` as a body value; a sequence keeps its length only when its elements are uniform.
BodyValue node_input(const INodeView& node, std::uint32_t i);

/// A scalar tensor of `dtype`, without a value.
BodyValue scalar_tensor(std::int32_t dtype);

/// The element tensor of a sequence (a tensor stays itself).
BodyValue element_of(BodyValue v);

/// Sets node output `o` from a body value (values only on tensors).
Status set_body_value(IShapeSink& out, std::uint32_t o, const BodyValue& v);

/// Infers the body `attr` and returns its outputs in `results`.
Status infer_body(const INodeView& node, IShapeSink& out, const char* attr,
                  const std::vector<BodyValue>& inputs, std::vector<BodyValue>* results);

/// True when both values are known, of one length, and provably equal element by element.
bool same_values(const BodyValue& a, const BodyValue& b);

}  // namespace cctx::opsets::onnx
