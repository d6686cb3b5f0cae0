// Simplification rules (expressions.md "Simplification"; checklist items 4-14, 34, 35) and symbols.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cctx/expr.hpp"

namespace {

using cctx::Assignment;
using cctx::Expr;
using cctx::ExprError;
using cctx::ExprLimits;
using cctx::ExprPool;
using cctx::Interval;
using cctx::kPosInf;

std::string canon(ExprPool& pool, std::string_view text) { return pool.print(pool.parse(text)); }

// Checklist 4: literal folding, dedupe and dominance in max/min.
TEST(ExprSimplify, MaxMinFoldDedupeAndDominance) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "max(3,5)"), "5");
  EXPECT_EQ(canon(pool, "min(N,N)"), "N");
  EXPECT_EQ(canon(pool, "max(N,N+1)"), "N+1");
  EXPECT_EQ(canon(pool, "min(N,N+1)"), "N");
  EXPECT_EQ(canon(pool, "max(N,1)"), "N");
  EXPECT_EQ(canon(pool, "max(2,x,7,3)"), "max(7,x)");
  EXPECT_EQ(canon(pool, "max(max(a,b),max(b,c))"), "max(a,b,c)");
  EXPECT_EQ(canon(pool, "min(min(a,3),min(b,2))"), "min(2,a,b)");
}

// Checklist 5: dominance uses the declared bounds.
TEST(ExprSimplify, MaxMinUseDeclaredBounds) {
  ExprPool bounded;
  bounded.declare_symbol("N", {2, 10});
  EXPECT_EQ(canon(bounded, "max(N,2)"), "N");
  EXPECT_EQ(canon(bounded, "min(N,10)"), "N");
  EXPECT_EQ(canon(bounded, "min(N,11,M)"), "min(M,N)");
  ExprPool plain;
  EXPECT_EQ(canon(plain, "min(N,0)"), "0");
  EXPECT_EQ(canon(plain, "max(N,2)"), "max(2,N)");
}

// Checklist 6: integer folding with floor semantics.
TEST(ExprSimplify, IntegerFoldingUsesFloorSemantics) {
  ExprPool pool;
  EXPECT_EQ(pool.as_int(pool.parse("7//2")), 3);
  EXPECT_EQ(pool.as_int(pool.parse("-7//2")), -4);
  EXPECT_EQ(pool.as_int(pool.parse("-7%2")), 1);
  EXPECT_EQ(pool.as_int(pool.parse("7%-2")), -1);
  EXPECT_EQ(pool.as_int(pool.parse("7//-2")), -4);
  EXPECT_EQ(pool.as_int(pool.parse("7/:7")), 1);
  EXPECT_EQ(pool.as_int(pool.parse("-12/:4")), -3);
  EXPECT_EQ(pool.as_int(pool.parse("CeilToInt(7,2)")), 4);
  EXPECT_EQ(pool.as_int(pool.parse("CeilToInt(-7,2)")), -3);
  try {
    pool.parse("7/:2");
    FAIL() << "inexact literal division must be an error";
  } catch (const ExprError& e) {
    EXPECT_EQ(e.kind(), ExprError::Kind::kInexactDivision);
  }
}

// Checklist 7: coefficient division and gcd reduction.
TEST(ExprSimplify, CoefficientDivisionAndGcd) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "(768*x)//256"), "3*x");
  EXPECT_EQ(canon(pool, "(6*a)//4"), "(3*a)//2");
  EXPECT_EQ(canon(pool, "(4*N+7)//8"), "(N+1)//2");
  // gcd for modulo: (6a+3)%4 = 2*((3a+1)%2) + 1.
  EXPECT_EQ(canon(pool, "(6*a+3)%4"), "2*((3*a+1)%2)+1");
}

// Checklist 8: numerator constants.
TEST(ExprSimplify, NumeratorConstants) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "(2*b+2*c+1)//2"), "b+c");
  EXPECT_EQ(canon(pool, "(2*N+3)//2"), "N+1");
  EXPECT_EQ(canon(pool, "(4*N+6)%4"), "2");
  EXPECT_EQ(canon(pool, "(2*a+2*b+3)//2"), "a+b+1");
  EXPECT_EQ(canon(pool, "(3*x-1)/:3"), "(3*x-1)/:3");
  EXPECT_EQ(canon(pool, "(6*x+3)/:3"), "2*x+1");
  EXPECT_EQ(canon(pool, "(6*x+4)/:4"), "(3*x+2)/:2");
}

