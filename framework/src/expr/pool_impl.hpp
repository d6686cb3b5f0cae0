// Private layout of ExprPool: a flat arena of nodes whose variable-length parts live in one shared
// payload vector, an open-addressing intern table, a direct-mapped operation memo and the lazily
// filled per-node caches (text, interval, proof results).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cctx/expr.hpp"
#include "expr/checked.hpp"
#include "util/hash_index.hpp"
#include "util/hash_mix.hpp"

namespace cctx {
namespace detail {

enum class Kind : std::uint8_t { kInt, kSym, kSum, kMono, kFloorDiv, kExactDiv, kMod, kMax, kMin };

constexpr bool is_division(Kind k) {
  return k == Kind::kFloorDiv || k == Kind::kExactDiv || k == Kind::kMod;
}
constexpr bool is_minmax(Kind k) { return k == Kind::kMax || k == Kind::kMin; }
/// Atoms are the factors of monomials.
constexpr bool is_atom(Kind k) { return k == Kind::kSym || is_division(k) || is_minmax(k); }

// Node flags. "Self" flags describe a node's own linear terms (a Sum inherits them from its
// monomials so one test tells whether a rule can apply); "deep" flags describe the whole DAG.
inline constexpr std::uint8_t kFlagLitDiv = 1 << 0;       // self: FloorDiv/Mod by a literal > 0
inline constexpr std::uint8_t kFlagExactFactor = 1 << 1;  // self: an ExactDiv factor
inline constexpr std::uint8_t kFlagMinMax = 1 << 2;       // deep: contains Max/Min
inline constexpr std::uint8_t kFlagMaybeUndef = 1 << 3;   // deep: `/:`, or a non-literal divisor

/// 32 bytes. Payload layouts (32-bit words at payload[off, off+len)):
///   Sum: 3 words per term (monomial handle, coef low, coef high), sorted by monomial handle;
///   Mono: 2 words per factor (atom handle, exponent), sorted by atom handle;
///   FloorDiv/ExactDiv/Mod: numerator, denominator;  Max/Min: arguments sorted by handle.
struct Node {
  std::int64_t aux = 0;  // Int: value; Sym: symbol index; Sum: constant term
  std::uint64_t sig = 0;
  std::uint32_t off = 0;
  std::uint32_t len = 0;
  std::uint32_t weight = 1;
  std::uint16_t degree = 0;
  Kind kind = Kind::kInt;
  std::uint8_t flags = 0;
};

struct Term {
  std::uint32_t mono;
  std::int64_t coef;
};

/// Working form of a polynomial: constant plus terms (sorted and merged by `normalize`).
struct Poly {
  std::int64_t c0 = 0;
  std::vector<Term> terms;
};

struct Factor {
  std::uint32_t atom;
  std::uint32_t exp;
};

enum class Op : std::uint32_t {
  kNone,
  kAdd,
  kMul,
  kMonoMul,
  kFloorDiv,
  kExactDiv,
  kMod,
  kMax2,
  kMin2,
  kCeilDiv,
};

struct MemoEntry {
  std::uint32_t a = 0;
  std::uint32_t b = 0;
  std::uint32_t result = 0;
  Op op = Op::kNone;
};

/// A sum's hash adds one mix per term (monomial, coefficient low and high words) and mixes the
/// total with its constant and length at the end. The terms' part is order-free and additive, so
/// RunningSum keeps it up to date term by term and its reads intern without hashing the list.
inline std::uint64_t sum_term_hash(const std::uint32_t* term) {
  return mix64((std::uint64_t{term[0]} * kGoldenMul) ^
               (std::uint64_t{term[1]} | std::uint64_t{term[2]} << 32));
}
inline std::uint64_t sum_terms_hash(const std::uint32_t* w, std::uint32_t len) {
  std::uint64_t h = 0;
  for (std::uint32_t t = 0; t < len; t += 3) h += sum_term_hash(w + t);
  return h;
}

inline void put_i64(std::vector<std::uint32_t>& out, std::int64_t v) {
  const auto u = static_cast<std::uint64_t>(v);
  out.push_back(static_cast<std::uint32_t>(u));
  out.push_back(static_cast<std::uint32_t>(u >> 32));
}
inline void put_i64(std::uint32_t* w, std::int64_t v) {
  const auto u = static_cast<std::uint64_t>(v);
  w[0] = static_cast<std::uint32_t>(u);
  w[1] = static_cast<std::uint32_t>(u >> 32);
}
inline std::int64_t get_i64(const std::uint32_t* w) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(w[0]) |
                                   (static_cast<std::uint64_t>(w[1]) << 32));
}

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept {
    return std::hash<std::string_view>{}(s);
  }
};

