/// @file registrar.hpp
/// The host interface a plugin registers its rules with, from its `register_rules` function.
#pragma once

#include <cstdint>

#include "cctx/sdk/abi.hpp"
#include "cctx/sdk/rules.hpp"
#include "cctx/sdk/schema.hpp"

namespace cctx::sdk {
inline namespace v1 {

/// Identity of a rule: ONNX's (domain, op_type, since_version). The empty domain is ai.onnx.
/// For a node whose domain is imported at opset v, the host uses the rule with the greatest
/// since_version <= v.
struct RuleKey {
  StringRef domain;                ///< @since 1.0
  StringRef op_type;               ///< @since 1.0
  std::int32_t since_version = 1;  ///< @since 1.0
};

/// Registration interface implemented by the host. Every call copies what it receives; rule
/// pointers are borrowed for as long as the plugin stays loaded (the host unloads a plugin only
/// after every pipeline and the registry are gone). Registering a key twice is an error unless the
/// profile marks the later plugin `override: true`. If `register_rules` returns non-OK, or any
/// call below fails, nothing this plugin registered is kept. Every rule's domain must be one this
/// plugin declared with declare_domain() (in any order during registration); a rule in another
/// domain fails the registration, naming the plugin and the domain.
class CCTX_SDK_VISIBLE IRegistrar {
 public:
  /// Declares that this plugin serves `domain` for opsets [min_version, max_version].
  /// @since 1.0
  virtual Status declare_domain(StringRef domain, std::int32_t min_version,
                                std::int32_t max_version) noexcept = 0;
  /// @since 1.0
  virtual Status add_shape_rule(const RuleKey& key, const IShapeRule* rule) noexcept = 0;
  /// @since 1.0
  virtual Status add_tag_traits(const RuleKey& key, const TagTraits& traits) noexcept = 0;
  /// @since 1.0
  virtual Status add_tag_rule(const RuleKey& key, const ITagRule* rule) noexcept = 0;
  /// @since 1.0
  virtual Status add_inplace_policy(const RuleKey& key, const IInplacePolicy* policy) noexcept = 0;
  /// @since 1.0
  virtual Status add_scratch_estimator(const RuleKey& key,
                                       const IScratchEstimator* estimator) noexcept = 0;
  /// Declares the storage width of an element type code the host does not know (bits: 1..128).
  /// @since 1.0
  virtual Status add_dtype(std::int32_t code, std::uint32_t bits, StringRef name) noexcept = 0;
  /// The profile's option `key` for this plugin; false when absent. Borrowed until return. Asking
  /// for a key during registration also makes it an accepted option (see accept_option()).
  /// @since 1.0
  virtual bool option(StringRef key, StringRef* value) const noexcept = 0;
  /// Records why registration failed and returns `code`.
  /// @since 1.0
  virtual Status fail(Status code, StringRef message) noexcept = 0;
  /// Declares that this plugin accepts the profile option `key` (listed by `cctx plugins`);
  /// `meaning` says what it does and which values it takes ("on (default) or off: ..."). A
  /// profile may give this plugin only options it declared here or read with option() during
  /// registration; any other key is an error naming the profile line. Both strings are copied.
  /// kInvalidArgument for an empty key.
  /// @since 1.2
  virtual Status accept_option(StringRef key, StringRef meaning) noexcept = 0;
  /// Registers a graph rewrite: the runtime replaces the nodes matching `pattern` by
  /// `replacement` before it plans memory, so the later stages analyse the graph it really runs
  /// (a fusion, an elimination, a layout change). Both are text in the form of
  /// docs/design/rewrites.md, e.g. pattern `c = Conv(x, const w, ?b); y = Relu(c)`, replacement
  /// `y = com.microsoft:FusedConv(x, w, ?b) [c, activation=@y]`. Rewrites apply by `pass`, in
  /// ascending order (a runtime's optimiser levels, a layout change after the fusions); within
  /// a pass, at each node in graph order, the pass's rewrites in registration order (plugins in
  /// profile order), repeated until nothing changes. `name` identifies it in reports and must be
  /// unique unless the plugin is loaded with `override: true`. kInvalidArgument (with the
  /// reason, as fail()) for text that does not parse.
  /// @since 1.7
  virtual Status add_rewrite(StringRef name, StringRef pattern, StringRef replacement,
                             std::int32_t pass) noexcept = 0;
  /// Declares the contract of the operator `key` names from its since_version on (schema.hpp):
  /// the host checks each node of it before any rule runs and refuses the node, naming the
  /// input or attribute, when it breaks it; rules read a declared attribute the node omits as
  /// its default. A plugin may declare the schema of an operator whose rules another plugin
  /// registers. Registered twice: an error unless `override: true`. kInvalidArgument (with the
  /// reason, as fail()) for a declaration that contradicts itself (a variadic input before the
  /// last, a required attribute with a default, min_rank > max_rank, an empty name).
  /// @since 1.9
  virtual Status declare_schema(const RuleKey& key, const OpSchemaDecl& schema) noexcept = 0;

 protected:
  ~IRegistrar() = default;
};

}  // namespace v1
}  // namespace cctx::sdk
