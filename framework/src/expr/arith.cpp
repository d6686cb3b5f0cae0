// Ring operations: polynomial normalisation, add/mul/scale, monomial products and the exact
// division rules that cancel `/:` against coefficients or factors (4.2, rules marked G).
#include <algorithm>

#include "expr/pool_impl.hpp"

namespace cctx {

using namespace detail;

void detail::PoolImpl::append_terms(Expr e, std::int64_t k, Poly& out) const {
  const Node& n = nodes[e.id];
  switch (n.kind) {
    case Kind::kInt:
      out.c0 = checked_add(out.c0, checked_mul(n.aux, k));
      return;
    case Kind::kSum: {
      out.c0 = checked_add(out.c0, checked_mul(n.aux, k));
      const std::uint32_t* w = payload.data() + n.off;
      for (std::uint32_t t = 0; t < n.len; t += 3) {
        out.terms.push_back(Term{w[t], checked_mul(get_i64(w + t + 1), k)});
      }
      return;
    }
    default:
      out.terms.push_back(Term{e.id, k});
      return;
  }
}

void detail::PoolImpl::normalize(Poly& p) {
  auto& t = p.terms;
  if (t.size() > 1) {
    const auto by_mono = [](const Term& a, const Term& b) { return a.mono < b.mono; };
    if (!std::is_sorted(t.begin(), t.end(), by_mono)) std::sort(t.begin(), t.end(), by_mono);
  }
  std::size_t out = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (out > 0 && t[out - 1].mono == t[i].mono) {
      t[out - 1].coef = checked_add(t[out - 1].coef, t[i].coef);
    } else {
      t[out++] = t[i];
    }
  }
  t.resize(out);
  t.erase(std::remove_if(t.begin(), t.end(), [](const Term& x) { return x.coef == 0; }), t.end());
}

Expr detail::PoolImpl::intern_sum(std::int64_t c0, const std::uint32_t* w, std::uint32_t len) {
  return intern_sum(c0, w, len, sum_terms_hash(w, len));
}

Expr detail::PoolImpl::intern_poly(const Poly& p) {
  words.resize(p.terms.size() * 3);
  std::uint32_t* w = words.data();
  for (const Term& t : p.terms) {
    w[0] = t.mono;
    put_i64(w + 1, t.coef);
    w += 3;
  }
  return intern_sum(p.c0, words.data(), static_cast<std::uint32_t>(words.size()));
}

void detail::PoolImpl::merge_add(Expr a, Expr b, Poly& out) const {
  // Both operands' terms are sorted by monomial: one linear merge, no sort.
  const Node& na = nodes[a.id];
  const Node& nb = nodes[b.id];
  const std::uint32_t single_a[3] = {a.id, 1, 0};
  const std::uint32_t single_b[3] = {b.id, 1, 0};
  const std::uint32_t* wa = single_a;
  const std::uint32_t* wb = single_b;
  std::uint32_t la = 3;
  std::uint32_t lb = 3;
  if (na.kind == Kind::kSum || na.kind == Kind::kInt) {
    wa = payload.data() + na.off;
    la = na.len;
    out.c0 = na.aux;
  }
  if (nb.kind == Kind::kSum || nb.kind == Kind::kInt) {
    wb = payload.data() + nb.off;
    lb = nb.len;
    out.c0 = checked_add(out.c0, nb.aux);
  }
  out.terms.reserve((la + lb) / 3);
  std::uint32_t i = 0;
  std::uint32_t j = 0;
  while (i < la && j < lb) {
    if (wa[i] < wb[j]) {
      out.terms.push_back(Term{wa[i], get_i64(wa + i + 1)});
      i += 3;
    } else if (wb[j] < wa[i]) {
      out.terms.push_back(Term{wb[j], get_i64(wb + j + 1)});
      j += 3;
    } else {
      const std::int64_t c = checked_add(get_i64(wa + i + 1), get_i64(wb + j + 1));
      if (c != 0) out.terms.push_back(Term{wa[i], c});
      i += 3;
      j += 3;
    }
  }
  for (; i < la; i += 3) out.terms.push_back(Term{wa[i], get_i64(wa + i + 1)});
  for (; j < lb; j += 3) out.terms.push_back(Term{wb[j], get_i64(wb + j + 1)});
}

