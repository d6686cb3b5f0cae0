// Checked and saturating int64 arithmetic shared by the engine. Checked operations throw
// ExprError(kOverflow); saturating ones treat the int64 extremes as infinities (intervals).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cctx/expr.hpp"

namespace cctx::detail {

__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

[[noreturn]] void throw_overflow(const std::string& context);
/// "integer overflow in '1099511627776*1099511627776'": the operands say which value it was.
[[noreturn]] void throw_overflow(std::int64_t a, char op, std::int64_t b);

inline std::int64_t checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw_overflow("");
  return r;
}
inline std::int64_t checked_sub(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) throw_overflow("");
  return r;
}
inline std::int64_t checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throw_overflow("");
  return r;
}
// The same, naming the operands: for folding two integers, where a rule's product of concrete
// dims overflows. (Keeping the operands for the message costs registers on the hot paths of the
// others: the running sums' merges, the polynomial products.)
inline std::int64_t checked_add_shown(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw_overflow(a, '+', b);
  return r;
}
inline std::int64_t checked_mul_shown(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throw_overflow(a, '*', b);
  return r;
}
inline std::optional<std::int64_t> try_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<std::int64_t> try_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

/// Floor division; requires b != 0 and not (INT64_MIN, -1).
inline std::int64_t floor_div_int(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
/// Modulo with the divisor's sign; requires b != 0 (b == -1 is safe).
inline std::int64_t floor_mod_int(std::int64_t a, std::int64_t b) {
  if (b == -1) return 0;
  std::int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
inline Int128 floor_div_128(Int128 a, Int128 b) {
  Int128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline Int128 floor_mod_128(Int128 a, Int128 b) {
  if (b == -1) return 0;
  Int128 r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

inline std::uint64_t magnitude(std::int64_t v) {
  return v < 0 ? static_cast<std::uint64_t>(0) - static_cast<std::uint64_t>(v)
               : static_cast<std::uint64_t>(v);
}
inline std::uint64_t gcd_u64(std::uint64_t a, std::uint64_t b) {
  while (b != 0) {
    const std::uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// ---- saturating arithmetic over int64 with kNegInf/kPosInf as infinities -----------------------

inline bool is_inf(std::int64_t v) { return v == kNegInf || v == kPosInf; }

inline std::int64_t clamp128(Int128 v) {
  if (v <= static_cast<Int128>(kNegInf)) return kNegInf;
  if (v >= static_cast<Int128>(kPosInf)) return kPosInf;
  return static_cast<std::int64_t>(v);
}

/// a*b where an infinite operand times zero is zero and finite overflow saturates.
inline std::int64_t sat_mul(std::int64_t a, std::int64_t b) {
  if (a == 0 || b == 0) return 0;
  const bool negative = (a < 0) != (b < 0);
  if (is_inf(a) || is_inf(b)) return negative ? kNegInf : kPosInf;
  return clamp128(static_cast<Int128>(a) * static_cast<Int128>(b));
}

/// Lower-end addition: -inf absorbs everything.
inline std::int64_t sat_add_lo(std::int64_t a, std::int64_t b) {
  if (a == kNegInf || b == kNegInf) return kNegInf;
  if (a == kPosInf || b == kPosInf) return kPosInf;
  return clamp128(static_cast<Int128>(a) + static_cast<Int128>(b));
}
/// Upper-end addition: +inf absorbs everything.
inline std::int64_t sat_add_hi(std::int64_t a, std::int64_t b) {
  if (a == kPosInf || b == kPosInf) return kPosInf;
  if (a == kNegInf || b == kNegInf) return kNegInf;
  return clamp128(static_cast<Int128>(a) + static_cast<Int128>(b));
}

}  // namespace cctx::detail
