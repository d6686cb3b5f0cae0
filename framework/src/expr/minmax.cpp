// n-ary max/min (max_of/min_of): flatten, fold literals, dedupe, then keep a frontier of
// arguments no other argument provably dominates under the symbols' bounds.
#include <algorithm>

#include "expr/pool_impl.hpp"

namespace cctx {

using namespace detail;

Expr detail::PoolImpl::minmax(bool is_max, std::span<const Expr> args) {
  if (args.empty()) {
    throw ExprError(ExprError::Kind::kSyntax,
                    std::string(is_max ? "max" : "min") + " needs at least one argument");
  }
  if (args.size() == 1) return args[0];
  const Op op = is_max ? Op::kMax2 : Op::kMin2;
  const Kind own = is_max ? Kind::kMax : Kind::kMin;
  Expr a = args[0];
  Expr b = args[1];
  const bool binary = args.size() == 2;
  if (binary) {
    if (a == b) return a;
    if (is_int(a) && is_int(b)) {
      const std::int64_t x = int_value(a);
      const std::int64_t y = int_value(b);
      return integer(is_max ? std::max(x, y) : std::min(x, y));
    }
    if (a.id > b.id) std::swap(a, b);
    if (const auto hit = memo_find(op, a, b)) return *hit;
  }

  std::vector<std::uint32_t> list;
  std::optional<std::int64_t> literal;
  auto take = [&](std::uint32_t id) {
    const Node& n = nodes[id];
    if (n.kind == Kind::kInt) {
      literal = !literal ? n.aux : (is_max ? std::max(*literal, n.aux) : std::min(*literal, n.aux));
    } else {
      list.push_back(id);
    }
  };
  for (const Expr e : args) {
    const Node& n = nodes[e.id];
    if (n.kind == own) {
      const std::uint32_t off = n.off;
      const std::uint32_t len = n.len;
      for (std::uint32_t i = 0; i < len; ++i) take(payload[off + i]);
    } else {
      take(e.id);
    }
  }
  std::sort(list.begin(), list.end());
  list.erase(std::unique(list.begin(), list.end()), list.end());
  if (literal) list.insert(list.begin(), integer(*literal).id);

  // `keeps(x, y)`: x makes y redundant (x >= y for max, x <= y for min).
  auto keeps = [&](std::uint32_t x, std::uint32_t y) {
    return is_max ? prove_ge(Expr{x}, Expr{y}) : prove_ge(Expr{y}, Expr{x});
  };
  std::vector<std::uint32_t> frontier;
  for (const std::uint32_t t : list) {
    if (frontier.size() > limits.max_args) {
      // Too many non-dominated arguments (4.4): stop proving (that would be quadratic) and let
      // the size cap stand in for the whole call, bounded by the max/min of all intervals.
      words.assign(list.begin(), list.end());
      std::sort(words.begin(), words.end());
      return intern(own, 0, words.data(), static_cast<std::uint32_t>(words.size()));
    }
    bool dominated = false;
    for (const std::uint32_t f : frontier) {
      if (keeps(f, t)) {
        dominated = true;
        break;
      }
    }
    if (dominated) continue;
    frontier.erase(std::remove_if(frontier.begin(), frontier.end(),
                                  [&](std::uint32_t f) { return keeps(t, f); }),
                   frontier.end());
    frontier.push_back(t);
  }

  Expr r{frontier.empty() ? list.front() : frontier.front()};
  if (frontier.size() > 1) {
    std::sort(frontier.begin(), frontier.end());
    words.assign(frontier.begin(), frontier.end());
    r = intern(own, 0, words.data(), static_cast<std::uint32_t>(words.size()));
  }
  if (binary) memo_store(op, a, b, r);
  return r;
}

Expr detail::PoolImpl::minmax_raw(bool is_max, std::span<const Expr> args) {
  const Kind own = is_max ? Kind::kMax : Kind::kMin;
  std::vector<std::uint32_t> list;
  std::optional<std::int64_t> literal;
  for (const Expr e : args) {
    const Node n = nodes[e.id];
    auto take = [&](std::uint32_t id) {
      const Node& x = nodes[id];
      if (x.kind == Kind::kInt) {
        literal =
            !literal ? x.aux : (is_max ? std::max(*literal, x.aux) : std::min(*literal, x.aux));
      } else {
        list.push_back(id);
      }
    };
    if (n.kind == own) {
      for (std::uint32_t i = 0; i < n.len; ++i) take(payload[n.off + i]);
    } else {
      take(e.id);
    }
  }
  if (literal) list.push_back(integer(*literal).id);
  std::sort(list.begin(), list.end());
  list.erase(std::unique(list.begin(), list.end()), list.end());
  if (list.size() == 1) return Expr{list[0]};
  words.assign(list.begin(), list.end());
  return intern(own, 0, words.data(), static_cast<std::uint32_t>(words.size()));
}

}  // namespace cctx
