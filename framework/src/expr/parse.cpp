// Recursive-descent parser for the expression grammar. Recursion only happens at '(' and calls,
// whose nesting is capped at 200; sign chains and operator chains are loops. Memory is O(length).
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "cctx/expr.hpp"
#include "expr/ast.hpp"
#include "expr/float_arith.hpp"
#include "expr/pool_impl.hpp"

namespace cctx::detail {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

std::string describe(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u < 0x20 || u >= 0x7f) {
    static constexpr char kHex[] = "0123456789abcdef";
    return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 15];
  }
  return std::string("'") + c + "'";
}

class Parser {
 public:
  Parser(std::string_view text, std::string* reason, FloatSyntax floats)
      : text_(text), reason_(reason), floats_(floats == FloatSyntax::kAccept) {}

  Ast run() {
    expr();
    skip_ws();
    if (pos_ < text_.size()) fail(pos_, "unexpected " + describe(text_[pos_]));
    return std::move(ast_);
  }

 private:
  [[noreturn]] void fail(std::size_t at, const std::string& msg,
                         ExprError::Kind kind = ExprError::Kind::kSyntax) const {
    if (reason_ != nullptr) *reason_ = msg;
    const char* what = kind == ExprError::Kind::kSyntax ? "syntax error" : "integer overflow";
    throw ExprError(kind,
                    std::string(what) + " at offset " + std::to_string(at) + " in '" +
                        quote_text(text_) + "': " + msg,
                    at);
  }

