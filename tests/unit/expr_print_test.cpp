// Canonical printing (expressions.md section 3 and checklist items 1-3, 15, 16) and the
// semantics.md "Test checklist" items about canonical text.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "cctx/expr.hpp"

namespace {

using cctx::Expr;
using cctx::ExprError;
using cctx::ExprPool;

std::string canon(ExprPool& pool, std::string_view text) { return pool.print(pool.parse(text)); }

// Section 3 table, rows 1-6: ring laws collect, expand and put the coefficient first.
TEST(ExprPrint, TableRows1To6CollectAndExpand) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "N*2"), "2*N");
  EXPECT_EQ(canon(pool, "N+N"), "2*N");
  EXPECT_EQ(canon(pool, "64+N*16"), "16*N+64");
  EXPECT_EQ(canon(pool, "16*N+16*N"), "32*N");
  EXPECT_EQ(canon(pool, "32*N+16*N+80"), "48*N+80");
  EXPECT_EQ(canon(pool, "2*(32*N+32)"), "64*N+64");
}

// Rows 7-16: term order (degree, then factor keys), signs, constants last.
TEST(ExprPrint, TableRows7To16OrderAndSigns) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "b+a"), "a+b");
  EXPECT_EQ(canon(pool, "1-x"), "-x+1");
  const Expr zero = pool.parse("x-x");
  EXPECT_TRUE(pool.is_int(zero));
  EXPECT_EQ(pool.as_int(zero), 0);
  EXPECT_EQ(pool.print(zero), "0");
  EXPECT_EQ(canon(pool, "5+x-2+3"), "x+6");
  EXPECT_EQ(canon(pool, "2*x+3*x-x"), "4*x");
  EXPECT_EQ(canon(pool, "(N+1)*(N+1)"), "N*N+2*N+1");
  EXPECT_EQ(canon(pool, "N*(M+1)"), "M*N+N");
  EXPECT_EQ(canon(pool, "seq*batch*4096+8*batch*seq"), "4104*batch*seq");
  EXPECT_EQ(canon(pool, "N*N+2*N*M+M*M"), "M*M+2*M*N+N*N");
  EXPECT_EQ(canon(pool, "-N-M"), "-M-N");
}

// Rows 17-20: `^`, `&`, Max/Min never print; arguments sorted by text.
TEST(ExprPrint, TableRows17To20MaxMin) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "N^M"), "max(M,N)");
  EXPECT_EQ(canon(pool, "Max(N,M)"), "max(M,N)");
  EXPECT_EQ(pool.parse("N^M"), pool.parse("Max(N,M)"));
  EXPECT_EQ(canon(pool, "a&b^c"), "max(c,min(a,b))");
  EXPECT_EQ(canon(pool, "N+1^N"), "N+1");
  // max(N,2) is not simplified: N may be 1.
  EXPECT_EQ(canon(pool, "max(N,2)"), "max(2,N)");
}

// Rows 21-30: division atoms, their parentheses, and floor-division normal forms.
TEST(ExprPrint, TableRows21To30DivisionAtoms) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "N//2*2"), "2*(N//2)");
  EXPECT_EQ(canon(pool, "-(N//2)"), "-(N//2)");
  EXPECT_EQ(canon(pool, "-N//2"), "(-N)//2");
  EXPECT_EQ(canon(pool, "M-N//2"), "M-(N//2)");
  EXPECT_EQ(canon(pool, "x*y//z"), "(x*y)//z");
  EXPECT_EQ(canon(pool, "x*(y//z)"), "x*(y//z)");
  EXPECT_EQ(canon(pool, "CeilToInt(x,4)"), "(x+3)//4");
  EXPECT_EQ(canon(pool, "(H-1)//2+1"), "(H+1)//2");
  EXPECT_EQ(canon(pool, "(H-3)//2+1"), "(H+1)//2-1");
  EXPECT_EQ(canon(pool, "(2*b+3*c)//2"), "(2*b+3*c)//2");
}

