/// @file rule_kit.hpp
/// Header-only convenience layer for writing an operator-set plugin: rule classes that wrap plain
/// functions, and `Registration`, which registers a family of rules for one domain.
///
/// The rule classes are literal types, so a plugin declares its rules `constinit` (or `static
/// constexpr`): nothing of the plugin runs when it is loaded, only when the host calls `register`.
/// Their methods run the function inside `guarded()`, so an exception becomes a diagnostic on the
/// sink instead of crossing the boundary.
///
/// @code
///   Status relu(const INodeView& node, IShapeSink& out) { ... }
///   constinit const FnShapeRule kRelu{&relu};
///
///   Status register_all(IRegistrar& r) noexcept {
///     return guarded(r, [&] {
///       if (Status s = r.declare_domain("com.acme", 1, 1); s != Status::kOk) return s;
///       Registration reg(r, "com.acme");
///       reg.shape("AcmeRelu", 1, kRelu);
///       return reg.status();
///     });
///   }
/// @endcode
///
/// Nothing here crosses the boundary: the registrar receives RuleKeys and rule pointers only.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "cctx/sdk/plugin.hpp"

namespace cctx::sdk {
inline namespace v1 {

using ShapeFn = Status (*)(const INodeView& node, IShapeSink& out);
using ScratchFn = Status (*)(const INodeView& node, IScratchSink& out);
using InplaceFn = Status (*)(const INodeView& node, IInplaceSink& out);
using TagFn = Status (*)(const INodeView& node, ITagSink& tags);

/// A shape rule backed by a function. Exceptions become diagnostics (guarded()).
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

/// What the families of a plugin register through: the host's registrar, the domain they serve
/// and whether in-place policies are wanted. Calls never throw; the first failure is kept and every
/// later call is skipped, so a family is a plain list of registrations and the plugin checks
/// status() once at the end.
class Registration {
 public:
  /// `domain` is borrowed ("" is ai.onnx): pass a literal or a string that outlives this object.
  /// With `inplace_enabled` false, inplace() registers nothing (a plugin option such as
  /// `inplace: off`, to compare with the host's structural fallback).
  Registration(IRegistrar& registrar, StringRef domain, bool inplace_enabled = true) noexcept
      : r_(registrar), domain_(domain), inplace_enabled_(inplace_enabled) {}

  /// The key of `op` at `since` in this registration's domain.
  RuleKey key(const char* op, std::int32_t since) const noexcept {
    return RuleKey{domain_, StringRef::from_c_str(op), since};
  }

  void shape(const char* op, std::int32_t since, const IShapeRule& rule) noexcept {
    if (ok()) status_ = r_.add_shape_rule(key(op, since), &rule);
  }
  /// The same rule for several since_versions (the versions whose semantics it handles).
  void shape(const char* op, std::initializer_list<std::int32_t> versions,
             const IShapeRule& rule) noexcept {
    for (std::int32_t v : versions) shape(op, v, rule);
  }
  void scratch(const char* op, std::int32_t since, const IScratchEstimator& estimator) noexcept {
    if (ok()) status_ = r_.add_scratch_estimator(key(op, since), &estimator);
  }
  /// Skipped when the registration was made with `inplace_enabled` false.
  void inplace(const char* op, std::int32_t since, const IInplacePolicy& policy) noexcept {
    if (ok() && inplace_enabled_) status_ = r_.add_inplace_policy(key(op, since), &policy);
  }
  /// Tag traits describe the operator at every version, hence since_version 1.
  void tags(const char* op, const TagTraits& traits) noexcept {
    if (ok()) status_ = r_.add_tag_traits(key(op, 1), traits);
  }
  void tag_rule(const char* op, std::int32_t since, const ITagRule& rule) noexcept {
    if (ok()) status_ = r_.add_tag_rule(key(op, since), &rule);
  }
  /// Records a registration failure with a message (the host rolls the plugin back).
  void fail(const std::string& message) noexcept {
    if (ok())
      status_ = r_.fail(Status::kInvalidArgument, StringRef(message.data(), message.size()));
  }

  bool ok() const noexcept { return status_ == Status::kOk; }
  Status status() const noexcept { return status_; }
  StringRef domain() const noexcept { return domain_; }
  IRegistrar& registrar() noexcept { return r_; }

 private:
  IRegistrar& r_;
  StringRef domain_;
  bool inplace_enabled_;
  Status status_ = Status::kOk;
};

}  // namespace v1
}  // namespace cctx::sdk
