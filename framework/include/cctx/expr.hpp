// The host-owned symbolic expression engine (see docs/design/expressions.md).
//
// Every dimension and byte count cctx reports is an `Expr`: a 32-bit handle into an ExprPool.
// Nodes are interned (hash-consed) and kept in canonical form, so two expressions that simplify
// to the same canonical form are the same handle and equality is an integer compare.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cctx/errors.hpp"

namespace cctx {

/// Handle of an interned expression. Valid for the life of the pool that made it.
struct Expr {
  std::uint32_t id = 0;
  friend constexpr bool operator==(Expr, Expr) = default;
  friend constexpr auto operator<=>(Expr, Expr) = default;
};

/// Infinite interval ends are represented by the int64 extremes.
inline constexpr std::int64_t kNegInf = std::numeric_limits<std::int64_t>::min();
inline constexpr std::int64_t kPosInf = std::numeric_limits<std::int64_t>::max();

/// Closed integer interval [lo, hi]; lo == kNegInf / hi == kPosInf mean unbounded.
struct Interval {
  std::int64_t lo = 1;
  std::int64_t hi = kPosInf;
  friend constexpr bool operator==(Interval, Interval) = default;
};

/// Default bounds of a dimension symbol: [1, +inf).
inline constexpr Interval kDimBounds{1, kPosInf};

enum class SymbolKind : std::uint8_t {
  kDeclared,  ///< an identifier dim_param or a profile entry
  kOpaque,    ///< a dim_param that does not parse; its name is the exact text
  kFresh,     ///< made by a rule or the engine (unknown dims, caps)
};

struct SymbolInfo {
  std::string name;
  SymbolKind kind = SymbolKind::kDeclared;
  Interval bounds = kDimBounds;
  std::string origin;  ///< provenance for fresh symbols ("NonZero #3 output 0 axis 1")
  /// Why the bounds are narrower than the symbol was created with (ExprPool::narrow_bounds):
  /// empty when they are not.
  std::string narrowed_by;
};

/// Error raised by parsing, evaluation or checked arithmetic. `what()` is one line that quotes
/// the offending expression text.
class ExprError : public std::runtime_error {
 public:
  enum class Kind : std::uint8_t {
    kSyntax,
    kUnknownSymbol,
    kOutOfBounds,
    kDivisionByZero,
    kModuloByZero,
    kInexactDivision,
    kOverflow,
  };
  ExprError(Kind kind, const std::string& message, std::size_t offset = 0)
      : std::runtime_error(detail::without_nul(message)), kind_(kind), offset_(offset) {}
  Kind kind() const noexcept { return kind_; }
  /// Byte offset of a syntax error in the parsed text (0 otherwise).
  std::size_t offset() const noexcept { return offset_; }

