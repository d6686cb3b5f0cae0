#include "model/onnx_attributes.hpp"

#include <algorithm>
#include <tuple>

namespace cctx::detail {

namespace {

struct SchemaEntry {
  std::string_view domain;
  std::string_view op;
  std::int32_t since;
  std::uint32_t first;  ///< into kAttributes
  std::uint32_t count;
};

#include "onnx_attribute_table.inc"

}  // namespace

std::optional<std::span<const OnnxAttribute>> onnx_schema_attributes(std::string_view op_type,
                                                                     std::int64_t opset,
                                                                     std::string_view domain) {
  // The first entry past (domain, op_type, opset); the one before it, if it is the same
  // operator, is the newest version at or below opset.
  const auto key = std::make_tuple(domain, op_type, opset);
  const auto* after = std::upper_bound(
      std::begin(kSchemas), std::end(kSchemas), key, [](const auto& k, const SchemaEntry& e) {
        return k < std::make_tuple(e.domain, e.op, std::int64_t{e.since});
      });
  if (after == std::begin(kSchemas)) return std::nullopt;
  const SchemaEntry& e = *(after - 1);
  if (e.domain != domain || e.op != op_type) return std::nullopt;
  return std::span<const OnnxAttribute>(kAttributes + e.first, e.count);
}

const OnnxAttribute* find_attribute(std::span<const OnnxAttribute> attributes,
                                    std::string_view name) {
  const auto it =
      std::lower_bound(attributes.begin(), attributes.end(), name,
                       [](const OnnxAttribute& a, std::string_view n) { return a.name < n; });
  return it != attributes.end() && it->name == name ? &*it : nullptr;
}

}  // namespace cctx::detail