// Rows 31-34: exact division, overflow and opaque symbols.
TEST(ExprPrint, TableRows31To34ExactOverflowOpaque) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "(8*N)/:2"), "4*N");

  const Expr overflowed = pool.parse_dim("9223372036854775807+1");
  EXPECT_TRUE(pool.is_symbol(overflowed));
  EXPECT_EQ(pool.print(overflowed), "9223372036854775807+1");
  EXPECT_EQ(pool.find_symbol("9223372036854775807+1")->kind, cctx::SymbolKind::kOpaque);

  const Expr batch = pool.parse_dim("batch size");
  EXPECT_TRUE(pool.is_symbol(batch));
  EXPECT_EQ(pool.print(batch), "batch size");

  const Expr ab = pool.opaque_symbol("a.b");
  EXPECT_EQ(pool.print(pool.mul(pool.integer(2), ab)), "2*`a.b`");
}

// The seed graph's byte counts, built through the constructors.
TEST(ExprPrint, SeedTotalsPrintCanonically) {
  ExprPool pool;
  const Expr n = pool.symbol("N");
  const Expr sixteen_n = pool.mul(pool.integer(16), n);
  const Expr a = pool.add(sixteen_n, pool.integer(64));
  EXPECT_EQ(pool.print(a), "16*N+64");
  EXPECT_EQ(a, pool.parse_dim("64+N*16"));
  EXPECT_EQ(pool.eval(a, {{"N", 8}}), 192);
  const Expr b = pool.add(pool.mul(pool.integer(48), n), pool.integer(80));
  EXPECT_EQ(pool.print(b), "48*N+80");
  const Expr c = pool.add(a, sixteen_n);
  EXPECT_EQ(pool.print(c), "32*N+64");
  EXPECT_EQ(pool.print(pool.add(c, pool.mul(pool.integer(2), sixteen_n))), "64*N+64");
}

// Checklist 1: equal canonical forms are one handle.
TEST(ExprPrint, EqualCanonicalFormsShareOneHandle) {
  ExprPool pool;
  EXPECT_EQ(pool.parse("N+N"), pool.parse("2*N"));
  EXPECT_EQ(pool.parse("N*(M+1)"), pool.parse("M*N+N"));
  EXPECT_EQ(pool.parse("(a+b)*(a-b)"), pool.parse("a*a-b*b"));
  EXPECT_NE(pool.parse("N"), pool.parse("M"));
}

// Checklist 2: expansion and cancellation.
TEST(ExprPrint, ExpansionAndCancellation) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "(N+1)*(N-1)"), "N*N-1");
  EXPECT_EQ(canon(pool, "(a+b)*c"), "a*c+b*c");
  EXPECT_EQ(canon(pool, "N*N*N"), "N*N*N");
  EXPECT_EQ(canon(pool, "--x"), "x");
  EXPECT_EQ(canon(pool, "x*0+y"), "y");
}

// Checklist 3: min/max operator forms.
TEST(ExprPrint, MinMaxOperatorForms) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "N&M"), "min(M,N)");
  EXPECT_EQ(canon(pool, "Min(x,y)"), "min(x,y)");
  EXPECT_EQ(canon(pool, "a^b+c"), "max(a,b+c)");
}

// Checklist 15: unparseable dim_params are opaque symbols printing their own text.
TEST(ExprPrint, OpaqueDimParamsPrintTheirOwnText) {
  ExprPool pool;
  for (const char* text : {"batch size", "Y::0", "a.b", "sqrt(N)", "7/2"}) {
    const Expr e = pool.parse_dim(text);
    EXPECT_TRUE(pool.is_symbol(e)) << text;
    EXPECT_EQ(pool.print(e), text);
    EXPECT_EQ(pool.find_symbol(text)->kind, cctx::SymbolKind::kOpaque) << text;
    EXPECT_EQ(pool.parse_dim(text), e) << "same text, same symbol";
  }
}