 private:
  Kind kind_;
  std::size_t offset_;
};

/// Symbol name -> value. Ordered so that messages and iteration are deterministic.
using Assignment = std::map<std::string, std::int64_t, std::less<>>;

/// Result of `ExprPool::compare`.
enum class Relation : std::uint8_t { kEq, kLt, kLe, kGt, kGe, kNe, kUnknown };
/// How an expression moves as one symbol grows (ExprPool::direction_in).
enum class Direction : std::uint8_t { kConstant, kNondecreasing, kNonincreasing, kUnknown };

/// Floating-point sizes (expressions.md 4.5): a size a model computes in floating point, such as
/// torchvision's `floor(h * (320 / min(h, w)))`, whose value depends on how every operation
/// rounds. The pool keeps the computation as a *float term* and the integer read from it as a
/// symbol that evaluation computes exactly as the runtime does, operation by operation.
enum class FloatType : std::uint8_t { kFloat32, kFloat64 };
/// Operations of float terms: binary (kAdd .. kMax) and unary (kNeg, kAbs, kSqrt).
enum class FloatOp : std::uint8_t { kAdd, kSub, kMul, kDiv, kMin, kMax, kNeg, kAbs, kSqrt };
/// How a floating value becomes an integer: Floor, Ceil, a Cast (toward zero), Round (half to
/// even).
enum class Rounding : std::uint8_t { kFloor, kCeil, kTrunc, kHalfEven };

/// Handle of an interned float term. Valid for the life of the pool that made it.
struct FloatTerm {
  std::uint32_t id = 0;
  friend constexpr bool operator==(FloatTerm, FloatTerm) = default;
};

/// Size caps (expressions.md "Simplification: Size cap"). A result above a cap becomes a fresh
/// `cap_<k>` symbol.
struct ExprLimits {
  std::uint32_t max_weight = 512;
  std::uint32_t max_terms = 64;
  std::uint32_t max_degree = 8;
  std::uint32_t max_args = 32;
};

/// Operation-memo counters (tests, benchmarks).
struct ExprPoolStats {
  std::uint64_t memo_hits = 0;
  std::uint64_t memo_misses = 0;
  /// Proof budget units spent by prove_ge/prove_nonneg (expressions.md 5), a measure of proof
  /// work that does not depend on the machine: a goal refuted at a point costs none.
  std::uint64_t proof_units = 0;
};

/// Append-only arena of interned expressions with the smart constructors, the printer, the
/// parser, interval analysis, proofs, evaluation and substitution. Not thread-safe: one pool is
/// used by one thread at a time. Constructors throw ExprError only for overflow of literals that
/// cannot be represented (callers that must not fail use the `*_or_fresh` helpers of the SDK
/// bridge or catch).
namespace detail {
struct PoolAccess;
}

class ExprPool {
 public:
  ExprPool();
  explicit ExprPool(ExprLimits limits);
  ~ExprPool();
  ExprPool(const ExprPool&) = delete;
  ExprPool& operator=(const ExprPool&) = delete;

  // ---- construction -------------------------------------------------------------------------
  Expr integer(std::int64_t value);
  /// A declared symbol; created with kDimBounds on first use. Its bounds change only through
  /// narrow_bounds.
  Expr symbol(std::string_view name);
  /// Declares `name` with `bounds` (profile entries). If it already exists its bounds are kept
  /// and the existing handle is returned.
  Expr declare_symbol(std::string_view name, Interval bounds);
  /// A runtime parameter: the symbol `name` (declared with bounds [1, inf) if new, its bounds
  /// kept otherwise) whose
  /// value, when an assignment does not give one, is `value` (ONNX Runtime's intra-op threads:
  /// `threads`, the profile's memory.threads.default). `origin` says where the default comes
  /// from. A later call for the same name changes the default.
  Expr declare_parameter(std::string_view name, std::int64_t value, std::string_view origin);
  /// True when `symbol` is a runtime parameter (declare_parameter); `*value` gets its default.
  bool parameter_default(std::string_view symbol, std::int64_t* value = nullptr) const;
  /// A new symbol named `base`, or `base_2`, `base_3`, ... if taken.
  Expr fresh_symbol(std::string_view base, Interval bounds, std::string_view origin);
  /// A symbol whose name is exactly `text` (an unparseable dim_param). Same text, same symbol.
  Expr opaque_symbol(std::string_view text);

  Expr add(Expr a, Expr b);
  Expr sub(Expr a, Expr b);
  Expr mul(Expr a, Expr b);
  Expr neg(Expr a);
  Expr floor_div(Expr a, Expr b);  ///< a // b (floor)
  Expr exact_div(Expr a, Expr b);  ///< a /: b (caller guarantees exactness)
  Expr mod(Expr a, Expr b);        ///< a % b (sign of the divisor)
  Expr ceil_div(Expr a, Expr b);   ///< CeilToInt(a, b)
  /// n-ary max/min with dominated arguments dropped under the symbols' bounds (max_of/min_of).
  Expr max(std::span<const Expr> args);
  Expr min(std::span<const Expr> args);
  Expr max(Expr a, Expr b) {
    const Expr args[] = {a, b};
    return max(args);
  }
  Expr min(Expr a, Expr b) {
    const Expr args[] = {a, b};
    return min(args);
  }
  /// Sum and product of many terms (linear time, one canonicalisation).
  Expr sum(std::span<const Expr> terms);
  Expr product(std::span<const Expr> factors);

