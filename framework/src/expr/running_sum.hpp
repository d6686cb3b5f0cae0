// RunningSum: a sum kept as a term list between reads (the memory stage's live bytes), and the
// expression pool's cache hints for loops that read expressions in an order of their own. Both
// are the framework's own fast paths over the pool's storage, not part of its public interface.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "cctx/expr.hpp"

namespace cctx {

/// A sum changed one operand at a time and read after each change (the memory profile's live
/// bytes). add/sub merge the operand's terms into a short sorted list without interning anything;
/// value() interns the current sum once and keeps it until the next change. A chain of
/// ExprPool::add/sub would intern (and memoise) every intermediate sum. The value equals that
/// chain's result, with one difference: a sum that exceeds the size caps only between two reads
/// is not capped. Operands that the pool rewrites when added (floor divisions or modulos by a
/// literal, exact divisions) switch the sum to the pool's own add/sub until they cancel out.
class RunningSum {
 public:
  explicit RunningSum(ExprPool& pool) : pool_(&pool) {}
  void add(Expr e) { change(e, 1); }
  void sub(Expr e) { change(e, -1); }
  Expr value();
  /// A cache hint: value() will be called soon. Its intern-table slot is prefetched, so that the
  /// misses of several sums about to be read overlap.
  void prefetch() const;

 private:
  void change(Expr e, std::int64_t sign);
  /// Adds `coef` to the term of monomial `mono`, inserting or erasing it.
  void merge(std::uint32_t mono, std::int64_t coef);
  std::size_t term_count() const { return words_.size() / 3; }
  /// Replaces the term list by the terms of `e`; returns false when `e` needs the pool's rewrites.
  bool load(Expr e);
  /// True when `e`, just interned from the term list, is that list unchanged (not capped).
  bool interned_as_is(Expr e) const;

  ExprPool* pool_;
  std::int64_t constant_ = 0;
  /// The terms in the pool's own layout for a sum (monomial handle, coefficient low and high
  /// words), sorted by monomial, no zero coefficient: value() interns them without conversion.
  std::vector<std::uint32_t> words_;
  /// The pool's order-free hash of words_, kept up to date term by term: value() interns the
  /// list without hashing it again.
  std::uint64_t terms_hash_ = 0;
  std::optional<Expr> slow_;    ///< the value while the pool's add/sub is in charge
  std::optional<Expr> cached_;  ///< value() since the last change
};

/// Cache hints for a loop that will read many expressions in an order of its own (the peak
/// visits node terms by value): prefetch_node(pool, e) a few steps ahead, then
/// prefetch_terms(pool, e) (which reads e's node, by then in cache) a few steps before e is
/// compared.
void prefetch_node(const ExprPool& pool, Expr e);
void prefetch_terms(const ExprPool& pool, Expr e);

}  // namespace cctx
