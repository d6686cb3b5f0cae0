// prove_ge and friends (expressions.md section 5). A false result means "not proven", never a
// guess: every step below is sound, and any failure (budget, overflow) ends in false.
#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <unordered_set>

#include "expr/pool_impl.hpp"

namespace cctx {

using namespace detail;

namespace {

constexpr std::int64_t kProofBudget = 10000;
/// Expression weight that costs one more unit of the proof budget per step (kProofBudget).
constexpr std::uint32_t kProofWeightPerStep = 8;
/// A case split (step 3) is tried only on goals with at most this many max/min atoms.
constexpr std::size_t kMaxSplitAtoms = 8;
/// Goals of at least this weight are evaluated at points before a proof (refuted_by_points).
constexpr std::uint32_t kRefuteWeight = 64;
// Proofs build expressions, whose max/min constructors start proofs of their own. Past this
// nesting only the interval step runs, which bounds the work on deeply nested max/min.
constexpr int kMaxProofNesting = 3;
// Step (2d) is tried on sums of at most this many terms (a CNN peak's pairwise differences have
// about ten), and only on floor divisions by at most kMaxRelaxedDivisor.
constexpr std::uint32_t kMaxRelaxedTerms = 24;
constexpr std::int64_t kMaxRelaxedDivisor = 1024;

/// Goals evaluated at points before a proof: the large ones, and those over max/min atoms, whose
/// case splits (2^atoms cases, up to kMaxSplitAtoms) spend the whole budget when the goal is
/// false (a detection graph compares -16*K_a+8*K_b-28*min(300,K_c)-... pairwise: 4M
/// instructions each).
bool worth_refuting(const Node& n) {
  return n.weight >= kRefuteWeight || (n.flags & kFlagMinMax) != 0;
}

class NestingGuard {
 public:
  explicit NestingGuard(int& depth) : depth_(depth) { ++depth_; }
  ~NestingGuard() { --depth_; }
  NestingGuard(const NestingGuard&) = delete;
  NestingGuard& operator=(const NestingGuard&) = delete;

