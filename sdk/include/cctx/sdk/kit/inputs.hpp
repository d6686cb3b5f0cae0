/// @file kit/inputs.hpp
/// A node's inputs, outputs and attributes as a rule reads them: presence checks, the required
/// prefix of inputs, the "known shape or unknown output" preamble, and attribute lists.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cctx/sdk/kit/rule_error.hpp"
#include "cctx/sdk/node_view.hpp"
#include "cctx/sdk/rules.hpp"
#include "cctx/sdk/shape_helpers.hpp"
#include "cctx/sdk/types.hpp"

namespace cctx::sdk::kit {

/// True when the node lists input `i` with a non-empty name.
inline bool has_input(const INodeView& node, std::uint32_t i) {
  return i < node.input_count() && node.has_input(i);
}

/// True when the node lists output `o` with a non-empty name. Writing an output beyond the node's
/// list is an error for the host, so every optional output goes through this check.
inline bool has_output(const INodeView& node, std::uint32_t o) {
  return o < node.output_count() && node.has_output(o);
}

/// Requires inputs 0..n-1 (the operator's mandatory prefix) to be present; fails the rule with
/// "expects at least n inputs; input i is missing" naming the first absent one.
inline void require_inputs(const INodeView& node, std::uint32_t n) {
  for (std::uint32_t i = 0; i < n; ++i) {
    if (!has_input(node, i)) {
      fail("expects at least " + std::to_string(n) + " inputs; input " + std::to_string(i) +
           " is missing");
    }
  }
}

/// Sets output `o` when the node lists it.
inline Status set_if_present(const INodeView& node, IShapeSink& out, std::uint32_t o,
                             std::int32_t type, const Shape& shape) {
  if (!has_output(node, o)) return Status::kOk;
  return set_shape(out, o, type, shape);
}

/// The preamble of a rule that needs input `k`'s dims: returns input k's shape when its rank is
/// known; otherwise sets output 0 to `dtype` with an unknown shape and ends the rule (kOk: an
/// unknown input is not a failure). The early end is an exception (a few microseconds): use it
/// where an unknown rank is the exception, not the rule.
inline Shape known_input(const INodeView& node, IShapeSink& out, std::uint32_t k,
                         std::int32_t dtype) {
  Shape in = input_shape(node, k);
  if (!in.known) finish(set_shape(out, 0, dtype, Shape::unknown()));
  return in;
}

/// The single element of input i's known value (a scalar or one-element tensor), else an
/// invalid Dim.
inline Dim scalar_value(const INodeView& node, std::uint32_t i) {
  std::vector<Dim> v;
  if (!input_values(node, i, &v) || v.size() != 1) return Dim();
  return v[0];
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
