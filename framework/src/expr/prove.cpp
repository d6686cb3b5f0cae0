// prove_ge and friends (expressions.md section 5). A false result means "not proven", never a
// guess: every step below is sound, and any failure (budget, overflow) ends in false.
#include <algorithm>
#include <unordered_set>

#include "expr/pool_impl.hpp"

namespace cctx {

using namespace detail;

namespace {

constexpr std::int64_t kProofBudget = 10000;
// Proofs build expressions, whose max/min constructors start proofs of their own. Past this
// nesting only the interval step runs, which bounds the work on deeply nested max/min.
constexpr int kMaxProofNesting = 3;

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

bool detail::PoolImpl::prove_nonneg(Expr d) {
  if (is_int(d)) return int_value(d) >= 0;
  const unsigned cached = (state[d.id] >> 1) & 3U;
  if (cached != 0) return cached == 1;
  if (proof_nesting >= kMaxProofNesting) return interval(d).lo >= 0;
  bool proven = false;
  {
    NestingGuard guard(proof_nesting);
    std::int64_t budget = kProofBudget;
    try {
      proven = nonneg_rec(d, 0, budget);
    } catch (const BudgetExhausted&) {
      proven = false;
    } catch (const ExprError&) {
      proven = false;
    }
  }
  state[d.id] = static_cast<std::uint8_t>(state[d.id] | ((proven ? 1U : 2U) << 1));
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

bool detail::PoolImpl::nonneg_rec(Expr d, int depth, std::int64_t& budget) {
  if (--budget < 0) throw BudgetExhausted{};
  const Node n = nodes[d.id];
  // (1) a literal.
  if (n.kind == Kind::kInt) return n.aux >= 0;
  // (2) the interval.
  const Interval iv = interval(d);
  if (iv.lo >= 0) return true;
  if (iv.hi < 0) return false;

  // (3) case split on the first max/min atom that is a linear term c*atom of d.
  if ((n.flags & kFlagMinMax) != 0) {
    std::optional<Expr> atom;
    std::int64_t c = 1;
    Expr rest = integer(0);
    if (is_minmax(n.kind)) {
      atom = d;
    } else if (n.kind == Kind::kSum) {
      PolyLoan p(*this);
      append_terms(d, 1, *p);
      for (std::size_t i = 0; i < p->terms.size(); ++i) {
        if (is_minmax(nodes[p->terms[i].mono].kind)) {
          atom = Expr{p->terms[i].mono};
          c = p->terms[i].coef;
          p->terms.erase(p->terms.begin() + static_cast<std::ptrdiff_t>(i));
          break;
        }
      }
      if (atom) rest = make_poly(*p);
    }
    if (atom) {
      const Node an = nodes[atom->id];
      const std::vector<std::uint32_t> args(payload.begin() + an.off,
                                            payload.begin() + an.off + an.len);
      // d = rest + c*M. With -c*max / +c*min (c > 0), M can be any argument: all cases are
      // needed. Otherwise d >= rest + c*arg for every argument, so one case is enough.
      const bool need_all = (an.kind == Kind::kMax) ? c < 0 : c > 0;
      bool all_ok = true;
      for (const std::uint32_t arg : args) {
        const Expr case_d = add(rest, scale(Expr{arg}, c));
        const bool ok = nonneg_rec(case_d, depth, budget);
        if (!need_all && ok) return true;
        if (need_all && !ok) {
          all_ok = false;
          break;
        }
      }
      if (need_all && all_ok) return true;
    }
  }

  // (4) monotonicity: each coordinate step d[s:=s+1] - d has a proven sign, so d is smallest
  // at a corner of the box, where it is evaluated. The step walks through in-bounds points
  // only, so d must be defined everywhere in the box.
  if (depth >= 2) return false;
  if ((n.flags & kFlagMaybeUndef) != 0 && !defined_everywhere(d)) return false;
  std::vector<std::uint32_t> syms;
  collect_symbols(d, syms);
  Assignment corner;
  for (const std::uint32_t s : syms) {
    const Interval b = symbols[s].bounds;
    if (b.lo == kNegInf && b.hi == kPosInf) return false;
    const Expr sn = symbol_node(s);
    const Expr shifted = substitute_syms(d, {{s, add(sn, integer(1))}}, &budget);
    const Expr step = sub(shifted, d);
    if (b.lo != kNegInf && nonneg_rec(step, depth + 1, budget)) {
      corner.emplace(symbols[s].name, b.lo);
    } else if (b.hi != kPosInf && nonneg_rec(neg(step), depth + 1, budget)) {
      corner.emplace(symbols[s].name, b.hi);
    } else {
      return false;
    }
  }
  try {
    return eval(d, corner) >= 0;
  } catch (const ExprError&) {
    return false;
  }
}

}  // namespace cctx
