// `cctx plugins`: the plugins a profile loads, with their domains, options and rules; `--plugin`
// keeps one plugin, `--op` lists one operator's rules with the plugin that provides each.
#include <algorithm>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "cctx/dtypes.hpp"
#include "cctx/errors.hpp"
#include "cctx/host.hpp"
#include "cctx/op_schema.hpp"
#include "cctx/safe_text.hpp"
#include "cli_common.hpp"
#include "coverage_table.hpp"
#include "plugin_check.hpp"

namespace cctx::cli {

namespace {

struct PluginsArgs {
  std::string profile;
  std::string format = "table";
  std::optional<std::string> plugin;  ///< --plugin NAME
  std::optional<std::string> op;      ///< --op [DOMAIN::]OP
  std::optional<std::string> check;   ///< --check MODEL
};

std::string shown_domain(const std::string& domain) {
  return domain.empty() ? std::string("ai.onnx") : domain;
}

/// For one plugin: op -> rule kind -> since_versions.
using OpRules = std::map<std::string, std::map<std::string, std::set<std::int32_t>>>;

/// Rules grouped by the plugin that owns them (PluginInfo::owner). A plugin's rules share one
/// origin, but each declarative op has its own (`profile p.yaml:LINE:COL`).
std::map<const void*, OpRules> rules_by_owner(const RuleRegistry& registry) {
  std::map<const void*, OpRules> out;
  for (std::size_t k = 0; k < kRuleKindCount; ++k) {
    const auto kind = static_cast<RuleKind>(k);
    for (const auto& [domain, ops] : registry.table(kind)) {
      for (const auto& [op, versions] : ops) {
        for (const auto& [since, entry] : versions) {
          out[entry.owner.get()][shown_domain(domain) + "::" + op][rule_kind_name(kind)].insert(
              since);
        }
      }
    }
  }
  return out;
}

std::string loaded_names(const Host& host) {
  std::string names;
  for (const PluginInfo& p : host.plugins()) names += (names.empty() ? "" : ", ") + p.name;
  return names.empty() ? std::string("none") : names;
}

/// The plugin named by --plugin; a usage error naming the loaded ones when there is none.
const PluginInfo* selected_plugin(const Host& host, const PluginsArgs& args) {
  if (!args.plugin) return nullptr;
  for (const PluginInfo& p : host.plugins()) {
    if (p.name == *args.plugin) return &p;
  }
  throw Error("--plugin '" + *args.plugin +
                  "': the profile loads no plugin of that name (loaded: " + loaded_names(host) +
                  ")",
              ExitCode::kUsage);
}

nlohmann::ordered_json plugin_json(const PluginInfo& p, const RuleRegistry& registry,
                                   const OpRules& rules) {
  nlohmann::ordered_json j;
  j["name"] = p.name;
  j["version"] = p.version;
  j["path"] = p.path.string();
  j["abi"] = std::to_string(p.abi_major) + "." + std::to_string(p.abi_minor);
  // "library": a loaded plugin; "profile": the declarative ops of the profile (`ops:`).
  j["kind"] = p.declared_ops > 0 ? "profile" : "library";
  nlohmann::ordered_json domains = nlohmann::ordered_json::array();
  for (const DomainRange& d : registry.domains()) {
    if (d.origin == p.origin) {
      domains.push_back({{"domain", shown_domain(d.domain)},
                         {"min_version", d.min_version},
                         {"max_version", d.max_version}});
    }
  }
  j["domains"] = domains;
  // Key -> meaning; "" for an option the plugin reads without describing it.
  nlohmann::ordered_json options = nlohmann::ordered_json::object();
  for (const auto& [key, meaning] : p.options) options[key] = meaning;
  j["options"] = options;
  nlohmann::ordered_json ops = nlohmann::ordered_json::object();
  for (const auto& [op, kinds] : rules) {
    nlohmann::ordered_json k = nlohmann::ordered_json::object();
    for (const auto& [kind, versions] : kinds)
      k[kind] = std::vector<std::int32_t>(versions.begin(), versions.end());
    ops[op] = k;
  }
  j["ops"] = ops;
  // The plugin's graph rewrites (docs/design/rewrites.md), only when it registered some.
  nlohmann::ordered_json rewrites = nlohmann::ordered_json::array();
  for (const RewriteListing& r : registry.rewrite_listing()) {
    if (r.origin != p.origin) continue;
    rewrites.push_back({{"name", r.name},
                        {"pass", r.pass},
                        {"pattern", r.pattern},
                        {"replacement", r.replacement}});
  }
  if (!rewrites.empty()) j["rewrites"] = std::move(rewrites);
  return j;
}

/// Rule text on one line: its statements joined by "; ".
std::string one_line(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') {
      out += "; ";
    } else {
      out += c;
    }
  }
  return out;
}

