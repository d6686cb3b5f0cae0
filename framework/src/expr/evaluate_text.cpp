// evaluate_expression: the raw parse tree evaluated as written (no simplification), checked
// int64 with floor `//` and `%` taking the divisor's sign (semantics.md "Expressions: Evaluation").
// It also reads the definitions of floating-point sizes (expressions.md 4.5), whose operations
// are evaluated in their own type and rounded as the runtime rounds: every value is an integer
// or a float32/float64, operands of one operation must agree, and the whole must be an integer.
#include <algorithm>
#include <cstring>

#include "cctx/expr.hpp"
#include "expr/ast.hpp"
#include "expr/float_arith.hpp"
#include "expr/pool_impl.hpp"

namespace cctx {

using namespace detail;

namespace {

/// An integer, or a value of a floating type.
struct Value {
  std::int64_t i = 0;
  double f = 0;
  bool floating = false;
  FloatType type = FloatType::kFloat32;
};

}  // namespace

std::int64_t evaluate_expression(std::string_view text, const Assignment& values) {
  const Ast ast = parse_ast(text, FloatSyntax::kAccept);
  auto fail = [&](ExprError::Kind kind, const std::string& what) {
    throw ExprError(kind, what + " in '" + quote_text(text) + "'");
  };
  std::vector<Value> v(ast.nodes.size());
  // Operands of one operation: all integers, or all floating of one type.
  auto same_kind = [&](const Value& a, const Value& b, const char* op) {
    if (a.floating != b.floating) {
      fail(ExprError::Kind::kSyntax, std::string("'") + op +
                                         "' of an integer and a floating value (convert with "
                                         "float32() or float64(), or round with floor())");
    }
    if (a.floating && a.type != b.type) {
      fail(ExprError::Kind::kSyntax, std::string("'") + op + "' of a float32 and a float64 value");
    }
  };
  auto integer = [&](const Value& a, const char* op) {
    if (a.floating) {
      fail(ExprError::Kind::kSyntax,
           std::string("'") + op + "' of a floating value (round it with floor() first)");
    }
    return a.i;
  };
  for (std::size_t i = 0; i < ast.nodes.size(); ++i) {
    const AstNode& n = ast.nodes[i];
    Value r;
    auto overflow_if = [&](bool overflowed) {
      if (overflowed) fail(ExprError::Kind::kOverflow, "integer overflow");
    };
    auto check_divisor = [&](std::int64_t den, bool modulo) {
      if (den == 0) {
        fail(modulo ? ExprError::Kind::kModuloByZero : ExprError::Kind::kDivisionByZero,
             modulo ? "modulo by zero" : "division by zero");
      }
    };
    auto floating = [&](FloatType t, double x) {
      r.floating = true;
      r.type = t;
      r.f = x;
    };
    switch (n.op) {
      case AstOp::kInt:
        r.i = n.value;
        break;
      case AstOp::kSym:
      case AstOp::kQuoted: {
        const std::string_view name = ast.name(n);
        const auto it = values.find(name);
        if (it == values.end()) {
          fail(ExprError::Kind::kUnknownSymbol, "unknown symbol '" + quote_text(name) + "'");
        }
        r.i = it->second;
        break;
      }
      case AstOp::kNeg:
        if (v[n.a].floating) {
          floating(v[n.a].type, -v[n.a].f);
        } else {
          overflow_if(__builtin_sub_overflow(std::int64_t{0}, v[n.a].i, &r.i));
        }
        break;
      case AstOp::kSum:
        for (std::uint32_t k = 0; k < n.b; ++k) {
          const std::uint32_t entry = ast.lists[n.a + k];
          const Value& x = v[entry & ~kNegateBit];
          const bool minus = (entry & kNegateBit) != 0;
          if (k == 0) {
            r = x;
            continue;
          }
          same_kind(r, x, minus ? "-" : "+");
          if (r.floating) {
            r.f = apply_binary(minus ? FloatOp::kSub : FloatOp::kAdd, r.type, r.f, x.f);
          } else if (minus) {
            overflow_if(__builtin_sub_overflow(r.i, x.i, &r.i));
          } else {
            overflow_if(__builtin_add_overflow(r.i, x.i, &r.i));
          }
        }
        break;
      case AstOp::kMul:
        same_kind(v[n.a], v[n.b], "*");
        if (v[n.a].floating) {
          floating(v[n.a].type, apply_binary(FloatOp::kMul, v[n.a].type, v[n.a].f, v[n.b].f));
        } else {
          overflow_if(__builtin_mul_overflow(v[n.a].i, v[n.b].i, &r.i));
        }
        break;
      case AstOp::kFloorDiv: {
        const std::int64_t x = integer(v[n.a], "//"), d = integer(v[n.b], "//");
        check_divisor(d, false);
        overflow_if(x == kNegInf && d == -1);
        r.i = floor_div_int(x, d);
        break;
      }
      case AstOp::kExactDiv: {
        const std::int64_t x = integer(v[n.a], "/:"), d = integer(v[n.b], "/:");
        check_divisor(d, false);
        overflow_if(x == kNegInf && d == -1);
        if (x % d != 0) {
          fail(ExprError::Kind::kInexactDivision,
               "inexact division " + std::to_string(x) + "/:" + std::to_string(d));
        }
        r.i = x / d;
        break;
      }
      case AstOp::kMod: {
        const std::int64_t x = integer(v[n.a], "%"), d = integer(v[n.b], "%");
        check_divisor(d, true);
        r.i = floor_mod_int(x, d);
        break;
      }
      case AstOp::kMax:
      case AstOp::kMin: {
        const bool is_max = n.op == AstOp::kMax;
        r = v[ast.lists[n.a]];
        for (std::uint32_t k = 1; k < n.b; ++k) {
          const Value& x = v[ast.lists[n.a + k]];
          same_kind(r, x, is_max ? "max" : "min");
          if (r.floating) {
            r.f = apply_binary(is_max ? FloatOp::kMax : FloatOp::kMin, r.type, r.f, x.f);
          } else {
            r.i = is_max ? std::max(r.i, x.i) : std::min(r.i, x.i);
          }
        }
        break;
      }
      case AstOp::kCeil: {
        const std::int64_t x = integer(v[n.a], "CeilToInt"), d = integer(v[n.b], "CeilToInt");
        check_divisor(d, false);
        overflow_if(x == kNegInf && d == -1);
        r.i = x / d;
        if (x % d != 0 && ((x < 0) == (d < 0))) ++r.i;
        break;
      }
      case AstOp::kFloatLit: {
        double x = 0;
        std::memcpy(&x, &n.value, sizeof x);
        floating(static_cast<FloatType>(n.a), x);
        break;
      }
      case AstOp::kFloatDiv: {
        const Value &x = v[n.a], &y = v[n.b];
        if (!x.floating || !y.floating) {
          fail(ExprError::Kind::kSyntax,
               "'/' divides floating values (integers divide with '//' or '/:')");
        }
        same_kind(x, y, "/");
        if (y.f == 0) fail(ExprError::Kind::kDivisionByZero, "floating-point division by zero");
        floating(x.type, apply_binary(FloatOp::kDiv, x.type, x.f, y.f));
        break;
      }
      case AstOp::kToFloat: {
        const auto t = static_cast<FloatType>(n.b);
        floating(t, v[n.a].floating ? to_type(v[n.a].f, t) : int_to_type(v[n.a].i, t));
        break;
      }
      case AstOp::kRound: {
        const auto how = static_cast<Rounding>(n.b);
        const Value& x = v[n.a];
        if (!x.floating) {
          r.i = x.i;  // an integer is its own floor, ceiling, truncation and rounding
          break;
        }
        const std::optional<std::int64_t> k = round_to_int(x.f, how);
        if (!k) {
          fail(ExprError::Kind::kOverflow, std::string(rounding_name(how)) + " of " +
                                               float_literal(x.f, FloatType::kFloat64) +
                                               ", which is not an int64");
        }
        r.i = *k;
        break;
      }
      case AstOp::kFloatFn: {
        const Value& x = v[n.a];
        if (!x.floating) {
          fail(ExprError::Kind::kSyntax, std::string(n.b == 0 ? "abs" : "sqrt") +
                                             " of an integer (convert it with float32() first)");
        }
        floating(x.type, apply_unary(n.b == 0 ? FloatOp::kAbs : FloatOp::kSqrt, x.type, x.f));
        break;
      }
    }
    v[i] = r;
  }
  if (v.back().floating) {
    fail(ExprError::Kind::kSyntax,
         "the value is floating-point: round it with floor(), ceil(), trunc() or round()");
  }
  return v.back().i;
}

}  // namespace cctx
