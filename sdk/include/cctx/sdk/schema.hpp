/// @file schema.hpp
/// An operator's contract, declared once (IRegistrar::declare_schema, SDK 1.9), as ONNX's
/// OpSchema states it: its inputs (optional, variadic, element types, ranks), how many outputs it
/// has, and its attributes (type, required or default, range). The host checks every node of the
/// operator against it before any rule runs, and refuses the node, naming the input or attribute
/// and the plugin, when it breaks it; a rule then reads a declared attribute the node omits as its
/// default, and never sees a node the contract refuses. `cctx plugins --op OP` prints it.
///
/// Every view here is borrowed for the call; the host copies it.
#pragma once

#include <cstdint>

#include "cctx/sdk/abi.hpp"
#include "cctx/sdk/types.hpp"

namespace cctx::sdk {
inline namespace v1 {

/// Bits of InputDecl::flags.
namespace input_flags {
/// The node may omit the input (an empty name, or fewer inputs).
inline constexpr std::uint32_t kOptional = 1;
/// The last declared input only: it repeats, and every repetition has its element types and
/// ranks. Without kOptional, at least one is required.
inline constexpr std::uint32_t kVariadic = 2;
}  // namespace input_flags

/// One formal input.
struct InputDecl {
  StringRef name;              ///< as messages name it ("input 1 'scale'")  @since 1.9
  std::uint32_t flags = 0;     ///< bits of input_flags  @since 1.9
  std::int32_t min_rank = -1;  ///< -1: any. Checked when the node's rank is known  @since 1.9
  std::int32_t max_rank = -1;  ///< -1: any  @since 1.9
  /// The element types (ONNX TensorProto codes, or a code registered with add_dtype) it may
  /// have; empty: any. Checked when the node's element type is known.
  /// @since 1.9
  Span<std::int32_t> dtypes;
};

/// Bits of AttributeDecl::flags.
namespace attribute_flags {
/// A node without it is refused.
inline constexpr std::uint32_t kRequired = 1;
/// A node without it reads the default of the attribute's type below (attr_int, attr_float,
/// attr_string, attr_ints, attr_floats answer it as if the node had it).
inline constexpr std::uint32_t kHasDefault = 2;
/// An INT attribute, or each element of an INTS one, must lie in [min_value, max_value].
inline constexpr std::uint32_t kHasRange = 4;
}  // namespace attribute_flags

/// One attribute.
struct AttributeDecl {
  StringRef name;  ///< @since 1.9
  AttrType type =
      AttrType::kInt;            ///< a node whose attribute has another type is refused  @since 1.9
  std::uint32_t flags = 0;       ///< bits of attribute_flags  @since 1.9
  std::int64_t int_default = 0;  ///< kHasDefault, type kInt  @since 1.9
  double float_default = 0;      ///< kHasDefault, type kFloat  @since 1.9
  StringRef string_default;      ///< kHasDefault, type kString  @since 1.9
  Span<std::int64_t> ints_default;  ///< kHasDefault, type kInts  @since 1.9
  Span<float> floats_default;       ///< kHasDefault, type kFloats  @since 1.9
  std::int64_t min_value = 0;       ///< kHasRange  @since 1.9
  std::int64_t max_value = 0;       ///< kHasRange  @since 1.9
};

/// The contract of one operator from RuleKey::since_version on. C layout; `struct_size` lets it
/// grow at its end.
struct OpSchemaDecl {
  std::uint32_t struct_size = sizeof(OpSchemaDecl);  ///< @since 1.9
  /// The newest opset it holds for; 0: until the operator's next declared version. (A plugin
  /// that knows an operator up to opset 21 says 21, so that a model at opset 26 is not held to
  /// an older contract.)
  /// @since 1.9
  std::int32_t until_version = 0;
  Span<InputDecl> inputs;          ///< in order  @since 1.9
  std::uint32_t min_outputs = 1;   ///< @since 1.9
  std::uint32_t max_outputs = 1;   ///< 0xFFFFFFFF: any number  @since 1.9
  Span<AttributeDecl> attributes;  ///< @since 1.9
};

}  // namespace v1
}  // namespace cctx::sdk