// Exporters write integer halves with '/' (Optimum's Whisper: `encoder_sequence_length / 2`):
// a dim_param with symbols reads a lone '/' as floor division, with a note.
TEST(ExprPrint, DimParamSlashIsFloorDivision) {
  ExprPool pool;
  const Expr e = pool.parse_dim("encoder_sequence_length / 2");
  EXPECT_EQ(pool.print(e), "encoder_sequence_length//2");
  EXPECT_EQ(pool.parse_dim("(a + 1) / 2 + b // 3"), pool.parse("(a+1)//2+b//3"));
  EXPECT_TRUE(pool.is_symbol(pool.parse_dim("7/2"))) << "a literal stays opaque text";
  // PyTorch names dims after node paths: a '/' before a name is part of the name.
  const Expr path = pool.parse_dim("Tanh/Tanh_output_0_dim_0");
  EXPECT_TRUE(pool.is_symbol(path));
  EXPECT_EQ(pool.print(path), "Tanh/Tanh_output_0_dim_0");
}

// Checklist 16: an opaque symbol inside a compound is backtick-quoted and parses back.
TEST(ExprPrint, QuotedOpaqueSymbolRoundTrips) {
  ExprPool pool;
  const Expr e = pool.mul(pool.integer(2), pool.symbol("a.b"));
  EXPECT_EQ(pool.print(e), "2*`a.b`");
  EXPECT_EQ(pool.parse(pool.print(e)), e);
  // A backtick inside the name is doubled.
  const Expr tick = pool.add(pool.opaque_symbol("a`b"), pool.integer(1));
  EXPECT_EQ(pool.print(tick), "`a``b`+1");
  EXPECT_EQ(pool.parse(pool.print(tick)), tick);
  // Opaque arguments of max are quoted too.
  const Expr m = pool.max(pool.opaque_symbol("batch size"), pool.symbol("N"));
  EXPECT_EQ(pool.print(m), "max(N,`batch size`)");
  EXPECT_EQ(pool.parse(pool.print(m)), m);
}

// Rule 5: numerators and divisors are parenthesised unless symbols, literals or calls.
TEST(ExprPrint, DivisionOperandsAreParenthesisedByRule) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "N//2"), "N//2");
  EXPECT_EQ(canon(pool, "(N+1)//2"), "(N+1)//2");
  EXPECT_EQ(canon(pool, "(2*N)//3"), "(2*N)//3");
  EXPECT_EQ(canon(pool, "x//(2*a)"), "x//(2*a)");
  EXPECT_EQ(canon(pool, "max(a,b)//c"), "max(a,b)//c");
  EXPECT_EQ(canon(pool, "x//min(a,b)"), "x//min(a,b)");
  EXPECT_EQ(canon(pool, "x%3"), "x%3");
  EXPECT_EQ(canon(pool, "(x+1)%3"), "(x+1)%3");
  EXPECT_EQ(canon(pool, "x/:y"), "x/:y");
  EXPECT_EQ(canon(pool, "7//y"), "7//y");
  // A negative literal numerator is parenthesised; so is a sum (a divisor of 0 is refused).
  EXPECT_EQ(canon(pool, "(-7)//y"), "(-7)//y");
  EXPECT_EQ(canon(pool, "x//(y-3)"), "x//(y-3)");
}

// Rule 6: a division atom is bare only as a whole term with coefficient +1.
TEST(ExprPrint, DivisionAtomIsBareOnlyWithCoefficientOne) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "x+y//2"), "x+y//2");
  EXPECT_EQ(canon(pool, "x+N//2"), "N//2+x");
  EXPECT_EQ(canon(pool, "M*(N//2)"), "M*(N//2)");
  EXPECT_EQ(canon(pool, "3*(N//2)-x"), "3*(N//2)-x");
  EXPECT_EQ(canon(pool, "(N//2)*(N//2)"), "(N//2)*(N//2)");
  EXPECT_EQ(canon(pool, "x%2*y"), "(x%2)*y");
}

