// TermwiseFrontier (termwise_frontier.hpp): candidates by the rarest positive monomial.
#include "expr/termwise_frontier.hpp"

#include "expr/pool_access.hpp"

namespace cctx {

using namespace detail;

bool TermwiseFrontier::dominated_indexed(Expr t) {
  const PoolImpl& impl = PoolAccess::impl(pool_);
  PoolImpl::TermView v;
  impl.view_terms(t, &v);
  const std::vector<std::uint32_t>* rarest = nullptr;
  for (std::uint32_t i = 0; i < v.count; ++i) {
    if (get_i64(v.words + 3 * i + 1) <= 0) continue;
    const auto it = holders_.find(v.words[3 * i]);
    if (it == holders_.end()) return false;  // no kept term has this monomial
    if (rarest == nullptr || it->second.size() < rarest->size()) rarest = &it->second;
  }
  if (rarest == nullptr) {  // no positive monomial: any kept term may dominate t
    for (const Expr k : kept_) {
      if (pool_.dominates_termwise(k, t)) return true;
    }
    return false;
  }
  for (const std::uint32_t k : *rarest) {
    if (pool_.dominates_termwise(kept_[k], t)) return true;
  }
  return false;
}

void TermwiseFrontier::keep(Expr t) {
  const PoolImpl& impl = PoolAccess::impl(pool_);
  PoolImpl::TermView v;
  impl.view_terms(t, &v);
  const auto position = static_cast<std::uint32_t>(kept_.size());
  for (std::uint32_t i = 0; i < v.count; ++i) {
    if (get_i64(v.words + 3 * i + 1) > 0) holders_[v.words[3 * i]].push_back(position);
  }
  kept_.push_back(t);
}

}  // namespace cctx
