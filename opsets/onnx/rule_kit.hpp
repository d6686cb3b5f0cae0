// Small building blocks shared by every ai.onnx rule: the SDK's rule kit (rule classes wrapping
// plain functions, constant-initialised so nothing runs when the plugin is loaded, and the
// Registration helper) bound to the ai.onnx domain, plus attribute/shape utilities.
#pragma once

#include <cctx/sdk/plugin.hpp>
#include <cctx/sdk/rule_helpers.hpp>
#include <cctx/sdk/rule_kit.hpp>
#include <cctx/sdk/shape_helpers.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cctx::opsets::onnx {

using namespace cctx::sdk;
using sdk::kit::attr_ints_vec;
using sdk::kit::attr_string_or;
using sdk::kit::ints_attr;
using sdk::kit::fresh;

/// Unbounded upper end of a fresh symbol's range.
inline constexpr std::int64_t kPosInf = INT64_MAX;
/// Largest rank a fresh "rank" symbol may take.
inline constexpr std::int64_t kMaxRank = 1024;

// The generic rule classes and function types live in the SDK (cctx/sdk/rule_kit.hpp, shared with
// the ai.onnx.ml plugin); these declarations keep their names in this namespace.
using sdk::FnInplacePolicy;
using sdk::FnScratchEstimator;
using sdk::FnShapeRule;
using sdk::FnTagRule;
using sdk::InplaceFn;
using sdk::ScratchFn;
using sdk::ShapeFn;
using sdk::TagFn;

/// Unifies two dims that must be equal: a concrete (or provable) mismatch is the error
/// "<what>: a vs b", otherwise an `eq` constraint. (nn::unify, for the nn families, also returns
/// the unified dim.)
inline bool unify(IShapeSink& out, Dim a, Dim b, std::string_view what, std::string* error) {
  if (a.provably_eq(b)) return true;
  std::int64_t x, y;
  if ((a.get_int(&x) && b.get_int(&y)) || a.provably_ne(b)) {
    *error = std::string(what) + ": " + to_string(a) + " vs " + to_string(b);
    return false;
  }
  out.constraint(ConstraintKind::kEq, a.handle(), b.handle(), 0);
  return true;
}

// ---- registration ------------------------------------------------------------------------------

inline RuleKey key(const char* op, std::int32_t since) {
  return RuleKey{StringRef(""), StringRef::from_c_str(op), since};
}

/// What every family registers through: the SDK's Registration for the ai.onnx domain (""), with
/// in-place policies off when the profile sets the plugin option `inplace: off`. Calls never
/// throw; the first failure is kept and every later call is skipped, so a family is a plain list
/// of registrations and plugin.cpp checks status() once.
class Registration final : public sdk::Registration {
 public:
  Registration(IRegistrar& registrar, bool inplace_enabled) noexcept
      : sdk::Registration(registrar, StringRef(""), inplace_enabled) {}
};

// ---- messages
// ------------------------------------------------------------------------------------

/// Fails with a formatted message (the host prefixes the node's identity).
inline Status fail(IShapeSink& out, const std::string& message) {
  return out.fail(Status::kInvalidArgument, StringRef(message.data(), message.size()));
}
inline Status unsupported(IShapeSink& out, const std::string& message) {
  return out.fail(Status::kUnsupported, StringRef(message.data(), message.size()));
}

// ---- attributes and inputs
// -----------------------------------------------------------------------

/// Output dtype equal to input i's dtype.
inline std::int32_t dtype_of(const INodeView& node, std::uint32_t i) { return node.input_dtype(i); }

/// Requires at least `n` inputs; fails with a clear message otherwise.
inline bool require_inputs(const INodeView& node, IShapeSink& out, std::uint32_t n,
                           Status* status) {
  std::uint32_t present = 0;
  for (std::uint32_t i = 0; i < node.input_count() && i < n; ++i)
    present += node.has_input(i) ? 1 : 0;
  if (present >= n) return true;
  *status = fail(
      out, "expects at least " + std::to_string(n) + " input(s), got " + std::to_string(present));
  return false;
}

/// The same shape and dtype as input `i` on every present output (unknown rank stays unknown).
inline Status same_as_input(const INodeView& node, IShapeSink& out, std::uint32_t i,
                            std::int32_t dtype) {
  Shape s = input_shape(node, i);
  for (std::uint32_t o = 0; o < node.output_count(); ++o) {
    if (!node.has_output(o)) continue;
    if (Status st = set_shape(out, o, dtype, s); st != Status::kOk) return st;
  }
  return Status::kOk;
}

}  // namespace cctx::opsets::onnx
