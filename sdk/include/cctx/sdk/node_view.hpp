/// @file node_view.hpp
/// The host's read-only view of one node, handed to every rule. It is ONNX's InferenceContext
/// without protobuf: operator identity, inputs and outputs with their symbolic types, and typed
/// attribute getters. Everything returned is borrowed until the rule returns.
#pragma once

#include <cstdint>

#include "cctx/sdk/abi.hpp"
#include "cctx/sdk/dims.hpp"
#include "cctx/sdk/types.hpp"

namespace cctx::sdk {
inline namespace v1 {

/// A tensor-valued attribute (Constant's `value`, ConstantOfShape's `value`, ...).
struct TensorAttr {
  std::int32_t dtype = dtype::kUndefined;  ///< @since 1.0
  Span<std::int64_t> dims;                 ///< concrete dims of the tensor  @since 1.0
  /// Elements as integers when the tensor has an integer or bool type and at most 64 elements
  /// (`values.data == nullptr` otherwise).
  Span<std::int64_t> int_values;  ///< @since 1.0
  /// Elements as doubles when the tensor has a floating type and at most 64 elements.
  Span<double> float_values;  ///< @since 1.0
};

/// Read-only view of the node a rule is applied to.
///
/// Input and output indices are positions in the node's lists: an omitted optional input keeps
/// its position and reports `has_input(i) == false`. Dims and values are expression handles of
/// the host's pool; wrap them with `dim()`/`value()` to do arithmetic.
class CCTX_SDK_VISIBLE INodeView {
 public:
  /// Operator type, e.g. "MatMul".
  /// @since 1.0
  virtual StringRef op_type() const noexcept = 0;
  /// Operator domain; "" for ai.onnx.
  /// @since 1.0
  virtual StringRef domain() const noexcept = 0;
  /// Node name ("" when the model gives none).
  /// @since 1.0
  virtual StringRef name() const noexcept = 0;
  /// The opset version the model imports for this node's domain.
  /// @since 1.0
  virtual std::int64_t opset_version() const noexcept = 0;
  /// Position of the node in the analysed graph (topological order).
  /// @since 1.0
  virtual std::int64_t node_index() const noexcept = 0;
  /// Function table of the host's expression engine.
  /// @since 1.0
  virtual const ExprApi& expr() const noexcept = 0;

  /// @since 1.0
  virtual std::uint32_t input_count() const noexcept = 0;
  /// @since 1.0
  virtual std::uint32_t output_count() const noexcept = 0;
  /// True when input i exists and is not an omitted optional (empty name).
  /// @since 1.0
  virtual bool has_input(std::uint32_t i) const noexcept = 0;
  /// @since 1.0
  virtual bool has_output(std::uint32_t i) const noexcept = 0;
  /// @since 1.0
  virtual StringRef input_name(std::uint32_t i) const noexcept = 0;
  /// @since 1.0
  virtual StringRef output_name(std::uint32_t i) const noexcept = 0;

  /// Kind of input i (kUnknown when absent or not inferred).
  /// @since 1.0
  virtual ValueKind input_kind(std::uint32_t i) const noexcept = 0;
  /// Element type code of input i (dtype::kUndefined when unknown).
  /// @since 1.0
  virtual std::int32_t input_dtype(std::uint32_t i) const noexcept = 0;
  /// Rank of input i; -1 for an unknown rank or an absent input.
  /// @since 1.0
  virtual std::int32_t input_rank(std::uint32_t i) const noexcept = 0;
  /// Handle of dim `axis` of input i (0 <= axis < input_rank(i)).
  /// @since 1.0
  virtual std::uint32_t input_dim_handle(std::uint32_t i, std::uint32_t axis) const noexcept = 0;
  /// Number of known elements of input i's value, or -1 when unknown. A value is a small tensor
  /// (at most 64 elements) whose every element is an exact integer: an integer or bool tensor,
  /// or a floating tensor whose elements are all exact integers (e.g. Cast of an integer value
  /// to float), so each element is an integer expression whatever the input's dtype.
  /// @since 1.0
  virtual std::int32_t input_value_size(std::uint32_t i) const noexcept = 0;
  /// Handle of element k of input i's known value.
  /// @since 1.0
  virtual std::uint32_t input_value_handle(std::uint32_t i, std::uint32_t k) const noexcept = 0;
  /// Elements of input i as doubles when it is a small constant floating tensor (an initializer
  /// or a Constant output with at most 64 elements). False otherwise.
  /// @since 1.0
  virtual bool input_float_values(std::uint32_t i, Span<double>* out) const noexcept = 0;
  /// True when input i is a graph initializer or the output of a Constant node.
  /// @since 1.0
  virtual bool input_is_constant(std::uint32_t i) const noexcept = 0;

  /// Type of attribute `name`; AttrType::kNone when absent.
  /// @since 1.0
  virtual AttrType attribute_type(StringRef name) const noexcept = 0;
  /// @since 1.0
  virtual bool attr_int(StringRef name, std::int64_t* out) const noexcept = 0;
  /// @since 1.0
  virtual bool attr_float(StringRef name, float* out) const noexcept = 0;
  /// @since 1.0
  virtual bool attr_string(StringRef name, StringRef* out) const noexcept = 0;
  /// @since 1.0
  virtual bool attr_ints(StringRef name, Span<std::int64_t>* out) const noexcept = 0;
  /// @since 1.0
  virtual bool attr_floats(StringRef name, Span<float>* out) const noexcept = 0;
  /// Number of strings of a STRINGS attribute (0 when absent).
  /// @since 1.0
  virtual std::uint32_t attr_strings_count(StringRef name) const noexcept = 0;
  /// @since 1.0
  virtual bool attr_string_at(StringRef name, std::uint32_t k, StringRef* out) const noexcept = 0;
  /// @since 1.0
  virtual bool attr_tensor(StringRef name, TensorAttr* out) const noexcept = 0;
  /// Number of inputs/outputs of a GRAPH attribute (If branches, Loop/Scan bodies); -1 if absent.
  /// @since 1.0
  virtual std::int32_t attr_graph_inputs(StringRef name) const noexcept = 0;
  /// @since 1.0
  virtual std::int32_t attr_graph_outputs(StringRef name) const noexcept = 0;

  /// Length of sequence input i when the host knows it (every position has a known element
  /// description), -1 otherwise: unknown length, not a sequence, or an absent input.
  /// @since 1.0
  virtual std::int32_t input_sequence_length(std::uint32_t i) const noexcept = 0;
  /// Rank of element k of sequence input i (0 <= k < input_sequence_length(i)); -1 for an
  /// unknown rank or an out-of-range position.
  /// @since 1.0
  virtual std::int32_t input_element_rank(std::uint32_t i, std::uint32_t k) const noexcept = 0;
  /// Handle of dim `axis` of element k of sequence input i (0 <= axis < input_element_rank).
  /// @since 1.0
  virtual std::uint32_t input_element_dim_handle(std::uint32_t i, std::uint32_t k,
                                                 std::uint32_t axis) const noexcept = 0;
  /// Length of sequence input i as an expression handle, also when it is symbolic (a sequence
  /// grown by a Loop holds `trip` elements, every one described by the input's shape). False
  /// when the length is unknown, the input is not a sequence, or it is absent.
  /// @since 1.1
  virtual bool input_sequence_length_handle(std::uint32_t i, std::uint32_t* out) const noexcept = 0;
  /// Input i's value as exact fractions, element k being `nums[k] / dens[k]` with `dens[k] >= 1`:
  /// an integer value (denominators 1), fractions a rule stated (IShapeSink::
  /// set_output_fraction_handles: the `h / 32` of a float Div), or a small constant floating
  /// tensor whose elements are exact binary fractions (0.5 is 1/2; 0.1, NaN and infinities are
  /// none). `*count` elements; both arrays stay valid until the rule returns. False when none.
  /// Use kit::input_fractions.
  /// @since 1.3
  virtual bool input_fraction_handles(std::uint32_t i, std::uint32_t* count,
                                      const std::uint32_t** nums,
                                      const std::uint32_t** dens) const noexcept = 0;
  /// Floating input i's value as float terms (IShapeSink::float_term_handle), one per element:
  /// the terms a rule stated, or its integers, exact fractions or small constant elements made
  /// into terms of the input's type. `*count` elements; the array stays valid until the rule
  /// returns. False when it has none, or its type is neither float nor double. Use
  /// kit::input_float_terms.
  /// @since 1.5
  virtual bool input_float_handles(std::uint32_t i, std::uint32_t* count,
                                   const std::uint32_t** terms) const noexcept = 0;

  // ---- convenience (inline, compiled into the plugin) -----------------------------------------
  Dim input_dim(std::uint32_t i, std::uint32_t axis) const noexcept {
    return Dim(&expr(), input_dim_handle(i, axis));
  }
  Dim input_value(std::uint32_t i, std::uint32_t k) const noexcept {
    return Dim(&expr(), input_value_handle(i, k));
  }
  Dim input_element_dim(std::uint32_t i, std::uint32_t k, std::uint32_t axis) const noexcept {
    return Dim(&expr(), input_element_dim_handle(i, k, axis));
  }
  /// The length of sequence input i (symbolic or concrete), or false when it is unknown.
  bool input_sequence_length_dim(std::uint32_t i, Dim* out) const noexcept {
    std::uint32_t h = 0;
    if (!input_sequence_length_handle(i, &h)) return false;
    *out = Dim(&expr(), h);
    return true;
  }
  Dim constant(std::int64_t v) const noexcept { return Dim::constant(expr(), v); }
  bool is_op(StringRef op) const noexcept { return op_type().equals(op); }
  /// Integer attribute with a default.
  std::int64_t attr_int_or(StringRef name, std::int64_t fallback) const noexcept {
    std::int64_t v;
    return attr_int(name, &v) ? v : fallback;
  }
  float attr_float_or(StringRef name, float fallback) const noexcept {
    float v;
    return attr_float(name, &v) ? v : fallback;
  }

 protected:
  ~INodeView() = default;
};

}  // namespace v1
}  // namespace cctx::sdk