  void skip_ws() {
    while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
  }
  char peek() {
    skip_ws();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  bool at_end() {
    skip_ws();
    return pos_ >= text_.size();
  }

  std::uint32_t emit(AstOp op, std::uint32_t a, std::uint32_t b, std::int64_t value = 0) {
    ast_.nodes.push_back(AstNode{op, a, b, value});
    return static_cast<std::uint32_t>(ast_.nodes.size() - 1);
  }
  std::uint32_t emit_list(AstOp op, const std::vector<std::uint32_t>& items) {
    const auto off = static_cast<std::uint32_t>(ast_.lists.size());
    ast_.lists.insert(ast_.lists.end(), items.begin(), items.end());
    return emit(op, off, static_cast<std::uint32_t>(items.size()));
  }

  // expr := minx ('^' minx)*
  std::uint32_t expr() {
    const std::uint32_t first = minx();
    if (peek() != '^') return first;
    std::vector<std::uint32_t> items{first};
    while (peek() == '^') {
      ++pos_;
      items.push_back(minx());
    }
    return emit_list(AstOp::kMax, items);
  }

  // minx := sum ('&' sum)*
  std::uint32_t minx() {
    const std::uint32_t first = sum();
    if (peek() != '&') return first;
    std::vector<std::uint32_t> items{first};
    while (peek() == '&') {
      ++pos_;
      items.push_back(sum());
    }
    return emit_list(AstOp::kMin, items);
  }

  // sum := term (('+' | '-') term)*
  std::uint32_t sum() {
    const std::uint32_t first = term();
    char c = peek();
    if (c != '+' && c != '-') return first;
    std::vector<std::uint32_t> items{first};
    while (c == '+' || c == '-') {
      ++pos_;
      const std::uint32_t t = term();
      items.push_back(c == '-' ? (t | kNegateBit) : t);
      c = peek();
    }
    return emit_list(AstOp::kSum, items);
  }

  // term := unary (('*' | '//' | '/:' | '%') unary)*
  std::uint32_t term() {
    std::uint32_t left = unary();
    while (true) {
      const char c = peek();
      AstOp op = AstOp::kMul;
      if (c == '*') {
        ++pos_;
      } else if (c == '%') {
        op = AstOp::kMod;
        ++pos_;
      } else if (c == '/') {
        const char next = pos_ + 1 < text_.size() ? text_[pos_ + 1] : '\0';
        if (next == '/') {
          op = AstOp::kFloorDiv;
        } else if (next == ':') {
          op = AstOp::kExactDiv;
        } else if (floats_) {
          op = AstOp::kFloatDiv;  // a floating-point quotient
        } else {
          fail(pos_, "'/' must be followed by '/' or ':'");
        }
        pos_ += op == AstOp::kFloatDiv ? 1 : 2;
      } else {
        return left;
      }
      const std::uint32_t right = unary();
      left = emit(op, left, right);
    }
  }

  // unary := ('-' | '+') unary | primary   (a loop: sign chains can be arbitrarily long)
  std::uint32_t unary() {
    std::size_t negations = 0;
    bool last_minus = false;
    while (true) {
      const char c = peek();
      if (c == '-') {
        ++negations;
        last_minus = true;
      } else if (c == '+') {
        last_minus = false;
      } else {
        break;
      }
      ++pos_;
    }
    bool used_minus = false;
    std::uint32_t node = primary(last_minus, used_minus);
    if (used_minus) --negations;
    for (std::size_t i = 0; i < negations; ++i) node = emit(AstOp::kNeg, node, 0);
    return node;
  }

  std::uint32_t primary(bool after_minus, bool& used_minus) {
    if (at_end()) fail(pos_, "expected an operand at end of input");
    const std::size_t start = pos_;
    const char c = text_[pos_];
    if (is_digit(c) && floats_ && is_float_literal()) return float_literal(start);
    if (is_digit(c)) {
      std::uint64_t v = 0;
      bool too_big = false;
      while (pos_ < text_.size() && is_digit(text_[pos_])) {
        const auto digit = static_cast<std::uint64_t>(text_[pos_] - '0');
        if (v > (~std::uint64_t{0} - digit) / 10) too_big = true;
        if (!too_big) v = v * 10 + digit;
        ++pos_;
      }
      constexpr std::uint64_t kMaxMagnitude = std::uint64_t{1} << 63;
      if (!too_big && v < kMaxMagnitude)
        return emit(AstOp::kInt, 0, 0, static_cast<std::int64_t>(v));
      if (!too_big && v == kMaxMagnitude && after_minus) {
        used_minus = true;  // the literal 2^63 is INT64_MIN only as the operand of unary minus
        return emit(AstOp::kInt, 0, 0, kNegInf);
      }
      fail(start,
           "integer literal " + std::string(text_.substr(start, pos_ - start)) +
               " does not fit in int64",
           ExprError::Kind::kOverflow);
    }
    if (is_ident_start(c)) {
      while (pos_ < text_.size() && is_ident_char(text_[pos_])) ++pos_;
      const std::string_view name = text_.substr(start, pos_ - start);
      if (peek() == '(') return call(name, start);
      return symbol(AstOp::kSym, name);
    }
    if (c == '`') {
      std::string name;
      ++pos_;
      while (true) {
        if (pos_ >= text_.size()) fail(start, "unterminated quoted symbol");
        if (text_[pos_] == '`') {
          if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '`') {
            name += '`';
            pos_ += 2;
            continue;
          }
          ++pos_;
          break;
        }
        name += text_[pos_++];
      }
      if (name.empty()) fail(start, "empty quoted symbol");
      return symbol(AstOp::kQuoted, name);
    }
    if (c == '(') {
      enter(start);
      ++pos_;
      const std::uint32_t inner = expr();
      if (peek() != ')') {
        fail(pos_, at_end() ? "expected ')' at end of input"
                            : "expected ')' before " + describe(text_[pos_]));
      }
      ++pos_;
      --depth_;
      return inner;
    }
    fail(pos_, "expected an operand before " + describe(c));
  }

  void enter(std::size_t at) {
    if (++depth_ > kMaxNesting) {
      fail(at, "nesting deeper than " + std::to_string(kMaxNesting) + " levels");
    }
  }

  std::uint32_t symbol(AstOp op, std::string_view name) {
    const auto off = static_cast<std::uint32_t>(ast_.names.size());
    ast_.names.append(name);
    return emit(op, off, static_cast<std::uint32_t>(name.size()));
  }

