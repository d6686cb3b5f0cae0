// A proof of a >= b that builds no expression: a linear merge of the two polynomials' terms.
// It decides the common case of comparing memory totals (sums of non-negative monomials with
// non-negative coefficients) in O(terms), where prove_ge would intern a - b first.
#include "expr/pool_impl.hpp"

namespace cctx {

using namespace detail;

bool PoolImpl::dominates_termwise(Expr a, Expr b) {
  if (a == b) return true;
  TermView va, vb;
  view_terms(a, &va);
  view_terms(b, &vb);
  // slack = (c0a - c0b) + sum over monomials of (coef difference) * (monomial's lower bound);
  // every coefficient difference must be >= 0 on a monomial known to be >= 0. In 128 bits, with
  // a conservative "not shown" when a product could leave the exactly representable range.
  constexpr Int128 kLimit = static_cast<Int128>(1) << 100;
  Int128 slack = static_cast<Int128>(va.c0) - static_cast<Int128>(vb.c0);
  if (slack < -kLimit) return false;
  std::uint32_t i = 0, j = 0;
  while (i < va.count || j < vb.count) {
    std::uint32_t mono;
    Int128 diff;
    if (j == vb.count || (i < va.count && va.words[3 * i] < vb.words[3 * j])) {
      mono = va.words[3 * i];
      diff = get_i64(va.words + 3 * i + 1);
      ++i;
    } else if (i == va.count || vb.words[3 * j] < va.words[3 * i]) {
      mono = vb.words[3 * j];
      diff = -static_cast<Int128>(get_i64(vb.words + 3 * j + 1));
      ++j;
    } else {
      mono = va.words[3 * i];
      diff = static_cast<Int128>(get_i64(va.words + 3 * i + 1)) -
             static_cast<Int128>(get_i64(vb.words + 3 * j + 1));
      ++i;
      ++j;
    }
    if (diff == 0) continue;
    if (diff < 0) return false;
    // The monomial's interval lower bound, or 0 when only a proof sees it is non-negative
    // (`min(4096,p+s)-min(4096,p)` is, though its interval dips below 0); proofs are cached.
    const Interval range = interval(Expr{mono});
    Int128 lo = 0;
    if (range.lo != kNegInf && range.lo >= 0) {
      lo = range.lo;
    } else if (!prove_nonneg(Expr{mono})) {
      return false;
    }
    // A contribution beyond the limit already outweighs any slack deficit the check allows.
    // Below 2^62 the product (|diff| < 2^65) stays exact in 128 bits without a division test.
    constexpr Int128 kSmallBound = static_cast<Int128>(1) << 62;
    if (lo < kSmallBound) {
      slack += diff * lo;
    } else {
      slack = diff > kLimit / lo ? kLimit : slack + diff * lo;
    }
    if (slack > kLimit)
      slack = kLimit;  // later terms only add: staying positive is all that counts
  }
  return slack >= 0;
}

}  // namespace cctx
