// The rule registry: tables of plugin rules keyed by (domain, op_type, since_version), resolved
// with ONNX's rule (the newest since_version <= the model's opset for the domain).
#pragma once

#include <cctx/sdk/rules.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cctx {

/// A loaded plugin library. Rule entries hold it by shared_ptr so the library stays mapped while
/// any rule it registered may still be called.
struct PluginHandle;
/// A graph rewrite a plugin registered (framework/src/rewrite/rewrite_rule.hpp).
struct RewriteRule;

/// An operator's declared contract (IRegistrar::declare_schema), as the host keeps it
/// (cctx/op_schema.hpp).
struct OpSchema;

/// The rule kinds, in the order the pipeline uses them; the schema, checked before all of them,
/// came last (SDK 1.9).
enum class RuleKind : std::uint8_t { kShape, kTagTraits, kTagRule, kInplace, kScratch, kSchema };
inline constexpr std::size_t kRuleKindCount = 6;
const char* rule_kind_name(RuleKind kind);

/// Host-side copy of a plugin's TagTraits (positional table owned here).
struct TagTraitsCopy {
  sdk::Tag explicit_tag = sdk::Tag::kNone;
  bool constant_like = false;
  std::vector<sdk::PositionalTag> positional;
  sdk::TagInherit inherit = sdk::TagInherit::kInput0;
  sdk::TagBackward backward = sdk::TagBackward::kNone;
};

/// One registered rule of any kind.
struct RuleEntry {
  const void* rule = nullptr;                   ///< the plugin object (kind-specific interface)
  std::shared_ptr<const TagTraitsCopy> traits;  ///< for kTagTraits
  std::shared_ptr<const OpSchema> schema;       ///< for kSchema
  std::shared_ptr<const PluginHandle> owner;    ///< keeps the library mapped
  std::string origin;                           ///< "onnx 0.1.0 (/path/libcctx_onnx.so)"
};

/// Everything that applies to one (domain, op_type, opset).
struct ResolvedRules {
  const sdk::IShapeRule* shape = nullptr;
  const TagTraitsCopy* traits = nullptr;
  const sdk::ITagRule* tag = nullptr;
  const sdk::IInplacePolicy* inplace = nullptr;
  const sdk::IScratchEstimator* scratch = nullptr;
  /// The declared contract, when one holds at the opset (OpSchema::until_version).
  const OpSchema* schema = nullptr;
  const RuleEntry* entries[kRuleKindCount] = {};  ///< for origins in messages

  /// The entry of `kind`'s rule (its origin names the plugin in messages), or nullptr.
  const RuleEntry* entry(RuleKind kind) const { return entries[static_cast<std::size_t>(kind)]; }
};

struct DomainRange {
  std::string domain;
  std::int32_t min_version = 1;
  std::int32_t max_version = 1;
  std::string origin;
};

/// A registered graph rewrite as `cctx plugins` shows it (its text as the plugin gave it).
struct RewriteListing {
  std::string name;
  std::string origin;
  std::int32_t pass = 0;
  std::string pattern;
  std::string replacement;
};

/// A rule that replaced another plugin's (`override: true`), for `cctx plugins --check`.
struct RuleReplacement {
  RuleKind kind = RuleKind::kShape;
  std::string domain;
  std::string op_type;
  std::int32_t since_version = 1;
  std::string replaced;  ///< origin of the rule that was there
  std::string by;        ///< origin of the rule that took its place
};

/// Rule tables. Filled through a transactional registrar (PluginManager), read by pipelines.
class RuleRegistry {
 public:
  using VersionMap = std::map<std::int32_t, RuleEntry>;
  using OpMap = std::map<std::string, VersionMap, std::less<>>;
  using DomainMap = std::map<std::string, OpMap, std::less<>>;

  /// Adds an entry; throws PluginError naming both origins when the key exists and `replace`
  /// is false.
  void add(RuleKind kind, std::string_view domain, std::string_view op_type,
           std::int32_t since_version, RuleEntry entry, bool replace);
  bool contains(RuleKind kind, std::string_view domain, std::string_view op_type,
                std::int32_t since_version) const;
  const RuleEntry* find_exact(RuleKind kind, std::string_view domain, std::string_view op_type,
                              std::int32_t since_version) const;
  /// ONNX resolution; `opset < 0` (domain not imported) picks the newest entry.
  const RuleEntry* find(RuleKind kind, std::string_view domain, std::string_view op_type,
                        std::int64_t opset) const;
  ResolvedRules resolve(std::string_view domain, std::string_view op_type,
                        std::int64_t opset) const;

  /// The op type of `domain` with a `kind` rule closest to `op_type` when it looks like a typo
  /// of it ("did you mean"), else empty.
  std::string closest_op(RuleKind kind, std::string_view domain, std::string_view op_type) const;

  void declare_domain(DomainRange range);
  /// What loading the plugins found worth a word without refusing them (a plugin built with
  /// another C++ runtime): every analysis repeats it among its warnings.
  /// Every replacement `add(..., replace = true)` made, in order.
  const std::vector<RuleReplacement>& replacements() const { return replacements_; }
  void add_load_warning(std::string message) { load_warnings_.push_back(std::move(message)); }
  const std::vector<std::string>& load_warnings() const { return load_warnings_; }
  const std::vector<DomainRange>& domains() const { return domains_; }
  /// True when a loaded plugin declared `domain` (or registered a rule in it).
  bool knows_domain(std::string_view domain) const;

  /// Storage width in bits of an element type code registered by a plugin, or nullopt.
  std::optional<std::uint32_t> dtype_bits(std::int32_t code) const;
  void add_dtype(std::int32_t code, std::uint32_t bits, std::string name);
  /// Name of a plugin-registered element type (empty when unknown).
  std::string dtype_name(std::int32_t code) const;

  /// Adds a graph rewrite after those already registered (rewrites apply in registration
  /// order). Throws PluginError naming both origins when one of the same name exists and
  /// `replace` is false; with `replace`, the new one takes the old one's place.
  void add_rewrite(std::shared_ptr<const RewriteRule> rule, bool replace);
  const std::vector<std::shared_ptr<const RewriteRule>>& rewrites() const { return rewrites_; }
  std::vector<RewriteListing> rewrite_listing() const;

  const DomainMap& table(RuleKind kind) const { return tables_[static_cast<std::size_t>(kind)]; }
  /// Drops every entry (teardown: before the libraries are unloaded).
  void clear();

 private:
  DomainMap tables_[kRuleKindCount];
  std::vector<DomainRange> domains_;
  std::vector<std::string> load_warnings_;
  std::vector<RuleReplacement> replacements_;
  std::vector<std::shared_ptr<const RewriteRule>> rewrites_;
  std::map<std::int32_t, std::pair<std::uint32_t, std::string>> dtypes_;
};

}  // namespace cctx
