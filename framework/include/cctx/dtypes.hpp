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
/// How a tensor of `count` elements of one type is stored (semantics.md, "Element sizes"): the
/// one rounding rule behind every byte count of the host, the declarative `bytes(inK)` included.
struct ElementPacking {
  enum class Kind : std::uint8_t {
    kWholeBytes,   ///< count * factor; factor: bytes an element
    kPerByte,      ///< CeilToInt(count, factor), rounded per tensor; factor: elements a byte
    kRoundedBits,  ///< (count * factor + 7) // 8; factor: bits an element (other widths)
  };
  Kind kind = Kind::kWholeBytes;
  std::uint32_t factor = 1;
};
/// The packing of elements of `bits` bits (bits > 0, as dtype_bits gives).
ElementPacking element_packing(std::uint32_t bits);
/// "float32", "int4", ...; a plugin-registered name from `registry`; else "type<code>".
std::string dtype_name(std::int32_t code, const RuleRegistry* registry = nullptr);

}  // namespace cctx