/// Thrown inside proofs when the visit budget is spent; never escapes the pool.
struct BudgetExhausted {};

/// State of one top-level proof: the visit budget and the sub-goals already decided.
struct ProofCtx {
  std::int64_t budget = 0;
  std::unordered_map<std::uint64_t, bool> decided;    // (node << 2 | depth) -> result
  std::unordered_map<std::uint64_t, int> directions;  // (node << 32 | symbol node) -> dir
};

/// Two directions of PoolImpl::direction's code (0, 1, -1, 2) met in one expression: the
/// direction of their sum.
inline int combine_directions(int a, int b) {
  if (a == 0) return b;
  if (b == 0 || a == b) return a;
  return 2;
}

bool is_identifier(std::string_view s);
/// One-line rendering of user text for messages: control bytes escaped, long text shortened.
std::string quote_text(std::string_view text, std::size_t max_len = 160);

struct PoolImpl {
  using Kind = detail::Kind;
  using Node = detail::Node;
  using Poly = detail::Poly;
  using Term = detail::Term;
  using Factor = detail::Factor;
  using Op = detail::Op;

  explicit PoolImpl(ExprLimits lim);

  // ---- storage (pool.cpp) ----------------------------------------------------------------------
  ExprLimits limits;
  std::vector<Node> nodes;
  std::vector<std::uint32_t> payload;
  HashIndex table{1024, 70};  // the intern table: node hash -> node id, at most 70% full
  std::vector<detail::MemoEntry> op_memo;
  std::uint64_t memo_hits = 0;
  std::uint64_t proof_units = 0;  // ExprPoolStats::proof_units
  std::uint64_t memo_misses = 0;
  std::vector<std::uint32_t> words;  // interning scratch, filled right before intern()

  /// Lazily filled per-node facts, one entry per node (a single append per new node).
  struct Extra {
    Interval interval;
    std::uint32_t text_id = 0;  // 1-based index into texts, 0 = not printed yet
    std::uint8_t state = 0;     // bit 0: interval cached; bits 1-2: nonneg proof result
  };
  std::vector<Extra> extra;
  std::deque<std::string> texts;  // deque: print() hands out stable references

  std::vector<SymbolInfo> symbols;
  std::vector<std::uint32_t> symbol_nodes;
  std::vector<std::uint32_t> symbol_raw_text;  // text id of a non-identifier name printed whole
  /// Per symbol: the node a size cap discarded (kNoDefinition for every other symbol). The node
  /// is stored but not interned: nothing is built on it, evaluation expands the symbol into it.
  std::vector<std::uint32_t> symbol_definition;
  static constexpr std::uint32_t kNoDefinition = 0xffffffffU;
  std::unordered_map<std::string, std::uint32_t, detail::StringHash, std::equal_to<>> symbol_index;
  std::unordered_map<std::string, std::uint32_t, detail::StringHash, std::equal_to<>> fresh_next;

  std::vector<std::string> warnings;
  std::unordered_map<std::string, std::uint32_t> caps;  // discarded node key -> cap symbol node
  std::uint32_t cap_count = 0;
  bool pass_warning_given = false;

  static constexpr std::int64_t kSmallMin = -64;
  static constexpr std::int64_t kSmallMax = 1024;
  std::vector<std::uint32_t> small_ints;

  int proof_nesting = 0;
  /// Points inside every symbol's bounds where a large goal of prove_nonneg is evaluated first:
  /// a negative value refutes it without a proof (refuted_by_points). Rebuilt when symbols are
  /// added; `refuting_symbols` is the symbol count they were built for.
  std::vector<Assignment> refuting_points;
  std::size_t refuting_symbols = 0;

