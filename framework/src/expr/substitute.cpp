// Substitution: rebuilds, through the smart constructors, only the sub-DAGs whose symbol
// signature meets the substituted symbols; memoised per call.
#include <unordered_map>

#include "expr/pool_impl.hpp"

namespace cctx {

using namespace detail;

namespace {

class Substituter {
 public:
  Substituter(PoolImpl& impl, const std::vector<std::pair<std::uint32_t, Expr>>& map,
              std::int64_t* budget, bool raw_minmax)
      : impl_(impl), map_(map), budget_(budget), raw_minmax_(raw_minmax) {
    for (const auto& [sym, value] : map_) mask_ |= std::uint64_t{1} << (sym & 63U);
  }

  Expr run(Expr e) {
    const Node n = impl_.nodes[e.id];
    if ((n.sig & mask_) == 0) return e;
    if (const auto it = memo_.find(e.id); it != memo_.end()) return Expr{it->second};
    if (budget_ != nullptr && --*budget_ < 0) throw BudgetExhausted{};
    const std::vector<std::uint32_t> w(impl_.payload.begin() + n.off,
                                       impl_.payload.begin() + n.off + n.len);
    Expr r = e;
    switch (n.kind) {
      case Kind::kInt:
        break;
      case Kind::kSym:
        for (const auto& [sym, value] : map_) {
          if (sym == static_cast<std::uint32_t>(n.aux)) r = value;
        }
        break;
      case Kind::kSum: {
        PolyLoan acc(impl_);
        acc->c0 = n.aux;
        for (std::size_t i = 0; i < w.size(); i += 3) {
          impl_.append_terms(run(Expr{w[i]}), get_i64(w.data() + i + 1), *acc);
        }
        r = impl_.make_poly(*acc);
        break;
      }
      case Kind::kMono: {
        r = impl_.integer(1);
        for (std::size_t i = 0; i < w.size(); i += 2) {
          const Expr a = run(Expr{w[i]});
          for (std::uint32_t k = 0; k < w[i + 1]; ++k) r = impl_.mul(r, a);
        }
        break;
      }
      case Kind::kFloorDiv:
        r = impl_.floor_div(run(Expr{w[0]}), run(Expr{w[1]}));
        break;
      case Kind::kExactDiv:
        r = impl_.exact_div(run(Expr{w[0]}), run(Expr{w[1]}));
        break;
      case Kind::kMod:
        r = impl_.mod(run(Expr{w[0]}), run(Expr{w[1]}));
        break;
      case Kind::kMax:
      case Kind::kMin: {
        std::vector<Expr> args;
        args.reserve(w.size());
        for (const std::uint32_t a : w) args.push_back(run(Expr{a}));
        r = raw_minmax_ ? impl_.minmax_raw(n.kind == Kind::kMax, args)
                        : impl_.minmax(n.kind == Kind::kMax, args);
        break;
      }
    }
    memo_.emplace(e.id, r.id);
    return r;
  }

 private:
  detail::PoolImpl& impl_;
  const std::vector<std::pair<std::uint32_t, Expr>>& map_;
  std::int64_t* budget_;
  bool raw_minmax_;
  std::uint64_t mask_ = 0;
  std::unordered_map<std::uint32_t, std::uint32_t> memo_;
};

}  // namespace

Expr detail::PoolImpl::substitute_syms(Expr e,
                                       const std::vector<std::pair<std::uint32_t, Expr>>& map,
                                       std::int64_t* budget, bool raw_minmax) {
  if (map.empty()) return e;
  Substituter s(*this, map, budget, raw_minmax);
  return s.run(e);
}

}  // namespace cctx