 private:
  int& depth_;
};

}  // namespace

bool detail::PoolImpl::prove_ge(Expr a, Expr b) {
  if (a == b) return true;
  Expr d;
  try {
    d = sub(a, b);
  } catch (const ExprError&) {
    return false;
  }
  return prove_nonneg(d);
}

bool detail::PoolImpl::refuted_by_points(Expr d) {
  // The lower bounds (where sizes are smallest), a point well inside the bounds, and two points
  // where each symbol has an offset of its own (symmetric terms differ there). Symbols added
  // since the last call are appended, so the points cost O(1) per symbol in all.
  refuting_points.resize(4);
  for (; refuting_symbols < symbols.size(); ++refuting_symbols) {
    const SymbolInfo& s = symbols[refuting_symbols];
    const std::int64_t lo =
        s.bounds.lo == kNegInf ? std::min<std::int64_t>(0, s.bounds.hi) : s.bounds.lo;
    const std::uint64_t i = refuting_symbols + 1;
    for (std::size_t j = 0; j < refuting_points.size(); ++j) {
      const auto offset = j == 0   ? 0
                          : j == 1 ? 1009
                                   : static_cast<std::int64_t>(1 + (j * 7919 + i * 104729) % 997);
      refuting_points[j][s.name] = lo <= kPosInf - offset ? std::min(lo + offset, s.bounds.hi) : lo;
    }
  }
  for (const Assignment& point : refuting_points) {
    try {
      if (eval(d, point) < 0) return true;
    } catch (const ExprError&) {
    }
  }
  return false;
}

bool detail::PoolImpl::prove_nonneg(Expr d) {
  if (is_int(d)) return int_value(d) >= 0;
  const unsigned cached = (extra[d.id].state >> 1) & 3U;
  if (cached != 0) return cached == 1;
  if (proof_nesting >= kMaxProofNesting) return interval(d).lo >= 0;
  bool proven = false;
  const bool top_level = proof_nesting == 0;
  // A large goal is evaluated at fixed points first, then at a point chosen for it: the proof
  // of a claim false there can only fail, after spending its budget (a detection graph's peak
  // compares sums of a hundred min(300, NonZero_k) terms pairwise). Small goals go straight to
  // the proof.
  if (top_level && worth_refuting(nodes[d.id]) && (refuted_by_points(d) || refuted_at_corner(d))) {
    extra[d.id].state = static_cast<std::uint8_t>(extra[d.id].state | (2U << 1));
    return false;
  }
  {
    NestingGuard guard(proof_nesting);
    ProofCtx ctx;
    ctx.budget = kProofBudget;
    try {
      proven = nonneg_rec(d, 0, ctx);
    } catch (const BudgetExhausted&) {
      proven = false;
    } catch (const ExprError&) {
      proven = false;
    }
    proof_units += static_cast<std::uint64_t>(kProofBudget - std::max<std::int64_t>(ctx.budget, 0));
  }
  // A proof holds wherever it was found; a failure is final only with the full machinery
  // (nested proofs run with less), so only top-level failures are cached. This keeps the
  // cache, and the max/min forms built from it, independent of the order of calls.
  if (proven || top_level) {
    extra[d.id].state = static_cast<std::uint8_t>(extra[d.id].state | ((proven ? 1U : 2U) << 1));
  }
  return proven;
}

bool detail::PoolImpl::defined_everywhere(Expr d) {
  std::vector<std::uint32_t> stack{d.id};
  std::unordered_set<std::uint32_t> seen;
  while (!stack.empty()) {
    const std::uint32_t id = stack.back();
    stack.pop_back();
    const Node n = nodes[id];
    if ((n.flags & kFlagMaybeUndef) == 0 || !seen.insert(id).second) continue;
    const std::uint32_t* w = payload.data() + n.off;
    switch (n.kind) {
      case Kind::kExactDiv:
        return false;  // `/:` is undefined where inexact
      case Kind::kFloorDiv:
      case Kind::kMod: {
        const Interval iv = interval(Expr{w[1]});
        if (iv.lo <= 0 && iv.hi >= 0) return false;
        stack.push_back(w[0]);
        stack.push_back(w[1]);
        break;
      }
      case Kind::kSum:
        for (std::uint32_t t = 0; t < n.len; t += 3) stack.push_back(w[t]);
        break;
      case Kind::kMono:
        for (std::uint32_t t = 0; t < n.len; t += 2) stack.push_back(w[t]);
        break;
      default:
        for (std::uint32_t t = 0; t < n.len; ++t) stack.push_back(w[t]);
        break;
    }
  }
  return true;
}

namespace {

int combine(int a, int b) { return detail::combine_directions(a, b); }
int flip(int a) { return (a == 1 || a == -1) ? -a : a; }

}  // namespace

int detail::PoolImpl::direction(Expr e, std::uint32_t sym_node,
                                std::unordered_map<std::uint64_t, int>& memo, bool prove_signs) {
  if ((nodes[e.id].sig & nodes[sym_node].sig) == 0) return 0;
  if (e.id == sym_node) return 1;
  const std::uint64_t key = (std::uint64_t{e.id} << 32) | sym_node;
  if (const auto it = memo.find(key); it != memo.end()) return it->second;
  // By value and by index into the payload: prove_nonneg may intern expressions, which moves
  // the pool's storage.
  const Kind kind = nodes[e.id].kind;
  const std::uint32_t off = nodes[e.id].off, len = nodes[e.id].len;
  auto word = [&](std::uint32_t i) { return Expr{payload[off + i]}; };
  auto nonneg = [&](Expr f) {
    if (interval(f).lo >= 0) return true;
    if (!prove_signs) return false;
    try {
      return prove_nonneg(f);
    } catch (const ExprError&) {
      return false;  // a proof that would overflow shows nothing
    }
  };
  int r = 0;
  switch (kind) {
    case Kind::kInt:
    case Kind::kSym:
      break;
    case Kind::kSum:
      for (std::uint32_t i = 0; i < len && r != 2; i += 3) {
        const int t = direction(word(i), sym_node, memo, prove_signs);
        r = combine(r, get_i64(payload.data() + off + i + 1) < 0 ? flip(t) : t);
      }
      break;
    case Kind::kMono:
      // A product of non-negative factors moves with its dependent factors when they agree.
      for (std::uint32_t i = 0; i < len && r != 2; i += 2) {
        if (!nonneg(word(i))) {
          r = 2;
          break;
        }
        r = combine(r, direction(word(i), sym_node, memo, prove_signs));
      }
      break;
    case Kind::kFloorDiv:
      // floor(n/d) is non-decreasing in n for a fixed d >= 1.
      r = (direction(word(1), sym_node, memo, prove_signs) == 0 && interval(word(1)).lo >= 1)
              ? direction(word(0), sym_node, memo, prove_signs)
              : 2;
      break;
    case Kind::kExactDiv:
    case Kind::kMod:
      r = 2;
      break;
    case Kind::kMax:
    case Kind::kMin:
      for (std::uint32_t i = 0; i < len && r != 2; ++i) {
        r = combine(r, direction(word(i), sym_node, memo, prove_signs));
      }
      break;
  }
  memo.emplace(key, r);
  return r;
}

namespace {

/// x and K when `e` is the ceiling division (x + K - 1) // K of a symbol x, K > 1 (a convolution
/// or pooling size with "same" padding: (h+1)//2, (h+3)//4, (h+7)//8, ...).
bool ceil_division_of_symbol(const detail::PoolImpl& pool, Expr e, Expr* x, std::int64_t* k) {
  if (pool.kind(e) != Kind::kFloorDiv || !pool.is_int(pool.child(e, 1))) return false;
  *k = pool.int_value(pool.child(e, 1));
  if (*k <= 1 || *k > kMaxRelaxedDivisor) return false;
  const Expr u = pool.child(e, 0);
  // u is the sum x + (K-1): a kSum of one symbol term with coefficient 1.
  const Node& n = pool.nodes[u.id];
  if (n.kind != Kind::kSum || n.len != 3 || n.aux != *k - 1) return false;
  const std::uint32_t* w = pool.payload.data() + n.off;
  if (get_i64(w + 1) != 1 || pool.kind(Expr{w[0]}) != Kind::kSym) return false;
  *x = Expr{w[0]};
  return true;
}

}  // namespace

std::optional<Expr> detail::PoolImpl::relaxed_floor_divisions(Expr d) {
  PolyLoan p(*this);
  append_terms(d, 1, *p);
  struct RelaxedFactor {
    Expr expr;  // the factor as it is, unless `chained`
    std::uint32_t exponent = 1;
    std::uint32_t symbol = 0;  // a ceiling division (symbol + divisor - 1) // divisor...
    std::int64_t divisor = 0;  // ...when divisor > 0
    bool chained = false;      // written as the finest division of `symbol`, plus `shift`
    std::int64_t shift = 0;
  };
  struct Relaxed {
    std::int64_t coef;
    std::int64_t den = 1;
    std::vector<RelaxedFactor> factors;
  };
  // The finest ceiling division of a symbol, (x+k-1)//k with k the smallest divisor seen, and
  // what stands for it in the relaxed sum: itself, or x (see below).
  struct Chain {
    std::uint32_t symbol;
    std::int64_t k;
    Expr written{};
  };
  std::vector<Relaxed> terms;
  terms.reserve(p->terms.size());
  std::vector<Chain> chains;
  auto chain_of = [&](std::uint32_t x) {
    return std::find_if(chains.begin(), chains.end(),
                        [&](const Chain& c) { return c.symbol == x; });
  };
  for (const Term& t : p->terms) {
    Relaxed r{t.coef, 1, {}};
    const Node& m = nodes[t.mono];
    if (m.kind == Kind::kMono) {
      for (std::uint32_t i = 0; i < m.len; i += 2) {
        r.factors.push_back(RelaxedFactor{Expr{payload[m.off + i]}, payload[m.off + i + 1]});
      }
    } else {
      r.factors.push_back(RelaxedFactor{Expr{t.mono}});
    }
    for (RelaxedFactor& f : r.factors) {
      Expr x;
      if (!ceil_division_of_symbol(*this, f.expr, &x, &f.divisor)) {
        f.divisor = 0;
        continue;
      }
      f.symbol = x.id;
      const auto it = chain_of(x.id);
      if (it == chains.end()) {
        chains.push_back(Chain{x.id, f.divisor});
      } else {
        it->k = std::min(it->k, f.divisor);
      }
    }
    terms.push_back(std::move(r));
  }
  if (chains.empty()) return std::nullopt;
  // A coarser ceiling division is one of the finest: ceil(x/K) = ceil(ceil(x/k) / (K/k)) when k
  // divides K, so with q = (x+k-1)//k and m = K/k, q/m <= (x+K-1)//K <= (q+m-1)/m. A positive
  // term takes the lower bound, a negative one the upper (every factor must be >= 0 for the
  // product to move with each factor).
  std::int64_t lcm = 1;
  bool any = false;
  for (Relaxed& r : terms) {
    bool relaxed_here = false;
    for (RelaxedFactor& f : r.factors) {
      if (f.divisor == 0) continue;
      const std::int64_t base_k = chain_of(f.symbol)->k;
      if (f.divisor % base_k != 0) continue;  // not in the chain: stays as it is
      f.chained = true;
      if (base_k == f.divisor) continue;
      const std::int64_t m = f.divisor / base_k;
      f.shift = r.coef > 0 ? 0 : m - 1;
      for (std::uint32_t i = 0; i < f.exponent; ++i) {
        if (__builtin_mul_overflow(r.den, m, &r.den)) return std::nullopt;
      }
      relaxed_here = any = true;
    }
    if (!relaxed_here) continue;
    for (const RelaxedFactor& f : r.factors) {
      if (!f.chained && interval(f.expr).lo < 0) return std::nullopt;
    }
    lcm = std::lcm(lcm, r.den);
    if (lcm > (std::int64_t{1} << 30)) return std::nullopt;
  }
  if (!any) return std::nullopt;
  // When a symbol occurs only through its finest ceiling division q, and q takes exactly the
  // values the symbol does (the same lower bound, no upper one), q may be written as the symbol
  // itself: the goal then is a polynomial, which monotonicity steps settle.
  std::vector<std::uint32_t> seen;
  for (Chain& c : chains) {
    const auto index = static_cast<std::uint32_t>(nodes[c.symbol].aux);
    const Interval b = symbols[index].bounds;
    const Expr q = floor_div(add(Expr{c.symbol}, integer(c.k - 1)), integer(c.k));
    bool alone = b.hi == kPosInf && interval(q).lo == b.lo;
    for (const Relaxed& r : terms) {
      for (const RelaxedFactor& f : r.factors) {
        if (!alone || f.chained) continue;
        seen.clear();
        collect_symbols(f.expr, seen);
        alone = std::find(seen.begin(), seen.end(), index) == seen.end();
      }
    }
    c.written = alone ? Expr{c.symbol} : q;
  }
  std::int64_t c0 = 0;
  if (__builtin_mul_overflow(p->c0, lcm, &c0)) return std::nullopt;
  Expr total = integer(c0);
  for (const Relaxed& r : terms) {
    std::int64_t coef = 0;
    if (__builtin_mul_overflow(r.coef, lcm / r.den, &coef)) return std::nullopt;
    Expr product = integer(coef);
    for (const RelaxedFactor& f : r.factors) {
      const Expr factor = f.chained ? add(chain_of(f.symbol)->written, integer(f.shift)) : f.expr;
      for (std::uint32_t i = 0; i < f.exponent; ++i) product = mul(product, factor);
    }
    total = add(total, product);
  }
  return total;
}

std::optional<Expr> detail::PoolImpl::common_factor_rest(Expr d, int depth, ProofCtx& ctx) {
  const Node n = nodes[d.id];
  // Each term's factors (atom, exponent), sorted by atom as monomials keep them.
  auto factors_of = [&](std::uint32_t mono) {
    std::vector<Factor> f;
    const Node& m = nodes[mono];
    if (m.kind == Kind::kMono) {
      for (std::uint32_t i = 0; i < m.len; i += 2) {
        f.push_back(Factor{payload[m.off + i], payload[m.off + i + 1]});
      }
    } else {
      f.push_back(Factor{mono, 1});
    }
    return f;
  };
  const std::uint32_t terms = n.len / 3;
  std::vector<Factor> common = factors_of(payload[n.off]);
  for (std::uint32_t t = 1; t < terms && !common.empty(); ++t) {
    const std::vector<Factor> f = factors_of(payload[n.off + 3 * t]);
    std::vector<Factor> kept;
    for (const Factor& c : common) {
      const auto it =
          std::find_if(f.begin(), f.end(), [&](const Factor& x) { return x.atom == c.atom; });
      if (it != f.end()) kept.push_back(Factor{c.atom, std::min(c.exp, it->exp)});
    }
    common = std::move(kept);
  }
  if (common.empty()) return std::nullopt;
  for (const Factor& c : common) {
    if (c.exp % 2 == 1 && !nonneg_rec(Expr{c.atom}, depth, ctx)) return std::nullopt;
  }
  PolyLoan rest(*this);  // the terms divided by G; d's constant term is not part of it
  for (std::uint32_t t = 0; t < terms; ++t) {
    const std::uint32_t* w = payload.data() + n.off + 3 * t;
    std::vector<Factor> f = factors_of(w[0]);
    for (Factor& x : f) {
      for (const Factor& c : common) {
        if (c.atom == x.atom) x.exp -= c.exp;
      }
    }
    f.erase(std::remove_if(f.begin(), f.end(), [](const Factor& x) { return x.exp == 0; }),
            f.end());
    if (f.empty()) {
      rest->c0 += get_i64(w + 1);  // no overflow: the coefficients were the sum's own
    } else {
      rest->terms.push_back(Term{make_mono(f).id, get_i64(w + 1)});
    }
  }
  return make_poly(*rest);
}

bool detail::PoolImpl::nonneg_rec(Expr d, int depth, ProofCtx& ctx) {
  // Case splits and monotonicity steps meet the same sub-goals again: decide each once.
  const std::uint64_t key = (std::uint64_t{d.id} << 2) | static_cast<std::uint64_t>(depth);
  if (const auto it = ctx.decided.find(key); it != ctx.decided.end()) return it->second;
  const bool r = nonneg_step(d, depth, ctx);
  ctx.decided.emplace(key, r);
  return r;
}

bool detail::PoolImpl::nonneg_step(Expr d, int depth, ProofCtx& ctx) {
  const Node n = nodes[d.id];
  // One unit per step, and more for a large goal: every step builds sub-goals as large as d (a
  // case split rewrites the rest of the sum), so a step budget alone lets one proof over a sum of
  // a hundred min() terms cost ten thousand such rebuilds (detection graphs: issue 19 item 7).
  ctx.budget -= 1 + static_cast<std::int64_t>(n.weight / kProofWeightPerStep);
  if (ctx.budget < 0) throw BudgetExhausted{};
  // (1) a literal.
  if (n.kind == Kind::kInt) return n.aux >= 0;
  // (2) the interval.
  const Interval iv = interval(d);
  if (iv.lo >= 0) return true;
  if (iv.hi < 0) return false;

  // (2b) a monomial is >= 0 when each factor of odd exponent is: the interval of a product
  // loses that when a factor's own interval dips below 0 (`b*min(x,1)*s` with x >= 0 by proof).
  if (n.kind == Kind::kMono) {
    const std::vector<std::uint32_t> w(payload.begin() + n.off, payload.begin() + n.off + n.len);
    bool all = true;
    for (std::size_t i = 0; i < w.size() && all; i += 2) {
      if (w[i + 1] % 2 == 1) all = nonneg_rec(Expr{w[i]}, depth, ctx);
    }
    if (all) return true;
  }

  // (2e) a sum whose terms share factors: d = G * d' + c0 with G the monomial of the factors
  // every term has (each at its smallest exponent) and c0 >= 0 the constant. When G's factors
  // of odd exponent are >= 0, d >= 0 follows from d' >= 0. Broadcasting dims that are not
  // provably equal gives `a*min(1,b)` beside `a` (RAFT's flow at a stride of 8): `a - a*min(1,b)`
  // is `a*(1 - min(1,b))`, which the interval of the sum cannot see.
  if (n.kind == Kind::kSum && n.aux >= 0) {
    if (const std::optional<Expr> rest = common_factor_rest(d, depth, ctx)) {
      if (nonneg_rec(*rest, depth, ctx)) return true;
    }
  }

  // (2c) floor division is monotone in its numerator: with c > 0, k a positive literal and
  // q = c0 // c, c*(A//k) - c*(B//k) + c0 = c*(A//k - (B - q*k)//k) + (c0 - c*q), whose last
  // part is in [0, c): so it is >= 0 when A - B + q*k >= 0. Pool and convolution sizes meet this
  // as min((h+1)//4, (h+3)//4) or min((h+1)//4, (h+3)//4-1), which neither the interval nor the
  // monotonicity step can settle.
  if (n.kind == Kind::kSum && n.len == 6) {
    const std::uint32_t* w = payload.data() + n.off;
    const std::int64_t t0 = get_i64(w + 1), t1 = get_i64(w + 4);  // the terms' coefficients
    if (t0 == -t1 && t0 != 0 && t0 != std::numeric_limits<std::int64_t>::min()) {
      const Expr up{t0 > 0 ? w[0] : w[3]};
      const Expr down{t0 > 0 ? w[3] : w[0]};
      const Expr k = child(up, 1);
      if (kind(up) == Kind::kFloorDiv && kind(down) == Kind::kFloorDiv && k == child(down, 1) &&
          is_int(k) && int_value(k) > 0) {
        const std::int64_t c = t0 > 0 ? t0 : -t0;
        const std::int64_t q = floor_div_int(n.aux, c);
        std::int64_t shift = 0;
        if (!__builtin_mul_overflow(q, int_value(k), &shift) &&
            nonneg_rec(add(sub(child(up, 0), child(down, 0)), integer(shift)), depth, ctx)) {
          return true;
        }
      }
    }
  }

  // (2d) nested ceiling divisions of one symbol related: a CNN's peak compares terms in
  // (h+1)//2, (h+3)//4, (h+7)//8 of the same h, each the one before halved and rounded up, which
  // neither the interval nor monotonicity relates. Each coarser one is bounded by the finest (see
  // relaxed_floor_divisions): the relaxed sum, scaled by its denominators' lcm, is at most L*d,
  // so its proof proves d.
  if (depth == 0 && n.kind == Kind::kSum && n.len <= 3 * kMaxRelaxedTerms) {
    if (const std::optional<Expr> relaxed = relaxed_floor_divisions(d)) {
      if (nonneg_rec(*relaxed, depth, ctx)) return true;
    }
  }

  // (3) case split on max/min atoms that are linear terms c*atom of d. With -c*max / +c*min
  // (c > 0) the atom may equal any argument, so every case is needed, and the split loses
  // nothing: such an atom is split first. Otherwise d >= rest + c*arg for each argument and one
  // proven case suffices; then each such atom is tried in turn.
  if ((n.flags & kFlagMinMax) != 0 && (is_minmax(n.kind) || n.kind == Kind::kSum)) {
    struct Split {
      std::size_t index;
      Expr atom;
      std::int64_t c;
      bool need_all;
    };
    std::vector<Split> splits;
    PolyLoan p(*this);
    append_terms(d, 1, *p);
    for (std::size_t i = 0; i < p->terms.size(); ++i) {
      const Kind k = nodes[p->terms[i].mono].kind;
      if (!is_minmax(k)) continue;
      const std::int64_t c = p->terms[i].coef;
      splits.push_back(Split{i, Expr{p->terms[i].mono}, c, k == Kind::kMax ? c < 0 : c > 0});
    }
    // Each split halves nothing: a goal over many max/min atoms (a detection graph's sums of a
    // hundred min(300, n_k)) would walk a tree of 2^atoms cases until the budget ends it. Past
    // kMaxSplitAtoms the split is not tried.
    if (splits.size() > kMaxSplitAtoms) splits.clear();
    const auto lossless =
        std::find_if(splits.begin(), splits.end(), [](const Split& s) { return s.need_all; });
    if (lossless != splits.end()) {
      // The lossless split doubles the cases per atom, so first an atom where one case suffices
      // and one of its cases is settled by its interval: `S - min(300,S)` with S a sum of seven
      // min(300, n_k) (a detection graph's final TopK) took 2^7 cases before its trivial case
      // S - S = 0 (35M instructions).
      for (const Split& s : splits) {
        if (s.need_all) continue;
        Poly rest_poly = p.operator*();
        rest_poly.terms.erase(rest_poly.terms.begin() + static_cast<std::ptrdiff_t>(s.index));
        const Expr rest = make_poly(rest_poly);
        const Node an = nodes[s.atom.id];
        for (std::uint32_t i = 0; i < an.len; ++i) {
          try {
            if (interval(add(rest, scale(Expr{payload[an.off + i]}, s.c))).lo >= 0) return true;
          } catch (const ExprError&) {
            // an overflowing case settles nothing here; the split below still tries it
          }
        }
      }
      splits = {*lossless};
    }
    for (const Split& s : splits) {
      Poly rest_poly = p.operator*();
      rest_poly.terms.erase(rest_poly.terms.begin() + static_cast<std::ptrdiff_t>(s.index));
      const Expr rest = make_poly(rest_poly);
      const Node an = nodes[s.atom.id];
      const std::vector<std::uint32_t> args(payload.begin() + an.off,
                                            payload.begin() + an.off + an.len);
      bool all_ok = true;
      for (const std::uint32_t arg : args) {
        const bool ok = nonneg_rec(add(rest, scale(Expr{arg}, s.c)), depth, ctx);
        if (!s.need_all && ok) return true;
        if (s.need_all && !ok) {
          all_ok = false;
          break;
        }
      }
      if (s.need_all && all_ok) return true;
    }
  }

  // (4) monotonicity: each coordinate step d[s:=s+1] - d has a proven sign, so d is smallest
  // at a corner of the box, where it is evaluated. The step walks through in-bounds points
  // only, so d must be defined everywhere in the box.
  if (depth >= 2) return false;
  if ((n.flags & kFlagMaybeUndef) != 0 && !defined_everywhere(d)) return false;
  // Directions come from the structure where it settles them (a cheap walk, and it fails fast
  // when a needed bound is infinite); otherwise from the sign of the step d[s:=s+1] - d.
  // First the symbols that are top-level linear terms c*s and occur nowhere else: their
  // direction is the sign of c, read off without walking the DAG.
  {
    PolyLoan p(*this);
    append_terms(d, 1, *p);
    for (const Term& t : p->terms) {
      const Node& m = nodes[t.mono];
      if (m.kind != Kind::kSym) continue;
      const bool only_linear = std::none_of(p->terms.begin(), p->terms.end(), [&](const Term& o) {
        return o.mono != t.mono && (nodes[o.mono].sig & m.sig) != 0;
      });
      const Interval b = symbols[static_cast<std::size_t>(m.aux)].bounds;
      if (only_linear && (t.coef > 0 ? b.lo == kNegInf : b.hi == kPosInf)) return false;
    }
  }
  std::vector<std::uint32_t> syms;
  collect_symbols(d, syms);
  std::vector<std::pair<std::uint32_t, std::int64_t>> at;  // the corner, by symbol index
  std::vector<std::uint32_t> unknown;
  for (const std::uint32_t s : syms) {
    const Interval b = symbols[s].bounds;
    const int dir = direction(d, symbol_node(s).id, ctx.directions);
    if (dir == 0) {
      // d does not depend on s; any in-bounds value does for the evaluation.
      at.emplace_back(s, b.lo != kNegInf ? b.lo : b.hi != kPosInf ? b.hi : 0);
    } else if (dir == 1 && b.lo != kNegInf) {
      at.emplace_back(s, b.lo);
    } else if (dir == -1 && b.hi != kPosInf) {
      at.emplace_back(s, b.hi);
    } else if (dir == 2 && (b.lo != kNegInf || b.hi != kPosInf)) {
      unknown.push_back(s);
    } else {
      return false;
    }
  }
  for (const std::uint32_t s : unknown) {
    const Interval b = symbols[s].bounds;
    const Expr sn = symbol_node(s);
    // Max/min are rebuilt structurally: dominance proofs here would nest proofs in proofs.
    const Expr shifted = substitute_syms(d, {{s, add(sn, integer(1))}}, &ctx.budget, true);
    const Expr step = sub(shifted, d);
    if (b.lo != kNegInf && nonneg_rec(step, depth + 1, ctx)) {
      at.emplace_back(s, b.lo);
    } else if (b.hi != kPosInf && nonneg_rec(neg(step), depth + 1, ctx)) {
      at.emplace_back(s, b.hi);
    } else {
      return false;
    }
  }
  Assignment corner;
  for (const auto& [s, v] : at) corner.emplace(symbols[s].name, v);
  try {
    return eval(d, corner) >= 0;
  } catch (const ExprError&) {
    return false;
  }
}

}  // namespace cctx