  /// At a digit: whether the number goes on with a '.' or an exponent (a floating literal).
  bool is_float_literal() const {
    std::size_t i = pos_;
    while (i < text_.size() && is_digit(text_[i])) ++i;
    if (i < text_.size() && text_[i] == '.') return true;
    if (i + 1 < text_.size() && (text_[i] == 'e' || text_[i] == 'E')) {
      const char next = text_[i + 1];
      return is_digit(next) ||
             ((next == '-' || next == '+') && i + 2 < text_.size() && is_digit(text_[i + 2]));
    }
    return false;
  }

  /// digits ['.' digits] [('e'|'E') ['+'|'-'] digits] ['f']: float32 with the suffix, else float64.
  std::uint32_t float_literal(std::size_t start) {
    auto digits = [&] {
      while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    };
    digits();
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      digits();
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+')) ++pos_;
      digits();
    }
    const std::string_view body = text_.substr(start, pos_ - start);
    FloatType type = FloatType::kFloat64;
    if (pos_ < text_.size() && text_[pos_] == 'f') {
      type = FloatType::kFloat32;
      ++pos_;
    }
    const std::optional<double> v = parse_float_literal(body, type);
    if (!v) fail(start, "floating-point literal " + std::string(body) + " is not a finite value");
    std::int64_t bits = 0;
    std::memcpy(&bits, &*v, sizeof bits);
    return emit(AstOp::kFloatLit, static_cast<std::uint32_t>(type), 0, bits);
  }

  std::uint32_t call(std::string_view name, std::size_t at) {
    if (floats_) {
      if (const FloatFunction* f = float_function(name)) {
        enter(pos_);
        ++pos_;  // '('
        const std::uint32_t arg = expr();
        if (peek() != ')') {
          fail(pos_, at_end() ? "expected ')' at end of input"
                              : std::string(name) + " takes one argument: expected ')' before " +
                                    describe(text_[pos_]));
        }
        ++pos_;
        --depth_;
        return emit(f->op, arg, f->arg);
      }
    }
    AstOp op = AstOp::kMax;
    if (name == "max" || name == "Max") {
      op = AstOp::kMax;
    } else if (name == "min" || name == "Min") {
      op = AstOp::kMin;
    } else if (name == "CeilToInt") {
      op = AstOp::kCeil;
    } else {
      fail(at, "unknown function '" + std::string(name) + "'");
    }
    enter(pos_);
    ++pos_;  // '('
    std::vector<std::uint32_t> args;
    while (true) {
      args.push_back(expr());
      const char c = peek();
      if (c == ',') {
        ++pos_;
        continue;
      }
      if (c == ')') {
        ++pos_;
        break;
      }
      fail(pos_,
           at_end() ? "expected ')' at end of input" : "expected ',' or ')' before " + describe(c));
    }
    --depth_;
    if (op == AstOp::kCeil) {
      if (args.size() != 2) fail(at, "CeilToInt takes exactly 2 arguments");
      return emit(AstOp::kCeil, args[0], args[1]);
    }
    if (args.size() < 2) fail(at, std::string(name) + " needs at least 2 arguments");
    return emit_list(op, args);
  }

  // The float functions of the expression language, by name. A table rather than an optional
  // pair: GCC's sanitizer builds warn (maybe-uninitialized) on the optional's payload.
  struct FloatFunction {
    std::string_view name;
    AstOp op;
    std::uint32_t arg;
  };

  static const FloatFunction* float_function(std::string_view name) {
    static constexpr FloatFunction kFunctions[] = {
        {"float32", AstOp::kToFloat, static_cast<std::uint32_t>(FloatType::kFloat32)},
        {"float64", AstOp::kToFloat, static_cast<std::uint32_t>(FloatType::kFloat64)},
        {"floor", AstOp::kRound, static_cast<std::uint32_t>(Rounding::kFloor)},
        {"ceil", AstOp::kRound, static_cast<std::uint32_t>(Rounding::kCeil)},
        {"trunc", AstOp::kRound, static_cast<std::uint32_t>(Rounding::kTrunc)},
        {"round", AstOp::kRound, static_cast<std::uint32_t>(Rounding::kHalfEven)},
        {"abs", AstOp::kFloatFn, 0},
        {"sqrt", AstOp::kFloatFn, 1},
    };
    for (const FloatFunction& f : kFunctions) {
      if (f.name == name) return &f;
    }
    return nullptr;
  }

  std::string_view text_;
  std::string* reason_;
  bool floats_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  Ast ast_;
};

}  // namespace

