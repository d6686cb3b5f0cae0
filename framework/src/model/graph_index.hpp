// The graph view's private layouts (cctx/graph.hpp, GraphView::Index): the name tables of its
// scopes and operator kinds, and the attribute index that rules' attribute lookups read. Only
// the framework includes this; the public header shows what a user of the view needs.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "cctx/graph.hpp"
#include "model/name_table.hpp"

namespace cctx {

/// A node attribute as the graph view indexes it. Rules ask for attributes by name, many of them
/// absent; through the proto each question followed three pointers (the node's attribute list,
/// the attribute, its name), each a cache miss by the time the shape stage reaches the node: a
/// tenth of that stage on a large graph. The keys of a node sit side by side in one array.
struct AttributeKey {
  static constexpr std::size_t kPrefix = 19;
  /// Integer lists up to this long are copied next to the keys (GraphView::attribute_ints).
  static constexpr std::size_t kInlineInts = 16;
  // AttributeProto::AttributeType numbers (sdk::AttrType uses the same).
  static constexpr std::uint8_t kUndefined = 0, kInt = 2, kInts = 7;

  const onnx::AttributeProto* proto = nullptr;
  std::int64_t int_value = 0;  ///< the value of an INT attribute
  std::uint32_t name_size = 0;
  std::uint32_t ints_at = 0;  ///< an INTS attribute's inline values (when ints_inline)
  std::uint16_t ints_count = 0;
  bool ints_inline = false;
  std::uint8_t type = kUndefined;  ///< attribute_type_number(*proto)
  /// The name's first kPrefix bytes, zero-padded: the whole name when it is no longer.
  char prefix[kPrefix] = {};

  /// Whether the attribute is named `name` (the proto's name is read only for long names).
  bool named(std::string_view name) const;
};

/// An attribute's type as an AttributeProto::AttributeType number: the declared one, else the
/// one its payload implies (a float before an integer, ...), 0 when it has none.
std::uint8_t attribute_type_number(const onnx::AttributeProto& a);

struct GraphView::Index {
  struct Range {
    std::uint32_t begin, end;
  };
  struct OpKind {
    std::string_view domain;
    std::string_view op_type;  ///< its first node's string, which every node of the kind views
    std::int64_t opset;
    std::uint32_t next;  ///< next kind with the same op_type, kInvalidId at the end
  };

  /// Node n's attributes, in the proto's order.
  std::span<const AttributeKey> attributes(NodeId n) const {
    return {attribute_keys.data() + attribute_range[n].begin,
            attribute_keys.data() + attribute_range[n].end};
  }
  /// The values of an INTS attribute whose key has ints_inline.
  std::span<const std::int64_t> attribute_ints(const AttributeKey& key) const {
    return {inline_ints.data() + key.ints_at, key.ints_count};
  }

  std::vector<AttributeKey> attribute_keys;  ///< every node's, in the order the nodes were read
  std::vector<Range> attribute_range;        ///< per node: where its keys are in attribute_keys
  std::vector<std::int64_t> inline_ints;     ///< short INTS attributes' values
  NameTable main_scope;
  NameTable kinds_by_op_type;  ///< op_type -> first OpKind of that op_type
  std::vector<OpKind> op_kinds;
};

}  // namespace cctx
