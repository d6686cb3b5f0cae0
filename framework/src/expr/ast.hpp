// Raw parse tree shared by ExprPool::parse (which builds canonical expressions from it) and
// evaluate_expression (which evaluates it as written). Nodes are stored in post-order, children
// before parents, so both consumers are a single forward loop: no recursion on deep input.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cctx::detail {

enum class AstOp : std::uint8_t {
  kInt,       // value
  kSym,       // identifier: names[a, a+b)
  kQuoted,    // backtick-quoted symbol: names[a, a+b)
  kNeg,       // -child(a)
  kSum,       // lists[a, a+b); an entry with kNegateBit set is subtracted
  kMul,       // a * b
  kFloorDiv,  // a // b
  kExactDiv,  // a /: b
  kMod,       // a % b
  kMax,       // lists[a, a+b)
  kMin,       // lists[a, a+b)
  kCeil,      // CeilToInt(a, b)
  // Floating-point sizes (expressions.md 4.5), parsed only for evaluate_expression:
  kFloatLit,  // a literal of type FloatType(a); value: the bits of the double holding it
  kFloatDiv,  // a / b
  kToFloat,   // float32(a) or float64(a): b = FloatType
  kRound,     // floor/ceil/trunc/round(a): b = Rounding
  kFloatFn,   // abs(a) (b = 0) or sqrt(a) (b = 1)
};

inline constexpr std::uint32_t kNegateBit = 0x80000000U;

struct AstNode {
  AstOp op = AstOp::kInt;
  std::uint32_t a = 0;
  std::uint32_t b = 0;
  std::int64_t value = 0;
};

struct Ast {
  std::vector<AstNode> nodes;  // the root is the last node
  std::vector<std::uint32_t> lists;
  std::string names;

  std::string_view name(const AstNode& n) const { return std::string_view(names).substr(n.a, n.b); }
};

/// Maximum nesting of parentheses and calls.
inline constexpr int kMaxNesting = 200;

/// Whether the text may hold floating-point sizes (expressions.md 4.5): literals such as
/// `320.0f`, `/`, and float32, float64, floor, ceil, trunc, round, abs and sqrt. Only
/// evaluate_expression reads them; the pool's grammar is integers only.
enum class FloatSyntax : std::uint8_t { kRefuse, kAccept };

/// Parses the full grammar of expressions.md section 2. Throws ExprError: kSyntax (with the byte
/// offset) or kOverflow for an integer literal out of range.
Ast parse_ast(std::string_view text, FloatSyntax floats = FloatSyntax::kRefuse);

/// The same; before throwing, `reason` receives the bare message (what follows "syntax error at
/// offset N in '...': "), for callers that report the position their own way.
Ast parse_ast(std::string_view text, std::string& reason);

}  // namespace cctx::detail