// Floor division is non-decreasing, so it goes through a max/min with a constant arm (which
// folds): a pool's max(1, H//2) feeding the next window's division stays one level deep.
TEST(ExprSimplify, FloorDivisionThroughMaxMinWithAConstantArm) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "(max(1,H//2)+1)//2"), "max((H+2)//4,1)");
  EXPECT_EQ(canon(pool, "(min(8,H)+3)//4"), "min((H+3)//4,2)");
  EXPECT_EQ(canon(pool, "(max(1,H)-1)//2"), "(H+1)//2-1");       // symbols are >= 1: max folds
  EXPECT_EQ(canon(pool, "(max(H,W)+1)//2"), "(max(H,W)+1)//2");  // no constant arm: kept
}

// Issue 19 item 1: a CNN's peak compares terms in nested ceiling divisions of the same symbol
// ((h+1)//2, (h+3)//4, ... each the previous halved and rounded up); the dominated arms of its
// max go (arms taken from the torchvision resnet50 export).
TEST(ExprSimplify, NestedCeilingDivisionsOfOneSymbolCompare) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "max((h+1)//2, 2*((h+3)//4))"), "2*((h+3)//4)");
  EXPECT_EQ(canon(pool, "max(256*((h+1)//2)*((w+1)//2), 1024*((h+3)//4)*((w+3)//4))"),
            "1024*((h+3)//4)*((w+3)//4)");
  EXPECT_EQ(canon(pool,
                  "max(256*((h+1)//2)*((w+1)//2)*b+588*((h+1)//2)*((w+1)//2),"
                  "1536*((h+3)//4)*((w+3)//4)*b+2304*((h+3)//4)*((w+3)//4))"),
            "1536*((h+3)//4)*((w+3)//4)*b+2304*((h+3)//4)*((w+3)//4)");
  EXPECT_EQ(canon(pool,
                  "max(4608*((h+7)//8)*((w+7)//8)*b, 1024*((h+3)//4)*((w+3)//4)*b+"
                  "4096*((h+7)//8)*((w+7)//8)*b+1024*((h+7)//8)*((w+7)//8))"),
            "1024*((h+3)//4)*((w+3)//4)*b+4096*((h+7)//8)*((w+7)//8)*b+1024*((h+7)//8)*((w+7)//8)");
  // Neither dominates: at b = 1 the second is larger, at large b the first.
  EXPECT_EQ(canon(pool,
                  "max(2304*((h+3)//4)*((w+3)//4)*b, 1536*((h+3)//4)*((w+3)//4)*b+"
                  "2304*((h+3)//4)*((w+3)//4))")
                .rfind("max(", 0),
            0u);
  // Not a chain of the same symbol: (h+1)//2 and (w+3)//4 stay unrelated.
  EXPECT_EQ(canon(pool, "max((h+1)//2, 2*((w+3)//4))").rfind("max(", 0), 0u);
}

// Checklist 9: nested floor division.
TEST(ExprSimplify, NestedFloorDivision) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "x//5//2"), "x//10");
  EXPECT_EQ(canon(pool, "(x//5+3)//2"), "(x+5)//10+1");  // = (x+15)//10
  EXPECT_EQ(canon(pool, "(x//a)//2"), "x//(2*a)");
  EXPECT_EQ(canon(pool, "(x//a)//b"), "x//(a*b)");
  // Without a >= 1 the bounds-aware rule does not apply.
  ExprPool loose;
  loose.declare_symbol("a", {0, kPosInf});
  EXPECT_EQ(canon(loose, "(x//a)//2"), "(x//a)//2");
}

