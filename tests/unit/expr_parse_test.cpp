// Parser (expressions.md section 2; checklist items 17-20 and the robustness part of 40).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "cctx/expr.hpp"

namespace {

using cctx::Expr;
using cctx::ExprError;
using cctx::ExprPool;

std::string canon(ExprPool& pool, std::string_view text) { return pool.print(pool.parse(text)); }

/// The error a strict parse raises (fails the test when there is none).
ExprError parse_error(ExprPool& pool, std::string_view text) {
  try {
    pool.parse(text);
  } catch (const ExprError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for '" << text << "'";
  return ExprError(ExprError::Kind::kSyntax, "none");
}

// Precedence: '^' lowest, then '&', then + -, then * // /: %, then unary.
TEST(ExprParse, PrecedenceAndAssociativity) {
  ExprPool pool;
  EXPECT_EQ(pool.parse("a^b+c"), pool.parse("max(a,b+c)"));
  EXPECT_EQ(pool.parse("a&b^c"), pool.parse("max(min(a,b),c)"));
  EXPECT_EQ(pool.parse("a^b&c"), pool.parse("max(a,min(b,c))"));
  EXPECT_EQ(pool.parse("-N//2"), pool.floor_div(pool.neg(pool.symbol("N")), pool.integer(2)));
  EXPECT_EQ(pool.parse("2*N//3"), pool.parse("(2*N)//3"));
  EXPECT_EQ(pool.parse("x-y-z"), pool.parse("x-(y+z)"));
  EXPECT_EQ(pool.parse("x//y//z"), pool.parse("(x//y)//z"));
  EXPECT_EQ(pool.parse("x%y*z"), pool.parse("(x%y)*z"));
  EXPECT_EQ(pool.parse(" N \t+\n1 "), pool.parse("N+1"));
  EXPECT_EQ(pool.parse("+-+x"), pool.parse("-x"));
}

TEST(ExprParse, FunctionCallsAndQuotedSymbols) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "max(a,b,c)"), "max(a,b,c)");
  EXPECT_EQ(canon(pool, "Min(a, b, c)"), "min(a,b,c)");
  EXPECT_EQ(canon(pool, "max (a,b)"), "max(a,b)");
  EXPECT_EQ(canon(pool, "CeilToInt(N,2)"), "(N+1)//2");
  EXPECT_EQ(canon(pool, "`N`+1"), "N+1");
  EXPECT_EQ(pool.parse("`a b`*2"), pool.mul(pool.opaque_symbol("a b"), pool.integer(2)));
  EXPECT_EQ(pool.find_symbol("a b")->kind, cctx::SymbolKind::kOpaque);
  EXPECT_EQ(pool.parse("`x``y`"), pool.opaque_symbol("x`y"));
}

