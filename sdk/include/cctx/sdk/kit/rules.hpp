/// @file kit/rules.hpp
/// Rule classes that wrap plain functions (or captureless lambdas), and ready-made rules for
/// element-wise and view operators.
///
/// The classes are literal types, so a plugin declares its rules `constinit` (or `static
/// constexpr`): nothing of the plugin runs when it is loaded, only when the host calls `register`.
/// Each runs its function inside guarded(): a RuleError (fail(), unsupported(), check()) becomes
/// the Status the host expects, any other exception a kInternal diagnostic, and nothing crosses the
/// boundary.
///
/// @code
///   constinit const FnShapeRule kRelu{[](const INodeView& node, IShapeSink& out) {
///     require_inputs(node, 1);
///     return set_shape(out, 0, node.input_dtype(0), input_shape(node, 0));
///   }};
/// @endcode
#pragma once

#include "cctx/sdk/plugin.hpp"
#include "cctx/sdk/shape_helpers.hpp"

namespace cctx::sdk::kit {

using ShapeFn = Status (*)(const INodeView& node, IShapeSink& out);
using ScratchFn = Status (*)(const INodeView& node, IScratchSink& out);
using InplaceFn = Status (*)(const INodeView& node, IInplaceSink& out);
using TagFn = Status (*)(const INodeView& node, ITagSink& tags);

/// A shape rule backed by a function.
class FnShapeRule final : public IShapeRule {
 public:
  constexpr explicit FnShapeRule(ShapeFn fn) noexcept : fn_(fn) {}
  Status infer(const INodeView& node, IShapeSink& out) const noexcept override {
    return guarded(out, [&] { return fn_(node, out); });
  }

 private:
  ShapeFn fn_;
};

/// A scratch estimator backed by a function.
class FnScratchEstimator final : public IScratchEstimator {
 public:
  constexpr explicit FnScratchEstimator(ScratchFn fn) noexcept : fn_(fn) {}
  Status estimate(const INodeView& node, IScratchSink& out) const noexcept override {
    return guarded(out, [&] { return fn_(node, out); });
  }

 private:
  ScratchFn fn_;
};

/// An in-place policy backed by a function.
class FnInplacePolicy final : public IInplacePolicy {
 public:
  constexpr explicit FnInplacePolicy(InplaceFn fn) noexcept : fn_(fn) {}
  Status declare(const INodeView& node, IInplaceSink& out) const noexcept override {
    return guarded(out, [&] { return fn_(node, out); });
  }

 private:
  InplaceFn fn_;
};

/// A tag rule backed by a function.
class FnTagRule final : public ITagRule {
 public:
  constexpr explicit FnTagRule(TagFn fn) noexcept : fn_(fn) {}
  Status apply(const INodeView& node, ITagSink& tags) const noexcept override {
    return guarded(tags, [&] { return fn_(node, tags); });
  }

 private:
  TagFn fn_;
};

/// Element-wise shape rule: output 0 has input 0's element type and shape (an unknown rank stays
/// unknown); a node without input 0 fails.
inline constexpr FnShapeRule kSameAsInput0{[](const INodeView& node, IShapeSink& out) {
  if (node.input_count() == 0 || !node.has_input(0)) fail("expects input 0");
  return set_shape(out, 0, node.input_dtype(0), input_shape(node, 0));
}};

/// Element-wise in-place policy: output 0 may take input 0's buffer when the host's lifetime
/// analysis finds input 0 dead after the node.
inline constexpr FnInplacePolicy kReuseInput0{
    [](const INodeView&, IInplaceSink& out) { return out.may_reuse(0, 0); }};

/// View in-place policy: output 0 is a view of input 0 (Reshape-like operators): no allocation,
/// whatever the sizes; input 0 stays alive as long as the view.
inline constexpr FnInplacePolicy kAliasInput0{
    [](const INodeView&, IInplaceSink& out) { return out.alias(0, 0); }};

}  // namespace cctx::sdk::kit
