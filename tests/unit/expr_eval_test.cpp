// Evaluation and substitution (expressions.md section 6; checklist items 27-30) and
// evaluate_expression (semantics.md "Expressions: Evaluation" and 15 item 7).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cctx/expr.hpp"

namespace {

using cctx::Assignment;
using cctx::Expr;
using cctx::ExprError;
using cctx::ExprPool;
using cctx::kPosInf;

/// The error `fn` throws (fails the test when there is none).
template <typename F>
ExprError error_of(F&& fn) {
  try {
    fn();
  } catch (const ExprError& e) {
    return e;
  }
  ADD_FAILURE() << "no error";
  return ExprError(ExprError::Kind::kSyntax, "none");
}

// Checklist 27.
TEST(ExprEval, SeedTotalsEvaluate) {
  ExprPool pool;
  const Expr e = pool.parse("48*N+80");
  EXPECT_EQ(pool.eval(e, {{"N", 1}}), 128);
  EXPECT_EQ(pool.eval(e, {{"N", 8}}), 464);
  EXPECT_EQ(pool.eval(e, {{"N", 32}}), 1616);
  EXPECT_EQ(pool.eval(e, {{"N", 128}}), 6224);
  EXPECT_EQ(pool.eval(pool.parse("64*N+64"), {{"N", 8}}), 576);
  EXPECT_EQ(pool.eval(pool.parse("max(N,M)-min(N,M)"), {{"N", 3}, {"M", 10}}), 7);
  EXPECT_EQ(pool.eval(pool.parse("x//-3+x%-3"), {{"x", 7}}), -3 + -2);
}

// Checklist 28.
TEST(ExprEval, UnknownSymbolAndZeroDivisors) {
  ExprPool pool;
  const ExprError unknown = error_of([&] { pool.eval(pool.parse("16*N+64"), {}); });
  EXPECT_EQ(unknown.kind(), ExprError::Kind::kUnknownSymbol);
  EXPECT_STREQ(unknown.what(), "unknown symbol 'N' in '16*N+64'");
  // A divisor that is the integer 0 is refused when the expression is built (4.2)...
  const ExprError div = error_of([&] { pool.parse("N//0"); });
  EXPECT_EQ(div.kind(), ExprError::Kind::kDivisionByZero);
  EXPECT_STREQ(div.what(), "division by zero in 'N//0'");
  const ExprError mod = error_of([&] { pool.parse("N%(N-N)"); });
  EXPECT_EQ(mod.kind(), ExprError::Kind::kModuloByZero);
  EXPECT_STREQ(mod.what(), "modulo by zero in 'N%(N-N)'");
  // ... and a symbolic one that evaluates to 0 when the expression is evaluated.
  const ExprError at = error_of([&] { pool.eval(pool.parse("N%(M-1)"), {{"N", 4}, {"M", 1}}); });
  EXPECT_EQ(at.kind(), ExprError::Kind::kModuloByZero);
  EXPECT_NE(std::string(at.what()).find("N%(M-1)"), std::string::npos) << at.what();
  const ExprError sym = error_of([&] {
    pool.eval(pool.parse("M+x//(N-4)"), {{"N", 4}, {"M", 1}, {"x", 1}});
  });
  EXPECT_EQ(sym.kind(), ExprError::Kind::kDivisionByZero);
  EXPECT_NE(std::string(sym.what()).find("x//(N-4)"), std::string::npos) << sym.what();
  EXPECT_NE(std::string(sym.what()).find("M+x//(N-4)"), std::string::npos) << sym.what();
}

// Checklist 29.
TEST(ExprEval, InexactOverflowAndOutOfBounds) {
  ExprPool pool;
  pool.declare_symbol("x", {0, kPosInf});
  const ExprError inexact = error_of([&] { pool.eval(pool.parse("x/:2"), {{"x", 7}}); });
  EXPECT_EQ(inexact.kind(), ExprError::Kind::kInexactDivision);
  EXPECT_NE(std::string(inexact.what()).find("7/:2"), std::string::npos) << inexact.what();
  const ExprError overflow = error_of([&] {
    pool.eval(pool.parse("N*N"), {{"N", std::int64_t{1} << 32}});
  });
  EXPECT_EQ(overflow.kind(), ExprError::Kind::kOverflow);
  const ExprError bounds = error_of([&] { pool.eval(pool.parse("N*N"), {{"N", 0}}); });
  EXPECT_EQ(bounds.kind(), ExprError::Kind::kOutOfBounds);
  EXPECT_NE(std::string(bounds.what()).find("'N'"), std::string::npos) << bounds.what();
  // Wide intermediates: the canonical N*N-M*M fits although N*N alone does not.
  const std::int64_t big = std::int64_t{1} << 32;
  EXPECT_EQ(pool.eval(pool.parse("(N+M)*(N-M)"), {{"N", big}, {"M", big - 1}}), 2 * big - 1);
}

// Checklist 30.
TEST(ExprEval, SubstituteRebuildsThroughConstructors) {
  ExprPool pool;
  const Expr e = pool.parse("N*M+N");
  EXPECT_EQ(pool.print(pool.substitute(e, {{"N", pool.integer(2)}})), "2*M+2");
  EXPECT_EQ(pool.print(pool.substitute(pool.parse("max(N,M)"), {{"M", pool.integer(1)}})), "N");
  EXPECT_EQ(pool.print(pool.substitute(pool.parse("(N+1)//2+K"), {{"N", pool.parse("2*H")}})),
            "H+K");
  // Unrelated sub-DAGs are returned as they are; unknown names are ignored.
  const Expr x = pool.parse("x*y+7");
  EXPECT_EQ(pool.substitute(x, {{"N", pool.integer(3)}, {"nope", pool.integer(1)}}), x);
  // Values must lie within the symbol's bounds.
  EXPECT_EQ(error_of([&] {
              pool.substitute(e, {{"N", pool.integer(0)}});
            }).kind(),
            ExprError::Kind::kOutOfBounds);
  pool.declare_symbol("Z", {0, kPosInf});
  EXPECT_EQ(error_of([&] {
              pool.substitute(e, {{"N", pool.symbol("Z")}});
            }).kind(),
            ExprError::Kind::kOutOfBounds);
  EXPECT_EQ(pool.print(pool.substitute(e, {{"N", pool.parse("Z+1")}})), "M*Z+M+Z+1");
}

// semantics.md "Expressions: Evaluation": the raw tree, without simplification.
TEST(ExprEval, EvaluateExpressionEvaluatesTheRawTree) {
  EXPECT_EQ(cctx::evaluate_expression("48*N+80", {{"N", 8}}), 464);
  EXPECT_EQ(cctx::evaluate_expression("max(N, 3) ^ 7 & 5", {{"N", 4}}), 5);
  EXPECT_EQ(cctx::evaluate_expression("CeilToInt(7, 2) + CeilToInt(-7, 2)", {}), 4 - 3);
  EXPECT_EQ(cctx::evaluate_expression("`a b`*2", {{"a b", 21}}), 42);
  EXPECT_EQ(cctx::evaluate_expression("-9223372036854775808", {}),
            std::numeric_limits<std::int64_t>::min());
  // No simplification: x-x still needs x, and 0*(1//0) still divides by zero.
  EXPECT_EQ(error_of([] { cctx::evaluate_expression("x-x", {}); }).kind(),
            ExprError::Kind::kUnknownSymbol);
  EXPECT_EQ(error_of([] { cctx::evaluate_expression("0*(1//0)", {}); }).kind(),
            ExprError::Kind::kDivisionByZero);
  EXPECT_EQ(error_of([] { cctx::evaluate_expression("1%0", {}); }).kind(),
            ExprError::Kind::kModuloByZero);
  EXPECT_EQ(error_of([] { cctx::evaluate_expression("7/:2", {}); }).kind(),
            ExprError::Kind::kInexactDivision);
  EXPECT_EQ(error_of([] {
              cctx::evaluate_expression("N*N", {{"N", std::int64_t{1} << 32}});
            }).kind(),
            ExprError::Kind::kOverflow);
  EXPECT_EQ(error_of([] { cctx::evaluate_expression("(-9223372036854775808)//(-1)", {}); }).kind(),
            ExprError::Kind::kOverflow);
  const ExprError syntax = error_of([] { cctx::evaluate_expression("N +", {{"N", 1}}); });
  EXPECT_EQ(syntax.kind(), ExprError::Kind::kSyntax);
  EXPECT_EQ(syntax.offset(), 3U);
}

// semantics.md "Test checklist" item 7.
TEST(ExprEval, SemanticsItem7EvaluateExpression) {
  EXPECT_EQ(cctx::evaluate_expression("48*N+80", {{"N", 8}}), 464);
  EXPECT_EQ(cctx::evaluate_expression("-1//2", {}), -1);
  EXPECT_EQ(cctx::evaluate_expression("-7%3", {}), 2);
  const ExprError e = error_of([] { cctx::evaluate_expression("16*N+64", {}); });
  EXPECT_EQ(e.kind(), ExprError::Kind::kUnknownSymbol);
  EXPECT_STREQ(e.what(), "unknown symbol 'N' in '16*N+64'");
}

TEST(ExprEval, ARuntimeParameterTakesItsDefaultWhenNotGiven) {
  ExprPool pool;
  const Expr n = pool.symbol("N");
  const Expr threads = pool.declare_parameter("threads", 2, "the profile's");
  const Expr bytes = pool.add(pool.mul(pool.integer(65536), pool.min(threads, pool.integer(16))),
                              pool.mul(n, pool.integer(4)));
  EXPECT_EQ(pool.eval(bytes, {{"N", 3}}), 2 * 65536 + 12);
  EXPECT_EQ(pool.eval(bytes, {{"N", 3}, {"threads", 8}}), 8 * 65536 + 12);
  EXPECT_EQ(pool.eval(bytes, {{"N", 3}, {"threads", 40}}), 16 * 65536 + 12);
  std::int64_t value = 0;
  EXPECT_TRUE(pool.parameter_default("threads", &value));
  EXPECT_EQ(value, 2);
  EXPECT_FALSE(pool.parameter_default("N"));
  EXPECT_EQ(pool.find_symbol("threads")->origin, "the profile's");
  // Bounds still hold: no run has zero threads.
  EXPECT_EQ(error_of([&] {
              pool.eval(bytes, {{"N", 3}, {"threads", 0}});
            }).kind(),
            ExprError::Kind::kOutOfBounds);
  // Declaring it again changes the default; a default outside the bounds is refused.
  pool.declare_parameter("threads", 4, "again");
  EXPECT_EQ(pool.eval(bytes, {{"N", 1}}), 4 * 65536 + 4);
  EXPECT_EQ(error_of([&] { pool.declare_parameter("threads", 0, "none"); }).kind(),
            ExprError::Kind::kOutOfBounds);
}

TEST(ExprEval, EvaluationIsMemoisedPerCallNotAcrossCalls) {
  ExprPool pool;
  const Expr e = pool.parse("(N+1)*(N+1)+max(N,M)");
  EXPECT_EQ(pool.eval(e, {{"N", 2}, {"M", 7}}), 16);
  EXPECT_EQ(pool.eval(e, {{"N", 3}, {"M", 1}}), 19);
  Assignment many;
  for (int i = 0; i < 100; ++i) many["s" + std::to_string(i)] = i + 1;
  many["N"] = 5;
  many["M"] = 5;
  EXPECT_EQ(pool.eval(e, many), 41);
}

}  // namespace

