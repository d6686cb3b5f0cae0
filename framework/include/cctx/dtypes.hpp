// ONNX element types: storage width and name, for built-in codes and the ones plugins register.
// Below the model layer: the model checks, the pipeline and the reports all use it.
#pragma once

#include <cstdint>
#include <string>

namespace cctx {

class RuleRegistry;

/// Storage width in bits of an ONNX element type (0 for UNDEFINED, STRING and unknown codes);
/// codes a plugin registered are looked up in `registry` when given.
std::uint32_t dtype_bits(std::int32_t code, const RuleRegistry* registry = nullptr);
/// "float32", "int4", ...; a plugin-registered name from `registry`; else "type<code>".
std::string dtype_name(std::int32_t code, const RuleRegistry* registry = nullptr);

}  // namespace cctx
