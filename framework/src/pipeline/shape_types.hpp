// Conversions between ONNX TypeProto and ValueShape, and the names of fresh symbols.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "pipeline/analysis_state.hpp"

namespace onnx {
class TypeProto;
}

namespace cctx {

/// Maps characters outside [A-Za-z0-9_] to '_' and prefixes a leading digit with '_'.
std::string sanitize_symbol(std::string_view name);

/// Reads a declared or inferred ONNX type. `fresh(axis)` supplies a symbol for a dim with
/// neither value nor parameter (and, with `onnx_unknowns`, for ONNX's `unk__*` parameters).
ValueShape from_type_proto(ExprPool& pool, const onnx::TypeProto& type,
                           const std::function<Expr(std::size_t)>& fresh, bool onnx_unknowns);

/// The ONNX type of a ValueShape: integer dims as dim_value, expressions as dim_param.
onnx::TypeProto to_type_proto(ExprPool& pool, const ValueShape& shape);

/// Fresh producer-named symbol `<prefix><Op>_<index>_o<out>_d<axis>` for node n.
Expr fresh_output_dim(ComputeContext::State& s, NodeId n, std::uint32_t out, std::uint32_t axis,
                      std::int64_t lo, std::int64_t hi);

/// Fresh symbol `unk_<value>_d<axis>` for a declared dim with neither value nor parameter.
Expr fresh_declared_dim(ComputeContext::State& s, ValueId v, std::size_t axis);

}  // namespace cctx
