// Floating-point sizes (expressions.md 4.5): float terms, the symbols read from them, their
// evaluation as a runtime rounds, their bounds, and their text read back by evaluate_expression.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "cctx/expr.hpp"

namespace {

using cctx::Assignment;
using cctx::evaluate_expression;
using cctx::Expr;
using cctx::ExprError;
using cctx::ExprPool;
using cctx::FloatOp;
using cctx::FloatTerm;
using cctx::FloatType;
using cctx::Rounding;

constexpr FloatType kF32 = FloatType::kFloat32;

/// torchvision's GeneralizedRCNNTransform as exported (Reciprocal, Mul, Min, Mul, Floor), written
/// here with C++ float arithmetic, independently of the engine: the runtime's resized height.
std::int64_t torchvision_resized(std::int64_t h, std::int64_t w, float min_size, float max_size) {
  const float lo = static_cast<float>(std::min(h, w)), hi = static_cast<float>(std::max(h, w));
  const float a = (1.0f / lo) * min_size, b = (1.0f / hi) * max_size;
  const float scale = b < a ? b : a;
  return static_cast<std::int64_t>(std::floor(static_cast<float>(h) * scale));
}

/// The same computation built as float terms over the symbols h and w.
FloatTerm resized_term(ExprPool& pool, float min_size, float max_size) {
  const Expr h = pool.symbol("h"), w = pool.symbol("w");
  const FloatTerm one = *pool.float_constant(1.0, kF32);
  auto recip_times = [&](Expr d, float k) {
    const FloatTerm r = *pool.float_binary(FloatOp::kDiv, one, pool.float_of(d, kF32));
    return *pool.float_binary(FloatOp::kMul, r, *pool.float_constant(k, kF32));
  };
  const FloatTerm scale = *pool.float_binary(FloatOp::kMin, recip_times(pool.min(h, w), min_size),
                                             recip_times(pool.max(h, w), max_size));
  return *pool.float_binary(FloatOp::kMul, pool.float_of(h, kF32), scale);
}

TEST(ExprFloat, ResizedSizeEvaluatesAsTheRuntimeRounds) {
  ExprPool pool;
  const std::optional<Expr> size =
      pool.float_round(resized_term(pool, 320.0f, 640.0f), Rounding::kFloor, "Floor_88_o0_v0",
                       "Floor #88 output 0 element 0");
  ASSERT_TRUE(size);
  ASSERT_TRUE(pool.is_symbol(*size));
  EXPECT_EQ(pool.print(*size), "Floor_88_o0_v0");
  EXPECT_TRUE(pool.is_float_size("Floor_88_o0_v0"));
  int below_exact = 0;
  for (std::int64_t h = 1; h <= 1200; h += 1) {
    for (std::int64_t w : {h, h + 1, 2 * h + 3, std::int64_t{97}}) {
      const std::int64_t expected = torchvision_resized(h, w, 320.0f, 640.0f);
      ASSERT_EQ(pool.eval(*size, {{"h", h}, {"w", w}}), expected) << h << "x" << w;
      // The exact quotient's floor is 320 whenever h is the short side and 2h <= w: the rounded
      // product is sometimes just below it, which only an evaluation of the rounding can say.
      if (w == 2 * h + 3 && expected == 319) ++below_exact;
    }
  }
  EXPECT_GT(below_exact, 0);
}

TEST(ExprFloat, DefinitionTextReadsBackThroughEvaluateExpression) {
  ExprPool pool;
  const Expr size = *pool.float_round(resized_term(pool, 128.0f, 160.0f), Rounding::kFloor,
                                      "Floor_102_o0_v0", "");
  const std::optional<std::string> text = pool.definition_text("Floor_102_o0_v0");
  ASSERT_TRUE(text);
  EXPECT_EQ(*text,
            "floor(float32(h)*min(1.0f/float32(min(h,w))*128.0f,1.0f/float32(max(h,w))*160.0f))");
  for (std::int64_t h : {1, 2, 17, 97, 123, 128, 333, 800, 1333}) {
    for (std::int64_t w : {1, 31, 123, 777}) {
      const Assignment a{{"h", h}, {"w", w}};
      EXPECT_EQ(evaluate_expression(*text, a), pool.eval(size, a)) << h << "x" << w;
    }
  }
  // The integers its computation reads, for an evaluation that must know which symbols it needs.
  const std::vector<Expr> operands = pool.definition_operands("Floor_102_o0_v0");
  std::vector<std::string> names;
  for (Expr e : operands) names.push_back(pool.print(e));
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"h", "max(h,w)", "min(h,w)"}));
  // Expressions over the symbol evaluate through it; a value given for it wins.
  const Expr conv = pool.floor_div(pool.add(size, pool.integer(1)), pool.integer(2));
  EXPECT_EQ(pool.eval(conv, {{"h", 128}, {"w", 128}}), 64);
  EXPECT_EQ(pool.eval(conv, {{"Floor_102_o0_v0", 7}}), 4);
}

