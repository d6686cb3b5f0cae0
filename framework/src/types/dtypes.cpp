// Element sizes and names of ONNX element types (semantics.md, "Element sizes").
#include "cctx/dtypes.hpp"

#include <iterator>

#include "cctx/registry.hpp"

namespace cctx {

std::uint32_t dtype_bits(std::int32_t code, const RuleRegistry* registry) {
  switch (code) {
    case 25:  // UINT2
    case 26:  // INT2
      return 2;
    case 21:  // UINT4
    case 22:  // INT4
    case 23:  // FLOAT4E2M1
      return 4;
    case 2:   // UINT8
    case 3:   // INT8
    case 9:   // BOOL
    case 17:  // FLOAT8E4M3FN
    case 18:  // FLOAT8E4M3FNUZ
    case 19:  // FLOAT8E5M2
    case 20:  // FLOAT8E5M2FNUZ
    case 24:  // FLOAT8E8M0
      return 8;
    case 4:   // UINT16
    case 5:   // INT16
    case 10:  // FLOAT16
    case 16:  // BFLOAT16
      return 16;
    case 1:   // FLOAT
    case 6:   // INT32
    case 12:  // UINT32
      return 32;
    case 7:   // INT64
    case 13:  // UINT64
    case 11:  // DOUBLE
    case 14:  // COMPLEX64
      return 64;
    case 15:  // COMPLEX128
      return 128;
    default:
      break;
  }
  if (registry != nullptr) {
    if (auto bits = registry->dtype_bits(code)) return *bits;
  }
  return 0;  // UNDEFINED, STRING, unknown codes
}

ElementPacking element_packing(std::uint32_t bits) {
  if (bits % 8 == 0) return {ElementPacking::Kind::kWholeBytes, bits / 8};
  // Sub-byte types pack per tensor, rounded up.
  if (bits < 8 && 8 % bits == 0) return {ElementPacking::Kind::kPerByte, 8 / bits};
  // Other widths (plugin-registered): the bit count rounded up to bytes.
  return {ElementPacking::Kind::kRoundedBits, bits};
}

std::string dtype_name(std::int32_t code, const RuleRegistry* registry) {
  static const char* const kNames[] = {
      "undefined",      "float32",  "uint8",        "int8",           "uint16",
      "int16",          "int32",    "int64",        "string",         "bool",
      "float16",        "float64",  "uint32",       "uint64",         "complex64",
      "complex128",     "bfloat16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2",
      "float8e5m2fnuz", "uint4",    "int4",         "float4e2m1",     "float8e8m0",
      "uint2",          "int2"};
  if (code >= 0 && code < static_cast<std::int32_t>(std::size(kNames))) return kNames[code];
  if (registry != nullptr) {
    std::string name = registry->dtype_name(code);
    if (!name.empty()) return name;
  }
  return "type" + std::to_string(code);
}

}  // namespace cctx
