#include <algorithm>

#include "cctx/errors.hpp"
#include "cctx/op_schema.hpp"
#include "cctx/registry.hpp"
#include "rewrite/rewrite_rule.hpp"
#include "text/nearest_word.hpp"

namespace cctx {

const char* rule_kind_name(RuleKind kind) {
  switch (kind) {
    case RuleKind::kShape:
      return "shape";
    case RuleKind::kTagTraits:
      return "tag_traits";
    case RuleKind::kTagRule:
      return "tag";
    case RuleKind::kInplace:
      return "inplace";
    case RuleKind::kScratch:
      return "scratch";
    case RuleKind::kSchema:
      return "schema";
  }
  return "?";
}

namespace {
std::string key_text(std::string_view domain, std::string_view op, std::int32_t since) {
  std::string text = domain.empty() ? std::string("ai.onnx") : std::string(domain);
  return text + "::" + std::string(op) + "@" + std::to_string(since);
}
}  // namespace

void RuleRegistry::add(RuleKind kind, std::string_view domain, std::string_view op_type,
                       std::int32_t since_version, RuleEntry entry, bool replace) {
  DomainMap& table = tables_[static_cast<std::size_t>(kind)];
  auto d = table.find(domain);
  if (d == table.end()) d = table.emplace(std::string(domain), OpMap{}).first;
  auto o = d->second.find(op_type);
  if (o == d->second.end()) o = d->second.emplace(std::string(op_type), VersionMap{}).first;
  auto [it, inserted] = o->second.try_emplace(since_version, std::move(entry));
  if (!inserted) {
    if (!replace) {
      throw PluginError(std::string(rule_kind_name(kind)) + " rule " +
                        key_text(domain, op_type, since_version) + " registered twice: by " +
                        it->second.origin + " and by " + entry.origin +
                        " (mark the later plugin 'override: true' to replace it)");
    }
    replacements_.push_back(RuleReplacement{kind, std::string(domain), std::string(op_type),
                                            since_version, it->second.origin, entry.origin});
    it->second = std::move(entry);
  }
}

const RuleEntry* RuleRegistry::find_exact(RuleKind kind, std::string_view domain,
                                          std::string_view op_type,
                                          std::int32_t since_version) const {
  const DomainMap& table = tables_[static_cast<std::size_t>(kind)];
  auto d = table.find(domain);
  if (d == table.end()) return nullptr;
  auto o = d->second.find(op_type);
  if (o == d->second.end()) return nullptr;
  auto v = o->second.find(since_version);
  return v == o->second.end() ? nullptr : &v->second;
}

bool RuleRegistry::contains(RuleKind kind, std::string_view domain, std::string_view op_type,
                            std::int32_t since_version) const {
  return find_exact(kind, domain, op_type, since_version) != nullptr;
}

const RuleEntry* RuleRegistry::find(RuleKind kind, std::string_view domain,
                                    std::string_view op_type, std::int64_t opset) const {
  const DomainMap& table = tables_[static_cast<std::size_t>(kind)];
  auto d = table.find(domain);
  if (d == table.end()) return nullptr;
  auto o = d->second.find(op_type);
  if (o == d->second.end() || o->second.empty()) return nullptr;
  const VersionMap& versions = o->second;
  if (opset < 0) return &versions.rbegin()->second;
  if (opset > INT32_MAX) opset = INT32_MAX;
  auto it = versions.upper_bound(static_cast<std::int32_t>(opset));
  if (it == versions.begin()) return nullptr;
  return &std::prev(it)->second;
}

std::string RuleRegistry::closest_op(RuleKind kind, std::string_view domain,
                                     std::string_view op_type) const {
  const DomainMap& table = tables_[static_cast<std::size_t>(kind)];
  auto d = table.find(domain);
  if (d == table.end()) return {};
  std::vector<std::string_view> names;
  names.reserve(d->second.size());
  for (const auto& [name, versions] : d->second) {
    if (name != op_type) names.emplace_back(name);
  }
  return std::string(detail::closest(op_type, names));
}

ResolvedRules RuleRegistry::resolve(std::string_view domain, std::string_view op_type,
                                    std::int64_t opset) const {
  ResolvedRules r;
  for (std::size_t k = 0; k < kRuleKindCount; ++k) {
    r.entries[k] = find(static_cast<RuleKind>(k), domain, op_type, opset);
  }
  auto rule = [&](RuleKind kind) {
    const RuleEntry* e = r.entries[static_cast<std::size_t>(kind)];
    return e ? e->rule : nullptr;
  };
  r.shape = static_cast<const sdk::IShapeRule*>(rule(RuleKind::kShape));
  r.tag = static_cast<const sdk::ITagRule*>(rule(RuleKind::kTagRule));
  r.inplace = static_cast<const sdk::IInplacePolicy*>(rule(RuleKind::kInplace));
  r.scratch = static_cast<const sdk::IScratchEstimator*>(rule(RuleKind::kScratch));
  if (const RuleEntry* e = r.entry(RuleKind::kTagTraits)) {
    r.traits = e->traits.get();
  }
  // A schema that stops before the model's opset does not hold there: the operator may have
  // changed since (a plugin that knows it up to opset 21 does not judge an opset-26 node).
  if (const RuleEntry* e = r.entry(RuleKind::kSchema)) {
    if (opset < 0 || e->schema->until_version == 0 || opset <= e->schema->until_version) {
      r.schema = e->schema.get();
    } else {
      r.entries[static_cast<std::size_t>(RuleKind::kSchema)] = nullptr;
    }
  }
  return r;
}

void RuleRegistry::declare_domain(DomainRange range) { domains_.push_back(std::move(range)); }

bool RuleRegistry::knows_domain(std::string_view domain) const {
  for (const DomainRange& d : domains_) {
    if (d.domain == domain) return true;
  }
  for (const DomainMap& table : tables_) {
    if (table.count(domain) != 0) return true;
  }
  return false;
}

std::optional<std::uint32_t> RuleRegistry::dtype_bits(std::int32_t code) const {
  auto it = dtypes_.find(code);
  if (it == dtypes_.end()) return std::nullopt;
  return it->second.first;
}

std::string RuleRegistry::dtype_name(std::int32_t code) const {
  auto it = dtypes_.find(code);
  return it == dtypes_.end() ? std::string() : it->second.second;
}

void RuleRegistry::add_dtype(std::int32_t code, std::uint32_t bits, std::string name) {
  dtypes_[code] = {bits, std::move(name)};
}

void RuleRegistry::add_rewrite(std::shared_ptr<const RewriteRule> rule, bool replace) {
  for (std::shared_ptr<const RewriteRule>& have : rewrites_) {
    if (have->name != rule->name) continue;
    // `override` replaces another plugin's rewrite; one plugin naming two alike is a mistake
    // (the first would silently stop applying).
    if (!replace || have->origin == rule->origin) {
      throw PluginError("rewrite '" + rule->name + "' registered twice: by " + have->origin +
                        " and by " + rule->origin);
    }
    have = std::move(rule);
    return;
  }
  rewrites_.push_back(std::move(rule));
}

std::vector<RewriteListing> RuleRegistry::rewrite_listing() const {
  std::vector<RewriteListing> out;
  out.reserve(rewrites_.size());
  for (const auto& r : rewrites_) {
    out.push_back(
        RewriteListing{r->name, r->origin, r->pass, r->pattern_text, r->replacement_text});
  }
  return out;
}

void RuleRegistry::clear() {
  for (DomainMap& table : tables_) table.clear();
  rewrites_.clear();
  domains_.clear();
  dtypes_.clear();
}

}  // namespace cctx
