// Helpers shared by the com.microsoft rules: the domain, messages, optional inputs and outputs,
// fresh and unified dims, and element sizes for the scratch estimators. The ai.onnx plugin has the
// same building blocks (opsets/onnx/families/nn_common.hpp), but plugins share code only through
// the SDK, so the few generic ones are repeated here (see README.md: proposed SDK helpers).
#pragma once

#include <cctx/sdk/plugin.hpp>
#include <cctx/sdk/rule_helpers.hpp>
#include <cctx/sdk/rule_kit.hpp>
#include <cctx/sdk/shape_helpers.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace cctx::opsets::microsoft {

using namespace cctx::sdk;
using namespace cctx::sdk::kit;  // has_input, fresh, unify, split_evenly, element_bytes, ...

inline constexpr StringRef kDomain("com.microsoft");
/// Unbounded upper end of a fresh symbol's range.
inline constexpr std::int64_t kPosInf = INT64_MAX;

// ---- messages -----------------------------------------------------------------------------------

/// Fails with a message (the host prefixes the node's identity).
inline Status fail(IShapeSink& out, const std::string& message) {
  return out.fail(Status::kInvalidArgument, StringRef(message.data(), message.size()));
}

// ---- inputs, outputs, attributes ----------------------------------------------------------------

/// Requires inputs 0..n-1 to be present (the operator's mandatory prefix).
inline bool require_inputs(const INodeView& node, IShapeSink& out, std::uint32_t n,
                           Status* status) {
  for (std::uint32_t i = 0; i < n; ++i) {
    if (has_input(node, i)) continue;
    *status = fail(out, "expects at least " + std::to_string(n) + " inputs; input " +
                            std::to_string(i) + " is missing");
    return false;
  }
  return true;
}

/// Input i's element type, or `fallback` when the input is absent or its type unknown.
inline std::int32_t dtype_or(const INodeView& node, std::uint32_t i, std::int32_t fallback) {
  if (!has_input(node, i)) return fallback;
  const std::int32_t t = node.input_dtype(i);
  return t == dtype::kUndefined ? fallback : t;
}

/// A required positive integer attribute; false with a message when absent or not positive.
inline bool positive_attr(const INodeView& node, const char* name, std::int64_t* value,
                          std::string* error) {
  if (!node.attr_int(StringRef::from_c_str(name), value)) {
    *error = "missing required attribute '" + std::string(name) + "'";
    return false;
  }
  if (*value > 0) return true;
  *error = "attribute '" + std::string(name) + "' is " + std::to_string(*value) +
           ", expected a positive value";
  return false;
}

/// The single element of input i's known value (a scalar or [1] integer tensor), else invalid.
inline Dim scalar_value(const INodeView& node, std::uint32_t i) {
  std::vector<Dim> v;
  if (!input_values(node, i, &v) || v.size() != 1) return Dim();
  return v[0];
}

// ---- dims ---------------------------------------------------------------------------------------

// ---- element sizes ------------------------------------------------------------------------------

}  // namespace cctx::opsets::microsoft
