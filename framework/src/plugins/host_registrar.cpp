#include "plugins/host_registrar.hpp"

#include <algorithm>

#include "cctx/errors.hpp"
#include "cctx/model.hpp"
#include "cctx/op_schema.hpp"
#include "rewrite/rewrite_rule.hpp"

namespace cctx {

namespace {
std::string text(sdk::StringRef s) { return s.data ? std::string(s.data, s.size) : std::string(); }
}  // namespace

HostRegistrar::HostRegistrar(RuleRegistry& registry, std::shared_ptr<const PluginHandle> owner,
                             std::string origin, const std::map<std::string, std::string>& options,
                             bool override_rules)
    : registry_(registry),
      owner_(std::move(owner)),
      origin_(std::move(origin)),
      options_(options),
      override_rules_(override_rules) {}

sdk::Status HostRegistrar::stage(RuleKind kind, const sdk::RuleKey& key, const void* rule,
                                 RuleEntry entry) noexcept {
  try {
    if (rule == nullptr && !entry.traits && !entry.schema) {
      const std::string m = "null rule for " + text(key.op_type);
      return fail(sdk::Status::kInvalidArgument, sdk::StringRef(m.data(), m.size()));
    }
    if (key.op_type.empty())
      return fail(sdk::Status::kInvalidArgument, "empty op_type in a rule key");
    if (key.since_version < 1) {
      return fail(sdk::Status::kInvalidArgument, "since_version must be >= 1");
    }
    std::string domain(normalize_domain(text(key.domain)));
    std::string op = text(key.op_type);
    // One set of staged keys: the ai.onnx plugin stages about 2,000 rules and schemas, which a
    // scan of the staged list per call made quadratic (6.5M instructions of a 12M start-up).
    std::string staged_key;
    staged_key.reserve(domain.size() + op.size() + 16);
    staged_key += static_cast<char>('0' + static_cast<int>(kind));
    staged_key += domain;
    staged_key += '\0';
    staged_key += op;
    staged_key += '\0';
    staged_key += std::to_string(key.since_version);
    if (!staged_keys_.insert(std::move(staged_key)).second) {
      std::string m = std::string(rule_kind_name(kind)) + " rule " +
                      (domain.empty() ? "ai.onnx" : domain) + "::" + op + "@" +
                      std::to_string(key.since_version) + " registered twice by the same plugin";
      return fail(sdk::Status::kInvalidArgument, sdk::StringRef(m.data(), m.size()));
    }
    if (!override_rules_) {
      if (const RuleEntry* e = registry_.find_exact(kind, domain, op, key.since_version)) {
        std::string m = std::string(rule_kind_name(kind)) + " rule " +
                        (domain.empty() ? "ai.onnx" : domain) + "::" + op + "@" +
                        std::to_string(key.since_version) + " is already registered by " +
                        e->origin + " (mark this plugin 'override: true' to replace it)";
        return fail(sdk::Status::kInvalidArgument, sdk::StringRef(m.data(), m.size()));
      }
    }
    entry.rule = rule;
    entry.owner = owner_;
    entry.origin = origin_;
    staged_.push_back(
        Staged{kind, std::move(domain), std::move(op), key.since_version, std::move(entry)});
    return sdk::Status::kOk;
  } catch (const std::exception& e) {
    errors_.emplace_back(e.what());
    return sdk::Status::kInternal;
  }
}

sdk::Status HostRegistrar::declare_domain(sdk::StringRef domain, std::int32_t min_version,
                                          std::int32_t max_version) noexcept {
  try {
    if (min_version < 1 || max_version < min_version) {
      return fail(sdk::Status::kInvalidArgument, "declare_domain: bad version range");
    }
    domains_.push_back(DomainRange{std::string(normalize_domain(text(domain))), min_version,
                                   max_version, origin_});
    return sdk::Status::kOk;
  } catch (const std::exception& e) {
    errors_.emplace_back(e.what());
    return sdk::Status::kInternal;
  }
}

sdk::Status HostRegistrar::add_shape_rule(const sdk::RuleKey& key,
                                          const sdk::IShapeRule* rule) noexcept {
  return stage(RuleKind::kShape, key, rule);
}

sdk::Status HostRegistrar::add_tag_traits(const sdk::RuleKey& key,
                                          const sdk::TagTraits& traits) noexcept {
  try {
    auto copy = std::make_shared<TagTraitsCopy>();
    copy->explicit_tag = traits.explicit_tag;
    copy->constant_like = traits.constant_like;
    copy->positional.assign(traits.positional.begin(), traits.positional.end());
    copy->inherit = traits.inherit;
    copy->backward = traits.backward;
    RuleEntry entry;
    entry.traits = std::move(copy);
    return stage(RuleKind::kTagTraits, key, nullptr, std::move(entry));
  } catch (const std::exception& e) {
    errors_.emplace_back(e.what());
    return sdk::Status::kInternal;
  }
}

sdk::Status HostRegistrar::add_tag_rule(const sdk::RuleKey& key,
                                        const sdk::ITagRule* rule) noexcept {
  return stage(RuleKind::kTagRule, key, rule);
}

sdk::Status HostRegistrar::add_inplace_policy(const sdk::RuleKey& key,
                                              const sdk::IInplacePolicy* policy) noexcept {
  return stage(RuleKind::kInplace, key, policy);
}

sdk::Status HostRegistrar::add_scratch_estimator(const sdk::RuleKey& key,
                                                 const sdk::IScratchEstimator* estimator) noexcept {
  return stage(RuleKind::kScratch, key, estimator);
}

sdk::Status HostRegistrar::declare_schema(const sdk::RuleKey& key,
                                          const sdk::OpSchemaDecl& schema) noexcept {
  try {
    RuleEntry entry;
    entry.schema = std::make_shared<const OpSchema>(copy_schema(schema, origin_));
    return stage(RuleKind::kSchema, key, nullptr, std::move(entry));
  } catch (const PluginError& e) {
    const std::string m = "schema of " + text(key.op_type) + ": " + e.what();
    return fail(sdk::Status::kInvalidArgument, sdk::StringRef(m.data(), m.size()));
  } catch (const std::exception& e) {
    errors_.emplace_back(e.what());
    return sdk::Status::kInternal;
  }
}

sdk::Status HostRegistrar::add_dtype(std::int32_t code, std::uint32_t bits,
                                     sdk::StringRef name) noexcept {
  try {
    if (bits == 0 || bits > 128)
      return fail(sdk::Status::kInvalidArgument, "add_dtype: bits must be 1..128");
    dtypes_.emplace_back(code, bits, text(name));
    return sdk::Status::kOk;
  } catch (const std::exception& e) {
    errors_.emplace_back(e.what());
    return sdk::Status::kInternal;
  }
}

bool HostRegistrar::option(sdk::StringRef key, sdk::StringRef* value) const noexcept {
  try {
    std::string name = text(key);
    if (std::find(options_read_.begin(), options_read_.end(), name) == options_read_.end()) {
      options_read_.push_back(name);
    }
    auto it = options_.find(name);
    if (it == options_.end()) return false;
    *value = sdk::StringRef(it->second.data(), it->second.size());
    return true;
  } catch (...) {
    return false;
  }
}

sdk::Status HostRegistrar::fail(sdk::Status code, sdk::StringRef message) noexcept {
  try {
    errors_.push_back(message.empty() ? std::string("registration failed") : text(message));
  } catch (...) {
  }
  return code == sdk::Status::kOk ? sdk::Status::kInternal : code;
}

sdk::Status HostRegistrar::accept_option(sdk::StringRef key, sdk::StringRef meaning) noexcept {
  try {
    if (key.empty()) return fail(sdk::Status::kInvalidArgument, "accept_option: empty key");
    std::string name = text(key);
    for (const auto& declared : options_declared_) {
      if (declared.first == name) return sdk::Status::kOk;  // the first meaning stays
    }
    options_declared_.emplace_back(std::move(name), text(meaning));
    return sdk::Status::kOk;
  } catch (const std::exception& e) {
    errors_.emplace_back(e.what());
    return sdk::Status::kInternal;
  }
}

sdk::Status HostRegistrar::add_rewrite(sdk::StringRef name, sdk::StringRef pattern,
                                       sdk::StringRef replacement, std::int32_t pass) noexcept {
  try {
    RewriteRule rule =
        parse_rewrite_rule(text(name), std::string_view(pattern.data, pattern.size),
                           std::string_view(replacement.data, replacement.size), pass);
    rule.origin = origin_;
    rewrites_.push_back(std::make_shared<const RewriteRule>(std::move(rule)));
    return sdk::Status::kOk;
  } catch (const std::exception& e) {
    errors_.emplace_back(e.what());
    return sdk::Status::kInvalidArgument;
  }
}

std::vector<std::pair<std::string, std::string>> HostRegistrar::accepted_options() const {
  std::vector<std::pair<std::string, std::string>> out = options_declared_;
  for (const std::string& key : options_read_) {
    const bool declared = std::any_of(out.begin(), out.end(),
                                      [&](const auto& option) { return option.first == key; });
    if (!declared) out.emplace_back(key, std::string());
  }
  return out;
}

void HostRegistrar::require_declared_domains() {
  // Per undeclared domain, the first few rules that use it: enough to find the registration.
  constexpr std::size_t kShown = 3;
  std::vector<std::pair<std::string, std::vector<std::string>>> undeclared;
  for (const Staged& s : staged_) {
    const bool declared = std::any_of(domains_.begin(), domains_.end(),
                                      [&](const DomainRange& d) { return d.domain == s.domain; });
    if (declared) continue;
    auto it = std::find_if(undeclared.begin(), undeclared.end(),
                           [&](const auto& u) { return u.first == s.domain; });
    if (it == undeclared.end()) it = undeclared.insert(undeclared.end(), {s.domain, {}});
    it->second.push_back(std::string(rule_kind_name(s.kind)) + " rule " + s.op_type + "@" +
                         std::to_string(s.since_version));
  }
  for (const auto& [domain, rules] : undeclared) {
    const std::string shown = domain.empty() ? "ai.onnx" : domain;
    std::string list;
    for (std::size_t k = 0; k < rules.size() && k < kShown; ++k) {
      list += (k == 0 ? "" : ", ") + rules[k];
    }
    if (rules.size() > kShown) list += " and " + std::to_string(rules.size() - kShown) + " more";
    errors_.push_back("rules for domain '" + shown + "' (" + list +
                      "), a domain the plugin did not declare; add declare_domain(\"" + domain +
                      "\", min_opset, max_opset) to its registration");
  }
}

void HostRegistrar::commit() {
  // Check every key first so that a conflict leaves the registry untouched.
  if (!override_rules_) {
    for (std::size_t i = 0; i < rewrites_.size(); ++i) {
      const std::string& name = rewrites_[i]->name;
      std::string other;
      for (const auto& have : registry_.rewrites()) {
        if (have->name == name) other = have->origin;
      }
      for (std::size_t j = 0; j < i && other.empty(); ++j) {
        if (rewrites_[j]->name == name) other = origin_;
      }
      if (!other.empty()) {
        throw PluginError("rewrite '" + name + "' registered twice: by " + other + " and by " +
                          origin_);
      }
    }
    for (const Staged& s : staged_) {
      if (const RuleEntry* e = registry_.find_exact(s.kind, s.domain, s.op_type, s.since_version)) {
        throw PluginError(std::string(rule_kind_name(s.kind)) + " rule " +
                          (s.domain.empty() ? "ai.onnx" : s.domain) + "::" + s.op_type + "@" +
                          std::to_string(s.since_version) + " registered twice: by " + e->origin +
                          " and by " + origin_);
      }
    }
  }
  for (Staged& s : staged_) {
    registry_.add(s.kind, s.domain, s.op_type, s.since_version, std::move(s.entry),
                  override_rules_);
  }
  for (DomainRange& d : domains_) registry_.declare_domain(std::move(d));
  for (auto& [code, bits, name] : dtypes_) registry_.add_dtype(code, bits, std::move(name));
  for (auto& rule : rewrites_) registry_.add_rewrite(std::move(rule), override_rules_);
  rewrites_.clear();
  staged_.clear();
}

std::string HostRegistrar::messages() const {
  std::string out;
  for (const std::string& e : errors_) {
    if (!out.empty()) out += "; ";
    out += e;
  }
  return out;
}

}  // namespace cctx
