/// @file types.hpp
/// Element types, value kinds and semantic tags as they cross the boundary.
#pragma once

#include <cstdint>

namespace cctx::sdk {
inline namespace v1 {

/// ONNX TensorProto.DataType codes. Plain int32 so that codes newer than this SDK still pass.
namespace dtype {
inline constexpr std::int32_t kUndefined = 0;
inline constexpr std::int32_t kFloat = 1;
inline constexpr std::int32_t kUint8 = 2;
inline constexpr std::int32_t kInt8 = 3;
inline constexpr std::int32_t kUint16 = 4;
inline constexpr std::int32_t kInt16 = 5;
inline constexpr std::int32_t kInt32 = 6;
inline constexpr std::int32_t kInt64 = 7;
inline constexpr std::int32_t kString = 8;
inline constexpr std::int32_t kBool = 9;
inline constexpr std::int32_t kFloat16 = 10;
inline constexpr std::int32_t kDouble = 11;
inline constexpr std::int32_t kUint32 = 12;
inline constexpr std::int32_t kUint64 = 13;
inline constexpr std::int32_t kComplex64 = 14;
inline constexpr std::int32_t kComplex128 = 15;
inline constexpr std::int32_t kBfloat16 = 16;
inline constexpr std::int32_t kFloat8E4M3FN = 17;
inline constexpr std::int32_t kFloat8E4M3FNUZ = 18;
inline constexpr std::int32_t kFloat8E5M2 = 19;
inline constexpr std::int32_t kFloat8E5M2FNUZ = 20;
inline constexpr std::int32_t kUint4 = 21;
inline constexpr std::int32_t kInt4 = 22;
inline constexpr std::int32_t kFloat4E2M1 = 23;
inline constexpr std::int32_t kFloat8E8M0 = 24;
inline constexpr std::int32_t kUint2 = 25;
inline constexpr std::int32_t kInt2 = 26;

/// True for the integer codes whose small tensors carry symbolic values (int32, int64).
constexpr bool carries_values(std::int32_t code) noexcept {
  return code == kInt64 || code == kInt32 || code == kBool || code == kInt16 || code == kInt8 ||
         code == kUint8 || code == kUint16 || code == kUint32 || code == kUint64;
}
constexpr bool is_float(std::int32_t code) noexcept {
  return code == kFloat || code == kFloat16 || code == kDouble || code == kBfloat16 ||
         (code >= kFloat8E4M3FN && code <= kFloat8E5M2FNUZ) || code == kFloat4E2M1 ||
         code == kFloat8E8M0;
}
}  // namespace dtype

/// What kind of value an input or output holds. For sequences and optionals, dtype/rank/dims
/// describe the element tensor.
/// @since 1.0, every enumerator
enum class ValueKind : std::int32_t {
  kUnknown = 0,
  kTensor = 1,
  kSequence = 2,
  kOptional = 3,
  kMap = 4,
  kSparseTensor = 5,
};

/// Semantic tag of a value or node (semantics.md section 5). Ordered by rank: tags only rise.
/// @since 1.0, every enumerator
enum class Tag : std::int32_t {
  kNone = 0,       ///< untagged
  kWeight = 1,     ///< payload data: inputs, weights and what is computed from them
  kShape = 2,      ///< holds dimensions
  kAxes = 3,       ///< holds axis indices
  kAmbiguous = 4,  ///< conflicting evidence
};

/// Attribute types, ONNX AttributeProto.AttributeType codes.
/// @since 1.0, every enumerator
enum class AttrType : std::int32_t {
  kNone = 0,  ///< attribute absent
  kFloat = 1,
  kInt = 2,
  kString = 3,
  kTensor = 4,
  kGraph = 5,
  kFloats = 6,
  kInts = 7,
  kStrings = 8,
  kTensors = 9,
  kGraphs = 10,
  kSparseTensor = 11,
  kSparseTensors = 12,
  kTypeProto = 13,
  kTypeProtos = 14,
};

}  // namespace v1
}  // namespace cctx::sdk
