// The contract of every ai.onnx operator, as ONNX's own schemas state it (inputs and their
// optionality, the element types of their type constraints, output counts, attributes with their
// types, required flags and defaults), declared to the host (IRegistrar::declare_schema): each
// node is checked against it before any rule runs, and the rules read ONNX's defaults for the
// attributes a node omits. The table is generated at build time from the onnx library cctx
// builds with (framework/tools/onnx_schema_table.cpp); the plugin links nothing of it. Each
// version holds up to the opset before the next one, the newest up to the newest opset that
// library knows: a model of a newer opset is not held to an older contract.
#include <cstdint>
#include <vector>

#include "families.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {
namespace {

struct OnnxInputRow {
  const char* name;
  std::uint32_t flags;  ///< sdk::input_flags
  std::uint32_t first_type, type_count;
};
struct OnnxAttributeRow {
  const char* name;
  std::int32_t type;  ///< AttributeProto::AttributeType, as sdk::AttrType
  bool required, has_default;
  std::int64_t int_default;
  float float_default;
  const char* string_default;
  std::uint32_t first_int, int_count, first_float, float_count;
};
struct OnnxSchemaRow {
  const char* op;
  std::int32_t since, until;
  std::uint32_t first_input, input_count;
  std::uint32_t min_outputs, max_outputs;
  std::uint32_t first_attribute, attribute_count;
};

#include "onnx_schema_table.inc"

Status declare(IRegistrar& r, const OnnxSchemaRow& row, std::vector<InputDecl>& inputs,
               std::vector<AttributeDecl>& attributes) {
  inputs.clear();
  for (std::uint32_t k = 0; k < row.input_count; ++k) {
    const OnnxInputRow& in = kInputs[row.first_input + k];
    InputDecl d;
    d.name = StringRef::from_c_str(in.name);
    d.flags = in.flags;
    d.dtypes = Span<std::int32_t>{kElementTypes + in.first_type, in.type_count};
    inputs.push_back(d);
  }
  attributes.clear();
  for (std::uint32_t k = 0; k < row.attribute_count; ++k) {
    const OnnxAttributeRow& a = kAttributes[row.first_attribute + k];
    AttributeDecl d;
    d.name = StringRef::from_c_str(a.name);
    d.type = static_cast<AttrType>(a.type);
    d.flags = (a.required ? attribute_flags::kRequired : 0U) |
              (a.has_default ? attribute_flags::kHasDefault : 0U);
    d.int_default = a.int_default;
    d.float_default = a.float_default;
    d.string_default = StringRef::from_c_str(a.string_default);
    d.ints_default = Span<std::int64_t>{kIntsDefaults + a.first_int, a.int_count};
    d.floats_default = Span<float>{kFloatsDefaults + a.first_float, a.float_count};
    attributes.push_back(d);
  }
  OpSchemaDecl decl;
  decl.until_version = row.until;
  decl.inputs = Span<InputDecl>{inputs.data(), inputs.size()};
  decl.min_outputs = row.min_outputs;
  decl.max_outputs = row.max_outputs;
  decl.attributes = Span<AttributeDecl>{attributes.data(), attributes.size()};
  return r.declare_schema(key(row.op, row.since), decl);
}

}  // namespace

void register_schemas(Registration& reg) {
  std::vector<InputDecl> inputs;
  std::vector<AttributeDecl> attributes;
  for (const OnnxSchemaRow& row : kSchemas) {
    reg.check(declare(reg.registrar(), row, inputs, attributes));
    if (!reg.ok()) return;
  }
}

}  // namespace cctx::opsets::onnx