Expr detail::PoolImpl::make_poly(Poly& p, bool normalized) {
  if (!normalized) normalize(p);
  std::uint8_t flags = 0;
  for (const Term& t : p.terms) flags |= nodes[t.mono].flags;
  if ((flags & kFlagExactFactor) != 0) {
    if (const auto r = apply_exact_rule(p)) return *r;
  }
  if ((flags & kFlagLitDiv) != 0 && p.terms.size() >= 2) reduce_division_families(p);
  return intern_poly(p);
}

Expr detail::PoolImpl::add(Expr a, Expr b) {
  const Node& na = nodes[a.id];
  const Node& nb = nodes[b.id];
  if (na.kind == Kind::kInt) {
    if (nb.kind == Kind::kInt) return integer(checked_add_shown(na.aux, nb.aux));
    if (na.aux == 0) return b;
  } else if (nb.kind == Kind::kInt && nb.aux == 0) {
    return a;
  }
  if (a.id > b.id) std::swap(a, b);
  if (const auto hit = memo_find(Op::kAdd, a, b)) return *hit;
  PolyLoan p(*this);
  merge_add(a, b, *p);
  const Expr r = make_poly(*p, true);
  memo_store(Op::kAdd, a, b, r);
  return r;
}

Expr detail::PoolImpl::scale(Expr e, std::int64_t k) {
  const Node& n = nodes[e.id];
  if (n.kind == Kind::kInt) return integer(checked_mul_shown(n.aux, k));
  if (k == 0) return integer(0);
  if (k == 1) return e;
  const Expr ke = integer(k);
  if (const auto hit = memo_find(Op::kMul, ke, e)) return *hit;
  PolyLoan p(*this);
  append_terms(e, k, *p);  // scaling by k != 0 keeps the terms sorted, merged and non-zero
  const Expr r = make_poly(*p, true);
  memo_store(Op::kMul, ke, e, r);
  return r;
}

Expr detail::PoolImpl::mul(Expr a, Expr b) {
  if (is_int(a)) return scale(b, int_value(a));
  if (is_int(b)) return scale(a, int_value(b));
  if (a.id > b.id) std::swap(a, b);
  if (const auto hit = memo_find(Op::kMul, a, b)) return *hit;
  PolyLoan pa(*this);
  PolyLoan pb(*this);
  PolyLoan out(*this);
  append_terms(a, 1, *pa);
  append_terms(b, 1, *pb);
  out->c0 = checked_mul(pa->c0, pb->c0);
  out->terms.reserve(pa->terms.size() * pb->terms.size() + pa->terms.size() + pb->terms.size());
  if (pb->c0 != 0) {
    for (const Term& t : pa->terms) out->terms.push_back(Term{t.mono, checked_mul(t.coef, pb->c0)});
  }
  if (pa->c0 != 0) {
    for (const Term& t : pb->terms) out->terms.push_back(Term{t.mono, checked_mul(t.coef, pa->c0)});
  }
  for (const Term& ta : pa->terms) {
    for (const Term& tb : pb->terms) {
      const std::int64_t c = checked_mul(ta.coef, tb.coef);
      const Expr m = mono_mul(Expr{ta.mono}, Expr{tb.mono});
      out->terms.push_back(Term{m.id, c});
    }
  }
  const Expr r = make_poly(*out);
  memo_store(Op::kMul, a, b, r);
  return r;
}

Expr detail::PoolImpl::sum(std::span<const Expr> terms) {
  if (terms.empty()) return integer(0);
  if (terms.size() == 1) return terms[0];
  if (terms.size() == 2) return add(terms[0], terms[1]);
  PolyLoan p(*this);
  for (const Expr e : terms) append_terms(e, 1, *p);
  return make_poly(*p);
}

void detail::PoolImpl::factors_of(Expr mono, std::vector<Factor>& out) const {
  const Node& n = nodes[mono.id];
  if (n.kind != Kind::kMono) {
    out.push_back(Factor{mono.id, 1});
    return;
  }
  const std::uint32_t* w = payload.data() + n.off;
  for (std::uint32_t t = 0; t < n.len; t += 2) out.push_back(Factor{w[t], w[t + 1]});
}