// Checklist 10: offsets and CeilToInt.
TEST(ExprSimplify, OffsetsAndCeil) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "(N+3)//2"), "(N+1)//2+1");
  EXPECT_EQ(canon(pool, "(N-5)%3"), "(N+1)%3");
  EXPECT_EQ(canon(pool, "CeilToInt(x,-2)"), "-(x//2)");
  EXPECT_EQ(canon(pool, "CeilToInt(x,n)"), "(n+x-1)//n");
  ExprPool signed_n;
  signed_n.declare_symbol("n", {-5, 5});
  EXPECT_EQ(canon(signed_n, "CeilToInt(x,n)"), "-((-x)//n)");
}

// Checklist 11: Hermite's identity.
TEST(ExprSimplify, HermiteIdentity) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "N//2+(N+1)//2"), "N");
  EXPECT_EQ(canon(pool, "(x+5)//3+(x+6)//3+(x+7)//3"), "x+5");
  EXPECT_EQ(canon(pool, "2*(N//2)+2*((N+1)//2)"), "2*N");
  EXPECT_EQ(canon(pool, "N//2+(N+1)//2+M"), "M+N");
  // Incomplete: one residue missing, nothing to do.
  EXPECT_EQ(canon(pool, "x//3+(x+1)//3"), "(x+1)//3+x//3");
}

// Checklist 12: ring completion and the division identity.
TEST(ExprSimplify, RingCompletionAndDivisionIdentity) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "N-(N+1)//2"), "N//2");
  EXPECT_EQ(canon(pool, "N-N//2"), "(N+1)//2");
  EXPECT_EQ(canon(pool, "3*(x//3)+x%3"), "x");
  EXPECT_EQ(canon(pool, "6*(x//3)+2*(x%3)"), "2*x");
  EXPECT_EQ(canon(pool, "x-3*(x//3)"), "x%3");
  EXPECT_EQ(canon(pool, "3*((x+4)//3)+(x+4)%3"), "x+4");
}

// Checklist 13: what is not normalised, and common factors.
TEST(ExprSimplify, CommonFactorsAndWhatStays) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "2*(N//2)"), "2*(N//2)");
  EXPECT_EQ(canon(pool, "(2*N)//2"), "N");
  EXPECT_EQ(canon(pool, "(N*M)//N"), "M");
  EXPECT_EQ(canon(pool, "(N*M+N)//N"), "M+1");
  EXPECT_EQ(canon(pool, "(6*N)//(4*M)"), "(3*N)//(2*M)");
  EXPECT_EQ(canon(pool, "(N*M)%(N*K)"), "(M%K)*N");
  EXPECT_EQ(canon(pool, "(2*N+2)//(N+1)"), "2");
  EXPECT_EQ(canon(pool, "(3*N+3)%(N+1)"), "0");
  EXPECT_EQ(canon(pool, "0//x"), "0");
}

// Checklist 14: exact division (rules G rely on the caller's exactness guarantee).
TEST(ExprSimplify, ExactDivisionRules) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "2*(H/:2)"), "H");
  EXPECT_EQ(canon(pool, "6*(H/:2)+1"), "3*H+1");
  EXPECT_EQ(canon(pool, "3*(H/:2)"), "3*(H/:2)");
  EXPECT_EQ(canon(pool, "(2*batch*d*seq)/:(batch*seq)"), "2*d");
  EXPECT_EQ(canon(pool, "(a*b)/:(a*b)"), "1");
  EXPECT_EQ(canon(pool, "N*(X/:N)"), "X");
  EXPECT_EQ(canon(pool, "4*M*N*((X+1)/:(2*N))"), "2*M*X+2*M");
  EXPECT_EQ(canon(pool, "(64*batch*seq)/:(4*batch*seq)"), "16");
}

// 4.2: unit and negative divisors.
TEST(ExprSimplify, UnitAndNegativeDivisors) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "x//1"), "x");
  EXPECT_EQ(canon(pool, "x/:1"), "x");
  EXPECT_EQ(canon(pool, "x%1"), "0");
  EXPECT_EQ(canon(pool, "x//-1"), "-x");
  EXPECT_EQ(canon(pool, "x/:-1"), "-x");
  EXPECT_EQ(canon(pool, "x%-1"), "0");
  EXPECT_EQ(canon(pool, "x//-3"), "(-x)//3");
  EXPECT_EQ(canon(pool, "x%-3"), "-((-x)%3)");
  EXPECT_EQ(canon(pool, "(2*x)/:-2"), "-x");
}

