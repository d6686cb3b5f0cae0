// evaluate_expression: the raw parse tree evaluated as written (no simplification), checked
// int64 with floor `//` and `%` taking the divisor's sign (semantics.md "Expressions: Evaluation").
#include <algorithm>

#include "cctx/expr.hpp"
#include "expr/ast.hpp"
#include "expr/pool_impl.hpp"

namespace cctx {

using namespace detail;

std::int64_t evaluate_expression(std::string_view text, const Assignment& values) {
  const Ast ast = parse_ast(text);
  auto fail = [&](ExprError::Kind kind, const std::string& what) {
    throw ExprError(kind, what + " in '" + quote_text(text) + "'");
  };
  std::vector<std::int64_t> v(ast.nodes.size());
  for (std::size_t i = 0; i < ast.nodes.size(); ++i) {
    const AstNode& n = ast.nodes[i];
    std::int64_t r = 0;
    auto overflow_if = [&](bool overflowed) {
      if (overflowed) fail(ExprError::Kind::kOverflow, "integer overflow");
    };
    auto check_divisor = [&](std::int64_t den, bool modulo) {
      if (den == 0) {
        fail(modulo ? ExprError::Kind::kModuloByZero : ExprError::Kind::kDivisionByZero,
             modulo ? "modulo by zero" : "division by zero");
      }
    };
    switch (n.op) {
      case AstOp::kInt:
        r = n.value;
        break;
      case AstOp::kSym:
      case AstOp::kQuoted: {
        const std::string_view name = ast.name(n);
        const auto it = values.find(name);
        if (it == values.end()) {
          fail(ExprError::Kind::kUnknownSymbol, "unknown symbol '" + quote_text(name) + "'");
        }
        r = it->second;
        break;
      }
      case AstOp::kNeg:
        overflow_if(__builtin_sub_overflow(std::int64_t{0}, v[n.a], &r));
        break;
      case AstOp::kSum:
        for (std::uint32_t k = 0; k < n.b; ++k) {
          const std::uint32_t entry = ast.lists[n.a + k];
          const std::int64_t x = v[entry & ~kNegateBit];
          if (k == 0) {
            r = x;
          } else if ((entry & kNegateBit) != 0) {
            overflow_if(__builtin_sub_overflow(r, x, &r));
          } else {
            overflow_if(__builtin_add_overflow(r, x, &r));
          }
        }
        break;
      case AstOp::kMul:
        overflow_if(__builtin_mul_overflow(v[n.a], v[n.b], &r));
        break;
      case AstOp::kFloorDiv:
        check_divisor(v[n.b], false);
        overflow_if(v[n.a] == kNegInf && v[n.b] == -1);
        r = floor_div_int(v[n.a], v[n.b]);
        break;
      case AstOp::kExactDiv:
        check_divisor(v[n.b], false);
        overflow_if(v[n.a] == kNegInf && v[n.b] == -1);
        if (v[n.a] % v[n.b] != 0) {
          fail(ExprError::Kind::kInexactDivision,
               "inexact division " + std::to_string(v[n.a]) + "/:" + std::to_string(v[n.b]));
        }
        r = v[n.a] / v[n.b];
        break;
      case AstOp::kMod:
        check_divisor(v[n.b], true);
        r = floor_mod_int(v[n.a], v[n.b]);
        break;
      case AstOp::kMax:
      case AstOp::kMin:
        r = v[ast.lists[n.a]];
        for (std::uint32_t k = 1; k < n.b; ++k) {
          const std::int64_t x = v[ast.lists[n.a + k]];
          r = n.op == AstOp::kMax ? std::max(r, x) : std::min(r, x);
        }
        break;
      case AstOp::kCeil: {
        const std::int64_t x = v[n.a];
        const std::int64_t d = v[n.b];
        check_divisor(d, false);
        overflow_if(x == kNegInf && d == -1);
        r = x / d;
        if (x % d != 0 && ((x < 0) == (d < 0))) ++r;
        break;
      }
    }
    v[i] = r;
  }
  return v.back();
}

}  // namespace cctx
