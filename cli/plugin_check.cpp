// `cctx plugins --check MODEL`: the analysis runs once with every rule of the profile, recording
// which attributes each rule read; its rule failures and plugin-facing warnings, the rules that
// replaced others and the attributes no rule read are the findings, grouped by kind.
#include "plugin_check.hpp"

#include <onnx/onnx_pb.h>

#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "cctx/compute_context.hpp"
#include "cctx/model.hpp"
#include "cctx/safe_text.hpp"

namespace cctx::cli {

namespace {

bool has(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

std::string shown_domain(std::string_view domain) {
  return domain.empty() ? std::string("ai.onnx") : std::string(domain);
}

/// "com.acme::Gelu", "ai.onnx::Conv".
std::string op_name(const NodeEntry& node) {
  return shown_domain(node.domain) + "::" + std::string(node.op_type);
}

/// The kinds of warnings that are about a plugin's rules or domains, by the words the analysis
/// writes them with (shape_stage.cpp, scratch_stage.cpp, compute_context.cpp, plugin_loader.cpp).
enum class WarningKind { kSlip, kNoRule, kOpset, kToolchain, kOther };

WarningKind classify(const std::string& message) {
  if (has(message, "asked for attribute '") || has(message, "' is not in the schema")) {
    return WarningKind::kSlip;  // a rule's slip, or a node's attribute its schema lacks
  }
  if (has(message, ": no shape rule") || has(message, ": no cctx shape rule")) {
    return WarningKind::kNoRule;
  }
  if (has(message, ": the model imports ")) return WarningKind::kOpset;
  if (has(message, "; loaded all the same, as no C++ library type crosses")) {
    return WarningKind::kToolchain;
  }
  return WarningKind::kOther;
}

struct Findings {
  nlohmann::ordered_json rule_failures = nlohmann::ordered_json::array();
  nlohmann::ordered_json attribute_slips = nlohmann::ordered_json::array();
  nlohmann::ordered_json missing_rules = nlohmann::ordered_json::array();
  nlohmann::ordered_json opsets = nlohmann::ordered_json::array();
  nlohmann::ordered_json toolchains = nlohmann::ordered_json::array();
  nlohmann::ordered_json replaced_rules = nlohmann::ordered_json::array();
  nlohmann::ordered_json unread_attributes = nlohmann::ordered_json::array();

  /// What to fix: the exit code says there is some.
  std::size_t count() const {
    return rule_failures.size() + attribute_slips.size() + missing_rules.size() + opsets.size() +
           toolchains.size();
  }
  /// What to review: a replaced rule, an attribute no rule read (Gemm's alpha has no bearing on
  /// memory; a vendor op's `num_heads` likely does).
  std::size_t notes() const { return replaced_rules.size() + unread_attributes.size(); }
};

/// Whether a finding is about `only` (every finding without --plugin): its text names the
/// plugin's origin, or its node is in a domain the plugin declared.
class Scope {
 public:
  Scope(const RuleRegistry& registry, const PluginInfo* only) : only_(only) {
    if (only_ == nullptr) return;
    for (const DomainRange& d : registry.domains()) {
      if (d.origin == only_->origin) domains_.push_back(d.domain);
    }
  }
  bool names(const std::string& text) const {
    return only_ == nullptr || has(text, only_->origin) || has(text, only_->path.string());
  }
  bool owns(std::string_view domain) const {
    if (only_ == nullptr) return true;
    for (const std::string& d : domains_) {
      if (d == domain) return true;
    }
    return false;
  }

 private:
  const PluginInfo* only_;
  std::vector<std::string> domains_;
};

void collect_warnings(const ComputeContext& ctx, const Scope& scope, Findings& f) {
  for (const Diagnostic& d : ctx.diagnostics()) {
    if (d.severity != Diagnostic::Severity::kWarning) continue;
    const WarningKind kind = classify(d.message);
    const bool about_node = d.node != kInvalidId && d.node < ctx.graph().nodes().size();
    const bool in_scope =
        scope.names(d.message) || (about_node && scope.owns(ctx.graph().node(d.node).domain));
    if (!in_scope) continue;
    switch (kind) {
      case WarningKind::kSlip:
        f.attribute_slips.push_back(d.message);
        break;
      case WarningKind::kNoRule:
        f.missing_rules.push_back(d.message);
        break;
      case WarningKind::kOpset:
        f.opsets.push_back(d.message);
        break;
      case WarningKind::kToolchain:
        f.toolchains.push_back(d.message);
        break;
      case WarningKind::kOther:
        break;
    }
  }
}

void collect_failures(const ComputeContext& ctx, const Scope& scope, Findings& f) {
  for (const RuleFailure& r : ctx.rule_failures()) {
    if (!scope.names(r.rule)) continue;
    const NodeEntry& node = ctx.graph().node(r.node);
    f.rule_failures.push_back({{"node", node.index},
                               {"name", node.proto->name()},
                               {"op", op_name(node)},
                               {"kind", rule_kind_name(r.kind)},
                               {"rule", r.rule},
                               {"message", r.message}});
  }
}

void collect_replacements(const RuleRegistry& registry, const Scope& scope, Findings& f) {
  for (const RuleReplacement& r : registry.replacements()) {
    if (!scope.names(r.by) && !scope.names(r.replaced)) continue;
    f.replaced_rules.push_back({{"kind", rule_kind_name(r.kind)},
                                {"op", shown_domain(r.domain) + "::" + r.op_type},
                                {"since_version", r.since_version},
                                {"replaced", r.replaced},
                                {"by", r.by}});
  }
}

/// Attributes of nodes with a shape rule that no rule of the node read, per operator and
/// attribute (graph attributes, the bodies, are the host's to read).
void collect_unread(const ComputeContext& ctx, const Scope& scope, Findings& f) {
  using Key = std::tuple<std::string, std::string, std::string>;  // op, attribute, rule
  std::map<Key, std::size_t> unread;
  const std::vector<std::uint64_t>& read = ctx.attributes_read();
  for (NodeId n = 0; n < read.size(); ++n) {
    const RuleEntry* shape = ctx.rules(n).entry(RuleKind::kShape);
    if (shape == nullptr || !scope.names(shape->origin)) continue;
    const NodeEntry& node = ctx.graph().node(n);
    const auto& attributes = node.proto->attribute();
    for (int k = 0; k < attributes.size() && k < 64; ++k) {
      if ((read[n] >> k & 1U) != 0 || attributes[k].type() == onnx::AttributeProto::GRAPH ||
          attributes[k].type() == onnx::AttributeProto::GRAPHS || attributes[k].has_g()) {
        continue;
      }
      ++unread[Key{op_name(node), attributes[k].name(), shape->origin}];
    }
  }
  for (const auto& [key, nodes] : unread) {
    f.unread_attributes.push_back({{"op", std::get<0>(key)},
                                   {"attribute", std::get<1>(key)},
                                   {"nodes", nodes},
                                   {"rule", std::get<2>(key)}});
  }
}

std::string table(const std::string& model_path, const Findings& f) {
  std::ostringstream out;
  out << model_path << ": " << f.count() << (f.count() == 1 ? " finding, " : " findings, ")
      << f.notes() << (f.notes() == 1 ? " note" : " notes") << "\n";
  auto section = [&](const char* title, const nlohmann::ordered_json& items, auto&& line) {
    if (items.empty()) return;
    out << "\n" << title << " (" << items.size() << "):\n";
    for (const auto& item : items) out << "  " << line(item) << "\n";
  };
  auto text = [](const nlohmann::ordered_json& item) { return item.get<std::string>(); };
  section("rules that failed", f.rule_failures, [](const nlohmann::ordered_json& r) {
    return "node " + std::to_string(r["node"].get<std::int64_t>()) + " '" +
           r["name"].get<std::string>() + "' (" + r["op"].get<std::string>() + "): the " +
           r["kind"].get<std::string>() + " rule of " + r["rule"].get<std::string>() + ": " +
           r["message"].get<std::string>();
  });
  section("attribute names a rule asked for that the node does not have", f.attribute_slips, text);
  section("nodes without a shape rule", f.missing_rules, text);
  section("opsets no plugin declares", f.opsets, text);
  section("plugins built with another C++ runtime", f.toolchains, text);
  section("notes: rules that replaced another plugin's", f.replaced_rules,
          [](const nlohmann::ordered_json& r) {
            return r["kind"].get<std::string>() + " " + r["op"].get<std::string>() + "@" +
                   std::to_string(r["since_version"].get<int>()) + ": " +
                   r["by"].get<std::string>() + " replaced " + r["replaced"].get<std::string>();
          });
  section("notes: attributes no rule read", f.unread_attributes,
          [](const nlohmann::ordered_json& r) {
            const std::size_t nodes = r["nodes"].get<std::size_t>();
            return r["op"].get<std::string>() + " '" + r["attribute"].get<std::string>() + "' (" +
                   std::to_string(nodes) + (nodes == 1 ? " node" : " nodes") + "; rules of " +
                   r["rule"].get<std::string>() + ")";
          });
  return out.str();
}

}  // namespace

std::size_t run_plugin_check(const Host& host, const std::string& model_path,
                             const PluginInfo* only, const std::string& format) {
  Profile profile = host.profile();
  profile.record_attribute_reads = true;
  // Every rule runs on every node: a strict profile would stop at the first finding.
  profile.shapes.strict = false;
  Model model = Model::load(model_path, profile.limits);
  ComputeContext ctx(host.registry(), profile);
  ctx.compute(model);
  const Scope scope(*host.registry(), only);
  Findings f;
  collect_failures(ctx, scope, f);
  collect_warnings(ctx, scope, f);
  collect_replacements(*host.registry(), scope, f);
  collect_unread(ctx, scope, f);
  if (format == "json") {
    nlohmann::ordered_json doc;
    doc["model"] = model_path;
    doc["findings"] = f.count();
    doc["notes"] = f.notes();
    doc["rule_failures"] = f.rule_failures;
    doc["attribute_slips"] = f.attribute_slips;
    doc["missing_rules"] = f.missing_rules;
    doc["opsets"] = f.opsets;
    doc["toolchains"] = f.toolchains;
    doc["replaced_rules"] = f.replaced_rules;
    doc["unread_attributes"] = f.unread_attributes;
    std::cout << safe_text::json(doc, 2) << "\n";
  } else {
    std::cout << safe_text::terminal(table(model_path, f), safe_text::Lines::kKeep);
  }
  return f.count();
}

}  // namespace cctx::cli