// 4.2: a divisor that is (or simplifies to) the integer 0 is refused: such an expression is
// defined nowhere, and no rule makes it defined (`0*(x//0)` is refused too).
TEST(ExprSimplify, DivisionByZeroIsRefused) {
  ExprPool pool;
  const Expr x = pool.symbol("x");
  const Expr zero = pool.integer(0);
  auto kind_of = [](auto&& build) {
    try {
      build();
    } catch (const ExprError& e) {
      return e.kind();
    }
    return ExprError::Kind::kSyntax;  // no error
  };
  EXPECT_EQ(kind_of([&] { pool.floor_div(x, zero); }), ExprError::Kind::kDivisionByZero);
  EXPECT_EQ(kind_of([&] { pool.exact_div(x, zero); }), ExprError::Kind::kDivisionByZero);
  EXPECT_EQ(kind_of([&] { pool.ceil_div(x, zero); }), ExprError::Kind::kDivisionByZero);
  EXPECT_EQ(kind_of([&] { pool.mod(x, zero); }), ExprError::Kind::kModuloByZero);
  EXPECT_EQ(kind_of([&] { pool.floor_div(pool.integer(7), pool.sub(x, x)); }),
            ExprError::Kind::kDivisionByZero);
  EXPECT_EQ(kind_of([&] { pool.parse("0*(x//0)"); }), ExprError::Kind::kDivisionByZero);
  try {
    pool.floor_div(pool.add(x, pool.integer(1)), zero);
  } catch (const ExprError& e) {
    EXPECT_STREQ(e.what(), "division by zero in '(x+1)//0'");
  }
  try {
    pool.ceil_div(x, zero);
  } catch (const ExprError& e) {
    EXPECT_STREQ(e.what(), "division by zero in 'CeilToInt(x,0)'");
  }
  // A divisor that is only sometimes 0 stays: evaluation reports it where it is.
  EXPECT_EQ(canon(pool, "x//y"), "x//y");
  // A model's dim_param that divides by zero is kept whole as an opaque symbol, like one that
  // overflows.
  EXPECT_TRUE(pool.is_symbol(pool.parse_dim("N//0")));
}

// 4.3: bounds-aware quotient and remainder.
TEST(ExprSimplify, BoundsAwareQuotientAndRemainder) {
  ExprPool pool;
  pool.declare_symbol("N", {1, 4096});
  pool.declare_symbol("K", {8, 15});
  EXPECT_EQ(canon(pool, "(N-1)//4096"), "0");
  EXPECT_EQ(canon(pool, "K//8"), "1");
  EXPECT_EQ(canon(pool, "K%8"), "K-8");
  EXPECT_EQ(canon(pool, "(x%3)%3"), "x%3");
  EXPECT_EQ(canon(pool, "N//4096"), "N//4096");
}

// semantics.md "Test checklist" item 4.
TEST(ExprSimplify, SemanticsItem4LiteralDivisors) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "(4*N+7)//8"), "(N+1)//2");
  EXPECT_EQ(canon(pool, "(2*a+2*b+3)//2"), "a+b+1");
}

// semantics.md "Test checklist" items 5 and 6.
TEST(ExprSimplify, SemanticsItems5And6Dominance) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "max(N,1)"), "N");
  EXPECT_EQ(canon(pool, "max(64*N+64,48*N+80)"), "64*N+64");
  EXPECT_EQ(canon(pool, "max(N,M)"), "max(M,N)");
  ExprPool zero;
  zero.declare_symbol("N", {0, kPosInf});
  EXPECT_EQ(canon(zero, "max(64*N+64,48*N+80)"), "max(48*N+80,64*N+64)");
}

