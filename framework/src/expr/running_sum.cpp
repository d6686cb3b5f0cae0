// RunningSum: a polynomial kept as a sorted term list between reads, interned only when read.
#include <algorithm>

#include "expr/pool_impl.hpp"

namespace cctx {

using namespace detail;

namespace {
// Operands with these flags are rewritten by the pool when added (division families, exact
// factors): such a sum is left to ExprPool::add/sub so that its value stays the pool's.
constexpr std::uint8_t kRewriteFlags = kFlagLitDiv | kFlagExactFactor;
}  // namespace

bool RunningSum::load(Expr e) {
  PoolImpl& impl = *pool_->impl_;
  if ((impl.nodes[e.id].flags & kRewriteFlags) != 0) return false;
  PolyLoan p(impl);
  impl.append_terms(e, 1, *p);
  constant_ = p->c0;
  terms_.clear();
  for (const detail::Term& t : p->terms) terms_.push_back(Term{t.mono, t.coef});
  return true;
}

void RunningSum::change(Expr e, std::int64_t sign) {
  PoolImpl& impl = *pool_->impl_;
  cached_.reset();
  if (slow_ || (impl.nodes[e.id].flags & kRewriteFlags) != 0) {
    const Expr current = slow_ ? *slow_ : value();
    const Expr next = sign > 0 ? impl.add(current, e) : impl.sub(current, e);
    if (load(next)) {
      slow_.reset();
    } else {
      slow_ = next;
    }
    cached_ = next;
    return;
  }
  const Node& n = impl.nodes[e.id];
  auto merge = [&](std::uint32_t mono, std::int64_t coef) {
    coef = checked_mul(coef, sign);
    auto it = std::lower_bound(terms_.begin(), terms_.end(), mono,
                               [](const Term& t, std::uint32_t m) { return t.mono < m; });
    if (it != terms_.end() && it->mono == mono) {
      it->coef = checked_add(it->coef, coef);
      if (it->coef == 0) terms_.erase(it);
    } else {
      terms_.insert(it, Term{mono, coef});
    }
  };
  switch (n.kind) {
    case Kind::kInt:
      constant_ = checked_add(constant_, checked_mul(n.aux, sign));
      return;
    case Kind::kSum: {
      constant_ = checked_add(constant_, checked_mul(n.aux, sign));
      const std::uint32_t* w = impl.payload.data() + n.off;
      for (std::uint32_t t = 0; t < n.len; t += 3) merge(w[t], get_i64(w + t + 1));
      return;
    }
    default:
      merge(e.id, 1);
      return;
  }
}

bool RunningSum::interned_as_is(Expr e) const {
  const Node& n = pool_->impl_->nodes[e.id];
  if (terms_.empty()) return n.kind == Kind::kInt;
  if (n.kind == Kind::kSum) return n.len == 3 * terms_.size();
  // One term with coefficient 1 and no constant is interned as the monomial itself.
  return terms_.size() == 1 && terms_[0].coef == 1 && constant_ == 0 && terms_[0].mono == e.id;
}

Expr RunningSum::value() {
  if (cached_) return *cached_;
  if (slow_) return *(cached_ = slow_);
  PoolImpl& impl = *pool_->impl_;
  PolyLoan p(impl);
  p->c0 = constant_;
  for (const Term& t : terms_) p->terms.push_back(detail::Term{t.mono, t.coef});
  const Expr result = impl.make_poly(*p, /*normalized=*/true);
  // A sum over the size caps comes back as a cap symbol: continue from it, as a chain of adds
  // would.
  if (!interned_as_is(result) && !load(result)) slow_ = result;
  cached_ = result;
  return result;
}

}  // namespace cctx
