// Conversions between ONNX TypeProto and ValueShape, and the names of fresh symbols.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "pipeline/analysis_state.hpp"

namespace onnx {
class TypeProto;
class TypeProto_Tensor;  // protobuf's name of TypeProto::Tensor
}  // namespace onnx

namespace cctx {

/// Maps characters outside [A-Za-z0-9_] to '_' and prefixes a leading digit with '_'.
std::string sanitize_symbol(std::string_view name);

/// Reads a declared or inferred ONNX type. `fresh(axis)` supplies a symbol for a dim with
/// neither value nor parameter (and, with `onnx_unknowns`, for ONNX's `unk__*` parameters).
ValueShape from_type_proto(ExprPool& pool, const onnx::TypeProto& type,
                           const std::function<Expr(std::size_t)>& fresh, bool onnx_unknowns);

/// Sets the length of sequence `shape`: a concrete length up to `max_tracked` becomes one
/// position per element (each described by the shape's dims), anything else a symbolic length.
void set_sequence_length(ExprPool& pool, Expr length, std::size_t max_tracked, ValueShape& shape);

/// The length of sequence `shape` (concrete or symbolic), or nullopt when unknown.
std::optional<Expr> sequence_length(ExprPool& pool, const ValueShape& shape);

/// The ONNX type of a ValueShape: integer dims as dim_value, expressions as dim_param.
onnx::TypeProto to_type_proto(ExprPool& pool, const ValueShape& shape);
/// The tensor type inside `type` for a value of `kind`: the type itself, or a sequence's or an
/// optional's element type (made on the way).
onnx::TypeProto_Tensor* tensor_part(onnx::TypeProto& type, ValueKind kind);

/// Fresh producer-named symbol `<prefix><Op>_<index>_o<out>_d<axis>` for node n.
Expr fresh_output_dim(Analysis& s, ShapeResult& shapes, NodeId n, std::uint32_t out,
                      std::uint32_t axis, std::int64_t lo, std::int64_t hi);

/// Fresh symbol `unk_<value>_d<axis>` for a declared dim with neither value nor parameter.
Expr fresh_declared_dim(Analysis& s, ValueId v, std::size_t axis);

}  // namespace cctx