// Checklist 34: a product of 20 two-term sums never yields a node above the limits.
TEST(ExprSimplify, SizeCapReplacesOversizedResultsByBoundedFreshSymbols) {
  ExprPool pool;
  const ExprLimits lim = pool.limits();
  std::vector<Expr> factors;
  for (int i = 0; i < 20; ++i) {
    const Expr a = pool.declare_symbol("a" + std::to_string(i), {1, 2});
    const Expr b = pool.declare_symbol("b" + std::to_string(i), {0, 3});
    factors.push_back(pool.add(a, b));
  }
  Expr product = pool.integer(1);
  for (const Expr f : factors) {
    product = pool.mul(product, f);
    // Every intermediate stays within the caps: count top-level terms and factors.
    const std::string text = pool.print(product);
    std::size_t terms = 1;
    int depth = 0;
    std::size_t max_factors = 0;
    std::size_t factors_here = 1;
    for (const char c : text) {
      depth += c == '(' ? 1 : (c == ')' ? -1 : 0);
      if (depth == 0 && (c == '+' || c == '-')) {
        ++terms;
        factors_here = 1;
      } else if (depth == 0 && c == '*') {
        max_factors = std::max(max_factors, ++factors_here);
      }
    }
    EXPECT_LE(terms, lim.max_terms) << text;
    EXPECT_LE(max_factors, lim.max_degree + 1) << text;  // + the coefficient
  }
  bool capped = false;
  for (const std::string& name : pool.symbols_of(product)) capped |= name.rfind("cap_", 0) == 0;
  EXPECT_TRUE(capped) << pool.print(product);
  const auto warnings = pool.take_warnings();
  ASSERT_FALSE(warnings.empty());
  EXPECT_NE(warnings[0].find("cap_1"), std::string::npos) << warnings[0];
  // The cap symbol is bounded by the discarded expression's interval. The weight cap is hit
  // first, by the product of six factors (64 terms of degree 6 weigh 513), each in [1, 5].
  const cctx::SymbolInfo* cap = pool.find_symbol("cap_1");
  ASSERT_NE(cap, nullptr);
  EXPECT_EQ(cap->kind, cctx::SymbolKind::kFresh);
  EXPECT_EQ(cap->bounds, (Interval{1, 15625}));
  EXPECT_FALSE(cap->origin.empty());
}

TEST(ExprSimplify, SizeCapsFollowConfiguredLimits) {
  ExprLimits lim;
  lim.max_terms = 4;
  lim.max_args = 3;
  lim.max_degree = 3;
  ExprPool pool(lim);
  const Expr five = pool.parse("a+b+c+d+e");
  EXPECT_TRUE(pool.is_symbol(five));
  EXPECT_EQ(pool.parse("a+b+c+d+e"), five) << "the same discarded expression, the same cap";
  EXPECT_TRUE(pool.is_symbol(pool.parse("max(a,b,c,d)")));
  EXPECT_FALSE(pool.is_symbol(pool.parse("max(a,b,c)")));
  EXPECT_TRUE(pool.is_symbol(pool.parse("x*x*x*x")));
  EXPECT_EQ(pool.print(pool.parse("x*x*x")), "x*x*x");
  EXPECT_EQ(pool.take_warnings().size(), 3U);
  ExprLimits tiny;
  tiny.max_weight = 6;
  ExprPool light(tiny);
  EXPECT_FALSE(light.is_symbol(light.parse("a+b")));
  EXPECT_TRUE(light.is_symbol(light.parse("(a+b)//2")));  // weight 7
}

