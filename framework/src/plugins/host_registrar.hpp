// The host side of sdk::IRegistrar. Registrations are staged and committed only when the
// plugin's register function succeeds, so a failing plugin leaves nothing behind.
#pragma once

#include <cctx/sdk/registrar.hpp>
#include <map>
#include <memory>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "cctx/registry.hpp"
#include "plugins/plugin_handle.hpp"

namespace cctx {

class HostRegistrar final : public sdk::IRegistrar {
 public:
  HostRegistrar(RuleRegistry& registry, std::shared_ptr<const PluginHandle> owner,
                std::string origin, const std::map<std::string, std::string>& options,
                bool override_rules);

  sdk::Status declare_domain(sdk::StringRef domain, std::int32_t min_version,
                             std::int32_t max_version) noexcept override;
  sdk::Status add_shape_rule(const sdk::RuleKey& key,
                             const sdk::IShapeRule* rule) noexcept override;
  sdk::Status add_tag_traits(const sdk::RuleKey& key,
                             const sdk::TagTraits& traits) noexcept override;
  sdk::Status add_tag_rule(const sdk::RuleKey& key, const sdk::ITagRule* rule) noexcept override;
  sdk::Status add_inplace_policy(const sdk::RuleKey& key,
                                 const sdk::IInplacePolicy* policy) noexcept override;
  sdk::Status add_scratch_estimator(const sdk::RuleKey& key,
                                    const sdk::IScratchEstimator* estimator) noexcept override;
  sdk::Status add_dtype(std::int32_t code, std::uint32_t bits,
                        sdk::StringRef name) noexcept override;
  bool option(sdk::StringRef key, sdk::StringRef* value) const noexcept override;
  sdk::Status fail(sdk::Status code, sdk::StringRef message) noexcept override;
  sdk::Status accept_option(sdk::StringRef key, sdk::StringRef meaning) noexcept override;
  sdk::Status add_rewrite(sdk::StringRef name, sdk::StringRef pattern, sdk::StringRef replacement,
                          std::int32_t pass) noexcept override;
  sdk::Status declare_schema(const sdk::RuleKey& key,
                             const sdk::OpSchemaDecl& schema) noexcept override;

  /// The options this plugin accepts, as (key, meaning): those it declared with accept_option()
  /// in declaration order, then those it only read with option() (meaning "").
  std::vector<std::pair<std::string, std::string>> accepted_options() const;
  /// Records a failure for every domain a staged rule uses that this plugin did not declare.
  void require_declared_domains();

  /// Moves the staged registrations into the registry. Throws PluginError on a conflict (then
  /// nothing is committed).
  void commit();
  /// Messages given to fail(), joined with "; ".
  std::string messages() const;
  bool failed() const { return !errors_.empty(); }

 private:
  struct Staged {
    RuleKind kind;
    std::string domain;
    std::string op_type;
    std::int32_t since_version;
    RuleEntry entry;
  };
  /// `entry` holds what the kind keeps besides the rule pointer (the traits, the schema).
  sdk::Status stage(RuleKind kind, const sdk::RuleKey& key, const void* rule,
                    RuleEntry entry = {}) noexcept;

  RuleRegistry& registry_;
  std::shared_ptr<const PluginHandle> owner_;
  std::string origin_;
  const std::map<std::string, std::string>& options_;
  bool override_rules_;
  std::vector<Staged> staged_;
  std::unordered_set<std::string> staged_keys_;  ///< kind, domain, op, since of each staged entry
  std::vector<DomainRange> domains_;
  std::vector<std::tuple<std::int32_t, std::uint32_t, std::string>> dtypes_;
  std::vector<std::shared_ptr<const RewriteRule>> rewrites_;
  std::vector<std::string> errors_;
  mutable std::vector<std::string> options_read_;  // option() is const in the SDK
  std::vector<std::pair<std::string, std::string>> options_declared_;
};

}  // namespace cctx