Expr detail::PoolImpl::make_mono(const std::vector<Factor>& factors) {
  if (factors.empty()) return integer(1);
  if (factors.size() == 1 && factors[0].exp == 1) return Expr{factors[0].atom};
  words.clear();
  for (const Factor& f : factors) {
    words.push_back(f.atom);
    words.push_back(f.exp);
  }
  return intern(Kind::kMono, 0, words.data(), static_cast<std::uint32_t>(words.size()));
}

Expr detail::PoolImpl::mono_mul(Expr a, Expr b) {
  if (a.id > b.id) std::swap(a, b);
  if (const auto hit = memo_find(Op::kMonoMul, a, b)) return *hit;
  std::vector<Factor> fa;
  std::vector<Factor> fb;
  factors_of(a, fa);
  factors_of(b, fb);
  std::vector<Factor> merged;
  merged.reserve(fa.size() + fb.size());
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < fa.size() || j < fb.size()) {
    if (j == fb.size() || (i < fa.size() && fa[i].atom < fb[j].atom)) {
      merged.push_back(fa[i++]);
    } else if (i == fa.size() || fb[j].atom < fa[i].atom) {
      merged.push_back(fb[j++]);
    } else {
      const std::uint64_t e = std::uint64_t{fa[i].exp} + fb[j].exp;
      merged.push_back(Factor{
          fa[i].atom, static_cast<std::uint32_t>(std::min<std::uint64_t>(e, 0xffffffffULL))});
      ++i;
      ++j;
    }
  }
  const Expr r = make_mono(merged);
  memo_store(Op::kMonoMul, a, b, r);
  return r;
}

std::optional<Expr> detail::PoolImpl::apply_exact_rule(Poly& p) {
  // G: k*(P/:d)*R -> (k/d)*P*R when d divides k, and D*(P/:D)*R -> P*R when the divisor's
  // monomial is present among the other factors. Exactness is the caller's guarantee.
  for (std::size_t i = 0; i < p.terms.size(); ++i) {
    const Term t = p.terms[i];
    if ((nodes[t.mono].flags & kFlagExactFactor) == 0) continue;
    std::vector<Factor> fs;
    factors_of(Expr{t.mono}, fs);
    for (std::size_t j = 0; j < fs.size(); ++j) {
      const Expr x{fs[j].atom};
      if (kind(x) != Kind::kExactDiv) continue;
      const Expr num = child(x, 0);
      const Expr den = child(x, 1);
      std::vector<Factor> rest = fs;
      if (--rest[j].exp == 0) rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(j));
      std::optional<std::int64_t> new_coef;
      if (is_int(den)) {
        const std::int64_t d = int_value(den);
        if (d == -1) {
          if (t.coef != kNegInf) new_coef = -t.coef;
        } else if (d != 0 && t.coef % d == 0) {
          new_coef = t.coef / d;
        }
      } else {
        std::int64_t cd = 1;
        Expr md = den;
        const Node& dn = nodes[den.id];
        if (dn.kind == Kind::kSum) {
          if (dn.len != 3 || dn.aux != 0) continue;
          const std::uint32_t* w = payload.data() + dn.off;
          md = Expr{w[0]};
          cd = get_i64(w + 1);
        }
        if (cd == -1 ? t.coef == kNegInf : t.coef % cd != 0) continue;
        std::vector<Factor> need;
        factors_of(md, need);
        bool present = true;
        for (const Factor& f : need) {
          auto it = std::find_if(rest.begin(), rest.end(),
                                 [&](const Factor& r) { return r.atom == f.atom; });
          if (it == rest.end() || it->exp < f.exp) {
            present = false;
            break;
          }
          it->exp -= f.exp;
          if (it->exp == 0) rest.erase(it);
        }
        if (!present) continue;
        new_coef = t.coef / cd;
      }
      if (!new_coef) continue;
      const Expr rest_expr = make_mono(rest);
      const Expr replacement = scale(mul(num, rest_expr), *new_coef);
      p.terms.erase(p.terms.begin() + static_cast<std::ptrdiff_t>(i));
      const Expr base = make_poly(p);
      return add(base, replacement);
    }
  }
  return std::nullopt;
}

}  // namespace cctx
