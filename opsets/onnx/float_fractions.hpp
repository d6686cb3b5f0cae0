// Fractions on floating shape arithmetic (expressions.md "Shape-value propagation"): the value of
// `float(h) / 32.0` is the fraction h/32, so `ceil(float(h) / 32.0) * 32` stays the integer
// expression `32*((h+31)//32)`. Every fraction a rule here states has a numerator below the type's
// exact-integer limit 2^p, which makes two things true:
//  - a fraction whose denominator is a power of two is exactly the floating value the runtime
//    holds (it needs at most p significant bits), so it may feed further arithmetic;
//  - any other fraction n/d comes from a true division, whose correctly rounded result differs
//    from n/d by at most |n/d| * 2^-p < 1/d, less than the distance from n/d to the nearest
//    integer when n/d is not one: its floor, ceiling and truncation are the runtime's. Only those
//    (Ceil, Floor, a Cast to an integer type, Relu and Neg, which keep them) read such a value.
#pragma once

#include <cstdint>
#include <numeric>
#include <vector>

#include "integral_floats.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

inline bool is_power_of_two(Dim d) {
  std::int64_t v;
  return d.get_int(&v) && v > 0 && (v & (v - 1)) == 0;
}

/// Input i's value as fractions that are exactly its floating elements (integers included);
/// false when it has none or some element is a rounded quotient.
inline bool exact_input_fractions(const INodeView& node, std::uint32_t i,
                                  std::vector<Fraction>* out) {
  if (!input_fractions(node, i, out)) return false;
  for (const Fraction& f : *out) {
    if (!is_power_of_two(f.den)) return false;
  }
  return true;
}

/// a * b, refusing a concrete product beyond int64 (the engine would make it a fresh symbol).
inline bool checked_product(Dim a, Dim b, Dim* r) {
  std::int64_t x, y, p;
  if (a.get_int(&x) && b.get_int(&y) && __builtin_mul_overflow(x, y, &p)) return false;
  *r = a * b;
  return true;
}

/// Brings `f` to lowest terms when concrete and checks its numerator below floating type
/// `dtype`'s exact limit 2^p: concrete ones are checked, a symbolic one is assumed below it
/// (recorded as `le` constraints) unless its bounds decide. False when it is not below.
inline bool settle_fraction(IShapeSink& out, std::int32_t dtype, Fraction* f) {
  const std::int64_t limit = exact_integer_limit(dtype);
  if (limit == 0) return false;
  std::int64_t n, d;
  if (f->num.get_int(&n) && f->den.get_int(&d)) {
    const std::int64_t g = std::gcd(n, d);  // d >= 1, so g >= 1
    f->num = f->num.lift(n / g);
    f->den = f->den.lift(d / g);
  } else if (f->den.get_int(&d) && d > 1) {
    // A symbolic numerator: divide out what it provably has in common with the denominator
    // (2*H/4 is H/2, 4*H/4 is H).
    if (mod(f->num, f->den).is(0)) {
      f->num = exact_div(f->num, f->den);
      f->den = f->den.lift(1);
    } else {
      for (std::int64_t p = 2; p <= d && p <= 64; ++p) {
        while (d % p == 0 && mod(f->num, f->num.lift(p)).is(0)) {
          f->num = exact_div(f->num, f->num.lift(p));
          d /= p;
        }
      }
      f->den = f->den.lift(d);
    }
  }
  const std::int64_t below = limit - 1;
  std::int64_t lo, hi;
  f->num.bounds(&lo, &hi);
  if (hi < -below || lo > below) return false;
  if (hi > below) out.constraint(ConstraintKind::kLe, f->num, f->num.lift(below));
  if (lo < -below) out.constraint(ConstraintKind::kLe, f->num.lift(-below), f->num);
  return true;
}

enum class FractionOp : std::uint8_t { kAdd, kSub, kMul, kDiv };

/// a op b as a fraction (denominator >= 1); false for a divisor of unknown sign or zero, or an
/// overflow.
inline bool combine(FractionOp op, const Fraction& a, const Fraction& b, Fraction* r) {
  Dim x, y;
  switch (op) {
    case FractionOp::kAdd:
    case FractionOp::kSub: {
      Dim den;
      if (!checked_product(a.num, b.den, &x) || !checked_product(b.num, a.den, &y) ||
          !checked_product(a.den, b.den, &den)) {
        return false;
      }
      *r = {op == FractionOp::kAdd ? x + y : x - y, den};
      return true;
    }
    case FractionOp::kMul:
      if (!checked_product(a.num, b.num, &x) || !checked_product(a.den, b.den, &y)) return false;
      *r = {x, y};
      return true;
    case FractionOp::kDiv: {
      const Dim zero = b.num.lift(0);
      const bool positive = b.num.provably_gt(zero), negative = zero.provably_gt(b.num);
      if (!positive && !negative) return false;
      if (!checked_product(a.num, b.den, &x) || !checked_product(a.den, b.num, &y)) return false;
      *r = positive ? Fraction{x, y} : Fraction{-x, -y};
      return true;
    }
  }
  return false;
}

/// Half-to-even rounding of a concrete fraction (ONNX Round); false for a symbolic one, or a
/// rounded quotient whose numerator is not below 2^(p-1) (then a .5 boundary is not safe).
inline bool round_half_even(const Fraction& f, std::int32_t dtype, Dim* out) {
  std::int64_t n, d;
  if (!f.num.get_int(&n) || !f.den.get_int(&d) || d > (std::int64_t{1} << 61)) return false;
  if (!is_power_of_two(f.den) &&
      (n >= exact_integer_limit(dtype) / 2 || n <= -exact_integer_limit(dtype) / 2)) {
    return false;
  }
  std::int64_t q = n / d, r = n % d;  // toward zero
  if (r < 0) {
    q -= 1;
    r += d;  // now n = q*d + r with 0 <= r < d
  }
  if (2 * r > d || (2 * r == d && q % 2 != 0)) q += 1;
  *out = f.num.lift(q);
  return true;
}

}  // namespace cctx::opsets::onnx
