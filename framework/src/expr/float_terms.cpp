// Floating-point sizes (expressions.md 4.5): float terms, interned; their intervals; the symbols
// that stand for an integer read from one, which eval() computes as the runtime does.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "expr/float_arith.hpp"
#include "expr/pool_impl.hpp"

namespace cctx {

using namespace detail;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// The interval [lo, hi] widened by the relative error of one rounding to type t (with room for
/// the double arithmetic that computed it): rounding keeps signs, so each end moves outward by a
/// fraction of itself.
void widen(double& lo, double& hi, FloatType t) {
  const double eps = t == FloatType::kFloat32 ? 0x1p-22 : 0x1p-50;
  lo = lo >= 0 ? lo * (1 - eps) : lo * (1 + eps);
  hi = hi >= 0 ? hi * (1 + eps) : hi * (1 - eps);
}

/// Interval product end: 0 times an unbounded end is 0 (the real factor is finite).
double end_product(double x, double y) { return x == 0 || y == 0 ? 0 : x * y; }

void unbounded(double& lo, double& hi) {
  lo = -kInf;
  hi = kInf;
}

/// The interval of `op` over the operands' intervals (before rounding).
void op_interval(FloatOp op, const PoolImpl::FloatNode& a, const PoolImpl::FloatNode* b, double& lo,
                 double& hi) {
  switch (op) {
    case FloatOp::kAdd:
      lo = a.lo + b->lo;
      hi = a.hi + b->hi;
      break;
    case FloatOp::kSub:
      lo = a.lo - b->hi;
      hi = a.hi - b->lo;
      break;
    case FloatOp::kMul: {
      const double p[] = {end_product(a.lo, b->lo), end_product(a.lo, b->hi),
                          end_product(a.hi, b->lo), end_product(a.hi, b->hi)};
      lo = *std::min_element(p, p + 4);
      hi = *std::max_element(p, p + 4);
      break;
    }
    case FloatOp::kDiv: {
      if (b->lo <= 0 && b->hi >= 0) return unbounded(lo, hi);
      const double q[] = {a.lo / b->lo, a.lo / b->hi, a.hi / b->lo, a.hi / b->hi};
      lo = *std::min_element(q, q + 4);
      hi = *std::max_element(q, q + 4);
      break;
    }
    case FloatOp::kMin:
      lo = std::min(a.lo, b->lo);
      hi = std::min(a.hi, b->hi);
      break;
    case FloatOp::kMax:
      lo = std::max(a.lo, b->lo);
      hi = std::max(a.hi, b->hi);
      break;
    case FloatOp::kNeg:
      lo = -a.hi;
      hi = -a.lo;
      break;
    case FloatOp::kAbs:
      if (a.lo >= 0) {
        lo = a.lo;
        hi = a.hi;
      } else if (a.hi <= 0) {
        lo = -a.hi;
        hi = -a.lo;
      } else {
        lo = 0;
        hi = std::max(-a.lo, a.hi);
      }
      break;
    case FloatOp::kSqrt:
      lo = std::sqrt(std::max(a.lo, 0.0));
      hi = std::sqrt(std::max(a.hi, 0.0));
      break;
  }
  if (std::isnan(lo) || std::isnan(hi)) unbounded(lo, hi);
}

bool is_binary(FloatOp op) {
  return op != FloatOp::kNeg && op != FloatOp::kAbs && op != FloatOp::kSqrt;
}

/// An interval end as an int64 interval end (saturating to the infinities).
std::int64_t to_end(double v, bool upper) {
  if (std::isnan(v)) return upper ? kPosInf : kNegInf;
  if (v >= 9223372036854775807.0) return kPosInf;
  if (v <= -9223372036854775808.0) return kNegInf;
  return static_cast<std::int64_t>(v);
}

Interval rounded_interval(double lo, double hi, Rounding r) {
  switch (r) {
    case Rounding::kFloor:
      return {to_end(std::floor(lo), false), to_end(std::floor(hi), true)};
    case Rounding::kCeil:
      return {to_end(std::ceil(lo), false), to_end(std::ceil(hi), true)};
    case Rounding::kTrunc:
      return {to_end(std::trunc(lo), false), to_end(std::trunc(hi), true)};
    case Rounding::kHalfEven:
      break;
  }
  return {to_end(std::floor(lo), false), to_end(std::ceil(hi), true)};
}

// Printing precedence: a sum binds loosest, then products, then a negation; calls and literals
// are atoms.
constexpr int kPrecSum = 1, kPrecProduct = 2, kPrecUnary = 3, kPrecAtom = 4;

}  // namespace

