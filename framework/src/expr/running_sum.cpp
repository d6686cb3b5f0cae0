// RunningSum: a polynomial kept as a sorted term list between reads, interned only when read.
#include "expr/running_sum.hpp"

#include <algorithm>

#include "expr/pool_access.hpp"
#include "util/prefetch.hpp"

namespace cctx {

using namespace detail;

namespace {
// Operands with these flags are rewritten by the pool when added (division families, exact
// factors): such a sum is left to ExprPool::add/sub so that its value stays the pool's. The
// term list therefore never holds such a monomial, and value() can intern it as it stands.
constexpr std::uint8_t kRewriteFlags = kFlagLitDiv | kFlagExactFactor;
}  // namespace

bool RunningSum::load(Expr e) {
  PoolImpl& impl = PoolAccess::impl(*pool_);
  if ((impl.nodes[e.id].flags & kRewriteFlags) != 0) return false;
  PoolImpl::TermView v;
  impl.view_terms(e, &v);
  constant_ = v.c0;
  words_.assign(v.words, v.words + 3 * v.count);
  terms_hash_ = sum_terms_hash(words_.data(), static_cast<std::uint32_t>(words_.size()));
  return true;
}

void RunningSum::merge(std::uint32_t mono, std::int64_t coef) {
  // Binary search over the (mono, lo, hi) triples.
  std::size_t lo = 0, hi = term_count();
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (words_[3 * mid] < mono) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  const auto at = words_.begin() + static_cast<std::ptrdiff_t>(3 * lo);
  if (lo < term_count() && words_[3 * lo] == mono) {
    std::uint32_t* term = words_.data() + 3 * lo;
    const std::int64_t sum = checked_add(get_i64(term + 1), coef);
    terms_hash_ -= sum_term_hash(term);
    if (sum == 0) {
      words_.erase(at, at + 3);
    } else {
      put_i64(term + 1, sum);
      terms_hash_ += sum_term_hash(term);
    }
  } else {
    std::uint32_t term[3] = {mono, 0, 0};
    put_i64(term + 1, coef);
    words_.insert(at, term, term + 3);
    terms_hash_ += sum_term_hash(term);
  }
}

void RunningSum::change(Expr e, std::int64_t sign) {
  PoolImpl& impl = PoolAccess::impl(*pool_);
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
  switch (n.kind) {
    case Kind::kInt:
      constant_ = checked_add(constant_, checked_mul(n.aux, sign));
      return;
    case Kind::kSum: {
      constant_ = checked_add(constant_, checked_mul(n.aux, sign));
      const std::uint32_t* w = impl.payload.data() + n.off;
      for (std::uint32_t t = 0; t < n.len; t += 3)
        merge(w[t], checked_mul(get_i64(w + t + 1), sign));
      return;
    }
    default:
      merge(e.id, sign);
      return;
  }
}

bool RunningSum::interned_as_is(Expr e) const {
  const Node& n = PoolAccess::impl(*pool_).nodes[e.id];
  if (words_.empty()) return n.kind == Kind::kInt;
  if (n.kind == Kind::kSum) return n.len == words_.size();
  // One term with coefficient 1 and no constant is interned as the monomial itself.
  return term_count() == 1 && get_i64(words_.data() + 1) == 1 && constant_ == 0 &&
         words_[0] == e.id;
}

void RunningSum::prefetch() const {
  if (cached_ || slow_) return;
  PoolAccess::impl(*pool_).prefetch_sum_slot(constant_, static_cast<std::uint32_t>(words_.size()),
                                             terms_hash_);
}

Expr RunningSum::value() {
  if (cached_) return *cached_;
  if (slow_) return *(cached_ = slow_);
  PoolImpl& impl = PoolAccess::impl(*pool_);
  // The list is normalised and holds nothing the pool rewrites: make_poly would intern it as is.
  const Expr result = impl.intern_sum(constant_, words_.data(),
                                      static_cast<std::uint32_t>(words_.size()), terms_hash_);
  // A sum over the size caps comes back as a cap symbol: continue from it, as a chain of adds
  // would.
  if (!interned_as_is(result) && !load(result)) slow_ = result;
  cached_ = result;
  return result;
}

void prefetch_node(const ExprPool& pool, Expr e) {
  const PoolImpl& impl = PoolAccess::impl(pool);
  if (e.id < impl.nodes.size()) prefetch_for_read(&impl.nodes[e.id]);
}

void prefetch_terms(const ExprPool& pool, Expr e) {
  const PoolImpl& impl = PoolAccess::impl(pool);
  if (e.id >= impl.nodes.size()) return;
  const Node& n = impl.nodes[e.id];
  if (n.len > 0) prefetch_for_read(impl.payload.data() + n.off);
}

}  // namespace cctx
