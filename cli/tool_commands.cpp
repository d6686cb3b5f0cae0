// `cctx plugins` and `cctx eval`.
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cctx/errors.hpp"
#include "cctx/expr.hpp"
#include "cctx/host.hpp"
#include "cctx/limits.hpp"
#include "cctx/safe_text.hpp"
#include "cli_common.hpp"
#include "coverage_table.hpp"

namespace cctx::cli {

namespace {

struct PluginsArgs {
  std::string profile;
  std::string format = "table";
};

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
          std::string qualified = (domain.empty() ? std::string("ai.onnx") : domain) + "::" + op;
          out[entry.owner.get()][qualified][rule_kind_name(kind)].insert(since);
        }
      }
    }
  }
  return out;
}

void run_plugins(const PluginsArgs& args) {
  AnalysisArgs analysis;
  analysis.profile = args.profile;
  Host host(resolve_profile(analysis));
  const RuleRegistry& registry = *host.registry();
  auto by_owner = rules_by_owner(registry);
  nlohmann::ordered_json doc = nlohmann::ordered_json::array();
  for (const PluginInfo& p : host.plugins()) {
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
        domains.push_back({{"domain", d.domain.empty() ? "ai.onnx" : d.domain},
                           {"min_version", d.min_version},
                           {"max_version", d.max_version}});
      }
    }
    j["domains"] = domains;
    nlohmann::ordered_json ops = nlohmann::ordered_json::object();
    for (const auto& [op, kinds] : by_owner[p.owner]) {
      nlohmann::ordered_json k = nlohmann::ordered_json::object();
      for (const auto& [kind, versions] : kinds)
        k[kind] = std::vector<std::int32_t>(versions.begin(), versions.end());
      ops[op] = k;
    }
    j["ops"] = ops;
    doc.push_back(std::move(j));
  }
  if (args.format == "json") {
    std::cout << safe_text::json(doc, 2) << "\n";
    return;
  }
  if (args.format == "markdown") {
    std::cout << coverage_markdown(doc);
    return;
  }
  if (args.format != "table") {
    throw Error("--format must be table, json or markdown", ExitCode::kUsage);
  }
  // Names come from plugins and profiles: shown as a terminal shows text (safe_text.hpp).
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
  }
  std::cout << safe_text::terminal(out.str(), safe_text::Lines::kKeep);
}

struct EvalArgs {
  std::string expression;
  std::vector<std::string> assignments;
  std::vector<std::string> bounds;
};

void run_eval(const EvalArgs& args) {
  ExprPool pool;
  for (const std::string& b : args.bounds) {
    auto [name, interval] = parse_bounds(b);
    pool.declare_symbol(name, interval);
  }
  // The same ceiling as a model's dim_param: the parser is linear, but its messages and the
  // interned result are not worth a megabyte of text.
  const std::int64_t max_chars = Limits{}.expression_chars;
  if (static_cast<std::int64_t>(args.expression.size()) > max_chars) {
    throw Error("expression of " + std::to_string(args.expression.size()) + " characters, above " +
                    std::to_string(max_chars) + " (limits.expression_chars)",
                ExitCode::kBadInput);
  }
  Expr e;
  try {
    e = pool.parse(args.expression);
  } catch (const ExprError& err) {
    throw Error(std::string(err.what()), ExitCode::kBadInput);
  }
  std::map<std::string, Expr, std::less<>> values;
  for (const std::string& a : args.assignments) {
    const std::size_t eq = a.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error("'" + a + "': expected SYM=V", ExitCode::kUsage);
    std::string item = a.substr(eq + 1);
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size()) {
      throw Error("'" + a + "': '" + item + "' is not an integer", ExitCode::kUsage);
    }
    values[a.substr(0, eq)] = pool.integer(v);
  }
  try {
    Expr result = values.empty() ? e : pool.substitute(e, values);
    std::cout << safe_text::terminal(pool.print(result)) << "\n";
  } catch (const ExprError& err) {
    std::string what = err.what();
    // A divisor that only the values make 0 ('N//(M-1)' M=1): the quoted text is the divided
    // form the substitution reached, so say which values led there.
    if (err.kind() == ExprError::Kind::kDivisionByZero ||
        err.kind() == ExprError::Kind::kModuloByZero) {
      std::string with;
      for (const std::string& a : args.assignments) with += (with.empty() ? "" : " ") + a;
      what += " (after substituting " + with + ")";
    }
    throw Error(what, ExitCode::kBadInput);
  }
}

}  // namespace

void add_plugins_command(CLI::App& app) {
  auto args = std::make_shared<PluginsArgs>();
  CLI::App* cmd = app.add_subcommand("plugins", "Loaded plugins, their domains and rules");
  cmd->add_option("--profile", args->profile, "Analysis profile (YAML)");
  cmd->add_option("--format", args->format, "table | json | markdown (the coverage table)")
      ->capture_default_str();
  cmd->callback([args] { run_plugins(*args); });
}

void add_eval_command(CLI::App& app) {
  auto args = std::make_shared<EvalArgs>();
  CLI::App* cmd = app.add_subcommand(
      "eval", "Simplify an expression, or evaluate it when every symbol is assigned");
  cmd->add_option("expression", args->expression, "Expression, e.g. '(4*N+7)//8'")->required();
  cmd->add_option("assignments", args->assignments, "SYM=V values to substitute");
  cmd->add_option("--bounds", args->bounds, "Symbol bounds SYM=LO:HI (repeatable)");
  cmd->callback([args] { run_eval(*args); });
}

}  // namespace cctx::cli