  // ---- text -----------------------------------------------------------------------------------
  /// Strict parse of the full grammar. Throws ExprError (kSyntax with a byte offset, kOverflow).
  Expr parse(std::string_view text);
  /// Lenient parse for a model's dim_param: never throws; text that does not parse (or
  /// overflows, or is too long/deep) becomes an opaque symbol named by the text.
  Expr parse_dim(std::string_view text);
  /// Canonical text (expressions.md section 3); cached, stable for the pool's life.
  const std::string& print(Expr e);

  // ---- queries --------------------------------------------------------------------------------
  bool is_int(Expr e) const;
  /// The integer value of a concrete expression.
  std::optional<std::int64_t> as_int(Expr e) const;
  bool is_symbol(Expr e) const;
  /// True when `e` mentions at least one symbol.
  bool has_symbols(Expr e) const;
  /// The distinct atoms whose product (times a non-zero integer) `e` is: `h//4` and `w` of
  /// `3*(h//4)*w^2`; `{e}` when `e` is not such a product (a sum of several terms, an integer).
  /// e is 0 exactly when one of them is.
  std::vector<Expr> factors(Expr e) const;
  /// Names of the symbols `e` mentions, sorted, without duplicates.
  std::vector<std::string> symbols_of(Expr e);

  Interval interval(Expr e);
  bool prove_ge(Expr a, Expr b);
  bool prove_gt(Expr a, Expr b);
  bool prove_eq(Expr a, Expr b);
  bool prove_ne(Expr a, Expr b);
  bool prove_nonneg(Expr e);
  Relation compare(Expr a, Expr b);
  /// Cheap sufficient test for a >= b that builds no expression: every monomial's coefficient in
  /// a is at least its coefficient in b, the monomials with a larger coefficient are provably
  /// >= 0, and the constant terms (with those monomials at their lower bounds) make up the rest.
  /// False means "not shown this way" (prove_ge may still succeed). Used to thin out large maxima.
  bool dominates_termwise(Expr a, Expr b);
  /// How `e` moves as `symbol` grows, every other symbol fixed anywhere within its bounds;
  /// symbols defined in terms of `symbol` (size caps) are followed through their definitions.
  /// A sufficient, structural proof (sums with signed coefficients, products of non-negative
  /// factors, floor division by a positive constant, max and min): kUnknown means "not shown".
  Direction direction_in(Expr e, std::string_view symbol);

  // ---- evaluation -----------------------------------------------------------------------------
  /// Checked evaluation: floor `//` and `%`, exact `/:`. Throws ExprError naming the problem
  /// (unknown symbol, out of bounds, division/modulo by zero, inexact division, overflow).
  std::int64_t eval(Expr e, const Assignment& values);
  /// eval() of every expression of `es` under one assignment, in order. Sub-expressions shared
  /// between them are evaluated once for the whole batch (the peak of a large graph evaluates
  /// one term per node, and the terms share most of their monomials). Throws as eval() does, for
  /// the first expression that fails.
  std::vector<std::int64_t> eval_all(std::span<const Expr> es, const Assignment& values);
  /// Replaces symbols by expressions and re-simplifies.
  Expr substitute(Expr e, const std::map<std::string, Expr, std::less<>>& values);

  // ---- symbols --------------------------------------------------------------------------------
  const SymbolInfo* find_symbol(std::string_view name) const;
  /// Every symbol in creation order.
  std::span<const SymbolInfo> symbols() const;
  /// Intersects the bounds of `symbol` (a symbol handle) with `within`, for what the analysis
  /// learnt the model needs (semantics.md "Bounds derived from the model"); `reason` is kept in
  /// SymbolInfo::narrowed_by and quoted when an evaluation falls outside. Every cached interval,
  /// proof and memoised operation is dropped, so that later constructors simplify under the new
  /// bounds; expressions built before stay valid (they hold on the wider range). Returns false,
  /// changing nothing, when the bounds would not shrink or would become empty.
  bool narrow_bounds(Expr symbol, Interval within, std::string_view reason);
  /// The expression a size-cap symbol stands for (expressions.md "Size cap"), printable with
  /// print(); nullopt for any other symbol. eval() expands a cap symbol that has no value into
  /// it, so a capped result is still evaluated exactly.
  std::optional<Expr> definition(std::string_view symbol) const;

