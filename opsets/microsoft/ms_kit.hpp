// Helpers of the com.microsoft rules beyond the SDK's kit (cctx/sdk/kit/, which gives fail(),
// require_inputs(), unify() and the rest to every plugin): the domain and a few attribute and
// input readers only this operator set needs.
#pragma once

#include <cctx/sdk/kit.hpp>
#include <cstdint>
#include <string>

namespace cctx::opsets::microsoft {

using namespace cctx::sdk;
using namespace cctx::sdk::kit;  // has_input, fresh, unify, split_evenly, element_bytes, ...

inline constexpr StringRef kDomain("com.microsoft");
/// Unbounded upper end of a fresh symbol's range.
inline constexpr std::int64_t kPosInf = INT64_MAX;

// ---- inputs, outputs, attributes ----------------------------------------------------------------

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

}  // namespace cctx::opsets::microsoft