Ast parse_ast(std::string_view text, FloatSyntax floats) {
  return Parser(text, nullptr, floats).run();
}

Ast parse_ast(std::string_view text, std::string& reason) {
  return Parser(text, &reason, FloatSyntax::kRefuse).run();
}

}  // namespace cctx::detail

namespace cctx {

using namespace detail;

Expr detail::PoolImpl::parse(std::string_view src) {
  const Ast ast = parse_ast(src);
  std::vector<Expr> vals(ast.nodes.size());
  std::vector<Expr> items;
  try {
    for (std::size_t i = 0; i < ast.nodes.size(); ++i) {
      const AstNode& n = ast.nodes[i];
      auto list = [&]() {
        items.clear();
        for (std::uint32_t k = 0; k < n.b; ++k) {
          const std::uint32_t entry = ast.lists[n.a + k];
          const Expr v = vals[entry & ~kNegateBit];
          items.push_back((entry & kNegateBit) != 0 ? neg(v) : v);
        }
        return std::span<const Expr>(items);
      };
      Expr r;
      switch (n.op) {
        case AstOp::kInt:
          r = integer(n.value);
          break;
        case AstOp::kSym: {
          const std::string_view name = ast.name(n);
          const auto it = symbol_index.find(name);
          r = it != symbol_index.end()
                  ? symbol_node(it->second)
                  : symbol_node(
                        new_symbol(std::string(name), SymbolKind::kDeclared, kDimBounds, ""));
          break;
        }
        case AstOp::kQuoted:
          r = lookup_or_opaque(ast.name(n));
          break;
        case AstOp::kNeg:
          r = neg(vals[n.a]);
          break;
        case AstOp::kSum:
          r = sum(list());
          break;
        case AstOp::kMul:
          r = mul(vals[n.a], vals[n.b]);
          break;
        case AstOp::kFloorDiv:
          r = floor_div(vals[n.a], vals[n.b]);
          break;
        case AstOp::kExactDiv:
          r = exact_div(vals[n.a], vals[n.b]);
          break;
        case AstOp::kMod:
          r = mod(vals[n.a], vals[n.b]);
          break;
        case AstOp::kMax:
          r = minmax(true, list());
          break;
        case AstOp::kMin:
          r = minmax(false, list());
          break;
        case AstOp::kCeil:
          r = ceil_div(vals[n.a], vals[n.b]);
          break;
        case AstOp::kFloatLit:
        case AstOp::kFloatDiv:
        case AstOp::kToFloat:
        case AstOp::kRound:
        case AstOp::kFloatFn:
          // parse_ast refuses them unless asked to accept them (evaluate_expression).
          throw ExprError(ExprError::Kind::kSyntax,
                          "floating-point syntax in '" + quote_text(src) + "' is evaluated only");
      }
      vals[i] = r;
    }
  } catch (const ExprError& e) {
    // A zero divisor is a property of the text as written (`5//0`, `N%(N-N)`): name the text.
    if (e.kind() == ExprError::Kind::kDivisionByZero) {
      throw ExprError(e.kind(), "division by zero in '" + quote_text(src) + "'");
    }
    if (e.kind() == ExprError::Kind::kModuloByZero) {
      throw ExprError(e.kind(), "modulo by zero in '" + quote_text(src) + "'");
    }
    throw ExprError(e.kind(),
                    std::string(e.what()) + " while simplifying '" + quote_text(src) + "'");
  }
  return vals.back();
}

}  // namespace cctx
