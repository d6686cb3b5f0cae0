// Float terms on floating shape arithmetic (expressions.md 4.5 "Floating-point sizes"): where an
// exact fraction ends (float_fractions.hpp), a value computed in floating point from dims is kept
// operation by operation, and the integer a Floor, Ceil, Round or Cast reads from it is a symbol
// that evaluation computes exactly as ONNX Runtime's kernels do. torchvision's detection
// transform resizes to `floor(h * min(320 / min(h, w), 640 / max(h, w)))`, each operation
// rounded to float32: its floor is 319 or 320 depending on h, which no fraction can say.
#pragma once

#include <cstdint>
#include <vector>

#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

/// Elementwise `op` over the float terms of inputs 0 and 1 broadcast to `count` elements (each
/// input has `count` elements or one); false when an input has no terms or a term cannot be made.
inline bool propagate_terms(const INodeView& node, IShapeSink& out, std::int64_t count,
                            std::int32_t dtype, FloatTermOp op) {
  if (count < 0) return false;
  std::vector<std::uint32_t> a, b;
  if (!input_float_terms(node, 0, &a) || !input_float_terms(node, 1, &b)) return false;
  const auto n = static_cast<std::size_t>(count);
  if ((a.size() != n && a.size() != 1) || (b.size() != n && b.size() != 1)) return false;
  std::vector<std::uint32_t> terms(n);
  for (std::size_t k = 0; k < n; ++k) {
    if (!float_term(out, op, dtype, a[a.size() == 1 ? 0 : k], b[b.size() == 1 ? 0 : k],
                    &terms[k])) {
      return false;
    }
  }
  set_float_terms(out, 0, terms);
  return true;
}

/// Floor, Ceil and Round of input 0's terms (integers: the output's value); Neg, Abs, Sqrt,
/// Reciprocal and Relu of them (terms). False when the input has none or the op is another.
inline bool unary_terms(const INodeView& node, IShapeSink& out) {
  std::vector<std::uint32_t> terms;
  if (!input_float_terms(node, 0, &terms)) return false;
  const std::int32_t dtype = node.input_dtype(0);
  FloatRounding rounding = FloatRounding::kFloor;
  const bool rounds = node.is_op("Floor") || node.is_op("Ceil") || node.is_op("Round");
  if (rounds) {
    rounding = node.is_op("Floor")  ? FloatRounding::kFloor
               : node.is_op("Ceil") ? FloatRounding::kCeil
                                    : FloatRounding::kHalfEven;
    std::vector<Dim> integers(terms.size());
    for (std::size_t k = 0; k < terms.size(); ++k) {
      if (!round_float_term(node, out, terms[k], rounding, 0, static_cast<std::uint32_t>(k),
                            &integers[k])) {
        return false;
      }
    }
    set_value(out, 0, integers);
    return true;
  }
  std::uint32_t constant = 0;
  for (std::uint32_t& t : terms) {
    bool made = false;
    if (node.is_op("Neg")) {
      made = float_term(out, FloatTermOp::kNeg, dtype, t, 0, &t);
    } else if (node.is_op("Abs")) {
      made = float_term(out, FloatTermOp::kAbs, dtype, t, 0, &t);
    } else if (node.is_op("Sqrt")) {
      made = float_term(out, FloatTermOp::kSqrt, dtype, t, 0, &t);
    } else if (node.is_op("Reciprocal")) {
      made = float_constant(out, 1.0, dtype, &constant) &&
             float_term(out, FloatTermOp::kDiv, dtype, constant, t, &t);
    } else if (node.is_op("Relu")) {
      made = float_constant(out, 0.0, dtype, &constant) &&
             float_term(out, FloatTermOp::kMax, dtype, t, constant, &t);
    }
    if (!made) return false;
  }
  set_float_terms(out, 0, terms);
  return true;
}

/// Cast of input 0's terms: to another floating type a term, to int64 or int32 the value
/// truncated toward zero. False when it has none or the target is another type.
inline bool cast_terms(const INodeView& node, IShapeSink& out, std::int32_t to) {
  std::vector<std::uint32_t> terms;
  if (!input_float_terms(node, 0, &terms)) return false;
  if (to == dtype::kFloat || to == dtype::kDouble) {
    for (std::uint32_t& t : terms) {
      if (!float_term(out, FloatTermOp::kCast, to, t, 0, &t)) return false;
    }
    set_float_terms(out, 0, terms);
    return true;
  }
  if (to != dtype::kInt64 && to != dtype::kInt32) return false;
  std::vector<Dim> integers(terms.size());
  for (std::size_t k = 0; k < terms.size(); ++k) {
    std::int64_t v = 0;
    if (!round_float_term(node, out, terms[k], FloatRounding::kTrunc, 0,
                          static_cast<std::uint32_t>(k), &integers[k]) ||
        (to == dtype::kInt32 && integers[k].get_int(&v) && (v < INT32_MIN || v > INT32_MAX))) {
      return false;
    }
  }
  set_value(out, 0, integers);
  return true;
}

}  // namespace cctx::opsets::onnx