namespace {

// ExprPool::reserve rehashes the intern table and evaluation replaces its arrays when the pool
// outgrows them: handles made before either must still be found and evaluate the same.
TEST(ExprEval, ReserveAndGrowthKeepHandlesAndValues) {
  ExprPool pool;
  const Expr n = pool.symbol("N");
  std::vector<Expr> before;
  for (int k = 1; k <= 50; ++k) before.push_back(pool.add(pool.mul(pool.integer(k), n), n));
  const Assignment at3{{"N", 3}};
  const std::vector<std::int64_t> first = pool.eval_all(before, at3);

  pool.reserve(100000);
  for (int k = 1; k <= 50; ++k) {
    EXPECT_EQ(pool.add(pool.mul(pool.integer(k), n), n), before[k - 1]) << k;
  }
  // Past the reserved room: the pool grows again and evaluation sees every node.
  std::vector<Expr> after;
  Expr running = pool.integer(0);
  for (int k = 0; k < 150000; ++k) {
    running = pool.add(running, pool.mul(pool.integer(k % 7 + 1), n));
    if (k % 997 == 0) after.push_back(running);
  }
  EXPECT_GT(pool.node_count(), 100000u);
  EXPECT_EQ(pool.eval_all(before, at3), first);
  const std::vector<std::int64_t> late = pool.eval_all(after, at3);
  std::int64_t expected = 0;
  std::size_t next = 0;
  for (int k = 0; k < 150000; ++k) {
    expected += 3 * (k % 7 + 1);
    if (k % 997 == 0) {
      EXPECT_EQ(late[next++], expected) << k;
    }
  }
}

}  // namespace
