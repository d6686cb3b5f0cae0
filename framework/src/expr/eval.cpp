// Checked evaluation of a canonical expression, memoised per node per call. Sums and monomials
// are accumulated in 128 bits: the canonical form may hold intermediate values (N*N in N*N-M*M)
// larger than any the original expression computed, so only the final value must fit int64.
#include "expr/pool_impl.hpp"

namespace cctx {

using namespace detail;

namespace {

constexpr Int128 kMin128 = static_cast<Int128>(static_cast<UInt128>(1) << 127);

std::string bounds_text(Interval b) {
  const std::string lo = b.lo == kNegInf ? "-inf" : std::to_string(b.lo);
  const std::string hi = b.hi == kPosInf ? "+inf" : std::to_string(b.hi);
  return "[" + lo + ", " + hi + "]";
}

}  // namespace

void detail::PoolImpl::start_eval_generation() {
  if (eval_stamp.size() < nodes.size()) {
    // A new generation reads no old entry, so the arrays are replaced, not grown: nothing is
    // copied, and the values are left unwritten until evaluated. They cover the capacity the
    // pool reserved, so a pool that grows into it does not replace them again.
    const std::size_t size = nodes.capacity();
    eval_stamp.assign(size, 0);
    eval_value = std::make_unique_for_overwrite<detail::Int128[]>(size);
    eval_gen = 0;
  }
  if (++eval_gen == 0) {
    std::fill(eval_stamp.begin(), eval_stamp.end(), 0);
    std::fill(float_eval_stamp.begin(), float_eval_stamp.end(), 0);
    eval_gen = 1;
  }
}

std::int64_t detail::PoolImpl::eval_top(Expr e, const Assignment& values) {
  const Int128 v = eval_rec(e, values, e);
  if (v < static_cast<Int128>(kNegInf) || v > static_cast<Int128>(kPosInf)) {
    throw ExprError(ExprError::Kind::kOverflow,
                    "integer overflow: the value of '" + quote_text(print(e)) + "' exceeds int64");
  }
  return static_cast<std::int64_t>(v);
}

std::int64_t detail::PoolImpl::eval(Expr e, const Assignment& values) {
  start_eval_generation();
  return eval_top(e, values);
}

std::vector<std::int64_t> detail::PoolImpl::eval_all(std::span<const Expr> es,
                                                     const Assignment& values) {
  start_eval_generation();
  std::vector<std::int64_t> out;
  out.reserve(es.size());
  for (Expr e : es) out.push_back(eval_top(e, values));
  return out;
}

Int128 detail::PoolImpl::eval_rec(Expr e, const Assignment& values, Expr top) {
  if (eval_stamp[e.id] == eval_gen) return eval_value[e.id];
  const Node n = nodes[e.id];
  const std::uint32_t* w = payload.data() + n.off;  // evaluation never grows the arena
  auto where = [&](Expr sub) {
    std::string s = "'" + quote_text(print(sub)) + "'";
    if (sub != top) s += " (evaluating '" + quote_text(print(top)) + "')";
    return s;
  };
  auto overflow = [&]() {
    throw ExprError(ExprError::Kind::kOverflow, "integer overflow in " + where(e));
  };
  Int128 v = 0;
  switch (n.kind) {
    case Kind::kInt:
      v = n.aux;
      break;
    case Kind::kSym: {
      const SymbolInfo& info = symbols[static_cast<std::size_t>(n.aux)];
      const auto it = values.find(info.name);
      const std::uint32_t definition = symbol_definition[static_cast<std::size_t>(n.aux)];
      if (it == values.end() && definition != kNoDefinition) {
        v = eval_rec(Expr{definition}, values, top);  // a size cap: its discarded expression
        break;
      }
      if (it == values.end() && !float_definitions.empty()) {
        const auto def = float_definitions.find(static_cast<std::uint32_t>(n.aux));
        if (def != float_definitions.end()) {
          // A floating-point size: its computation, operation by operation.
          v = eval_float_size(static_cast<std::uint32_t>(n.aux), def->second, values, top);
          break;
        }
      }
      if (it == values.end()) {
        throw ExprError(
            ExprError::Kind::kUnknownSymbol,
            "unknown symbol '" + quote_text(info.name) + "' in '" + quote_text(print(top)) + "'");
      }
      if (it->second < info.bounds.lo || it->second > info.bounds.hi) {
        throw ExprError(ExprError::Kind::kOutOfBounds,
                        "symbol '" + quote_text(info.name) + "' = " + std::to_string(it->second) +
                            " is outside its bounds " + bounds_text(info.bounds) +
                            (info.narrowed_by.empty() ? "" : " (" + info.narrowed_by + ")") +
                            " in '" + quote_text(print(top)) + "'");
      }
      v = it->second;
      break;
    }
    case Kind::kSum: {
      v = n.aux;
      for (std::uint32_t i = 0; i < n.len; i += 3) {
        const Int128 m = eval_rec(Expr{w[i]}, values, top);
        Int128 t = 0;
        if (__builtin_mul_overflow(m, static_cast<Int128>(get_i64(w + i + 1)), &t)) overflow();
        if (__builtin_add_overflow(v, t, &v)) overflow();
      }
      break;
    }
    case Kind::kMono: {
      v = 1;
      for (std::uint32_t i = 0; i < n.len; i += 2) {
        const Int128 a = eval_rec(Expr{w[i]}, values, top);
        for (std::uint32_t k = 0; k < w[i + 1]; ++k) {
          if (__builtin_mul_overflow(v, a, &v)) overflow();
        }
      }
      break;
    }
    case Kind::kFloorDiv:
    case Kind::kExactDiv:
    case Kind::kMod: {
      const Int128 num = eval_rec(Expr{w[0]}, values, top);
      const Int128 den = eval_rec(Expr{w[1]}, values, top);
      if (den == 0) {
        if (n.kind == Kind::kMod) {
          throw ExprError(ExprError::Kind::kModuloByZero, "modulo by zero in " + where(e));
        }
        throw ExprError(ExprError::Kind::kDivisionByZero, "division by zero in " + where(e));
      }
      if (num == kMin128 && den == -1) overflow();
      if (n.kind == Kind::kMod) {
        v = floor_mod_128(num, den);
      } else if (n.kind == Kind::kFloorDiv) {
        v = floor_div_128(num, den);
      } else {
        if (num % den != 0) {
          auto str = [](Int128 x) {
            if (x >= static_cast<Int128>(kNegInf) && x <= static_cast<Int128>(kPosInf)) {
              return std::to_string(static_cast<std::int64_t>(x));
            }
            return std::string(x < 0 ? "-huge" : "huge");
          };
          throw ExprError(ExprError::Kind::kInexactDivision,
                          "inexact division " + str(num) + "/:" + str(den) + " in " + where(e));
        }
        v = num / den;
      }
      break;
    }
    case Kind::kMax:
    case Kind::kMin: {
      v = eval_rec(Expr{w[0]}, values, top);
      for (std::uint32_t i = 1; i < n.len; ++i) {
        const Int128 a = eval_rec(Expr{w[i]}, values, top);
        v = n.kind == Kind::kMax ? (a > v ? a : v) : (a < v ? a : v);
      }
      break;
    }
  }
  eval_stamp[e.id] = eval_gen;
  eval_value[e.id] = v;
  return v;
}

}  // namespace cctx