// ---- construction -------------------------------------------------------------------------------

FloatTerm detail::PoolImpl::float_intern(FloatNode n) {
  std::string key(sizeof(std::uint32_t) * 2 + sizeof(double) + 3, '\0');
  char* k = key.data();
  k[0] = static_cast<char>(n.kind);
  k[1] = static_cast<char>(n.op);
  k[2] = static_cast<char>(n.type);
  std::memcpy(k + 3, &n.a, sizeof n.a);
  std::memcpy(k + 3 + sizeof n.a, &n.b, sizeof n.b);
  std::memcpy(k + 3 + 2 * sizeof n.a, &n.value, sizeof n.value);
  const auto [it, added] =
      float_index.try_emplace(std::move(key), static_cast<std::uint32_t>(float_nodes.size()));
  if (added) float_nodes.push_back(n);
  return FloatTerm{it->second};
}

FloatTerm ExprPool::float_of(Expr e, FloatType t) {
  PoolImpl& p = *impl_;
  if (p.is_int(e)) return *float_constant(int_to_type(p.int_value(e), t), t);  // finite in t
  PoolImpl::FloatNode n;
  n.kind = PoolImpl::FloatKind::kOfInt;
  n.type = t;
  n.a = e.id;
  const Interval i = p.interval(e);
  n.lo = i.lo == kNegInf ? -kInf : static_cast<double>(i.lo);
  n.hi = i.hi == kPosInf ? kInf : static_cast<double>(i.hi);
  widen(n.lo, n.hi, t);
  return p.float_intern(n);
}

std::optional<FloatTerm> ExprPool::float_constant(double v, FloatType t) {
  if (!std::isfinite(v) || to_type(v, t) != v) return std::nullopt;
  PoolImpl::FloatNode n;
  n.kind = PoolImpl::FloatKind::kConst;
  n.type = t;
  n.value = v == 0 ? 0.0 : v;  // one zero: -0.0 and 0.0 size alike
  n.lo = n.hi = n.value;
  return impl_->float_intern(n);
}

std::optional<FloatTerm> ExprPool::float_unary(FloatOp op, FloatTerm a) {
  PoolImpl& p = *impl_;
  if (is_binary(op) || a.id >= p.float_nodes.size()) return std::nullopt;
  const PoolImpl::FloatNode x = p.float_nodes[a.id];
  if (x.kind == PoolImpl::FloatKind::kConst) {
    return float_constant(apply_unary(op, x.type, x.value), x.type);
  }
  if (x.depth >= PoolImpl::kMaxFloatDepth) return std::nullopt;
  PoolImpl::FloatNode n;
  n.kind = PoolImpl::FloatKind::kOp;
  n.op = op;
  n.type = x.type;
  n.a = a.id;
  n.depth = static_cast<std::uint8_t>(x.depth + 1);
  op_interval(op, x, nullptr, n.lo, n.hi);
  widen(n.lo, n.hi, n.type);
  return p.float_intern(n);
}

