// Attribute readers of a NodeProto for the rewriter and its derivations: an absent attribute
// reads as empty.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cctx::detail {

/// The integers of attribute `name` (empty when absent).
inline std::vector<std::int64_t> ints_attribute(const onnx::NodeProto& n, std::string_view name) {
  for (const onnx::AttributeProto& a : n.attribute()) {
    if (a.name() == name) return {a.ints().begin(), a.ints().end()};
  }
  return {};
}

/// The integer of attribute `name`, or `absent`.
inline std::int64_t int_attribute(const onnx::NodeProto& n, std::string_view name,
                                  std::int64_t absent) {
  for (const onnx::AttributeProto& a : n.attribute()) {
    if (a.name() == name) return a.i();
  }
  return absent;
}

/// The string of attribute `name` (empty when absent).
inline std::string string_attribute(const onnx::NodeProto& n, std::string_view name) {
  for (const onnx::AttributeProto& a : n.attribute()) {
    if (a.name() == name) return a.s();
  }
  return {};
}

}  // namespace cctx::detail
