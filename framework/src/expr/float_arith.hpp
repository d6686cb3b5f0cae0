// IEEE arithmetic of floating-point sizes (expressions.md 4.5 "Floating-point sizes"), shared by
// the pool's float terms and by evaluate_expression. A runtime computes `ceil(h * (320 / m))` one
// operation at a time, each rounded to its tensor's type; these helpers do the same, so that a
// size read from such a computation is the runtime's to the last unit. The files that include
// this header are compiled with -ffp-contract=off: a fused multiply-add would round once where
// the runtime rounds twice.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cctx/expr.hpp"

namespace cctx::detail {

/// Significand bits of a type: every integer of magnitude up to 2^p is exact in it.
constexpr int significand_bits(FloatType t) { return t == FloatType::kFloat32 ? 24 : 53; }

/// `v` rounded to type t (to nearest, ties to even), held in a double (a float's value is exact
/// in a double).
inline double to_type(double v, FloatType t) {
  return t == FloatType::kFloat32 ? static_cast<double>(static_cast<float>(v)) : v;
}

/// The integer `v` converted to type t as a Cast does: rounded to nearest, ties to even.
inline double int_to_type(std::int64_t v, FloatType t) {
  return t == FloatType::kFloat32 ? static_cast<double>(static_cast<float>(v))
                                  : static_cast<double>(v);
}

/// a op b in type t, rounded once as the runtime's kernel rounds. Operands are values of t.
inline double apply_binary(FloatOp op, FloatType t, double a, double b) {
  if (t == FloatType::kFloat32) {
    const auto x = static_cast<float>(a), y = static_cast<float>(b);
    float r = 0;
    switch (op) {
      case FloatOp::kAdd:
        r = x + y;
        break;
      case FloatOp::kSub:
        r = x - y;
        break;
      case FloatOp::kMul:
        r = x * y;
        break;
      case FloatOp::kDiv:
        r = x / y;
        break;
      case FloatOp::kMin:
        r = y < x ? y : x;
        break;
      case FloatOp::kMax:
        r = x < y ? y : x;
        break;
      default:
        return std::nan("");
    }
    return static_cast<double>(r);
  }
  switch (op) {
    case FloatOp::kAdd:
      return a + b;
    case FloatOp::kSub:
      return a - b;
    case FloatOp::kMul:
      return a * b;
    case FloatOp::kDiv:
      return a / b;
    case FloatOp::kMin:
      return b < a ? b : a;
    case FloatOp::kMax:
      return a < b ? b : a;
    default:
      return std::nan("");
  }
}

/// A unary operation (kNeg, kAbs, kSqrt) in type t: exact, or correctly rounded (sqrt).
inline double apply_unary(FloatOp op, FloatType t, double a) {
  switch (op) {
    case FloatOp::kNeg:
      return -a;
    case FloatOp::kAbs:
      return std::fabs(a);
    case FloatOp::kSqrt:
      return t == FloatType::kFloat32 ? static_cast<double>(std::sqrt(static_cast<float>(a)))
                                      : std::sqrt(a);
    default:
      return std::nan("");
  }
}

/// `v` rounded to an integer the way `r` says (kHalfEven: ONNX Round); nullopt when v is not
/// finite or the integer is outside int64 (a Cast of it is undefined).
inline std::optional<std::int64_t> round_to_int(double v, Rounding r) {
  if (!std::isfinite(v)) return std::nullopt;
  double x = v;
  switch (r) {
    case Rounding::kFloor:
      x = std::floor(v);
      break;
    case Rounding::kCeil:
      x = std::ceil(v);
      break;
    case Rounding::kTrunc:
      x = std::trunc(v);
      break;
    case Rounding::kHalfEven:
      x = std::nearbyint(v);  // the default rounding mode: to nearest, ties to even
      break;
  }
  // 2^63 is the first double above int64's range; -2^63 is in it.
  if (x >= 9223372036854775808.0 || x < -9223372036854775808.0) return std::nullopt;
  return static_cast<std::int64_t>(x);
}

inline const char* rounding_name(Rounding r) {
  switch (r) {
    case Rounding::kFloor:
      return "floor";
    case Rounding::kCeil:
      return "ceil";
    case Rounding::kTrunc:
      return "trunc";
    case Rounding::kHalfEven:
      return "round";
  }
  return "floor";
}

inline const char* type_name(FloatType t) {
  return t == FloatType::kFloat32 ? "float32" : "float64";
}

/// A finite value of type t as a literal that reads back to it: the shortest decimal form,
/// always with a '.' or an exponent, and the suffix `f` for float32 (`320.0f`, `0.485f`, `0.1`).
inline std::string float_literal(double v, FloatType t) {
  char buf[64];
  const std::to_chars_result r = t == FloatType::kFloat32
                                     ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v))
                                     : std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  if (t == FloatType::kFloat32) s += 'f';
  return s;
}

/// Parses a literal written by float_literal (or any decimal with a '.' or an exponent) as type
/// t: float32 literals are read as floats directly, never through a double (no double rounding).
inline std::optional<double> parse_float_literal(std::string_view text, FloatType t) {
  if (t == FloatType::kFloat32) {
    float f = 0;
    const std::from_chars_result r = std::from_chars(text.data(), text.data() + text.size(), f);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size() || !std::isfinite(f)) {
      return std::nullopt;
    }
    return static_cast<double>(f);
  }
  double d = 0;
  const std::from_chars_result r = std::from_chars(text.data(), text.data() + text.size(), d);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size() || !std::isfinite(d)) {
    return std::nullopt;
  }
  return d;
}

}  // namespace cctx::detail