std::string plugins_table(const nlohmann::ordered_json& doc) {
  std::ostringstream out;
  if (doc.empty()) out << "no plugins loaded\n";
  for (const auto& p : doc) {
    if (p["kind"] == "profile") {
      out << p["name"].get<std::string>() << "  (declarative ops)  " << p["path"].get<std::string>()
          << "\n";
    } else {
      out << p["name"].get<std::string>() << " " << p["version"].get<std::string>() << "  (ABI "
          << p["abi"].get<std::string>() << ")  " << p["path"].get<std::string>() << "\n";
    }
    for (const auto& d : p["domains"]) {
      out << "  domain " << d["domain"].get<std::string>() << " opsets "
          << d["min_version"].get<int>() << ".." << d["max_version"].get<int>() << "\n";
    }
    for (const auto& [key, meaning] : p["options"].items()) {
      const std::string text = meaning.get<std::string>();
      out << "  option " << key << (text.empty() ? "" : ": " + text) << "\n";
    }
    out << "  " << p["ops"].size() << " ops:\n";
    for (const auto& [op, kinds] : p["ops"].items()) {
      std::string line = "    " + op + ":";
      for (const auto& [kind, versions] : kinds.items()) {
        line += " " + kind + "@";
        std::string vs;
        for (const auto& v : versions) vs += (vs.empty() ? "" : ",") + std::to_string(v.get<int>());
        line += vs;
      }
      out << line << "\n";
    }
    if (p.contains("rewrites")) {
      out << "  " << p["rewrites"].size() << " graph rewrites (pass: pattern => replacement):\n";
      for (const auto& r : p["rewrites"]) {
        out << "    " << r["pass"].get<int>() << " " << r["name"].get<std::string>() << ": "
            << one_line(r["pattern"].get<std::string>()) << " => "
            << one_line(r["replacement"].get<std::string>()) << "\n";
      }
    }
  }
  return out.str();
}

/// A declared contract (SDK 1.9) as `--op` shows it.
nlohmann::ordered_json schema_json(const OpSchema& schema, const RuleRegistry& registry) {
  nlohmann::ordered_json j;
  j["until_version"] = schema.until_version;  // 0: until the next declared version
  nlohmann::ordered_json inputs = nlohmann::ordered_json::array();
  for (const SchemaInput& in : schema.inputs) {
    nlohmann::ordered_json i = {{"name", in.name},
                                {"optional", in.optional},
                                {"variadic", in.variadic},
                                {"dtypes", nlohmann::ordered_json::array()}};
    for (const std::int32_t code : in.dtypes) i["dtypes"].push_back(dtype_name(code, &registry));
    if (in.min_rank >= 0) i["min_rank"] = in.min_rank;
    if (in.max_rank >= 0) i["max_rank"] = in.max_rank;
    inputs.push_back(std::move(i));
  }
  j["inputs"] = std::move(inputs);
  j["min_outputs"] = schema.min_outputs;
  if (schema.max_outputs != OpSchema::kAnyCount) j["max_outputs"] = schema.max_outputs;
  nlohmann::ordered_json attributes = nlohmann::ordered_json::array();
  for (const SchemaAttribute& a : schema.attributes) {
    nlohmann::ordered_json at = {
        {"name", a.name}, {"type", attribute_type_name(a.type)}, {"required", a.required}};
    if (a.has_default) {
      switch (a.type) {
        case sdk::AttrType::kInt:
          at["default"] = a.int_default;
          break;
        case sdk::AttrType::kFloat:
          at["default"] = a.float_default;
          break;
        case sdk::AttrType::kString:
          at["default"] = a.string_default;
          break;
        case sdk::AttrType::kInts:
          at["default"] = a.ints_default;
          break;
        case sdk::AttrType::kFloats:
          at["default"] = a.floats_default;
          break;
        default:
          break;
      }
    }
    if (a.has_range) {
      nlohmann::ordered_json range = nlohmann::ordered_json::object();
      if (a.min_value != std::numeric_limits<std::int64_t>::min()) range["min"] = a.min_value;
      if (a.max_value != std::numeric_limits<std::int64_t>::max()) range["max"] = a.max_value;
      at["range"] = std::move(range);
    }
    attributes.push_back(std::move(at));
  }
  j["attributes"] = std::move(attributes);
  return j;
}

