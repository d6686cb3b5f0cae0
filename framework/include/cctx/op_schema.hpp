// An operator's declared contract as the host keeps it: the copy of a plugin's
// sdk::OpSchemaDecl (IRegistrar::declare_schema, SDK 1.9), checked against each node of the
// operator before any rule runs (pipeline/schema_check.hpp) and answering the defaults of the
// attributes a node omits (HostNodeView).
#pragma once

#include <cctx/sdk/schema.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace cctx {

struct SchemaInput {
  std::string name;
  bool optional = false;
  bool variadic = false;
  std::int32_t min_rank = -1;  ///< -1: any
  std::int32_t max_rank = -1;
  std::vector<std::int32_t> dtypes;  ///< sorted; empty: any
};

struct SchemaAttribute {
  std::string name;
  sdk::AttrType type = sdk::AttrType::kInt;
  bool required = false;
  bool has_default = false;
  bool has_range = false;
  std::int64_t int_default = 0;
  float float_default = 0;
  std::string string_default;
  std::vector<std::int64_t> ints_default;
  std::vector<float> floats_default;
  std::int64_t min_value = std::numeric_limits<std::int64_t>::min();
  std::int64_t max_value = std::numeric_limits<std::int64_t>::max();
};

struct OpSchema {
  static constexpr std::uint32_t kAnyCount = std::numeric_limits<std::uint32_t>::max();

  std::int32_t until_version = 0;  ///< 0: until the operator's next declared version
  std::vector<SchemaInput> inputs;
  std::uint32_t min_outputs = 1;
  std::uint32_t max_outputs = 1;
  std::vector<SchemaAttribute> attributes;  ///< sorted by name
  std::string origin;                       ///< the declaring plugin, for messages

  /// The most inputs a node may list (kAnyCount after a variadic one).
  std::uint32_t max_inputs() const {
    if (!inputs.empty() && inputs.back().variadic) return kAnyCount;
    return static_cast<std::uint32_t>(inputs.size());
  }
  /// The formal input node input `i` binds to (the variadic last one for every i past it), or
  /// null past the declared ones.
  const SchemaInput* input(std::size_t i) const {
    if (i < inputs.size()) return &inputs[i];
    return !inputs.empty() && inputs.back().variadic ? &inputs.back() : nullptr;
  }
  /// The attribute called `name`, or null.
  const SchemaAttribute* attribute(std::string_view name) const;
};

/// The host's copy of `decl`; throws PluginError with the reason when it contradicts itself.
OpSchema copy_schema(const sdk::OpSchemaDecl& decl, std::string origin);

class RuleRegistry;

/// ONNX's name of an attribute type: "INT", "FLOATS", ... ("UNDEFINED" for kNone).
const char* attribute_type_name(sdk::AttrType type);

/// "float, float16": the element types' names, as messages list them (a plugin's own types by
/// the names it registered, when `registry` is given).
std::string dtype_list(const std::vector<std::int32_t>& dtypes,
                       const RuleRegistry* registry = nullptr);

}  // namespace cctx