TEST(ExprFloat, TheSameComputationIsTheSameSymbol) {
  ExprPool pool;
  const FloatTerm t = resized_term(pool, 320.0f, 640.0f);
  EXPECT_EQ(resized_term(pool, 320.0f, 640.0f), t);  // interned
  const Expr a = *pool.float_round(t, Rounding::kFloor, "Floor_1_o0_v0", "");
  EXPECT_EQ(*pool.float_round(t, Rounding::kFloor, "Floor_9_o0_v0", ""), a);
  const Expr c = *pool.float_round(t, Rounding::kCeil, "Ceil_2_o0_v0", "");
  EXPECT_NE(c, a);
  EXPECT_EQ(pool.print(c), "Ceil_2_o0_v0");
}

TEST(ExprFloat, ConstantsAreComputedAtOnce) {
  ExprPool pool;
  const FloatTerm tenth = *pool.float_constant(0.1f, kF32);
  const FloatTerm thirty = *pool.float_constant(30.0, kF32);
  const FloatTerm p = *pool.float_binary(FloatOp::kMul, tenth, thirty);
  ASSERT_TRUE(pool.float_value(p));
  EXPECT_EQ(*pool.float_value(p), static_cast<double>(0.1f * 30.0f));
  // 0.7f * 10 is 7.0 in float32 although the exact product is below 7: the runtime's value.
  const FloatTerm seven = *pool.float_binary(FloatOp::kMul, *pool.float_constant(0.7f, kF32),
                                             *pool.float_constant(10.0, kF32));
  EXPECT_EQ(pool.as_int(*pool.float_round(seven, Rounding::kFloor, "x", "")), 7);
  EXPECT_EQ(pool.as_int(
                *pool.float_round(*pool.float_constant(-2.5, kF32), Rounding::kHalfEven, "x", "")),
            -2);
  EXPECT_EQ(
      pool.as_int(*pool.float_round(*pool.float_constant(-2.5, kF32), Rounding::kTrunc, "x", "")),
      -2);
  // Not finite, or not a value of the type: no term, no integer.
  EXPECT_FALSE(pool.float_binary(FloatOp::kDiv, thirty, *pool.float_constant(0.0, kF32)));
  EXPECT_FALSE(pool.float_constant(0.1, kF32));  // 0.1 is no float32
  EXPECT_FALSE(pool.float_constant(INFINITY, FloatType::kFloat64));
  EXPECT_FALSE(pool.float_round(*pool.float_constant(1e30f, kF32), Rounding::kFloor, "x", ""));
  EXPECT_EQ(pool.find_symbol("x"), nullptr);
}

TEST(ExprFloat, AnIntegerTheTypeHoldsRoundsToItself) {
  ExprPool pool;
  pool.declare_symbol("n", cctx::Interval{1, 4096});
  const Expr n = pool.symbol("n");
  EXPECT_EQ(*pool.float_round(pool.float_of(n, kF32), Rounding::kCeil, "c", ""), n);
  // Beyond 2^24 float32 rounds the integer: a symbol that evaluates the conversion.
  const Expr big = pool.symbol("big");
  const Expr r = *pool.float_round(pool.float_of(big, kF32), Rounding::kFloor, "r", "");
  EXPECT_NE(r, big);
  EXPECT_EQ(pool.eval(r, {{"big", 16777217}}), 16777216);
  EXPECT_EQ(pool.eval(r, {{"big", 1000}}), 1000);
}