std::optional<FloatTerm> ExprPool::float_binary(FloatOp op, FloatTerm a, FloatTerm b) {
  PoolImpl& p = *impl_;
  if (!is_binary(op) || a.id >= p.float_nodes.size() || b.id >= p.float_nodes.size()) {
    return std::nullopt;
  }
  const PoolImpl::FloatNode x = p.float_nodes[a.id], y = p.float_nodes[b.id];
  if (x.type != y.type) return std::nullopt;
  if (x.kind == PoolImpl::FloatKind::kConst && y.kind == PoolImpl::FloatKind::kConst) {
    return float_constant(apply_binary(op, x.type, x.value, y.value), x.type);
  }
  const std::uint8_t depth = std::max(x.depth, y.depth);
  if (depth >= PoolImpl::kMaxFloatDepth) return std::nullopt;
  PoolImpl::FloatNode n;
  n.kind = PoolImpl::FloatKind::kOp;
  n.op = op;
  n.type = x.type;
  n.a = a.id;
  n.b = b.id;
  n.depth = static_cast<std::uint8_t>(depth + 1);
  op_interval(op, x, &y, n.lo, n.hi);
  widen(n.lo, n.hi, n.type);
  return p.float_intern(n);
}

std::optional<FloatTerm> ExprPool::float_cast(FloatTerm a, FloatType t) {
  PoolImpl& p = *impl_;
  if (a.id >= p.float_nodes.size()) return std::nullopt;
  const PoolImpl::FloatNode x = p.float_nodes[a.id];
  if (x.type == t) return a;
  if (x.kind == PoolImpl::FloatKind::kConst) return float_constant(to_type(x.value, t), t);
  // A float32 integer is exact in float64: the cast of float32(e) is float64(e).
  if (x.kind == PoolImpl::FloatKind::kOfInt && t == FloatType::kFloat64) {
    const Interval i = p.interval(Expr{x.a});
    constexpr std::int64_t kExact = std::int64_t{1} << 24;
    if (i.lo >= -kExact && i.hi <= kExact) return float_of(Expr{x.a}, t);
  }
  if (x.depth >= PoolImpl::kMaxFloatDepth) return std::nullopt;
  PoolImpl::FloatNode n;
  n.kind = PoolImpl::FloatKind::kCast;
  n.type = t;
  n.a = a.id;
  n.depth = static_cast<std::uint8_t>(x.depth + 1);
  n.lo = x.lo;
  n.hi = x.hi;
  widen(n.lo, n.hi, t);
  return p.float_intern(n);
}

FloatType ExprPool::float_type(FloatTerm a) const {
  return a.id < impl_->float_nodes.size() ? impl_->float_nodes[a.id].type : FloatType::kFloat32;
}

std::size_t ExprPool::float_term_count() const { return impl_->float_nodes.size(); }

std::optional<double> ExprPool::float_value(FloatTerm a) const {
  if (a.id >= impl_->float_nodes.size()) return std::nullopt;
  const PoolImpl::FloatNode& n = impl_->float_nodes[a.id];
  if (n.kind != PoolImpl::FloatKind::kConst) return std::nullopt;
  return n.value;
}

std::optional<Expr> ExprPool::float_round(FloatTerm a, Rounding r, std::string_view name,
                                          std::string_view origin) {
  PoolImpl& p = *impl_;
  if (a.id >= p.float_nodes.size()) return std::nullopt;
  const PoolImpl::FloatNode n = p.float_nodes[a.id];
  if (n.kind == PoolImpl::FloatKind::kConst) {
    const auto v = round_to_int(n.value, r);
    if (!v) return std::nullopt;
    return p.integer(*v);
  }
  if (n.kind == PoolImpl::FloatKind::kOfInt) {
    // An integer the type holds exactly rounds to itself.
    const Interval i = p.interval(Expr{n.a});
    const std::int64_t exact = std::int64_t{1} << significand_bits(n.type);
    if (i.lo >= -exact && i.hi <= exact) return Expr{n.a};
  }
  const std::uint64_t key = static_cast<std::uint64_t>(a.id) << 2 | static_cast<std::uint64_t>(r);
  if (const auto it = p.float_rounded.find(key); it != p.float_rounded.end()) {
    return Expr{it->second};
  }
  Interval bounds = rounded_interval(n.lo, n.hi, r);
  if (bounds.lo > bounds.hi) bounds = Interval{kNegInf, kPosInf};
  const Expr sym = p.fresh(name, bounds, std::string(origin));
  p.float_definitions.emplace(static_cast<std::uint32_t>(p.nodes[sym.id].aux),
                              PoolImpl::FloatDefinition{a.id, r});
  p.float_rounded.emplace(key, sym.id);
  return sym;
}

