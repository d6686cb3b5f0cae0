// Small building blocks shared by every ai.onnx rule: the SDK's rule kit (cctx/sdk/kit/: rule
// classes wrapping plain functions, fail()/check() and the other throwing helpers, Registration)
// bound to the ai.onnx domain, plus a few ai.onnx-only utilities.
#pragma once

#include <cctx/sdk/kit.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cctx::opsets::onnx {

using namespace cctx::sdk;
using namespace cctx::sdk::kit;

/// Unbounded upper end of a fresh symbol's range.
inline constexpr std::int64_t kPosInf = INT64_MAX;
/// Largest rank a fresh "rank" symbol may take.
inline constexpr std::int64_t kMaxRank = 1024;

// ---- registration ------------------------------------------------------------------------------

inline RuleKey key(const char* op, std::int32_t since) {
  return RuleKey{StringRef(""), StringRef::from_c_str(op), since};
}

/// What every family registers through: the SDK's Registration for the ai.onnx domain (""), with
/// in-place policies off when the profile sets the plugin option `inplace: off`. Calls never
/// throw; the first failure is kept and every later call is skipped, so a family is a plain list
/// of registrations and plugin.cpp checks status() once.
class Registration final : public kit::Registration {
 public:
  Registration(IRegistrar& registrar, bool inplace_enabled) noexcept
      : kit::Registration(registrar, StringRef(""), inplace_enabled) {}
};

/// Output dtype equal to input i's dtype.
inline std::int32_t dtype_of(const INodeView& node, std::uint32_t i) { return node.input_dtype(i); }

/// The same shape and dtype as input `i` on every present output (unknown rank stays unknown).
inline Status same_as_input(const INodeView& node, IShapeSink& out, std::uint32_t i,
                            std::int32_t dtype) {
  Shape s = input_shape(node, i);
  for (std::uint32_t o = 0; o < node.output_count(); ++o) {
    if (!node.has_output(o)) continue;
    check(set_shape(out, o, dtype, s));
  }
  return Status::kOk;
}

}  // namespace cctx::opsets::onnx