/// The lines of one contract under its op: "    input 1 'B' (optional): float, double".
std::string schema_text(const nlohmann::ordered_json& schema) {
  std::ostringstream out;
  std::size_t i = 0;
  for (const auto& in : schema["inputs"]) {
    out << "    input " << i++ << " '" << in["name"].get<std::string>() << "'";
    if (in["variadic"].get<bool>()) out << " (variadic)";
    if (in["optional"].get<bool>()) out << " (optional)";
    if (in.contains("min_rank") || in.contains("max_rank")) {
      const int lo = in.value("min_rank", -1);
      const int hi = in.value("max_rank", -1);
      out << " rank "
          << (lo == hi ? std::to_string(lo)
                       : (lo < 0 ? std::string("0") : std::to_string(lo)) + ".." +
                             (hi < 0 ? std::string("") : std::to_string(hi)));
    }
    std::string types;
    for (const auto& t : in["dtypes"]) types += (types.empty() ? "" : ", ") + t.get<std::string>();
    out << ": " << (types.empty() ? std::string("any type") : types) << "\n";
  }
  out << "    outputs " << schema["min_outputs"].get<std::uint32_t>() << ".."
      << (schema.contains("max_outputs")
              ? std::to_string(schema["max_outputs"].get<std::uint32_t>())
              : std::string(""))
      << "\n";
  for (const auto& a : schema["attributes"]) {
    out << "    attribute " << a["name"].get<std::string>() << ": " << a["type"].get<std::string>();
    if (a["required"].get<bool>()) out << ", required";
    if (a.contains("default")) out << " = " << a["default"].dump();
    if (a.contains("range")) {
      const auto& range = a["range"];
      if (range.contains("min") && range.contains("max")) {
        out << " in " << range["min"].dump() << ".." << range["max"].dump();
      } else if (range.contains("min")) {
        out << ", at least " << range["min"].dump();
      } else if (range.contains("max")) {
        out << ", at most " << range["max"].dump();
      }
    }
    out << "\n";
  }
  return out.str();
}

/// `--op [DOMAIN::]OP`: every registered rule of that op (every domain when none is given), in
/// rule-kind then since_version order, each with the plugin that provides it.
nlohmann::ordered_json op_json(const Host& host, const std::string& wanted,
                               const PluginInfo* only) {
  std::optional<std::string> domain;
  std::string op = wanted;
  if (const std::size_t sep = wanted.find("::"); sep != std::string::npos) {
    domain = wanted.substr(0, sep);
    if (*domain == "ai.onnx") domain->clear();
    op = wanted.substr(sep + 2);
  }
  std::map<const void*, std::string> names;
  for (const PluginInfo& p : host.plugins()) names[p.owner] = p.name;
  std::map<std::string, nlohmann::ordered_json> by_op;  // "domain::op" -> rules
  const RuleRegistry& registry = *host.registry();
  for (std::size_t k = 0; k < kRuleKindCount; ++k) {
    const auto kind = static_cast<RuleKind>(k);
    for (const auto& [d, ops] : registry.table(kind)) {
      if (domain && d != *domain) continue;
      auto it = ops.find(op);
      if (it == ops.end()) continue;
      for (const auto& [since, entry] : it->second) {
        if (only != nullptr && entry.owner.get() != only->owner) continue;
        nlohmann::ordered_json rule = {{"kind", rule_kind_name(kind)},
                                       {"since_version", since},
                                       {"plugin", names[entry.owner.get()]},
                                       {"origin", entry.origin}};
        if (entry.schema) rule["schema"] = schema_json(*entry.schema, registry);
        by_op[shown_domain(d) + "::" + op].push_back(std::move(rule));
      }
    }
  }
  if (by_op.empty()) {
    throw Error("--op '" + wanted + "': no plugin " +
                    (only != nullptr ? "'" + only->name + "' " : std::string()) +
                    "of the profile registers a rule for it",
                ExitCode::kUsage);
  }
  nlohmann::ordered_json doc = nlohmann::ordered_json::array();
  for (auto& [name, rules] : by_op) doc.push_back({{"op", name}, {"rules", std::move(rules)}});
  return doc;
}

