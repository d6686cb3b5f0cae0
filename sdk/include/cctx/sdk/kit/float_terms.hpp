/// @file kit/float_terms.hpp
/// Float terms (SDK 1.5; expressions.md 4.5 "Floating-point sizes"): a size a model computes in
/// floating point, such as `floor(h * (320 / min(h, w)))`, kept operation by operation so that the
/// integer read from it is the runtime's. Use them where exact fractions (kit/fractions.hpp) end:
/// a product or quotient whose rounding matters. A term is a plain handle of the host's.
#pragma once

#include <cstdint>
#include <vector>

#include "cctx/sdk/dims.hpp"
#include "cctx/sdk/kit/rule_error.hpp"
#include "cctx/sdk/node_view.hpp"
#include "cctx/sdk/rules.hpp"

namespace cctx::sdk::kit {

/// Input i's value as float terms, one per element; false when it has none (no value, or a type
/// other than float and double).
inline bool input_float_terms(const INodeView& node, std::uint32_t i,
                              std::vector<std::uint32_t>* out) {
  std::uint32_t count = 0;
  const std::uint32_t* terms = nullptr;
  if (i >= node.input_count() || !node.has_input(i) ||
      !node.input_float_handles(i, &count, &terms)) {
    return false;
  }
  out->assign(terms, terms + count);
  return true;
}

/// The term `op(a, b)` of type `dtype` (`b` unused by unary operations, `a` a dim handle for
/// kFromDim); false when the host cannot make it (the value is then unknown). An invalid handle
/// fails the rule.
inline bool float_term(IShapeSink& out, FloatTermOp op, std::int32_t dtype, std::uint32_t a,
                       std::uint32_t b, std::uint32_t* term) {
  const Status s = out.float_term_handle(op, dtype, a, b, term);
  if (s == Status::kUnsupported) return false;
  check(s);
  return true;
}

/// The term of the constant `value` of type `dtype`; false when it is not one of the type's.
inline bool float_constant(IShapeSink& out, double value, std::int32_t dtype, std::uint32_t* term) {
  const Status s = out.float_constant_handle(value, dtype, term);
  if (s == Status::kUnsupported) return false;
  check(s);
  return true;
}

/// `term` rounded to an integer dim, for element `element` of output `out` (which names the
/// symbol that may stand for it); false when its value is not an integer the host can hold.
inline bool round_float_term(const INodeView& node, IShapeSink& out, std::uint32_t term,
                             FloatRounding rounding, std::uint32_t output, std::uint32_t element,
                             Dim* dim) {
  std::uint32_t handle = 0;
  const Status s = out.float_to_dim_handle(term, rounding, output, element, &handle);
  if (s == Status::kUnsupported) return false;
  check(s);
  *dim = Dim(&node.expr(), handle);
  return true;
}

/// Sets output `o`'s value to `terms`, one per element.
inline void set_float_terms(IShapeSink& out, std::uint32_t o,
                            const std::vector<std::uint32_t>& terms) {
  check(out.set_output_float_handles(o, static_cast<std::uint32_t>(terms.size()), terms.data()));
}

}  // namespace cctx::sdk::kit