  mutable std::vector<std::uint32_t> visit_stamp;  // DAG walks: visited when == visit_gen
  mutable std::uint32_t visit_gen = 0;

  std::vector<std::uint32_t> eval_stamp;
  std::unique_ptr<detail::Int128[]> eval_value;  // valid where eval_stamp == eval_gen
  std::uint32_t eval_gen = 0;

  std::vector<Poly> spare_polys;

  // ---- floating-point sizes (float_terms.cpp; expressions.md 4.5) -----------------------------
  enum class FloatKind : std::uint8_t { kOfInt, kConst, kCast, kOp };
  struct FloatNode {
    double value = 0;     // kConst: the value (one of the type's)
    double lo = 0;        // the values the term can take at run time, rounding included
    double hi = 0;        //   (-inf/+inf: unbounded)
    std::uint32_t a = 0;  // kOfInt: the integer expression; kCast, kOp: an operand term
    std::uint32_t b = 0;  // kOp binary: the second operand term
    FloatKind kind = FloatKind::kConst;
    FloatOp op = FloatOp::kAdd;  // kOp
    FloatType type = FloatType::kFloat32;
    std::uint8_t depth = 0;  // operations above the leaves
  };
  static constexpr std::uint8_t kMaxFloatDepth = 64;
  std::vector<FloatNode> float_nodes;
  std::unordered_map<std::string, std::uint32_t> float_index;  // node key -> term
  struct FloatDefinition {
    std::uint32_t term = 0;
    Rounding rounding = Rounding::kFloor;
  };
  std::unordered_map<std::uint32_t, FloatDefinition> float_definitions;  // symbol index ->
  std::unordered_map<std::uint64_t, std::uint32_t> float_rounded;  // term << 2 | rounding -> node
  std::vector<std::uint32_t> float_eval_stamp;  // eval memo of terms, valid where == eval_gen
  std::vector<double> float_eval_value;

  FloatTerm float_intern(FloatNode n);
  /// The runtime's value of a term under `values` (eval_rec for the integers it converts).
  double eval_float(std::uint32_t term, const Assignment& values, Expr top);
  /// eval_rec of a symbol with a floating-point definition and no value.
  Int128 eval_float_size(std::uint32_t symbol, const FloatDefinition& d, const Assignment& values,
                         Expr top);
  std::string float_text(std::uint32_t term, int context);

  const Node& node(Expr e) const { return nodes[e.id]; }
  Kind kind(Expr e) const { return nodes[e.id].kind; }
  const std::uint32_t* words_of(const Node& n) const { return payload.data() + n.off; }
  bool is_int(Expr e) const { return nodes[e.id].kind == Kind::kInt; }
  std::int64_t int_value(Expr e) const { return nodes[e.id].aux; }
  bool is_int_value(Expr e, std::int64_t v) const { return is_int(e) && int_value(e) == v; }
  Expr child(Expr e, std::uint32_t i) const { return Expr{payload[nodes[e.id].off + i]}; }

  Expr intern(Kind k, std::int64_t aux, const std::uint32_t* w, std::uint32_t n);
  /// Prefetches the intern-table slot where intern_sum(c0, w, len, terms_hash) will look first.
  void prefetch_sum_slot(std::int64_t c0, std::uint32_t len, std::uint64_t terms_hash) const;
  /// intern() with the node's hash already known (hash_node, or sum_hash for a sum).
  Expr intern_hashed(Kind k, std::int64_t aux, const std::uint32_t* w, std::uint32_t n,
                     std::uint32_t h);
  Expr make_cap(const Node& discarded, const std::uint32_t* w, const std::string& reason);
  /// ExprPool::reserve.
  void reserve(std::size_t more);
  void warn(std::string msg);

  /// The direct-mapped memo entry for (op, a, b).
  detail::MemoEntry& memo_slot(Op op, Expr a, Expr b);
  std::optional<Expr> memo_find(Op op, Expr a, Expr b);
  void memo_store(Op op, Expr a, Expr b, Expr r);

