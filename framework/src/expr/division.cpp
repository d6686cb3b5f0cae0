// Floor division, exact division and modulo (4.2, 4.3). Every rewrite is an integer identity that
// holds wherever the original is defined; anything else stays an atom. A rule that would
// overflow is skipped rather than reported: the atom is always a valid answer. A divisor that is
// the integer 0 is refused (ExprError): such an expression is defined nowhere.
#include <algorithm>

#include "expr/pool_impl.hpp"

namespace cctx {

using namespace detail;

namespace {

std::uint64_t content(const Poly& p) {
  std::uint64_t g = 0;
  for (const Term& t : p.terms) g = gcd_u64(g, magnitude(t.coef));
  return g;
}

}  // namespace

bool detail::PoolImpl::pass_limit(int pass) {
  if (pass < 16) return false;
  if (!pass_warning_given) {
    pass_warning_given = true;
    warn("expression rewrite stopped after 16 passes; the result may not be fully simplified");
  }
  return true;
}

void detail::PoolImpl::throw_zero_divisor(const char* op, Expr a) {
  // The numerator as it would print inside the operation: bare when it is a plain operand.
  const bool bare = kind(a) == Kind::kSym || (is_int(a) && int_value(a) >= 0);
  const std::string num = bare ? print(a) : "(" + print(a) + ")";
  const std::string text =
      std::string_view(op) == "CeilToInt" ? "CeilToInt(" + print(a) + ",0)" : num + op + "0";
  const bool modulo = std::string_view(op) == "%";
  throw ExprError(
      modulo ? ExprError::Kind::kModuloByZero : ExprError::Kind::kDivisionByZero,
      std::string(modulo ? "modulo" : "division") + " by zero in '" + quote_text(text) + "'");
}

Expr detail::PoolImpl::division_atom(Kind k, Expr a, Expr b) {
  const std::uint32_t w[2] = {a.id, b.id};
  return intern(k, 0, w, 2);
}

namespace {

/// Divides every coefficient (and the constant) of `p` by `g` (exactly) and every monomial by
/// `f` (a factor list contained in each of them).
void divide_poly(PoolImpl& impl, Poly& p, std::int64_t g, const std::vector<Factor>& f) {
  p.c0 /= g;
  std::vector<Factor> fs;
  std::size_t out = 0;
  for (std::size_t i = 0; i < p.terms.size(); ++i) {
    Term t = p.terms[i];
    t.coef /= g;
    if (!f.empty()) {
      fs.clear();
      impl.factors_of(Expr{t.mono}, fs);
      for (const Factor& x : f) {
        auto it =
            std::find_if(fs.begin(), fs.end(), [&](const Factor& y) { return y.atom == x.atom; });
        it->exp -= x.exp;
        if (it->exp == 0) fs.erase(it);
      }
      if (fs.empty()) {
        // The whole monomial cancelled: the term becomes part of the constant.
        p.c0 = checked_add(p.c0, t.coef);
        continue;
      }
      t.mono = impl.make_mono(fs).id;
    }
    p.terms[out++] = t;
  }
  p.terms.resize(out);
}

/// Common factor of two polynomials: the gcd of all coefficients and constants, and the monomial
/// gcd of all terms (empty when a constant is present).
std::pair<std::int64_t, std::vector<Factor>> common_factor(detail::PoolImpl& impl, const Poly& a,
                                                           const Poly& b) {
  std::uint64_t g = gcd_u64(content(a), content(b));
  g = gcd_u64(g, magnitude(a.c0));
  g = gcd_u64(g, magnitude(b.c0));
  if (g > static_cast<std::uint64_t>(kPosInf) || g == 0) g = 1;
  std::vector<Factor> f;
  if (a.c0 == 0 && b.c0 == 0 && !a.terms.empty() && !b.terms.empty()) {
    impl.factors_of(Expr{a.terms[0].mono}, f);
    std::vector<Factor> other;
    auto intersect = [&](std::uint32_t mono) {
      other.clear();
      impl.factors_of(Expr{mono}, other);
      std::vector<Factor> kept;
      for (const Factor& x : f) {
        for (const Factor& y : other) {
          if (y.atom == x.atom) {
            kept.push_back(Factor{x.atom, std::min(x.exp, y.exp)});
            break;
          }
        }
      }
      f.swap(kept);
    };
    for (const Term& t : a.terms) intersect(t.mono);
    for (const Term& t : b.terms) intersect(t.mono);
  }
  return {static_cast<std::int64_t>(g), f};
}

/// c such that a == c*b as polynomials, if any.
std::optional<std::int64_t> ratio(const Poly& a, const Poly& b) {
  if (a.terms.size() != b.terms.size() || b.terms.empty()) return std::nullopt;
  const std::int64_t bc = b.terms[0].coef;
  const std::int64_t ac = a.terms[0].coef;
  if (bc == -1 ? ac == kNegInf : ac % bc != 0) return std::nullopt;
  const std::int64_t c = ac / bc;
  for (std::size_t i = 0; i < a.terms.size(); ++i) {
    if (a.terms[i].mono != b.terms[i].mono) return std::nullopt;
    const auto prod = try_mul(c, b.terms[i].coef);
    if (!prod || *prod != a.terms[i].coef) return std::nullopt;
  }
  const auto prod = try_mul(c, b.c0);
  if (!prod || *prod != a.c0) return std::nullopt;
  return c;
}

}  // namespace

// ---- floor division
// ------------------------------------------------------------------------------

Expr detail::PoolImpl::floor_div(Expr a, Expr b, int pass) {
  if (is_int(b)) {
    const std::int64_t d = int_value(b);
    if (d == 0) throw_zero_divisor("//", a);
    if (is_int(a)) {
      const std::int64_t v = int_value(a);
      if (v == kNegInf && d == -1) throw_overflow("'" + std::to_string(v) + "//-1'");
      return integer(floor_div_int(v, d));
    }
    if (d == 1) return a;
    if (d == -1) return neg(a);
  } else if (is_int_value(a, 0)) {
    return a;
  }
  if (const auto hit = memo_find(Op::kFloorDiv, a, b)) return *hit;
  Expr r = a;
  if (pass_limit(pass)) {
    r = division_atom(Kind::kFloorDiv, a, b);
  } else if (is_int(b)) {
    const std::int64_t d = int_value(b);
    if (d > 0) {
      r = floor_div_pos(a, d, pass);
    } else {
      // x//d == (-x)//(-d); INT64_MIN cannot be negated, and -x may not be representable.
      r = division_atom(Kind::kFloorDiv, a, b);
      if (d != kNegInf) {
        try {
          r = floor_div(neg(a), integer(-d), pass + 1);
        } catch (const ExprError&) {
        }
      }
    }
  } else {
    PolyLoan pa(*this);
    PolyLoan pb(*this);
    append_terms(a, 1, *pa);
    append_terms(b, 1, *pb);
    if (const auto c = ratio(*pa, *pb)) {
      r = integer(*c);  // (c*D)//D = c wherever D != 0
    } else {
      auto [g, f] = common_factor(*this, *pa, *pb);
      if (g > 1 || !f.empty()) {
        divide_poly(*this, *pa, g, f);
        divide_poly(*this, *pb, g, f);
        const Expr na = make_poly(*pa);
        const Expr nb = make_poly(*pb);
        r = floor_div(na, nb, pass + 1);
      } else if (kind(a) == Kind::kFloorDiv && prove_ge(child(a, 1), integer(1)) &&
                 prove_ge(b, integer(1))) {
        // (P//m)//n = P//(m*n) for m, n >= 1.
        const Expr p = child(a, 0);
        const Expr m = child(a, 1);
        r = floor_div(p, mul(m, b), pass + 1);
      } else {
        r = division_atom(Kind::kFloorDiv, a, b);
      }
    }
  }
  memo_store(Op::kFloorDiv, a, b, r);
  return r;
}

Expr detail::PoolImpl::floor_div_pos(Expr a, std::int64_t d, int pass) {
  const Expr de = integer(d);
  // Bounds: the quotient is constant over the numerator's interval.
  const Interval iv = interval(a);
  if (!is_inf(iv.lo) && !is_inf(iv.hi)) {
    const std::int64_t q = floor_div_int(iv.lo, d);
    if (q == floor_div_int(iv.hi, d)) return integer(q);
  }
  PolyLoan p(*this);
  append_terms(a, 1, *p);
  const std::int64_t r = p->c0;
  const std::uint64_t g0 = content(*p);
  const auto ud = static_cast<std::uint64_t>(d);
  if (g0 % ud == 0) {
    // (d*Q' + r)//d = Q' + r//d
    for (Term& t : p->terms) t.coef /= d;
    p->c0 = floor_div_int(r, d);
    return make_poly(*p);
  }
  // Nested: (P//m + c)//n = (P + m*c)//(m*n) for m >= 1, n >= 1.
  if (p->terms.size() == 1 && p->terms[0].coef == 1 &&
      kind(Expr{p->terms[0].mono}) == Kind::kFloorDiv) {
    const Expr inner{p->terms[0].mono};
    const Expr pp = child(inner, 0);
    const Expr m = child(inner, 1);
    if (is_int(m) && int_value(m) > 0) {
      const auto mc = try_mul(int_value(m), r);
      const auto mn = try_mul(int_value(m), d);
      if (mc && mn) {
        try {
          return floor_div(add(pp, integer(*mc)), integer(*mn), pass + 1);
        } catch (const ExprError&) {
        }
      }
    } else if (!is_int(m) && prove_ge(m, integer(1))) {
      try {
        return floor_div(add(pp, scale(m, r)), scale(m, d), pass + 1);
      } catch (const ExprError&) {
      }
    }
  }
  // Through a max/min with constant arms: x//d is non-decreasing, so (max(A, k) + c)//d =
  // max((A + c)//d, (k + c)//d), and the same for min. Only with a constant arm, which folds,
  // so the expression does not grow: a pool's max(1, h//2) then feeds the next window's
  // floor division as max(1, (h+2)//4) instead of (max(1,h//2)+1)//2.
  if (p->terms.size() == 1 && p->terms[0].coef == 1 && is_minmax(kind(Expr{p->terms[0].mono}))) {
    const Expr mm{p->terms[0].mono};
    const Node& n = node(mm);
    bool constant_arm = false;
    for (std::uint32_t k = 0; k < n.len && !constant_arm; ++k) constant_arm = is_int(child(mm, k));
    if (constant_arm && n.len <= 4) {
      Expr arms[4];
      const bool is_max = n.kind == Kind::kMax;
      const std::uint32_t len = n.len;
      for (std::uint32_t k = 0; k < len; ++k) arms[k] = child(mm, k);
      try {
        for (std::uint32_t k = 0; k < len; ++k) {
          arms[k] = floor_div(add(arms[k], integer(r)), de, pass + 1);
        }
        return minmax(is_max, std::span<const Expr>(arms, len));
      } catch (const ExprError&) {
      }
    }
  }
  // Offsets: move the numerator constant into [0, d-1].
  const std::int64_t rr = floor_mod_int(r, d);
  const std::int64_t qr = floor_div_int(r, d);
  if (qr != 0) {
    p->c0 = rr;
    const Expr inner = make_poly(*p);
    return add(floor_div(inner, de, pass + 1), integer(qr));
  }
  // gcd of the coefficients and the divisor.
  const std::uint64_t g = gcd_u64(g0, ud);
  if (g > 1) {
    const auto gi = static_cast<std::int64_t>(g);
    for (Term& t : p->terms) t.coef /= gi;
    p->c0 = rr / gi;
    const Expr inner = make_poly(*p);
    return floor_div(inner, integer(d / gi), pass + 1);
  }
  return division_atom(Kind::kFloorDiv, a, de);
}

// ---- exact division
// ------------------------------------------------------------------------------

Expr detail::PoolImpl::exact_div(Expr a, Expr b, int pass) {
  if (is_int(b)) {
    const std::int64_t d = int_value(b);
    if (d == 0) throw_zero_divisor("/:", a);
    if (is_int(a)) {
      const std::int64_t v = int_value(a);
      if (v == kNegInf && d == -1) throw_overflow("'" + std::to_string(v) + "/:-1'");
      if (v % d != 0) {
        throw ExprError(ExprError::Kind::kInexactDivision,
                        "inexact division " + std::to_string(v) + "/:" + std::to_string(d));
      }
      return integer(v / d);
    }
    if (d == 1) return a;
    if (d == -1) return neg(a);
  } else if (is_int_value(a, 0)) {
    return a;
  }
  if (const auto hit = memo_find(Op::kExactDiv, a, b)) return *hit;
  Expr r = division_atom(Kind::kExactDiv, a, b);
  if (!pass_limit(pass)) {
    PolyLoan pa(*this);
    append_terms(a, 1, *pa);
    if (is_int(b)) {
      const std::int64_t d = int_value(b);
      if (d < 0) {
        if (d != kNegInf) {
          try {
            r = exact_div(neg(a), integer(-d), pass + 1);
          } catch (const ExprError&) {
          }
        }
      } else {
        std::uint64_t g = gcd_u64(content(*pa), magnitude(pa->c0));
        g = gcd_u64(g, static_cast<std::uint64_t>(d));
        const auto gi = static_cast<std::int64_t>(g);
        if (gi == d) {
          for (Term& t : pa->terms) t.coef /= d;
          pa->c0 /= d;
          r = make_poly(*pa);
        } else if (gi > 1) {
          for (Term& t : pa->terms) t.coef /= gi;
          pa->c0 /= gi;
          const Expr na = make_poly(*pa);
          r = exact_div(na, integer(d / gi), pass + 1);
        }
      }
    } else {
      PolyLoan pb(*this);
      append_terms(b, 1, *pb);
      if (const auto c = ratio(*pa, *pb)) {
        r = integer(*c);
      } else {
        auto [g, f] = common_factor(*this, *pa, *pb);
        if (g > 1 || !f.empty()) {
          divide_poly(*this, *pa, g, f);
          divide_poly(*this, *pb, g, f);
          const Expr na = make_poly(*pa);
          const Expr nb = make_poly(*pb);
          r = exact_div(na, nb, pass + 1);
        }
      }
    }
  }
  memo_store(Op::kExactDiv, a, b, r);
  return r;
}

// ---- modulo
// --------------------------------------------------------------------------------------

Expr detail::PoolImpl::mod(Expr a, Expr b, int pass) {
  if (is_int(b)) {
    const std::int64_t d = int_value(b);
    if (d == 0) throw_zero_divisor("%", a);
    if (is_int(a)) return integer(floor_mod_int(int_value(a), d));
    if (d == 1 || d == -1) return integer(0);
  } else if (is_int_value(a, 0)) {
    return a;
  }
  if (const auto hit = memo_find(Op::kMod, a, b)) return *hit;
  Expr r = a;
  if (pass_limit(pass)) {
    r = division_atom(Kind::kMod, a, b);
  } else if (is_int(b)) {
    const std::int64_t d = int_value(b);
    if (d > 0) {
      r = mod_pos(a, d, pass);
    } else {
      // x % d == -((-x) % (-d))
      r = division_atom(Kind::kMod, a, b);
      if (d != kNegInf) {
        try {
          r = neg(mod(neg(a), integer(-d), pass + 1));
        } catch (const ExprError&) {
        }
      }
    }
  } else {
    PolyLoan pa(*this);
    PolyLoan pb(*this);
    append_terms(a, 1, *pa);
    append_terms(b, 1, *pb);
    if (ratio(*pa, *pb)) {
      r = integer(0);
    } else {
      auto [g, f] = common_factor(*this, *pa, *pb);
      if (g > 1 || !f.empty()) {
        // (F*A) % (F*B) = F*(A % B)
        divide_poly(*this, *pa, g, f);
        divide_poly(*this, *pb, g, f);
        const Expr na = make_poly(*pa);
        const Expr nb = make_poly(*pb);
        const Expr inner = mod(na, nb, pass + 1);
        r = scale(mul(make_mono(f), inner), g);
      } else {
        r = division_atom(Kind::kMod, a, b);
      }
    }
  }
  memo_store(Op::kMod, a, b, r);
  return r;
}

Expr detail::PoolImpl::mod_pos(Expr a, std::int64_t d, int pass) {
  const Expr de = integer(d);
  const Interval iv = interval(a);
  if (!is_inf(iv.lo) && !is_inf(iv.hi)) {
    const std::int64_t q = floor_div_int(iv.lo, d);
    if (q == floor_div_int(iv.hi, d)) {
      if (const auto qd = try_mul(q, d)) {
        try {
          return sub(a, integer(*qd));
        } catch (const ExprError&) {
        }
      }
    }
  }
  PolyLoan p(*this);
  append_terms(a, 1, *p);
  const std::int64_t r = p->c0;
  const std::uint64_t g0 = content(*p);
  const auto ud = static_cast<std::uint64_t>(d);
  if (g0 % ud == 0) return integer(floor_mod_int(r, d));
  const std::int64_t rr = floor_mod_int(r, d);
  if (rr != r) {
    p->c0 = rr;
    const Expr inner = make_poly(*p);
    return mod(inner, de, pass + 1);
  }
  // A term k*(y % m) with d dividing m is k*y modulo d: (-(x%7))%7 = (-x)%7.
  bool reduced = false;
  for (Term& t : p->terms) {
    const Expr atom{t.mono};
    if (kind(atom) != Kind::kMod || !is_int(child(atom, 1))) continue;
    const std::int64_t m = int_value(child(atom, 1));
    if (m > 0 && m % d == 0) reduced = true;
  }
  if (reduced) {
    try {
      Expr rest = integer(r);
      for (const Term& t : p->terms) {
        const Expr atom{t.mono};
        const bool inner_mod = kind(atom) == Kind::kMod && is_int(child(atom, 1)) &&
                               int_value(child(atom, 1)) > 0 && int_value(child(atom, 1)) % d == 0;
        rest = add(rest, scale(inner_mod ? child(atom, 0) : atom, t.coef));
      }
      return mod(rest, de, pass + 1);
    } catch (const ExprError&) {
    }
  }
  const std::uint64_t g = gcd_u64(g0, ud);
  if (g > 1) {
    // (g*Q' + r) % d = g*((Q' + r//g) % (d/g)) + r mod g
    const auto gi = static_cast<std::int64_t>(g);
    for (Term& t : p->terms) t.coef /= gi;
    p->c0 = rr / gi;
    const Expr inner = make_poly(*p);
    const Expr m = mod(inner, integer(d / gi), pass + 1);
    return add(scale(m, gi), integer(rr % gi));
  }
  return division_atom(Kind::kMod, a, de);
}

// ---- ceiling division
// ----------------------------------------------------------------------------

Expr detail::PoolImpl::ceil_div(Expr a, Expr b) {
  if (is_int(b)) {
    const std::int64_t n = int_value(b);
    if (n == 0) throw_zero_divisor("CeilToInt", a);
    if (is_int(a)) {
      const std::int64_t v = int_value(a);
      if (v == kNegInf && n == -1) throw_overflow("'CeilToInt(" + std::to_string(v) + ",-1)'");
      std::int64_t q = v / n;
      if (v % n != 0 && ((v < 0) == (n < 0))) ++q;
      return integer(q);
    }
    if (n > 0) return floor_div(add(a, integer(n - 1)), b);
    if (n < 0 && n != kNegInf) return neg(floor_div(a, integer(-n)));
  } else if (prove_ge(b, integer(1))) {
    return floor_div(add(a, sub(b, integer(1))), b);
  }
  // ceil(x/n) = -((-x)//n) for any n != 0.
  return neg(floor_div(neg(a), b));
}

}  // namespace cctx