// ---- text ---------------------------------------------------------------------------------------

std::string detail::PoolImpl::float_text(std::uint32_t term, int context) {
  const FloatNode n = float_nodes[term];
  std::string out;
  int prec = kPrecAtom;
  switch (n.kind) {
    case FloatKind::kOfInt:
      out = std::string(type_name(n.type)) + "(" + print(Expr{n.a}) + ")";
      break;
    case FloatKind::kConst:
      out = float_literal(n.value, n.type);
      if (n.value < 0) prec = kPrecUnary;
      break;
    case FloatKind::kCast:
      out = std::string(type_name(n.type)) + "(" + float_text(n.a, 0) + ")";
      break;
    case FloatKind::kOp:
      switch (n.op) {
        case FloatOp::kAdd:
        case FloatOp::kSub:
        case FloatOp::kMul:
        case FloatOp::kDiv: {
          const bool sum = n.op == FloatOp::kAdd || n.op == FloatOp::kSub;
          prec = sum ? kPrecSum : kPrecProduct;
          const char sign = n.op == FloatOp::kAdd   ? '+'
                            : n.op == FloatOp::kSub ? '-'
                            : n.op == FloatOp::kMul ? '*'
                                                    : '/';
          // Left-associative: the right operand of the same precedence keeps its parentheses,
          // since floating-point addition and multiplication do not associate.
          out = float_text(n.a, prec) + sign + float_text(n.b, prec + 1);
          break;
        }
        case FloatOp::kMin:
        case FloatOp::kMax:
          out = std::string(n.op == FloatOp::kMin ? "min(" : "max(") + float_text(n.a, 0) + "," +
                float_text(n.b, 0) + ")";
          break;
        case FloatOp::kNeg:
          prec = kPrecUnary;
          out = "-" + float_text(n.a, kPrecUnary);
          break;
        case FloatOp::kAbs:
        case FloatOp::kSqrt:
          out = std::string(n.op == FloatOp::kAbs ? "abs(" : "sqrt(") + float_text(n.a, 0) + ")";
          break;
      }
      break;
  }
  return prec < context ? "(" + out + ")" : out;
}

std::string ExprPool::print_float(FloatTerm a) {
  if (a.id >= impl_->float_nodes.size()) return "?";
  return impl_->float_text(a.id, 0);
}

// ---- evaluation ---------------------------------------------------------------------------------