  Expr integer(std::int64_t v);
  std::uint32_t new_symbol(std::string name, SymbolKind kind, Interval bounds, std::string origin);
  Expr symbol_node(std::uint32_t index) const { return Expr{symbol_nodes[index]}; }
  Expr fresh(std::string_view base, Interval bounds, std::string origin);
  Expr lookup_or_opaque(std::string_view name);

  // ---- ring (arith.cpp) ------------------------------------------------------------------------
  /// A polynomial's terms read in place: a Sum's payload, or one term for a lone atom/monomial.
  struct TermView {
    std::int64_t c0 = 0;
    const std::uint32_t* words = nullptr;  // 3 words per term (monomial, coef low, coef high)
    std::uint32_t count = 0;
    std::uint32_t single[3] = {0, 1, 0};
  };
  void view_terms(Expr e, TermView* v) const {  // inline: called per comparison on hot paths
    const Node& n = nodes[e.id];
    if (n.kind == Kind::kInt) {
      v->c0 = n.aux;
    } else if (n.kind == Kind::kSum) {
      v->c0 = n.aux;
      v->words = payload.data() + n.off;
      v->count = n.len / 3;
    } else {
      v->single[0] = e.id;
      v->words = v->single;
      v->count = 1;
    }
  }
  void append_terms(Expr e, std::int64_t scale, Poly& out) const;
  static void normalize(Poly& p);
  /// Canonical expression of `p`. `normalized`: terms already sorted, merged and non-zero.
  Expr make_poly(Poly& p, bool normalized = false);
  void merge_add(Expr a, Expr b, Poly& out) const;
  Expr intern_poly(const Poly& p);
  /// Canonical expression of c0 + the terms in `words` (a Sum's payload layout: sorted, merged,
  /// non-zero, nothing the division or exact-factor rules rewrite): an integer, a lone monomial,
  /// or an interned Sum.
  Expr intern_sum(std::int64_t c0, const std::uint32_t* words, std::uint32_t len);
  /// intern_sum() given sum_terms_hash(words, len).
  Expr intern_sum(std::int64_t c0, const std::uint32_t* words, std::uint32_t len,
                  std::uint64_t terms_hash);
  Expr add(Expr a, Expr b);
  Expr mul(Expr a, Expr b);
  Expr scale(Expr e, std::int64_t k);
  Expr neg(Expr a) { return scale(a, -1); }
  Expr sub(Expr a, Expr b) { return add(a, neg(b)); }
  Expr sum(std::span<const Expr> terms);
  Expr mono_mul(Expr a, Expr b);
  void factors_of(Expr mono, std::vector<Factor>& out) const;
  Expr make_mono(const std::vector<Factor>& factors);
  /// d' of a sum d = G * d' + c0 with G the monomial of the factors every term shares, when G is
  /// provably >= 0 (prove.cpp, step 2e); nullopt otherwise. c0, d's constant, is left out.
  std::optional<Expr> common_factor_rest(Expr d, int depth, ProofCtx& ctx);
  std::optional<Expr> apply_exact_rule(Poly& p);
  Poly acquire_poly();
  void release_poly(Poly&& p);

  // ---- sum rules (sum_rules.cpp) ---------------------------------------------------------------
  bool reduce_division_families(Poly& p);

  // ---- division (division.cpp) -----------------------------------------------------------------
  Expr floor_div(Expr a, Expr b, int pass = 0);
  Expr exact_div(Expr a, Expr b, int pass = 0);
  Expr mod(Expr a, Expr b, int pass = 0);
  Expr ceil_div(Expr a, Expr b);
  Expr division_atom(Kind k, Expr a, Expr b);
  /// Throws the ExprError of `a op 0` (op "//", "/:", "%" or "CeilToInt").
  [[noreturn]] void throw_zero_divisor(const char* op, Expr a);
  Expr floor_div_pos(Expr a, std::int64_t d, int pass);
  Expr mod_pos(Expr a, std::int64_t d, int pass);
  bool pass_limit(int pass);

  // ---- max/min (minmax.cpp) --------------------------------------------------------------------
  Expr minmax(bool is_max, std::span<const Expr> args);
  /// Structural max/min: flatten, fold literals, dedupe; no dominance proofs.
  Expr minmax_raw(bool is_max, std::span<const Expr> args);

