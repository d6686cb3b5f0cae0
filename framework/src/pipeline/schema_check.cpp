#include "pipeline/schema_check.hpp"

#include <onnx/onnx_pb.h>

#include <algorithm>

#include "text/nearest_word.hpp"

namespace cctx {

namespace {

std::string range_text(const SchemaAttribute& a) {
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  if (a.max_value == kMax) return "at least " + std::to_string(a.min_value);
  if (a.min_value == kMin) return "at most " + std::to_string(a.max_value);
  return std::to_string(a.min_value) + ".." + std::to_string(a.max_value);
}

std::string rank_text(const SchemaInput& in) {
  if (in.min_rank == in.max_rank) return "rank " + std::to_string(in.min_rank);
  if (in.max_rank < 0) return "rank at least " + std::to_string(in.min_rank);
  if (in.min_rank < 0) return "rank at most " + std::to_string(in.max_rank);
  return "rank " + std::to_string(in.min_rank) + ".." + std::to_string(in.max_rank);
}

class Checker {
 public:
  Checker(const OpSchema& schema, const HostNodeView& node, const RuleRegistry* registry)
      : schema_(schema), node_(node), registry_(registry) {}

  std::string inputs() const {
    const std::uint32_t count = node_.input_count();
    if (count > schema_.max_inputs()) {
      return "has " + std::to_string(count) + " inputs; the schema declares " +
             std::to_string(schema_.max_inputs());
    }
    for (std::size_t i = 0; i < schema_.inputs.size(); ++i) {
      const SchemaInput& in = schema_.inputs[i];
      if (in.optional || (i < count && node_.has_input(static_cast<std::uint32_t>(i)))) continue;
      return "input " + std::to_string(i) + " '" + in.name + "' is required, and the node " +
             (i < count ? "leaves it empty" : "has " + std::to_string(count) + " inputs");
    }
    for (std::uint32_t i = 0; i < count; ++i) {
      const SchemaInput* in = schema_.input(i);
      if (in == nullptr || !node_.has_input(i)) continue;
      if (std::string why = input(i, *in); !why.empty()) return why;
    }
    return {};
  }

  std::string outputs() const {
    const std::uint32_t count = node_.output_count();
    if (count > schema_.max_outputs) {
      return "has " + std::to_string(count) + " outputs; the schema declares " +
             std::to_string(schema_.max_outputs);
    }
    return {};
  }

  /// The first attribute problem; the undeclared attributes go to `undeclared`.
  std::string attributes(std::vector<std::string>* undeclared) const {
    const std::span<const AttributeKey> keys = node_.attribute_keys();
    std::vector<std::string_view> declared_names;
    for (const AttributeKey& key : keys) {
      const std::string& name = key.proto->name();
      const SchemaAttribute* a = schema_.attribute(name);
      if (a == nullptr) {
        if (declared_names.empty()) {
          for (const SchemaAttribute& d : schema_.attributes) declared_names.emplace_back(d.name);
        }
        const std::string_view near = detail::closest(name, declared_names);
        undeclared->push_back(
            "attribute '" + name + "' is not in the schema" +
            (near.empty() ? std::string() : " (did you mean '" + std::string(near) + "'?)"));
        continue;
      }
      // An attribute whose value refers to the enclosing function's has no type of its own.
      if (!key.proto->ref_attr_name().empty() || key.type == AttributeKey::kUndefined) continue;
      if (static_cast<sdk::AttrType>(key.type) != a->type) {
        return "attribute '" + name + "' is " +
               attribute_type_name(static_cast<sdk::AttrType>(key.type)) +
               "; the schema declares " + attribute_type_name(a->type);
      }
      if (std::string why = range(*a, key); !why.empty()) return why;
    }
    for (const SchemaAttribute& a : schema_.attributes) {
      if (!a.required) continue;
      const bool present = std::any_of(keys.begin(), keys.end(),
                                       [&](const AttributeKey& k) { return k.named(a.name); });
      if (!present)
        return "attribute '" + a.name + "' (" + attribute_type_name(a.type) + ") is required";
    }
    return {};
  }

 private:
  std::string input(std::uint32_t i, const SchemaInput& in) const {
    const std::string which = "input " + std::to_string(i) + " '" + in.name + "'";
    if (node_.input_kind(i) != sdk::ValueKind::kTensor) return {};
    if (const std::int32_t dtype = node_.input_dtype(i);
        dtype != 0 && !in.dtypes.empty() &&
        !std::binary_search(in.dtypes.begin(), in.dtypes.end(), dtype)) {
      return which + " is " + dtype_list({dtype}, registry_) + "; the schema allows " +
             dtype_list(in.dtypes, registry_);
    }
    if (const std::int32_t rank = node_.input_rank(i);
        rank >= 0 &&
        ((in.min_rank >= 0 && rank < in.min_rank) || (in.max_rank >= 0 && rank > in.max_rank))) {
      return which + " has rank " + std::to_string(rank) + "; the schema wants " + rank_text(in);
    }
    return {};
  }

  std::string range(const SchemaAttribute& a, const AttributeKey& key) const {
    if (!a.has_range) return {};
    auto outside = [&](std::int64_t v) { return v < a.min_value || v > a.max_value; };
    if (a.type == sdk::AttrType::kInt) {
      if (!outside(key.int_value)) return {};
      return "attribute '" + a.name + "' is " + std::to_string(key.int_value) +
             "; the schema allows " + range_text(a);
    }
    for (const std::int64_t v : key.proto->ints()) {
      if (outside(v)) {
        return "attribute '" + a.name + "' holds " + std::to_string(v) +
               "; the schema allows each value " + range_text(a);
      }
    }
    return {};
  }

  const OpSchema& schema_;
  const HostNodeView& node_;
  const RuleRegistry* registry_;
};

}  // namespace

SchemaFindings check_schema(const OpSchema& schema, const HostNodeView& node,
                            const RuleRegistry* registry) {
  SchemaFindings found;
  const Checker check(schema, node, registry);
  found.violation = check.inputs();
  if (found.violation.empty()) found.violation = check.outputs();
  std::string attributes = check.attributes(&found.undeclared_attributes);
  if (found.violation.empty()) found.violation = std::move(attributes);
  return found;
}

}  // namespace cctx