// Checklist 17: strict parse errors carry byte offsets.
TEST(ExprParse, StrictParseErrorsHaveOffsets) {
  ExprPool pool;
  struct Case {
    const char* text;
    std::size_t offset;
  };
  for (const Case& c :
       {Case{"a +", 3}, Case{"(a", 2}, Case{"max(a)", 0}, Case{"CeilToInt(a)", 0}, Case{"`abc", 0},
        Case{"x+`a", 2}, Case{"a/b", 1}, Case{"foo(1)", 0}, Case{"2N", 1}, Case{"", 0},
        Case{"a,b", 1}, Case{")", 0}, Case{"1 2", 2}, Case{"CeilToInt(a,b,c)", 0},
        Case{"max(a,)", 6}, Case{"``", 0}, Case{"a $ b", 2}, Case{"N*", 2}, Case{"(a))", 3}}) {
    const ExprError e = parse_error(pool, c.text);
    EXPECT_EQ(e.kind(), ExprError::Kind::kSyntax) << c.text;
    EXPECT_EQ(e.offset(), c.offset) << c.text << ": " << e.what();
    const std::string what = e.what();
    EXPECT_NE(what.find("offset " + std::to_string(c.offset)), std::string::npos) << what;
    EXPECT_NE(what.find(std::string("'") + c.text + "'"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(ExprParse, ErrorMessagesAreOneLine) {
  ExprPool pool;
  const ExprError e = parse_error(pool, std::string("a\n+\0b", 5));
  const std::string what = e.what();
  EXPECT_EQ(what.find('\n'), std::string::npos);
  EXPECT_NE(what.find("\\x0a"), std::string::npos) << what;
}

// Checklist 18: 2^63 only as the operand of unary minus.
TEST(ExprParse, Int64MinLiteralOnlyUnderUnaryMinus) {
  ExprPool pool;
  const Expr opaque = pool.parse_dim("9223372036854775808");
  EXPECT_TRUE(pool.is_symbol(opaque));
  EXPECT_EQ(pool.print(opaque), "9223372036854775808");
  EXPECT_EQ(parse_error(pool, "9223372036854775808").kind(), ExprError::Kind::kOverflow);
  EXPECT_EQ(parse_error(pool, "99999999999999999999999").kind(), ExprError::Kind::kOverflow);
  EXPECT_EQ(parse_error(pool, "-+9223372036854775808").kind(), ExprError::Kind::kOverflow);

  const Expr min = pool.parse("-9223372036854775808");
  EXPECT_EQ(pool.as_int(min), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(pool.parse(pool.print(min)), min);
  EXPECT_EQ(pool.parse_dim("-9223372036854775808"), min);
  EXPECT_EQ(pool.as_int(pool.parse("9223372036854775807")),
            std::numeric_limits<std::int64_t>::max());
  // Negating INT64_MIN again overflows.
  EXPECT_EQ(parse_error(pool, "--9223372036854775808").kind(), ExprError::Kind::kOverflow);
}

// Checklist 19: overflow while building makes the dim opaque, with a note.
TEST(ExprParse, OverflowWhileBuildingGivesOpaqueSymbolAndNote) {
  ExprPool pool;
  pool.take_warnings();
  const Expr e = pool.parse_dim("4611686018427387904*2");
  EXPECT_TRUE(pool.is_symbol(e));
  EXPECT_EQ(pool.print(e), "4611686018427387904*2");
  const auto warnings = pool.take_warnings();
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_NE(warnings[0].find("overflow"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("4611686018427387904*2"), std::string::npos) << warnings[0];
  EXPECT_EQ(parse_error(pool, "4611686018427387904*2").kind(), ExprError::Kind::kOverflow);
  EXPECT_EQ(parse_error(pool, "(-9223372036854775808)//(-1)").kind(), ExprError::Kind::kOverflow);
}

// Checklist 20: dim_param policy.
TEST(ExprParse, DimParamPolicy) {
  ExprPool pool;
  const Expr empty = pool.parse_dim("");
  ASSERT_TRUE(pool.is_symbol(empty));
  EXPECT_EQ(pool.print(empty).rfind("unk", 0), 0U);
  EXPECT_NE(pool.parse_dim(""), empty) << "every unset dim is a new unknown";
  const Expr unk = pool.fresh_symbol("unk_X_d0", cctx::kDimBounds, "X dim 0");
  EXPECT_EQ(pool.print(unk), "unk_X_d0");
  EXPECT_EQ(pool.find_symbol("unk_X_d0")->kind, cctx::SymbolKind::kFresh);
  EXPECT_EQ(pool.print(pool.parse_dim("N + 1")), "N+1");
  const Expr six = pool.parse_dim("2*3");
  EXPECT_EQ(pool.as_int(six), 6);
}

// sympy's floor and ceiling of rational sums (ONNX Runtime's symbolic shape inference writes
// them for a window's output: quant_pre_process leaves them in a quantized model) are exact
// integer divisions, with no note; an argument of another form stays opaque, with one.
TEST(ExprParse, SympyFloorsOfRationalSums) {
  ExprPool pool;
  pool.take_warnings();
  const Expr pooled = pool.parse_dim("floor(floor(height/2 - 1/2)/2) + 1");
  EXPECT_FALSE(pool.is_symbol(pooled));
  for (const std::int64_t h : {160, 161, 162, 163, 7}) {
    const std::int64_t first = (h - 1) / 2;  // floor(h/2 - 1/2), h >= 1
    EXPECT_EQ(pool.eval(pooled, {{"height", h}}), first / 2 + 1) << h;
  }
  const Expr up = pool.parse_dim("ceiling(-n/3 + 2*m)");
  for (const auto& [n, m] : {std::pair{7, 1}, std::pair{9, 2}, std::pair{1, 1}, std::pair{20, 1}}) {
    const std::int64_t numerator = 6 * m - n;  // ceil(numerator / 3)
    const std::int64_t want = numerator >= 0 ? (numerator + 2) / 3 : -((-numerator) / 3);
    EXPECT_EQ(pool.eval(up, {{"n", n}, {"m", m}}), want) << n << " " << m;
  }
  EXPECT_TRUE(pool.take_warnings().empty());
  EXPECT_TRUE(pool.is_symbol(pool.parse_dim("floor(height/w)")));
  EXPECT_EQ(pool.take_warnings().size(), 1U);
}

// Nesting deeper than 200 is a syntax error (strict) / an opaque symbol (dim_param).
TEST(ExprParse, NestingLimitIs200) {
  ExprPool pool;
  const std::string ok = std::string(200, '(') + "N" + std::string(200, ')');
  EXPECT_EQ(pool.parse(ok), pool.symbol("N"));
  const std::string deep = std::string(201, '(') + "N" + std::string(201, ')');
  const ExprError e = parse_error(pool, deep);
  EXPECT_EQ(e.kind(), ExprError::Kind::kSyntax);
  EXPECT_EQ(e.offset(), 200U);
  const Expr opaque = pool.parse_dim(deep);
  EXPECT_TRUE(pool.is_symbol(opaque));
  EXPECT_EQ(pool.print(opaque), deep);
  // Calls count as nesting too.
  std::string calls;
  for (int i = 0; i < 201; ++i) calls += "max(1,";
  calls += "N" + std::string(201, ')');
  EXPECT_EQ(parse_error(pool, calls).kind(), ExprError::Kind::kSyntax);
}

// Part of checklist 40: pathological inputs neither crash nor hang.
TEST(ExprParse, PathologicalInputsAreHandled) {
  ExprPool pool;
  // 10^5-deep parentheses.
  const std::string parens(100000, '(');
  EXPECT_EQ(parse_error(pool, parens).kind(), ExprError::Kind::kSyntax);
  EXPECT_TRUE(pool.is_symbol(pool.parse_dim(parens)));
  // 10^5 unary minus signs are a loop, not recursion.
  EXPECT_EQ(pool.parse(std::string(100000, '-') + "x"), pool.symbol("x"));
  EXPECT_EQ(pool.parse(std::string(99999, '-') + "x"), pool.parse("-x"));
  // A 1 MB sum of ones.
  std::string big = "1";
  while (big.size() < (1U << 20)) big += "+1";
  EXPECT_EQ(pool.as_int(pool.parse(big)), static_cast<std::int64_t>((big.size() + 1) / 2));
  // Longer than 4096 bytes: opaque without trying to parse.
  std::string long_dim = "N";
  while (long_dim.size() <= 4096) long_dim += "+N";
  EXPECT_TRUE(pool.is_symbol(pool.parse_dim(long_dim)));
  // A long operator chain (left-associative, built in a loop).
  std::string chain = "x";
  for (int i = 0; i < 20000; ++i) chain += "//1";
  EXPECT_EQ(pool.parse(chain), pool.symbol("x"));
}

// Long chains of every operator end in bounded nodes (size caps) without deep recursion.
TEST(ExprParse, LongOperatorChainsStayBounded) {
  for (const char* op : {"*", "+", "^", "&", "//", "%", "/:", "-"}) {
    ExprPool pool;
    std::string text = "a0";
    for (int i = 1; text.size() < 20000; ++i)
      text += std::string(op) + "a" + std::to_string(i % 997);
    const Expr e = pool.parse(text);
    EXPECT_LE(pool.print(e).size(), 20000U) << op;
    EXPECT_EQ(pool.parse_dim(text), pool.opaque_symbol(text)) << "longer than 4096 bytes";
  }
  // Nested max/min 150 deep: dominance proofs stay within their budget.
  std::string nested = "x";
  for (int i = 0; i < 150; ++i) nested = "max(" + nested + ",y" + std::to_string(i) + ")-1";
  ExprPool pool;
  EXPECT_NO_THROW(pool.parse(nested));
}

// Part of checklist 40: arbitrary bytes (NUL, invalid UTF-8) give a handle or an ExprError.
TEST(ExprParse, ArbitraryBytesNeverCrash) {
  ExprPool pool;
  std::mt19937_64 rng(40);
  const std::string alphabet = "Nx1209()+-*/:%^&,` \t`maxinCeilTo\xff\x80";
  for (int i = 0; i < 5000; ++i) {
    std::string s;
    const auto len = static_cast<int>(rng() % 24);
    for (int k = 0; k < len; ++k) {
      s += (rng() % 4 == 0) ? static_cast<char>(rng() % 256) : alphabet[rng() % alphabet.size()];
    }
    try {
      const Expr e = pool.parse(s);
      // A lone quoted symbol prints raw (rule 8), which need not parse; compounds must.
      if (!pool.is_symbol(e)) {
        EXPECT_EQ(pool.parse(pool.print(e)), e) << s;
      }
    } catch (const ExprError&) {
    }
    const Expr d = pool.parse_dim(s);
    EXPECT_LT(d.id, pool.node_count());
  }
}

}  // namespace