/// One line per rule kind and provider: "  shape@1,9,13: onnx 0.1.0 (/path/libcctx_onnx.so)".
std::string op_table(const nlohmann::ordered_json& doc) {
  std::ostringstream out;
  for (const auto& entry : doc) {
    out << entry["op"].get<std::string>() << "\n";
    std::vector<std::pair<std::string, std::string>> lines;  // (kind + origin, versions)
    for (const auto& rule : entry["rules"]) {
      const std::string head =
          rule["kind"].get<std::string>() + "\t" + rule["origin"].get<std::string>();
      auto it = std::find_if(lines.begin(), lines.end(),
                             [&](const auto& line) { return line.first == head; });
      if (it == lines.end()) it = lines.insert(lines.end(), {head, std::string()});
      it->second +=
          (it->second.empty() ? "" : ",") + std::to_string(rule["since_version"].get<int>());
    }
    for (const auto& [head, versions] : lines) {
      const std::size_t tab = head.find('\t');
      out << "  " << head.substr(0, tab) << "@" << versions << ": " << head.substr(tab + 1) << "\n";
    }
    // Each declared contract in full, newest first: the one a current model meets.
    const auto& rules = entry["rules"];
    for (auto it = rules.rbegin(); it != rules.rend(); ++it) {
      if (!it->contains("schema")) continue;
      const auto& schema = (*it)["schema"];
      const int until = schema["until_version"].get<int>();
      const int since = (*it)["since_version"].get<int>();
      out << (until == since ? "  schema at opset " : "  schema from opset ") << since
          << (until > since ? " to " + std::to_string(until) : std::string()) << ":\n"
          << schema_text(schema);
    }
  }
  return out.str();
}

void run_plugins(const PluginsArgs& args) {
  if (args.format != "table" && args.format != "json" && args.format != "markdown") {
    throw Error("--format must be table, json or markdown", ExitCode::kUsage);
  }
  if (args.op && args.format == "markdown") {
    throw Error(
        "--format markdown is the coverage table of whole plugins; it cannot be combined "
        "with --op",
        ExitCode::kUsage);
  }
  AnalysisArgs analysis;
  analysis.profile = args.profile;
  Host host(resolve_profile(analysis));
  const PluginInfo* only = selected_plugin(host, args);
  if (args.check) {
    if (args.format == "markdown" || args.op) {
      throw Error("--check lists findings as a table or json; it cannot be combined with " +
                      std::string(args.op ? "--op" : "--format markdown"),
                  ExitCode::kUsage);
    }
    if (run_plugin_check(host, *args.check, only, args.format) > 0) {
      set_success_exit_code(ExitCode::kFindings);
    }
    return;
  }
  // Names come from plugins and profiles: shown as a terminal shows text (safe_text.hpp).
  if (args.op) {
    const nlohmann::ordered_json doc = op_json(host, *args.op, only);
    if (args.format == "json") {
      std::cout << safe_text::json(doc, 2) << "\n";
    } else {
      std::cout << safe_text::terminal(op_table(doc), safe_text::Lines::kKeep);
    }
    return;
  }
  const RuleRegistry& registry = *host.registry();
  auto by_owner = rules_by_owner(registry);
  nlohmann::ordered_json doc = nlohmann::ordered_json::array();
  for (const PluginInfo& p : host.plugins()) {
    if (only == nullptr || &p == only) doc.push_back(plugin_json(p, registry, by_owner[p.owner]));
  }
  if (args.format == "json") {
    std::cout << safe_text::json(doc, 2) << "\n";
  } else if (args.format == "markdown") {
    std::cout << coverage_markdown(doc);
  } else {
    std::cout << safe_text::terminal(plugins_table(doc), safe_text::Lines::kKeep);
  }
}

}  // namespace

void add_plugins_command(CLI::App& app) {
  auto args = std::make_shared<PluginsArgs>();
  CLI::App* cmd = app.add_subcommand("plugins", "Loaded plugins, their domains, options and rules");
  cmd->add_option("--profile", args->profile, "Analysis profile (YAML)");
  cmd->add_option("--format", args->format, "table | json | markdown (the coverage table)")
      ->capture_default_str();
  cmd->add_option("--plugin", args->plugin, "Show only the plugin of this name");
  cmd->add_option("--op", args->op,
                  "Show only the rules of this operator ([DOMAIN::]OP; every domain without one), "
                  "with the plugin that provides each");
  cmd->add_option("--check", args->check,
                  "Run every rule of the profile on this model and list what a plugin should fix "
                  "(failed rules, attribute slips, missing rules, undeclared opsets, other C++ "
                  "runtimes; exit code 6 when there is any) and what to review (replaced rules, "
                  "attributes no rule read)");
  cmd->callback([args] { run_plugins(*args); });
}

}  // namespace cctx::cli