// A cap symbol stands for the expression it replaced: evaluation expands it, so a capped result
// evaluates exactly as the uncapped one, with no value for the cap; an assigned value still wins.
TEST(ExprSimplify, SizeCapsEvaluateThroughTheirDefinitions) {
  ExprLimits lim;
  lim.max_terms = 4;
  lim.max_weight = 40;
  ExprPool capped(lim);
  ExprPool whole;
  const char* text = "(a+b+c+d+e)*(a+2*b)//3 + max(a,b)*((c+1)//2+d+e+1)";
  const Expr small = capped.parse(text);
  const Expr big = whole.parse(text);
  bool has_cap = false;
  for (const std::string& name : capped.symbols_of(small)) {
    if (name.rfind("cap_", 0) != 0) continue;
    has_cap = true;
    const auto definition = capped.definition(name);
    ASSERT_TRUE(definition.has_value()) << name;
    EXPECT_FALSE(capped.print(*definition).empty());
  }
  ASSERT_TRUE(has_cap) << capped.print(small);
  EXPECT_FALSE(capped.definition("a").has_value());
  EXPECT_FALSE(capped.definition("no_such_symbol").has_value());
  for (const Assignment& v : {Assignment{{"a", 1}, {"b", 2}, {"c", 3}, {"d", 4}, {"e", 5}},
                              Assignment{{"a", 97}, {"b", 13}, {"c", 2}, {"d", 7}, {"e", 1000}}}) {
    EXPECT_EQ(capped.eval(small, v), whole.eval(big, v));
    const std::vector<Expr> both{small, small};
    EXPECT_EQ(capped.eval_all(both, v),
              (std::vector<std::int64_t>{whole.eval(big, v), whole.eval(big, v)}));
  }
  // A value given for the cap is taken as is.
  const Expr five = capped.parse("a+b+c+d+e");
  ASSERT_TRUE(capped.is_symbol(five));
  const std::string name = capped.print(five);
  EXPECT_EQ(capped.eval(five, {{"a", 1}, {"b", 1}, {"c", 1}, {"d", 1}, {"e", 1}}), 5);
  EXPECT_EQ(capped.eval(five, {{name, 9}}), 9);
  // A missing declared symbol inside a definition is still an error naming it.
  try {
    capped.eval(five, {{"a", 1}});
    ADD_FAILURE() << "evaluated without b";
  } catch (const ExprError& e) {
    EXPECT_EQ(e.kind(), ExprError::Kind::kUnknownSymbol);
    EXPECT_NE(std::string(e.what()).find("'b'"), std::string::npos) << e.what();
  }
}

// Floor division is monotone in its numerator, so min/max of two floor divisions by the same
// literal settle when the numerators are ordered (pool and convolution output sizes), and the
// result stays exact: checked by brute force over offsets, divisors, shifts and coefficients.
TEST(ExprSimplify, MinMaxOfFloorDivisionsOfTheSameSymbol) {
  ExprPool pool;
  EXPECT_EQ(pool.print(pool.parse("min((h+1)//4,(h+3)//4)")), "(h+1)//4");
  EXPECT_EQ(pool.print(pool.parse("max((h+1)//4,(h+3)//4)")), "(h+3)//4");
  EXPECT_EQ(pool.print(pool.parse("min((h+1)//4,(h+3)//4-1)")), "(h+3)//4-1");
  EXPECT_EQ(pool.print(pool.parse("min(((h+1)//4+1)//2,(h+1)//4//2+1)")), "(h+5)//8");
  for (int k = 2; k <= 4; ++k) {
    for (int a = 0; a < 6; ++a) {
      for (int b = 0; b < 6; ++b) {
        for (int shift = -2; shift <= 2; ++shift) {
          for (int c = 1; c <= 3; c += 2) {
            const std::string x =
                std::to_string(c) + "*((h+" + std::to_string(a) + ")//" + std::to_string(k) + ")";
            const std::string y = std::to_string(c) + "*((h+" + std::to_string(b) + ")//" +
                                  std::to_string(k) + ")+" + std::to_string(shift);
            for (const char* op : {"min", "max"}) {
              const std::string text = std::string(op) + "(" + x + "," + y + ")";
              const Expr e = pool.parse(text);
              for (std::int64_t h = 1; h <= 40; ++h) {
                const std::int64_t vx = c * ((h + a) / k);
                const std::int64_t vy = c * ((h + b) / k) + shift;
                const std::int64_t want = op[1] == 'i' ? std::min(vx, vy) : std::max(vx, vy);
                ASSERT_EQ(pool.eval(e, {{"h", h}}), want)
                    << text << " -> " << pool.print(e) << " at h=" << h;
              }
            }
          }
        }
      }
    }
  }
}

