// Helpers shared by operator-set plugins (the ai.onnx and com.microsoft plugins use them, and so
// can a vendor's): optional inputs and outputs, fresh dims, unification of dims an operator
// requires equal, even splits, element sizes for scratch estimators. Header-only, inline.
//
// They live in the nested namespace `cctx::sdk::kit` on purpose: argument-dependent lookup only
// looks in `cctx::sdk` (where INodeView and IShapeSink are), so a plugin's own helper of the same
// name and signature is never made ambiguous by these; bring them in with `using namespace
// cctx::sdk::kit;`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cctx/sdk/rules.hpp"
#include "cctx/sdk/shape_helpers.hpp"
#include "cctx/sdk/types.hpp"

namespace cctx::sdk::kit {

/// A scratch estimate that cannot be computed: the host reports `scratch_<Op>_<j>`.
inline Status cannot_estimate(IScratchSink& out, const std::string& why) {
  return out.fail(Status::kUnsupported, StringRef(why.data(), why.size()));
}

inline bool has_input(const INodeView& node, std::uint32_t i) {
  return i < node.input_count() && node.has_input(i);
}

/// True when the node lists output `o` with a non-empty name. Writing an output beyond the node's
/// list is an error for the host, so every optional output goes through this check.
inline bool has_output(const INodeView& node, std::uint32_t o) {
  return o < node.output_count() && node.has_output(o);
}

/// Sets output `o` when the node lists it.
inline Status set_if_present(const INodeView& node, IShapeSink& out, std::uint32_t o,
                             std::int32_t type, const Shape& shape) {
  if (!has_output(node, o)) return Status::kOk;
  return set_shape(out, o, type, shape);
}

/// A fresh producer-named dim for output `o`, axis `axis`, in [lo, hi].
inline Dim fresh(const INodeView& node, IShapeSink& out, std::uint32_t o, std::size_t axis,
                 std::int64_t lo = 1, std::int64_t hi = INT64_MAX) {
  return Dim(&node.expr(), out.fresh_dim(o, static_cast<std::uint32_t>(axis), lo, hi));
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
/// *error); otherwise an `eq` constraint is recorded unless the equality is proven. An invalid
/// (unknown) side yields the other; the concrete one of the two is kept, else `a`.
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
  out.constraint(ConstraintKind::kEq, a.handle(), b.handle(), 0);
  *result = b.is_const() && !a.is_const() ? b : a;
  return true;
}

/// unify() into *target, naming what differs in the message.
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
  if (!mod(n, k).is(0)) out.constraint(ConstraintKind::kDivides, n.lift(k).handle(), n.handle(), 0);
  *part = exact_div(n, k);
  return true;
}

/// Storage bytes of one element of a whole-byte element type (semantics.md "Element sizes"); false
/// for sub-byte, string and unknown types.
inline bool element_bytes(std::int32_t code, std::int64_t* bytes) {
  switch (code) {
    case dtype::kUint8:
    case dtype::kInt8:
    case dtype::kBool:
    case dtype::kFloat8E4M3FN:
    case dtype::kFloat8E4M3FNUZ:
    case dtype::kFloat8E5M2:
    case dtype::kFloat8E5M2FNUZ:
    case dtype::kFloat8E8M0:
      *bytes = 1;
      return true;
    case dtype::kUint16:
    case dtype::kInt16:
    case dtype::kFloat16:
    case dtype::kBfloat16:
      *bytes = 2;
      return true;
    case dtype::kFloat:
    case dtype::kInt32:
    case dtype::kUint32:
      *bytes = 4;
      return true;
    case dtype::kInt64:
    case dtype::kUint64:
    case dtype::kDouble:
    case dtype::kComplex64:
      *bytes = 8;
      return true;
    case dtype::kComplex128:
      *bytes = 16;
      return true;
    default:
      return false;
  }
}

/// Element bytes of input i for an estimator, or false with the reason.
inline bool input_element_bytes(const INodeView& node, std::uint32_t i, std::int64_t* bytes,
                                std::string* why) {
  if (element_bytes(node.input_dtype(i), bytes)) return true;
  *why = "element type " + std::to_string(node.input_dtype(i)) + " of input " + std::to_string(i) +
         " has no whole-byte size";
  return false;
}

/// Input i's shape when present with a known rank (equal to `rank` when rank >= 0).
inline bool known_shape(const INodeView& node, std::uint32_t i, Shape* shape, int rank = -1) {
  if (!has_input(node, i)) return false;
  *shape = input_shape(node, i);
  return shape->known && (rank < 0 || shape->rank() == static_cast<std::size_t>(rank));
}

/// The INTS attribute `name` as a vector; false when absent.
inline bool attr_ints_vec(const INodeView& node, const char* name, std::vector<std::int64_t>* out) {
  Span<std::int64_t> s;
  if (!node.attr_ints(StringRef::from_c_str(name), &s)) return false;
  out->assign(s.begin(), s.end());
  return true;
}

/// The INTS attribute `name` of exactly `n` values, or `n` copies of `fill` when absent; false,
/// with `why` naming the attribute and both counts, when it has another number of values.
inline bool ints_attr(const INodeView& node, const char* name, std::size_t n, std::int64_t fill,
                      std::vector<std::int64_t>* values, std::string* why) {
  if (!attr_ints_vec(node, name, values)) {
    values->assign(n, fill);
    return true;
  }
  if (values->size() == n) return true;
  *why = "attribute '" + std::string(name) + "' has " + std::to_string(values->size()) +
         " values, expected " + std::to_string(n);
  return false;
}

/// The STRING attribute `name`, or `fallback` when absent.
inline std::string attr_string_or(const INodeView& node, const char* name, const char* fallback) {
  StringRef s;
  if (!node.attr_string(StringRef::from_c_str(name), &s)) return fallback;
  return std::string(s.data, s.size);
}

}  // namespace cctx::sdk::kit
