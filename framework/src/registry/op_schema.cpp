#include "cctx/op_schema.hpp"

#include <algorithm>
#include <iterator>

#include "cctx/dtypes.hpp"
#include "cctx/errors.hpp"

namespace cctx {

namespace {

std::string text(sdk::StringRef s) { return s.data ? std::string(s.data, s.size) : std::string(); }

template <class T>
std::vector<T> copy_span(sdk::Span<T> s) {
  return s.data == nullptr ? std::vector<T>() : std::vector<T>(s.begin(), s.end());
}

SchemaInput copy_input(const sdk::InputDecl& d, std::size_t index, std::size_t count) {
  SchemaInput in;
  in.name = text(d.name);
  in.optional = (d.flags & sdk::input_flags::kOptional) != 0;
  in.variadic = (d.flags & sdk::input_flags::kVariadic) != 0;
  in.min_rank = d.min_rank;
  in.max_rank = d.max_rank;
  in.dtypes = copy_span(d.dtypes);
  std::sort(in.dtypes.begin(), in.dtypes.end());
  const std::string which = "input " + std::to_string(index) + " '" + in.name + "'";
  if (in.variadic && index + 1 != count) {
    throw PluginError(which + " is variadic but not the last input");
  }
  if (in.min_rank < -1 || in.max_rank < -1 ||
      (in.min_rank >= 0 && in.max_rank >= 0 && in.min_rank > in.max_rank)) {
    throw PluginError(which + " has min_rank " + std::to_string(in.min_rank) + " and max_rank " +
                      std::to_string(in.max_rank));
  }
  return in;
}

SchemaAttribute copy_attribute(const sdk::AttributeDecl& d) {
  SchemaAttribute a;
  a.name = text(d.name);
  a.type = d.type;
  a.required = (d.flags & sdk::attribute_flags::kRequired) != 0;
  a.has_default = (d.flags & sdk::attribute_flags::kHasDefault) != 0;
  a.has_range = (d.flags & sdk::attribute_flags::kHasRange) != 0;
  const std::string which = "attribute '" + a.name + "'";
  if (a.name.empty()) throw PluginError("an attribute without a name");
  if (a.type == sdk::AttrType::kNone) throw PluginError(which + " has no type");
  if (a.required && a.has_default) throw PluginError(which + " is required and has a default");
  if (a.has_range && a.type != sdk::AttrType::kInt && a.type != sdk::AttrType::kInts) {
    throw PluginError(which + " has a range but is not INT or INTS");
  }
  if (a.has_range) {
    if (d.min_value > d.max_value) throw PluginError(which + " has an empty range");
    a.min_value = d.min_value;
    a.max_value = d.max_value;
  }
  if (a.has_default) {
    switch (a.type) {
      case sdk::AttrType::kInt:
        a.int_default = d.int_default;
        break;
      case sdk::AttrType::kFloat:
        a.float_default = static_cast<float>(d.float_default);
        break;
      case sdk::AttrType::kString:
        a.string_default = text(d.string_default);
        break;
      case sdk::AttrType::kInts:
        a.ints_default = copy_span(d.ints_default);
        break;
      case sdk::AttrType::kFloats:
        a.floats_default = copy_span(d.floats_default);
        break;
      default:
        // A tensor or graph default is ONNX's to hold, not a rule's: the node must have it.
        a.has_default = false;
        break;
    }
  }
  return a;
}

}  // namespace

const SchemaAttribute* OpSchema::attribute(std::string_view name) const {
  const auto it =
      std::lower_bound(attributes.begin(), attributes.end(), name,
                       [](const SchemaAttribute& a, std::string_view n) { return a.name < n; });
  return it != attributes.end() && it->name == name ? &*it : nullptr;
}

OpSchema copy_schema(const sdk::OpSchemaDecl& decl, std::string origin) {
  if (decl.struct_size < sizeof(sdk::OpSchemaDecl)) {
    throw PluginError("the schema declaration is " + std::to_string(decl.struct_size) +
                      " bytes, fewer than SDK 1.9's " + std::to_string(sizeof(sdk::OpSchemaDecl)));
  }
  OpSchema s;
  s.origin = std::move(origin);
  s.until_version = decl.until_version;
  if (s.until_version < 0) throw PluginError("until_version is negative");
  for (std::size_t i = 0; i < decl.inputs.size; ++i) {
    s.inputs.push_back(copy_input(decl.inputs[i], i, decl.inputs.size));
  }
  s.min_outputs = decl.min_outputs;
  s.max_outputs = decl.max_outputs;
  if (s.min_outputs > s.max_outputs) {
    throw PluginError("min_outputs " + std::to_string(s.min_outputs) + " is above max_outputs " +
                      std::to_string(s.max_outputs));
  }
  for (const sdk::AttributeDecl& d : decl.attributes) s.attributes.push_back(copy_attribute(d));
  std::sort(s.attributes.begin(), s.attributes.end(),
            [](const SchemaAttribute& a, const SchemaAttribute& b) { return a.name < b.name; });
  for (std::size_t k = 1; k < s.attributes.size(); ++k) {
    if (s.attributes[k].name == s.attributes[k - 1].name) {
      throw PluginError("attribute '" + s.attributes[k].name + "' is declared twice");
    }
  }
  return s;
}

const char* attribute_type_name(sdk::AttrType type) {
  // AttributeProto::AttributeType's names, in its numbering (sdk::AttrType uses the same).
  static constexpr const char* kNames[] = {
      "UNDEFINED",      "FLOAT",      "INT",        "STRING",  "TENSOR", "GRAPH",
      "FLOATS",         "INTS",       "STRINGS",    "TENSORS", "GRAPHS", "SPARSE_TENSOR",
      "SPARSE_TENSORS", "TYPE_PROTO", "TYPE_PROTOS"};
  const auto k = static_cast<std::size_t>(type);
  return k < std::size(kNames) ? kNames[k] : "UNKNOWN";
}

std::string dtype_list(const std::vector<std::int32_t>& dtypes, const RuleRegistry* registry) {
  std::string out;
  for (std::int32_t code : dtypes) out += (out.empty() ? "" : ", ") + dtype_name(code, registry);
  return out;
}

}  // namespace cctx
