// The attributes ONNX's operator schemas declare, from a table generated at build time
// (framework/tools/onnx_attribute_table.cpp), so that loading a model never builds ONNX's schema
// registry (14-19 ms).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace cctx::detail {

struct OnnxAttribute {
  std::string_view name;
  std::int32_t type;  ///< onnx::AttributeProto::AttributeType
  bool required;
};

/// The attributes of the schema onnx::OpSchemaRegistry::Schema(op_type, opset, domain) would
/// return (the highest since-version not above `opset`), sorted by name; nullopt when ONNX has no
/// such schema. `domain` is "" for ai.onnx.
std::optional<std::span<const OnnxAttribute>> onnx_schema_attributes(std::string_view op_type,
                                                                     std::int64_t opset,
                                                                     std::string_view domain);

/// The attribute called `name` among `attributes`, or null.
const OnnxAttribute* find_attribute(std::span<const OnnxAttribute> attributes,
                                    std::string_view name);

}  // namespace cctx::detail
