/// @file kit/elements.hpp
/// Element sizes for scratch estimators, and the estimate that cannot be made.
#pragma once

#include <cstdint>
#include <string>

#include "cctx/sdk/kit/rule_error.hpp"
#include "cctx/sdk/node_view.hpp"
#include "cctx/sdk/rules.hpp"
#include "cctx/sdk/types.hpp"

namespace cctx::sdk::kit {

/// A scratch estimate that cannot be computed: the host reports `scratch_<Op>_<j>`. (Inside a kit
/// rule, `unsupported(why)` says the same by throwing.)
inline Status cannot_estimate(IScratchSink& out, const std::string& why) {
  return out.fail(Status::kUnsupported, StringRef(why.data(), why.size()));
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

/// Element bytes of input i; fails the rule (kUnsupported) with the reason when it has none.
inline std::int64_t input_element_bytes(const INodeView& node, std::uint32_t i) {
  std::int64_t bytes = 0;
  std::string why;
  if (!input_element_bytes(node, i, &bytes, &why)) unsupported(why);
  return bytes;
}

}  // namespace cctx::sdk::kit
