// Interval analysis (expressions.md section 5): bottom-up, saturating, cached per node. Every
// result contains all values the expression takes where it is defined.
#include <algorithm>
#include <initializer_list>

#include "expr/pool_impl.hpp"

namespace cctx {

using namespace detail;

namespace {

constexpr Interval kFull{kNegInf, kPosInf};

Interval join(Interval a, Interval b) { return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; }

Interval mul_iv(Interval a, Interval b) {
  const std::int64_t c[4] = {sat_mul(a.lo, b.lo), sat_mul(a.lo, b.hi), sat_mul(a.hi, b.lo),
                             sat_mul(a.hi, b.hi)};
  return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
}

std::int64_t sat_pow(std::int64_t v, std::uint32_t e) {
  if (e == 0) return 1;
  if (v == 0) return 0;
  const bool negative = v < 0 && e % 2 == 1;
  if (is_inf(v)) return negative ? kNegInf : kPosInf;
  const Int128 mag = static_cast<Int128>(magnitude(v));
  Int128 r = 1;
  for (std::uint32_t i = 0; i < e; ++i) {
    r *= mag;
    if (r >= static_cast<Int128>(kPosInf)) return negative ? kNegInf : kPosInf;
  }
  return static_cast<std::int64_t>(negative ? -r : r);
}

Interval pow_iv(Interval a, std::uint32_t e) {
  if (e == 1) return a;
  const std::int64_t x = sat_pow(a.lo, e);
  const std::int64_t y = sat_pow(a.hi, e);
  if (e % 2 == 1) return {x, y};
  if (a.lo >= 0) return {x, y};
  if (a.hi <= 0) return {y, x};
  return {0, std::max(x, y)};
}

/// Quotient candidates of one corner; both-infinite corners give the whole sign range.
void corner_quotients(std::int64_t n, std::int64_t d, std::int64_t& lo, std::int64_t& hi) {
  auto take = [&](std::int64_t v) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  };
  const bool neg_sign = (n < 0) != (d < 0);
  if (n == 0) {
    take(0);
  } else if (!is_inf(n) && !is_inf(d)) {
    take(floor_div_int(n, d));
  } else if (is_inf(n) && !is_inf(d)) {
    take(neg_sign ? kNegInf : kPosInf);
  } else if (!is_inf(n) && is_inf(d)) {
    take(neg_sign ? -1 : 0);
  } else {
    take(neg_sign ? kNegInf : 0);
    take(neg_sign ? -1 : kPosInf);
  }
}

/// floor(n/d) over d's interval, which must not contain 0.
Interval div_part(Interval n, Interval d) {
  std::int64_t lo = kPosInf;
  std::int64_t hi = kNegInf;
  for (const std::int64_t nv : {n.lo, n.hi}) {
    for (const std::int64_t dv : {d.lo, d.hi}) corner_quotients(nv, dv, lo, hi);
  }
  return {lo, hi};
}

Interval floor_div_iv(Interval n, Interval d) {
  std::optional<Interval> r;
  if (d.hi >= 1) {
    const Interval part = div_part(n, {std::max<std::int64_t>(d.lo, 1), d.hi});
    r = part;
  }
  if (d.lo <= -1) {
    const Interval part = div_part(n, {d.lo, std::min<std::int64_t>(d.hi, -1)});
    r = r ? join(*r, part) : part;
  }
  return r ? *r : kFull;
}

Interval mod_iv(Interval n, Interval d) {
  std::optional<Interval> r;
  if (d.hi >= 1) {
    const std::int64_t dl = std::max<std::int64_t>(d.lo, 1);
    const std::int64_t top = d.hi == kPosInf ? kPosInf : d.hi - 1;
    Interval part{0, top};
    if (n.lo >= 0 && n.hi <= dl - 1) {
      part = n;
    } else if (n.lo >= 0) {
      part.hi = std::min(part.hi, n.hi);
    }
    r = part;
  }
  if (d.lo <= -1) {
    const std::int64_t dh = std::min<std::int64_t>(d.hi, -1);
    const std::int64_t bottom = d.lo == kNegInf ? kNegInf : d.lo + 1;
    Interval part{bottom, 0};
    if (n.hi <= 0 && n.lo >= dh + 1) {
      part = n;
    } else if (n.hi <= 0) {
      part.lo = std::max(part.lo, n.lo);
    }
    r = r ? join(*r, part) : part;
  }
  return r ? *r : kFull;
}

}  // namespace

Interval detail::PoolImpl::interval(Expr e) {
  if ((extra[e.id].state & 1U) != 0) return extra[e.id].interval;
  const Node n = nodes[e.id];
  const Interval iv = interval_of_parts(n.kind, n.aux, payload.data() + n.off, n.len);
  extra[e.id].interval = iv;
  extra[e.id].state |= 1U;
  return iv;
}

Interval detail::PoolImpl::interval_of_parts(Kind k, std::int64_t aux, const std::uint32_t* w,
                                             std::uint32_t n) {
  switch (k) {
    case Kind::kInt:
      return {aux, aux};
    case Kind::kSym:
      return symbols[static_cast<std::size_t>(aux)].bounds;
    case Kind::kSum: {
      std::int64_t lo = aux;
      std::int64_t hi = aux;
      for (std::uint32_t i = 0; i < n; i += 3) {
        const Interval m = interval(Expr{w[i]});
        const std::int64_t c = get_i64(w + i + 1);
        const Interval t = mul_iv({c, c}, m);
        lo = sat_add_lo(lo, t.lo);
        hi = sat_add_hi(hi, t.hi);
      }
      return {lo, hi};
    }
    case Kind::kMono: {
      Interval r{1, 1};
      for (std::uint32_t i = 0; i < n; i += 2)
        r = mul_iv(r, pow_iv(interval(Expr{w[i]}), w[i + 1]));
      return r;
    }
    case Kind::kFloorDiv:
    case Kind::kExactDiv:
      return floor_div_iv(interval(Expr{w[0]}), interval(Expr{w[1]}));
    case Kind::kMod:
      return mod_iv(interval(Expr{w[0]}), interval(Expr{w[1]}));
    case Kind::kMax:
    case Kind::kMin: {
      Interval r = interval(Expr{w[0]});
      for (std::uint32_t i = 1; i < n; ++i) {
        const Interval a = interval(Expr{w[i]});
        if (k == Kind::kMax) {
          r = {std::max(r.lo, a.lo), std::max(r.hi, a.hi)};
        } else {
          r = {std::min(r.lo, a.lo), std::min(r.hi, a.hi)};
        }
      }
      return r;
    }
  }
  return kFull;
}

}  // namespace cctx