  // ---- text (print.cpp, parse.cpp) -------------------------------------------------------------
  const std::string& text(Expr e);
  const std::string& print(Expr e);
  std::string text_of_parts(Kind k, std::int64_t aux, const std::uint32_t* w, std::uint32_t n);
  std::string_view factor_key(Expr atom);
  Expr parse(std::string_view src);

  // ---- bounds and proofs (interval.cpp, prove.cpp) ---------------------------------------------
  Interval interval(Expr e);
  Interval interval_of_parts(Kind k, std::int64_t aux, const std::uint32_t* w, std::uint32_t n);
  bool prove_nonneg(Expr d);
  /// True when `d` is negative at one of refuting_points (so d >= 0 is false); false when it is
  /// not, or cannot be evaluated there.
  bool refuted_by_points(Expr d);
  /// True when `d` is negative at a point chosen for it: each symbol at the end (or min/max
  /// breakpoint) where d's terms over that symbol alone are smallest (refute_corner.cpp).
  bool refuted_at_corner(Expr d);
  bool prove_ge(Expr a, Expr b);
  bool dominates_termwise(Expr a, Expr b);
  bool nonneg_rec(Expr d, int depth, detail::ProofCtx& ctx);
  bool nonneg_step(Expr d, int depth, detail::ProofCtx& ctx);
  /// L*d with every floor division of a positive literal relaxed to the linear bound that keeps
  /// it below d (prove.cpp, step 2d); nullopt when d has none or a bound does not apply.
  std::optional<Expr> relaxed_floor_divisions(Expr d);
  bool defined_everywhere(Expr d);
  /// How `e` moves with the symbol node `sym_node`: 0 independent, 1 non-decreasing,
  /// -1 non-increasing, 2 unknown (structural, sound within the bounds).
  /// How `e` moves as the symbol `sym_node` grows: 0 constant, 1 non-decreasing, -1
  /// non-increasing, 2 not shown. A product's factors must be non-negative: by their interval,
  /// or with `prove_signs` also by prove_nonneg (which may intern expressions; the simplifier's
  /// callers leave it off, their cost and results depend on it).
  int direction(Expr e, std::uint32_t sym_node, std::unordered_map<std::uint64_t, int>& memo,
                bool prove_signs = false);

  // ---- evaluation and substitution (eval.cpp, substitute.cpp) ----------------------------------
  std::int64_t eval(Expr e, const Assignment& values);
  /// Values of many expressions under one assignment: shared sub-expressions are evaluated once
  /// for the whole batch (one memo generation).
  std::vector<std::int64_t> eval_all(std::span<const Expr> es, const Assignment& values);
  void start_eval_generation();
  std::int64_t eval_top(Expr e, const Assignment& values);
  detail::Int128 eval_rec(Expr e, const Assignment& values, Expr top);
  /// `budget` (optional) is charged one unit per rebuilt node. `raw_minmax` rebuilds max/min
  /// structurally, without dominance proofs (used inside proofs).
  Expr substitute_syms(Expr e, const std::vector<std::pair<std::uint32_t, Expr>>& map,
                       std::int64_t* budget, bool raw_minmax = false);
  void collect_symbols(Expr e, std::vector<std::uint32_t>& out) const;
};

/// RAII loan of a scratch polynomial: constructors recurse, so each level borrows its own.
class PolyLoan {
 public:
  explicit PolyLoan(PoolImpl& impl) : impl_(impl), poly_(impl.acquire_poly()) {}
  ~PolyLoan() { impl_.release_poly(std::move(poly_)); }
  PolyLoan(const PolyLoan&) = delete;
  PolyLoan& operator=(const PolyLoan&) = delete;
  Poly& operator*() { return poly_; }
  Poly* operator->() { return &poly_; }

 private:
  PoolImpl& impl_;
  Poly poly_;
};

}  // namespace detail

struct ExprPool::Impl : detail::PoolImpl {
  explicit Impl(ExprLimits lim) : PoolImpl(lim) {}
};

}  // namespace cctx
