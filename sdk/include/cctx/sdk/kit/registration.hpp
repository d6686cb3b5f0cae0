/// @file kit/registration.hpp
/// Registering a family of rules for one domain without a status ladder: `Registration` keeps
/// the first failure and skips every later call, so a plugin's register function is a plain list
/// of registrations and one `return reg.status();`.
///
/// @code
///   Status register_rules(IRegistrar& r) noexcept {
///     return guarded(r, [&] {
///       Registration reg = register_domain(r, "com.acme", 1, 1);
///       reg.shape("AcmeRelu", 1, kSameAsInput0);
///       reg.inplace("AcmeRelu", 1, kReuseInput0);
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

#include "cctx/sdk/kit/schema.hpp"
#include "cctx/sdk/registrar.hpp"
#include "cctx/sdk/rules.hpp"
#include "cctx/sdk/types.hpp"

namespace cctx::sdk::kit {

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
  /// A graph rewrite (IRegistrar::add_rewrite, SDK 1.7): the runtime runs `replacement` where
  /// the graph matches `pattern`, in pass `pass`.
  void rewrite(const char* name, const char* pattern, const char* replacement,
               std::int32_t pass = 0) noexcept {
    if (ok()) {
      status_ = r_.add_rewrite(StringRef::from_c_str(name), StringRef::from_c_str(pattern),
                               StringRef::from_c_str(replacement), pass);
    }
  }
  /// The contract of `op` from `since` on (kit/schema.hpp, SDK 1.9): checked by the host before
  /// any rule of the node runs; its defaults answer the attributes a node omits. Like the
  /// Schema it is given, it allocates: call it inside guarded(), which turns std::bad_alloc into
  /// a Status.
  void schema(const char* op, std::int32_t since, const Schema& contract) {
    if (ok()) status_ = contract.declare(r_, key(op, since));
  }
  /// Records a registration failure with a message (the host rolls the plugin back).
  void fail(const std::string& message) noexcept {
    if (ok())
      status_ = r_.fail(Status::kInvalidArgument, StringRef(message.data(), message.size()));
  }
  /// Records `status` when it is the first failure (e.g. the result of a registrar call).
  void check(Status status) noexcept {
    if (ok()) status_ = status;
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

/// Declares `domain` with the opset versions [min_version, max_version] the plugin serves and
/// returns the Registration for it (already failed when the host refused the declaration).
inline Registration register_domain(IRegistrar& registrar, StringRef domain,
                                    std::int32_t min_version, std::int32_t max_version,
                                    bool inplace_enabled = true) noexcept {
  Registration reg(registrar, domain, inplace_enabled);
  reg.check(registrar.declare_domain(domain, min_version, max_version));
  return reg;
}

}  // namespace cctx::sdk::kit
