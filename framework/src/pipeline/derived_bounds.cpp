#include "pipeline/derived_bounds.hpp"

#include <algorithm>
#include <optional>
#include <string>

namespace cctx {

namespace {

// How far from an end of the bounds the scan looks for the first value where the constraint
// holds: far enough for a divisibility by 4096 or a window of a few thousand, small enough that
// a constraint which never holds near the end costs a few thousand evaluations once.
constexpr std::int64_t kScan = 4096;

}  // namespace

bool constraint_holds(ExprPool& pool, const Constraint& c, const Assignment& at) {
  const std::int64_t a = pool.eval(c.a, at), b = pool.eval(c.b, at);
  switch (c.kind) {
    case Constraint::Kind::kEq:
      return a == b;
    case Constraint::Kind::kLe:
      return a <= b;
    case Constraint::Kind::kNe:
      return a != b;
    case Constraint::Kind::kBroadcast:
      return a == b || a == 1 || b == 1;
    case Constraint::Kind::kOneOf:
      return a == b || a == pool.eval(c.c, at);
    case Constraint::Kind::kDivides:
      return a == 0 ? b == 0 : b % a == 0;
  }
  return true;
}

namespace {

/// The first value from `from` in direction `step` (+1 or -1), inside `bounds` and within kScan
/// steps, where `c` holds; nullopt when there is none or the constraint cannot be evaluated on
/// the way (a value it cannot decide is not cut off).
std::optional<std::int64_t> first_holding(ExprPool& pool, const Constraint& c,
                                          const std::string& name, Interval bounds,
                                          std::int64_t from, std::int64_t step) {
  Assignment at;
  std::int64_t& v = at[name];
  for (std::int64_t k = 0; k <= kScan; ++k) {
    v = from + step * k;
    if (v < bounds.lo || v > bounds.hi) return std::nullopt;
    try {
      if (constraint_holds(pool, c, at)) return v;
    } catch (const ExprError&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string constraint_text(ExprPool& pool, const Constraint& c) {
  const std::string a = pool.print(c.a), b = pool.print(c.b);
  switch (c.kind) {
    case Constraint::Kind::kEq:
      return a + " == " + b;
    case Constraint::Kind::kLe:
      return a + " <= " + b;
    case Constraint::Kind::kNe:
      return a + " != " + b;
    case Constraint::Kind::kBroadcast:
      return a + " and " + b + " broadcast";
    case Constraint::Kind::kOneOf:
      return a + " is " + b + " or " + pool.print(c.c);
    case Constraint::Kind::kDivides:
      return a + " divides " + b;
  }
  return a + " ? " + b;
}

namespace {

/// Narrows for one single-symbol condition `c`; `source` is the requirement it comes from (the
/// same, or the product it is a factor of).
void narrow_for(ExprPool& pool, const GraphView& graph, const Constraint& c,
                const Constraint& source, std::vector<DerivedBound>& derived) {
  std::vector<std::string> names = pool.symbols_of(c.a);
  const bool three = c.kind == Constraint::Kind::kOneOf;
  for (const Expr e : {c.b, three ? c.c : c.b}) {
    for (std::string& s : pool.symbols_of(e)) names.push_back(std::move(s));
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  if (names.size() != 1) return;
  const SymbolInfo* info = pool.find_symbol(names.front());
  if (info == nullptr || info->kind != SymbolKind::kDeclared) return;
  const Interval before = info->bounds;
  Interval after = before;
  if (before.lo != kNegInf && before.lo <= kPosInf - kScan) {
    if (const auto v = first_holding(pool, c, info->name, before, before.lo, 1)) after.lo = *v;
  }
  if (before.hi != kPosInf && before.hi >= kNegInf + kScan) {
    if (const auto v = first_holding(pool, c, info->name, before, before.hi, -1)) after.hi = *v;
  }
  if (after == before) return;
  const Expr symbol = pool.symbol(info->name);
  const std::string reason =
      "required by " + describe_node(graph, source.node) + ": " + constraint_text(pool, source);
  if (pool.narrow_bounds(symbol, after, reason)) {
    derived.push_back(DerivedBound{symbol, before, after, reason});
  }
}

}  // namespace

void derive_bounds(ExprPool& pool, const GraphView& graph, const Constraint& c,
                   std::vector<DerivedBound>& derived) {
  // Only main-graph requirements hold whenever the model runs: a body's hold only when its
  // branch or iteration runs.
  if (!c.required || c.node >= graph.nodes().size() || graph.node(c.node).graph != 0) return;
  if (!pool.has_symbols(c.a) && !pool.has_symbols(c.b)) return;
  // A product that must not be 0 (a divisor A*B): none of its factors may be, each a condition
  // on fewer symbols.
  if (c.kind == Constraint::Kind::kNe && (pool.as_int(c.a) == 0 || pool.as_int(c.b) == 0)) {
    const Expr product = pool.as_int(c.a) == 0 ? c.b : c.a;
    const Expr zero = pool.integer(0);
    for (const Expr f : pool.factors(product)) {
      narrow_for(pool, graph, Constraint{Constraint::Kind::kNe, f, zero, Expr{}, c.node, true}, c,
                 derived);
    }
    return;
  }
  narrow_for(pool, graph, c, c, derived);
}

ShapeResult run_shape_stage_with_derived_bounds(Analysis& s) {
  // Three passes settle every model seen: a narrowing in pass 1 rarely enables a requirement
  // that narrows further in pass 2 (one of a later stage's window count).
  constexpr int kPasses = 3;
  const std::size_t diagnostics = s.diagnostics.size(), failures = s.rule_failures.size();
  ShapeResult result = run_shape_stage(s);
  std::vector<DerivedBound> derived = result.derived_bounds;
  for (int pass = 1; pass < kPasses && !result.derived_bounds.empty(); ++pass) {
    // The bounds every narrowing so far left, with the reason of the last one of each symbol.
    std::vector<std::pair<std::string, std::pair<Interval, std::string>>> narrowed;
    std::vector<std::string> names;
    for (const DerivedBound& d : derived) {
      names.push_back(s.pool->print(d.symbol));
      const SymbolInfo* info = s.pool->find_symbol(names.back());
      if (info != nullptr) narrowed.push_back({info->name, {info->bounds, info->narrowed_by}});
    }
    s.pool = std::make_unique<ExprPool>(s.options.expressions);
    for (const auto& [name, bounds] : s.options.symbols) s.pool->declare_symbol(name, bounds);
    for (const auto& [name, bounds] : narrowed) {
      s.pool->narrow_bounds(s.pool->symbol(name), bounds.first, bounds.second);
    }
    // The pass's diagnostics and rule failures replace the last one's.
    s.diagnostics.resize(diagnostics);
    s.rule_failures.resize(failures);
    std::erase_if(s.failure_index, [&](const auto& entry) { return entry.second >= failures; });
    std::erase_if(s.scratch_failure_symbols,
                  [&](const auto& entry) { return entry.second >= failures; });
    result = run_shape_stage(s);
    for (std::size_t k = 0; k < derived.size(); ++k) derived[k].symbol = s.pool->symbol(names[k]);
    derived.insert(derived.end(), result.derived_bounds.begin(), result.derived_bounds.end());
  }
  result.derived_bounds = std::move(derived);
  return result;
}

}  // namespace cctx
