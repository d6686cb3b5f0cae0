// Small building blocks shared by every ai.onnx rule: rule classes wrapping plain functions
// (constant-initialised, so nothing runs when the plugin is loaded), registration helpers and
// attribute/shape utilities.
#pragma once

#include <cctx/sdk/plugin.hpp>
#include <cctx/sdk/shape_helpers.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace cctx::opsets::onnx {

using namespace cctx::sdk;

/// Unbounded upper end of a fresh symbol's range.
inline constexpr std::int64_t kPosInf = INT64_MAX;
/// Largest rank a fresh "rank" symbol may take.
inline constexpr std::int64_t kMaxRank = 1024;

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

class FnScratchEstimator final : public IScratchEstimator {
 public:
  constexpr explicit FnScratchEstimator(ScratchFn fn) noexcept : fn_(fn) {}
  Status estimate(const INodeView& node, IScratchSink& out) const noexcept override {
    return guarded(out, [&] { return fn_(node, out); });
  }

 private:
  ScratchFn fn_;
};

class FnInplacePolicy final : public IInplacePolicy {
 public:
  constexpr explicit FnInplacePolicy(InplaceFn fn) noexcept : fn_(fn) {}
  Status declare(const INodeView& node, IInplaceSink& out) const noexcept override {
    return guarded(out, [&] { return fn_(node, out); });
  }

 private:
  InplaceFn fn_;
};

class FnTagRule final : public ITagRule {
 public:
  constexpr explicit FnTagRule(TagFn fn) noexcept : fn_(fn) {}
  Status apply(const INodeView& node, ITagSink& tags) const noexcept override {
    return guarded(tags, [&] { return fn_(node, tags); });
  }

 private:
  TagFn fn_;
};

// ---- registration ------------------------------------------------------------------------------

inline RuleKey key(const char* op, std::int32_t since) {
  return RuleKey{StringRef(""), StringRef::from_c_str(op), since};
}

/// What every family registers through: the host's registrar plus the plugin's options. Calls
/// never throw; the first failure is kept and every later call is skipped, so a family is a plain
/// list of registrations and plugin.cpp checks status() once.
class Registration {
 public:
  Registration(IRegistrar& registrar, bool inplace_enabled) noexcept
      : r_(registrar), inplace_enabled_(inplace_enabled) {}

  void shape(const char* op, std::int32_t since, const IShapeRule& rule) {
    if (ok()) status_ = r_.add_shape_rule(key(op, since), &rule);
  }
  /// The same rule for several since_versions (the versions whose semantics it handles).
  void shape(const char* op, std::initializer_list<std::int32_t> versions, const IShapeRule& rule) {
    for (std::int32_t v : versions) shape(op, v, rule);
  }
  void scratch(const char* op, std::int32_t since, const IScratchEstimator& estimator) {
    if (ok()) status_ = r_.add_scratch_estimator(key(op, since), &estimator);
  }
  /// Skipped when the profile sets the plugin option `inplace: off`.
  void inplace(const char* op, std::int32_t since, const IInplacePolicy& policy) {
    if (ok() && inplace_enabled_) status_ = r_.add_inplace_policy(key(op, since), &policy);
  }
  void tags(const char* op, const TagTraits& traits) {
    if (ok()) status_ = r_.add_tag_traits(key(op, 1), traits);
  }
  void tag_rule(const char* op, std::int32_t since, const ITagRule& rule) {
    if (ok()) status_ = r_.add_tag_rule(key(op, since), &rule);
  }
  void fail(const std::string& message) {
    if (ok()) status_ = r_.fail(Status::kInvalidArgument, StringRef(message.data(), message.size()));
  }

  bool ok() const noexcept { return status_ == Status::kOk; }
  Status status() const noexcept { return status_; }
  IRegistrar& registrar() noexcept { return r_; }

 private:
  IRegistrar& r_;
  bool inplace_enabled_;
  Status status_ = Status::kOk;
};

// ---- messages ------------------------------------------------------------------------------------

/// Fails with a formatted message (the host prefixes the node's identity).
inline Status fail(IShapeSink& out, const std::string& message) {
  return out.fail(Status::kInvalidArgument, StringRef(message.data(), message.size()));
}
inline Status unsupported(IShapeSink& out, const std::string& message) {
  return out.fail(Status::kUnsupported, StringRef(message.data(), message.size()));
}

// ---- attributes and inputs -----------------------------------------------------------------------

inline bool attr_ints_vec(const INodeView& node, const char* name, std::vector<std::int64_t>* out) {
  Span<std::int64_t> s;
  if (!node.attr_ints(StringRef::from_c_str(name), &s)) return false;
  out->assign(s.begin(), s.end());
  return true;
}

inline std::string attr_string_or(const INodeView& node, const char* name, const char* fallback) {
  StringRef s;
  if (!node.attr_string(StringRef::from_c_str(name), &s)) return fallback;
  return std::string(s.data, s.size);
}

/// Output dtype equal to input i's dtype.
inline std::int32_t dtype_of(const INodeView& node, std::uint32_t i) { return node.input_dtype(i); }

/// Requires at least `n` inputs; fails with a clear message otherwise.
inline bool require_inputs(const INodeView& node, IShapeSink& out, std::uint32_t n, Status* status) {
  std::uint32_t present = 0;
  for (std::uint32_t i = 0; i < node.input_count() && i < n; ++i) present += node.has_input(i) ? 1 : 0;
  if (present >= n) return true;
  *status = fail(out, "expects at least " + std::to_string(n) + " input(s), got " +
                          std::to_string(present));
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