// Rule 4: monomials by degree descending, then by factor keys in byte order.
TEST(ExprPrint, MonomialOrderIsDegreeThenBytes) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "a+B*C+Z*Z*Z+b+B"), "Z*Z*Z+B*C+B+a+b");
  // Upper case sorts before lower case and '_' between them (unsigned byte order).
  EXPECT_EQ(canon(pool, "b+_x+A"), "A+_x+b");
  EXPECT_EQ(canon(pool, "32*B*S*S+S"), "32*B*S*S+S");
}

// Printing survives INT64_MIN as coefficient and constant (no positive literal exists).
TEST(ExprPrint, Int64MinCoefficientAndConstantRoundTrip) {
  ExprPool pool;
  const Expr min = pool.parse("-9223372036854775808");
  EXPECT_EQ(pool.print(min), "-9223372036854775808");
  const Expr with_constant = pool.add(pool.symbol("x"), min);
  EXPECT_EQ(pool.print(with_constant), "x+-9223372036854775808");
  EXPECT_EQ(pool.parse(pool.print(with_constant)), with_constant);
  const Expr coef = pool.add(pool.mul(min, pool.symbol("y")), pool.symbol("x"));
  EXPECT_EQ(pool.parse(pool.print(coef)), coef);
}

// Identifiers that spell function names are ordinary symbols when not called.
TEST(ExprPrint, SymbolsSpelledLikeFunctionsRoundTrip) {
  ExprPool pool;
  const Expr e = pool.parse("max+min*2");
  EXPECT_EQ(pool.print(e), "max+2*min");
  EXPECT_EQ(pool.parse(pool.print(e)), e);
  EXPECT_EQ(canon(pool, "max(max,Max)"), "max(Max,max)");
}

// semantics.md "Test checklist" item 1.
TEST(ExprPrint, SemanticsItem1CanonicalBasics) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "N*4*4"), "16*N");
  EXPECT_EQ(canon(pool, "64+16*N"), "16*N+64");
  EXPECT_EQ(canon(pool, "N+N"), "2*N");
  EXPECT_EQ(pool.as_int(pool.parse("x-x")), 0);
}

// semantics.md "Test checklist" item 2: printed text re-prints to itself.
TEST(ExprPrint, SemanticsItem2ConstantsMergeAndReprint) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "(48*N+64)+(16)"), "48*N+80");
  EXPECT_EQ(canon(pool, "(48*N+80)+(0)"), "48*N+80");
  for (const char* t : {"48*N+80", "max(48*N+80,64*N+64)", "(N+1)//2", "M-(N//2)", "2*`a.b`"}) {
    const std::string once = canon(pool, t);
    EXPECT_EQ(canon(pool, once), once) << t;
  }
}

// semantics.md "Test checklist" item 3.
TEST(ExprPrint, SemanticsItem3OrderAndDivision) {
  ExprPool pool;
  EXPECT_EQ(canon(pool, "b+a"), "a+b");
  EXPECT_EQ(canon(pool, "1-x"), "-x+1");
  EXPECT_EQ(pool.as_int(pool.parse("2*N//N")), 2);
  EXPECT_EQ(canon(pool, "x//5//2"), "x//10");
}

// print() returns a reference that stays valid while the pool grows.
TEST(ExprPrint, PrintedTextIsStableWhileThePoolGrows) {
  ExprPool pool;
  const std::string& text = pool.print(pool.parse("16*N+64"));
  for (int i = 0; i < 5000; ++i)
    pool.print(pool.parse("N*" + std::to_string(i) + "+x" + std::to_string(i)));
  EXPECT_EQ(text, "16*N+64");
}

}  // namespace