// Checklist 35: interning and the operation memo.
TEST(ExprSimplify, InterningAllocatesOneNodeAndTheMemoHits) {
  ExprPool pool;
  const Expr n = pool.symbol("N");
  const Expr two = pool.integer(2);
  const Expr first = pool.mul(two, n);
  const std::size_t nodes = pool.node_count();
  const auto before = pool.stats();
  for (int i = 0; i < 1000000; ++i) ASSERT_EQ(pool.mul(two, n), first);
  EXPECT_EQ(pool.node_count(), nodes);
  const auto after = pool.stats();
  const double hits = static_cast<double>(after.memo_hits - before.memo_hits);
  const double total = hits + static_cast<double>(after.memo_misses - before.memo_misses);
  EXPECT_GT(hits / total, 0.99);
  EXPECT_EQ(pool.add(n, n), first);
  EXPECT_EQ(pool.node_count(), nodes);
}

TEST(ExprSimplify, SumAndProductOfMany) {
  ExprPool pool;
  const Expr n = pool.symbol("N");
  std::vector<Expr> terms;
  for (int k = 1; k <= 100; ++k) terms.push_back(pool.mul(pool.integer(16 * k), n));
  EXPECT_EQ(pool.print(pool.sum(terms)), "80800*N");
  const Expr factors[] = {n, pool.integer(3), pool.symbol("M"), n};
  EXPECT_EQ(pool.print(pool.product(factors)), "3*M*N*N");
  EXPECT_EQ(pool.sum({}), pool.integer(0));
  EXPECT_EQ(pool.product({}), pool.integer(1));
}

TEST(ExprSimplify, RingOverflowIsReported) {
  ExprPool pool;
  const Expr big = pool.integer(std::numeric_limits<std::int64_t>::max());
  try {
    pool.add(big, pool.integer(1));
    FAIL();
  } catch (const ExprError& e) {
    EXPECT_EQ(e.kind(), ExprError::Kind::kOverflow);
  }
  EXPECT_THROW(pool.mul(pool.parse("4611686018427387904*N"), pool.integer(2)), ExprError);
  EXPECT_THROW(pool.add(pool.parse("9223372036854775807*N"), pool.symbol("N")), ExprError);
}

// Section 1: symbols, fresh names and opaque symbols.
TEST(ExprSymbols, FreshOpaqueAndDeclaredSymbols) {
  ExprPool pool;
  const Expr n = pool.declare_symbol("N", {1, 4096});
  EXPECT_EQ(pool.declare_symbol("N", {0, 5}), n) << "bounds are frozen at declaration";
  EXPECT_EQ(pool.find_symbol("N")->bounds, (Interval{1, 4096}));
  EXPECT_EQ(pool.symbol("N"), n);
  const Expr f1 = pool.fresh_symbol("NonZero_12_o0_d1", {0, 100}, "NonZero #12 output 0 axis 1");
  const Expr f2 = pool.fresh_symbol("NonZero_12_o0_d1", {0, 100}, "again");
  const Expr f3 = pool.fresh_symbol("NonZero_12_o0_d1", {0, 100}, "again");
  EXPECT_EQ(pool.print(f1), "NonZero_12_o0_d1");
  EXPECT_EQ(pool.print(f2), "NonZero_12_o0_d1_2");
  EXPECT_EQ(pool.print(f3), "NonZero_12_o0_d1_3");
  EXPECT_EQ(pool.find_symbol("NonZero_12_o0_d1")->origin, "NonZero #12 output 0 axis 1");
  EXPECT_EQ(pool.print(pool.fresh_symbol("N", cctx::kDimBounds, "")), "N_2");
  const Expr o = pool.opaque_symbol("batch size");
  EXPECT_EQ(pool.opaque_symbol("batch size"), o);
  EXPECT_EQ(pool.parse_dim("batch size"), o);

  std::vector<std::string> names;
  for (const cctx::SymbolInfo& s : pool.symbols()) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"N", "NonZero_12_o0_d1", "NonZero_12_o0_d1_2",
                                             "NonZero_12_o0_d1_3", "N_2", "batch size"}));
  EXPECT_EQ(pool.symbols_of(pool.parse("M*N+x//N")), (std::vector<std::string>{"M", "N", "x"}));
  EXPECT_TRUE(pool.has_symbols(pool.parse("N+1")));
  EXPECT_FALSE(pool.has_symbols(pool.parse("2*3")));
  EXPECT_THROW(pool.declare_symbol("E", {5, 1}), ExprError);
}

}  // namespace