  /// The text of a symbol's definition, which eval() expands when the symbol has no value: a
  /// size cap's expression, or a floating-point size's computation (`floor(float32(h)*0.5f)`,
  /// which evaluate_expression reads back); nullopt for any other symbol.
  std::optional<std::string> definition_text(std::string_view symbol);
  /// The integer expressions a symbol's definition evaluates (a cap: its expression; a
  /// floating-point size: the integers its computation converts); empty for other symbols.
  std::vector<Expr> definition_operands(std::string_view symbol) const;
  /// True when `symbol` stands for a floating-point computation (float_round).
  bool is_float_size(std::string_view symbol) const;

  // ---- floating-point sizes (expressions.md 4.5) ----------------------------------------------
  /// The integer `e` converted to type t (rounded to nearest as a Cast does).
  FloatTerm float_of(Expr e, FloatType t);
  /// The constant `v` of type t; nullopt when v is not finite or not a value of t.
  std::optional<FloatTerm> float_constant(double v, FloatType t);
  /// A unary (kNeg, kAbs, kSqrt) or binary operation on terms of one type, rounded to it. Terms
  /// of constants only are computed at once. Nullopt for operands of different types, the wrong
  /// arity, a computed result that is not finite, or a term nested deeper than 64 operations.
  std::optional<FloatTerm> float_unary(FloatOp op, FloatTerm a);
  std::optional<FloatTerm> float_binary(FloatOp op, FloatTerm a, FloatTerm b);
  /// `a` rounded to type t (a Cast between floating types).
  std::optional<FloatTerm> float_cast(FloatTerm a, FloatType t);
  FloatType float_type(FloatTerm a) const;
  /// How many float terms the pool holds: handles below it are valid.
  std::size_t float_term_count() const;
  /// The constant value of `a`, nullopt when it depends on symbols.
  std::optional<double> float_value(FloatTerm a) const;
  /// `a` rounded to an integer. A constant term gives the integer (nullopt when it is not finite
  /// or outside int64), a converted integer that the type holds exactly gives that integer, and
  /// any other term a fresh symbol named `name` (`_2`, ... if taken) bounded by the term's
  /// interval, whose definition is the computation: eval() computes it from the symbols the term
  /// reads, rounding each operation as the runtime does. The same term and rounding give the same
  /// symbol.
  std::optional<Expr> float_round(FloatTerm a, Rounding r, std::string_view name,
                                  std::string_view origin);
  /// The text of a term, as in a definition (`float32(h)*(1.0f/float32(min(h,w)))`).
  std::string print_float(FloatTerm a);

  /// Warnings recorded by the engine (caps, rewrite budget) since the last call.
  std::vector<std::string> take_warnings();
  std::size_t node_count() const;
  /// Makes room for `expressions` more expressions, so that a stage about to intern many (the
  /// memory profile interns about one sum per node) fills the arena without copying it as it
  /// grows. A hint only: the pool still grows past it as needed.
  void reserve(std::size_t expressions);
  const ExprLimits& limits() const;
  ExprPoolStats stats() const;

 private:
  int direction_code(Expr e, std::string_view symbol, int depth);
  friend struct detail::PoolAccess;  // the framework's own fast paths (src/expr/pool_access.hpp)
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Evaluates `text` directly under `values` without simplifying (semantics.md "Expressions:
/// Evaluation"): floor division, modulo with the divisor's sign. Throws ExprError quoting the
/// expression on an unknown symbol, division by zero, bad syntax or overflow.
std::int64_t evaluate_expression(std::string_view text, const Assignment& values);

}  // namespace cctx