TEST(ExprFloat, BoundsHoldTheValues) {
  ExprPool pool;
  pool.declare_symbol("h", cctx::Interval{16, 2048});
  pool.declare_symbol("w", cctx::Interval{16, 2048});
  const Expr h = pool.symbol("h");
  // h * 0.5f + 3 in float32, its ceiling: within [11, 1027].
  const FloatTerm t = *pool.float_binary(
      FloatOp::kAdd,
      *pool.float_binary(FloatOp::kMul, pool.float_of(h, kF32), *pool.float_constant(0.6f, kF32)),
      *pool.float_constant(3.0, kF32));
  const Expr c = *pool.float_round(t, Rounding::kCeil, "c", "");
  const cctx::Interval b = pool.find_symbol("c")->bounds;
  for (std::int64_t v = 16; v <= 2048; v += 7) {
    const std::int64_t x = pool.eval(c, {{"h", v}});
    EXPECT_LE(b.lo, x);
    EXPECT_GE(b.hi, x);
  }
  EXPECT_GE(b.lo, 11);
  EXPECT_LE(b.hi, 1233);
  // A divisor whose range holds 0 bounds nothing.
  const Expr z = pool.symbol("z");  // [1, inf): 1 - z can be 0
  const FloatTerm q = *pool.float_binary(FloatOp::kDiv, *pool.float_constant(1.0, kF32),
                                         pool.float_of(pool.sub(pool.integer(1), z), kF32));
  pool.float_round(q, Rounding::kFloor, "q", "");
  EXPECT_EQ(pool.find_symbol("q")->bounds.lo, cctx::kNegInf);
  EXPECT_EQ(pool.find_symbol("q")->bounds.hi, cctx::kPosInf);
  // ... and evaluating it there is a division by zero, named.
  const Expr qs = pool.symbol("q");
  try {
    pool.eval(qs, {{"z", 1}});
    ADD_FAILURE() << "no error";
  } catch (const ExprError& e) {
    EXPECT_EQ(e.kind(), ExprError::Kind::kDivisionByZero);
    EXPECT_NE(std::string(e.what()).find("floating-point division by zero"), std::string::npos);
  }
}

TEST(ExprFloat, TermsOfOneTypeOnlyAndNotTooDeep) {
  ExprPool pool;
  const Expr n = pool.declare_symbol("n", cctx::Interval{1, 1 << 20});
  const FloatTerm f = pool.float_of(n, kF32), d = pool.float_of(n, FloatType::kFloat64);
  EXPECT_FALSE(pool.float_binary(FloatOp::kAdd, f, d));
  EXPECT_FALSE(pool.float_unary(FloatOp::kAdd, f));
  EXPECT_FALSE(pool.float_binary(FloatOp::kSqrt, f, f));
  // A float32 integer is exact in float64.
  EXPECT_EQ(*pool.float_cast(f, FloatType::kFloat64), d);
  FloatTerm t = f;
  int depth = 0;
  while (const std::optional<FloatTerm> next = pool.float_unary(FloatOp::kNeg, t)) {
    t = *next;
    if (++depth > 100) break;
  }
  EXPECT_EQ(depth, 64);
}

TEST(ExprFloat, EvaluateExpressionTypesItsOperands) {
  const Assignment a{{"h", 97}};
  EXPECT_EQ(evaluate_expression("floor(float32(h)*0.5f)", a), 48);
  EXPECT_EQ(evaluate_expression("ceil(float32(h)/32.0f)*32", a), 128);
  EXPECT_EQ(evaluate_expression("round(2.5)+round(3.5)+trunc(-1.5)", {}), 2 + 4 - 1);
  EXPECT_EQ(evaluate_expression("floor(sqrt(float64(h)))+floor(abs(-1.5e1))", a), 9 + 15);
  // float32 literals are read as floats: 0.485f is not the double 0.485 rounded twice.
  EXPECT_EQ(evaluate_expression("floor(0.485f*100000000.0f)", {}),
            static_cast<std::int64_t>(std::floor(0.485f * 100000000.0f)));
  auto kind_of = [](const char* text, const Assignment& values) {
    try {
      evaluate_expression(text, values);
    } catch (const ExprError& e) {
      return e.kind();
    }
    return ExprError::Kind::kOverflow;  // "no error": a kind no case below expects
  };
  EXPECT_EQ(kind_of("float32(h)*2", a), ExprError::Kind::kSyntax);           // mixed operands
  EXPECT_EQ(kind_of("float32(h)+float64(h)", a), ExprError::Kind::kSyntax);  // two types
  EXPECT_EQ(kind_of("float32(h)", a), ExprError::Kind::kSyntax);             // not an integer
  EXPECT_EQ(kind_of("h/2", a), ExprError::Kind::kSyntax);                    // '/' of integers
  EXPECT_EQ(kind_of("floor(1.0f/0.0f)", a), ExprError::Kind::kDivisionByZero);
  EXPECT_EQ(kind_of("floor(1e300*1e300)", a), ExprError::Kind::kOverflow);  // not finite
  // The pool's grammar stays integers only.
  ExprPool pool;
  EXPECT_THROW(pool.parse("floor(float32(h)*0.5f)"), ExprError);
  EXPECT_THROW(pool.parse("h/2"), ExprError);
  EXPECT_EQ(pool.print(pool.parse("floor")), "floor");  // a symbol, not followed by '('
}

}  // namespace
