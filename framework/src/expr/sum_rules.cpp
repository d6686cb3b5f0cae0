// Sum-level identities between floor-division atoms (4.2): Hermite's identity, ring completion
// and the division identity. Each is an integer identity Z == 0 (a "family"); a sum F may be
// replaced by F + c*Z for any integer c, and the rule picks c only when that strictly lowers the
// number of terms. So `N//2+(N+1)//2` -> `N`, `N-(N+1)//2` -> `N//2`, `3*(x//3)+x%3` -> `x`, while
// `2*(N//2)` stays (no shift makes it shorter).
#include <algorithm>

#include "expr/pool_impl.hpp"

namespace cctx {

using namespace detail;

namespace {

struct Family {
  bool hermite;  // Q - sum_j (Q+j)//k   (else P - k*(P//k) - P%k)
  Expr base;     // Q (numerator without constant) or P (whole numerator)
  std::int64_t k;
  friend bool operator==(const Family&, const Family&) = default;
};

constexpr std::uint32_t kConstSlot = 0xffffffffU;

struct Entry {
  std::uint32_t mono;  // kConstSlot for the constant term
  std::int64_t z;
  std::int64_t f;
  bool atom;
};

std::int64_t coef_in(const Poly& p, std::uint32_t mono) {
  const auto it = std::lower_bound(p.terms.begin(), p.terms.end(), mono,
                                   [](const Term& t, std::uint32_t m) { return t.mono < m; });
  return (it != p.terms.end() && it->mono == mono) ? it->coef : 0;
}

}  // namespace

bool detail::PoolImpl::reduce_division_families(Poly& p) {
  // Numerator body without its constant, as a canonical expression.
  auto strip_constant = [&](Expr num) {
    if (kind(num) != Kind::kSum || node(num).aux == 0) return num;
    PolyLoan q(*this);
    append_terms(num, 1, *q);
    q->c0 = 0;
    return make_poly(*q);
  };
  auto monos_present = [&](Expr e) {
    int n = 0;
    PolyLoan v(*this);
    append_terms(e, 1, *v);
    for (const Term& t : v->terms) n += coef_in(p, t.mono) != 0 ? 1 : 0;
    return std::pair<int, std::int64_t>{n, v->c0};
  };

  bool changed_any = false;
  for (int round = 0; round < 64; ++round) {
    std::vector<Family> families;
    std::vector<std::pair<Kind, std::pair<Expr, std::int64_t>>> atoms;  // (kind, (num, k))
    for (const Term& t : p.terms) {
      const Node& n = nodes[t.mono];
      if ((n.flags & kFlagLitDiv) == 0 || !is_division(n.kind)) continue;
      atoms.push_back({n.kind, {child(Expr{t.mono}, 0), int_value(child(Expr{t.mono}, 1))}});
    }
    for (const auto& [k, nk] : atoms) {
      if (k == Kind::kFloorDiv && nk.second <= static_cast<std::int64_t>(limits.max_terms)) {
        families.push_back(Family{true, strip_constant(nk.first), nk.second});
      }
      families.push_back(Family{false, nk.first, nk.second});
    }

    bool changed = false;
    for (std::size_t fi = 0; fi < families.size() && !changed; ++fi) {
      const Family fam = families[fi];
      if (std::find(families.begin(), families.begin() + static_cast<std::ptrdiff_t>(fi), fam) !=
          families.begin() + static_cast<std::ptrdiff_t>(fi)) {
        continue;
      }
      // Cheap filter: a shift can only shorten F if at least two support terms are present.
      auto [present, base_c0] = monos_present(fam.base);
      if (!fam.hermite && base_c0 != 0 && p.c0 != 0) ++present;
      for (const auto& [k, nk] : atoms) {
        if (nk.second != fam.k) continue;
        if (fam.hermite) {
          if (k == Kind::kFloorDiv && strip_constant(nk.first) == fam.base) ++present;
        } else if (nk.first == fam.base) {
          ++present;
        }
      }
      if (present < 2) continue;

      PolyLoan z(*this);
      try {
        const Expr kk = integer(fam.k);
        append_terms(fam.base, 1, *z);
        if (fam.hermite) {
          for (std::int64_t j = 0; j < fam.k; ++j) {
            append_terms(floor_div(add(fam.base, integer(j)), kk), -1, *z);
          }
        } else {
          append_terms(floor_div(fam.base, kk), -fam.k, *z);
          append_terms(mod(fam.base, kk), -1, *z);
        }
        normalize(*z);
      } catch (const ExprError&) {
        continue;
      }
      if (z->terms.empty()) continue;

      std::vector<Entry> support;
      support.reserve(z->terms.size() + 1);
      for (const Term& t : z->terms) {
        support.push_back(
            Entry{t.mono, t.coef, coef_in(p, t.mono), is_division(nodes[t.mono].kind)});
      }
      if (z->c0 != 0) support.push_back(Entry{kConstSlot, z->c0, p.c0, false});
      int count0 = 0;
      for (const Entry& e : support) count0 += e.f != 0 ? 1 : 0;

      struct Best {
        int count;
        int atoms;
        std::uint64_t mag;
        std::int64_t c;
      };
      std::optional<Best> best;
      for (const Entry& pivot : support) {
        if (pivot.f == 0) continue;
        if (pivot.z == -1 ? pivot.f == kNegInf : pivot.f % pivot.z != 0) continue;
        const std::int64_t q = pivot.f / pivot.z;
        if (q == kNegInf) continue;
        const std::int64_t c = -q;
        Best cand{0, 0, magnitude(c), c};
        bool overflow = false;
        for (const Entry& e : support) {
          const auto prod = try_mul(c, e.z);
          const auto v = prod ? try_add(e.f, *prod) : std::nullopt;
          if (!v) {
            overflow = true;
            break;
          }
          if (*v != 0) {
            ++cand.count;
            if (e.atom) ++cand.atoms;
          }
        }
        if (overflow) continue;
        const auto key = [](const Best& b) { return std::tuple(b.count, b.atoms, b.mag, b.c < 0); };
        if (!best || key(cand) < key(*best)) best = cand;
      }
      if (!best || best->count >= count0) continue;

      for (const Entry& e : support) {
        const std::int64_t v = e.f + best->c * e.z;
        if (e.mono == kConstSlot) {
          p.c0 = v;
          continue;
        }
        auto it = std::lower_bound(p.terms.begin(), p.terms.end(), e.mono,
                                   [](const Term& t, std::uint32_t m) { return t.mono < m; });
        if (it != p.terms.end() && it->mono == e.mono) {
          it->coef = v;
        } else {
          p.terms.insert(it, Term{e.mono, v});
        }
      }
      normalize(p);
      changed = true;
    }
    if (!changed) break;
    changed_any = true;
  }
  return changed_any;
}

}  // namespace cctx
