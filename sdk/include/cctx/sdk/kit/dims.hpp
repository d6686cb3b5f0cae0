/// @file kit/dims.hpp
/// Dims a rule makes or relates: fresh producer-named symbols, unification of dims the operator
/// requires equal (one semantics, a throwing and a non-throwing form), even splits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cctx/sdk/dims.hpp"
#include "cctx/sdk/kit/rule_error.hpp"
#include "cctx/sdk/node_view.hpp"
#include "cctx/sdk/rules.hpp"
#include "cctx/sdk/shape_helpers.hpp"

namespace cctx::sdk::kit {

/// A fresh producer-named dim for output `o`, axis `axis`, in [lo, hi].
inline Dim fresh(const INodeView& node, IShapeSink& out, std::uint32_t o, std::size_t axis,
                 std::int64_t lo = 1, std::int64_t hi = INT64_MAX) {
  return Dim(&node.expr(), out.fresh_dim(o, static_cast<std::uint32_t>(axis), lo, hi));
}

/// A fresh data-dependent dim for output `o`, axis `axis`, in [0, upper]: `upper` is what the
/// operator never exceeds (NonZero: the input's element count), stated with bound_fresh_dim so
/// that evaluation can take it as the worst case. An invalid `upper` gives a plain fresh dim.
inline Dim fresh_upto(const INodeView& node, IShapeSink& out, std::uint32_t o, std::size_t axis,
                      Dim upper) {
  if (!upper.valid()) return fresh(node, out, o, axis, 0);
  std::int64_t lo = 0, hi = INT64_MAX;
  upper.bounds(&lo, &hi);
  const Dim dim = fresh(node, out, o, axis, 0, hi < 0 ? 0 : hi);
  check(out.bound_fresh_dim(dim, upper));
  return dim;
}

/// Replaces every unknown (invalid) dim by a fresh symbol of output `o`.
inline Shape fill_unknown(const INodeView& node, IShapeSink& out, std::uint32_t o,
                          std::vector<Dim> dims) {
  for (std::size_t a = 0; a < dims.size(); ++a) {
    if (!dims[a].valid()) dims[a] = fresh(node, out, o, a);
  }
  return Shape::of(std::move(dims));
}

/// Unifies two dims the operator requires to be equal: a proven conflict is an error (message in
/// *error: "a vs b"); otherwise an `eq` constraint is recorded unless the equality is proven. An
/// invalid (unknown) side yields the other; the concrete one of the two is kept, else `a`. The
/// non-throwing form, for a rule that has a fallback when the dims conflict.
inline bool unify(IShapeSink& out, Dim a, Dim b, Dim* result, std::string* error) {
  if (!a.valid() || !b.valid()) {
    *result = a.valid() ? a : b;
    return true;
  }
  if (a.provably_eq(b)) {
    *result = a;
    return true;
  }
  if (a.provably_ne(b)) {
    *error = to_string(a) + " vs " + to_string(b);
    return false;
  }
  out.require(ConstraintKind::kEq, a, b);
  *result = b.is_const() && !a.is_const() ? b : a;
  return true;
}

/// unify() that fails the rule on a proven conflict with "<what>: a vs b" (e.g. what = "inner
/// dimensions differ"), and returns the unified dim.
inline Dim unify(IShapeSink& out, Dim a, Dim b, const std::string& what) {
  Dim result;
  std::string error;
  if (!unify(out, a, b, &result, &error)) fail(what + ": " + error);
  return result;
}

/// unify() into *target, naming what differs in the message ("<what> differ: a vs b").
inline bool unify_into(IShapeSink& out, Dim* target, Dim other, const std::string& what,
                       std::string* error) {
  if (unify(out, *target, other, target, error)) return true;
  *error = what + " differ: " + *error;
  return false;
}

/// `n /: k` for a dim that must split into k equal parts: a concrete remainder is an error, a
/// symbolic dim records `divides(k, n)` unless the engine proves the remainder 0.
inline bool split_evenly(IShapeSink& out, Dim n, std::int64_t k, Dim* part, std::string* error) {
  if (k <= 0) {
    *error = "cannot split into " + std::to_string(k) + " parts";
    return false;
  }
  std::int64_t v;
  if (n.get_int(&v)) {
    if (v % k != 0) {
      *error = std::to_string(v) + " is not divisible by " + std::to_string(k);
      return false;
    }
    *part = n.lift(v / k);
    return true;
  }
  if (!mod(n, k).is(0)) out.require(ConstraintKind::kDivides, n.lift(k), n);
  *part = exact_div(n, k);
  return true;
}

}  // namespace cctx::sdk::kit