double detail::PoolImpl::eval_float(std::uint32_t term, const Assignment& values, Expr top) {
  if (float_eval_stamp.size() < float_nodes.size()) {
    float_eval_stamp.resize(float_nodes.size(), 0);
    float_eval_value.resize(float_nodes.size(), 0);
  }
  if (float_eval_stamp[term] == eval_gen) return float_eval_value[term];
  const FloatNode n = float_nodes[term];
  double v = 0;
  switch (n.kind) {
    case FloatKind::kOfInt: {
      const Int128 x = eval_rec(Expr{n.a}, values, top);
      if (x < static_cast<Int128>(kNegInf) || x > static_cast<Int128>(kPosInf)) {
        throw ExprError(ExprError::Kind::kOverflow,
                        "integer overflow: the value of '" + quote_text(print(Expr{n.a})) +
                            "' exceeds int64 (evaluating '" + quote_text(print(top)) + "')");
      }
      v = int_to_type(static_cast<std::int64_t>(x), n.type);
      break;
    }
    case FloatKind::kConst:
      v = n.value;
      break;
    case FloatKind::kCast:
      v = to_type(eval_float(n.a, values, top), n.type);
      break;
    case FloatKind::kOp: {
      const double x = eval_float(n.a, values, top);
      if (!is_binary(n.op)) {
        v = apply_unary(n.op, n.type, x);
        break;
      }
      const double y = eval_float(n.b, values, top);
      if (n.op == FloatOp::kDiv && y == 0) {
        throw ExprError(ExprError::Kind::kDivisionByZero,
                        "floating-point division by zero in '" + quote_text(float_text(term, 0)) +
                            "' (evaluating '" + quote_text(print(top)) + "')");
      }
      v = apply_binary(n.op, n.type, x, y);
      break;
    }
  }
  float_eval_stamp[term] = eval_gen;
  float_eval_value[term] = v;
  return v;
}

Int128 detail::PoolImpl::eval_float_size(std::uint32_t symbol, const FloatDefinition& d,
                                         const Assignment& values, Expr top) {
  const double v = eval_float(d.term, values, top);
  const auto r = round_to_int(v, d.rounding);
  if (!r) {
    throw ExprError(ExprError::Kind::kOverflow,
                    "the floating-point size '" + quote_text(symbols[symbol].name) + "' = " +
                        rounding_name(d.rounding) + "(" + quote_text(float_text(d.term, 0)) +
                        ") is " + (std::isfinite(v) ? "outside int64" : "not finite") +
                        " (evaluating '" + quote_text(print(top)) + "')");
  }
  return *r;
}

// ---- definitions --------------------------------------------------------------------------------

bool ExprPool::is_float_size(std::string_view symbol) const {
  const auto it = impl_->symbol_index.find(symbol);
  return it != impl_->symbol_index.end() && impl_->float_definitions.count(it->second) != 0;
}

std::optional<std::string> ExprPool::definition_text(std::string_view symbol) {
  if (const auto cap = definition(symbol)) return print(*cap);
  const auto it = impl_->symbol_index.find(symbol);
  if (it == impl_->symbol_index.end()) return std::nullopt;
  const auto def = impl_->float_definitions.find(it->second);
  if (def == impl_->float_definitions.end()) return std::nullopt;
  return std::string(rounding_name(def->second.rounding)) + "(" +
         impl_->float_text(def->second.term, 0) + ")";
}

std::vector<Expr> ExprPool::definition_operands(std::string_view symbol) const {
  if (const auto cap = definition(symbol)) return {*cap};
  const auto it = impl_->symbol_index.find(symbol);
  if (it == impl_->symbol_index.end()) return {};
  const auto def = impl_->float_definitions.find(it->second);
  if (def == impl_->float_definitions.end()) return {};
  std::vector<Expr> out;
  std::vector<std::uint32_t> stack{def->second.term}, seen;
  while (!stack.empty()) {
    const std::uint32_t term = stack.back();
    stack.pop_back();
    if (std::find(seen.begin(), seen.end(), term) != seen.end()) continue;
    seen.push_back(term);  // terms are at most 64 deep and rarely share: a list will do
    const PoolImpl::FloatNode& n = impl_->float_nodes[term];
    if (n.kind == PoolImpl::FloatKind::kOfInt) {
      if (std::find(out.begin(), out.end(), Expr{n.a}) == out.end()) out.push_back(Expr{n.a});
    } else if (n.kind == PoolImpl::FloatKind::kCast) {
      stack.push_back(n.a);
    } else if (n.kind == PoolImpl::FloatKind::kOp) {
      stack.push_back(n.a);
      if (is_binary(n.op)) stack.push_back(n.b);
    }
  }
  return out;
}

}  // namespace cctx
