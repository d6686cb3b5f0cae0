// `cctx fit`: the largest value of a symbol whose reserve fits a budget, and the frontier of two.
#include <cmath>
#include <nlohmann/json.hpp>

#include "cctx/errors.hpp"
#include "cctx/fit.hpp"
#include "cctx/fit_report.hpp"
#include "cctx/host.hpp"
#include "cctx/safe_text.hpp"
#include "cctx/session.hpp"
#include "cli_common.hpp"

namespace cctx::cli {

void add_let_option(CLI::App& cmd, AnalysisArgs& args) {
  cmd.add_option("--let", args.let,
                 "A symbol computed from others when an assignment lacks it: "
                 "SYM=EXPR, e.g. total_seq=past_seq+seq (repeatable, applied in order)")
      ->allow_extra_args(false);
}

void add_relations(Session& session, const AnalysisArgs& args) {
  for (const std::string& text : args.let) {
    const std::size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
      throw Error("--let '" + text + "': expected SYM=EXPR (e.g. total_seq=past_seq+seq)",
                  ExitCode::kUsage);
    }
    session.add_relation({text.substr(0, eq), text.substr(eq + 1), "--let"});
  }
}

std::int64_t parse_byte_size(const std::string& text, std::string_view option) {
  auto bad = [&]() {
    return Error(std::string(option) + " '" + text +
                     "': expected a size in bytes such as 2GiB, 512MiB, 1.5G or 3000000000",
                 ExitCode::kUsage);
  };
  std::size_t used = 0;
  double number = 0;
  try {
    number = std::stod(text, &used);
  } catch (const std::exception&) {
    throw bad();
  }
  std::string unit = text.substr(used);
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  static const std::pair<std::string_view, double> kUnits[] = {
      {"", 1},     {"B", 1},      {"K", 0x1p10},   {"KiB", 0x1p10}, {"k", 0x1p10}, {"kB", 1e3},
      {"KB", 1e3}, {"M", 0x1p20}, {"MiB", 0x1p20}, {"MB", 1e6},     {"G", 0x1p30}, {"GiB", 0x1p30},
      {"GB", 1e9}, {"T", 0x1p40}, {"TiB", 0x1p40}, {"TB", 1e12}};
  for (const auto& [name, scale] : kUnits) {
    if (unit != name) continue;
    const double bytes = std::floor(number * scale);
    if (!std::isfinite(bytes) || bytes < 0 || bytes >= 0x1p63) throw bad();
    return static_cast<std::int64_t>(bytes);
  }
  throw bad();
}

namespace {

struct FitArgs {
  AnalysisArgs analysis;
  std::string budget;
  std::vector<std::string> vary;
};

/// The frontier's rows when --eval does not list the outer symbol's values: powers of two from
/// its lower bound up to the largest value that fits alone, and that value (at most 50 rows).
std::vector<std::int64_t> frontier_rows(const FitResult& outer_alone) {
  std::vector<std::int64_t> rows;
  if (!outer_alone.best) return rows;
  const std::int64_t top = outer_alone.best->value;
  std::int64_t v = std::max<std::int64_t>(outer_alone.domain.lo, 1);
  while (v < top && rows.size() < 49) {
    rows.push_back(v);
    v *= 2;
  }
  rows.push_back(top);
  return rows;
}

void run_fit(const FitArgs& args) {
  const AnalysisArgs& a = args.analysis;
  if (a.format != "table" && a.format != "json" && a.format != "csv") {
    throw Error("--format must be table, json or csv", ExitCode::kUsage);
  }
  if (args.vary.empty() || args.vary.size() > 2) {
    throw Error("--vary: give one symbol (the largest value that fits) or two (the frontier)",
                ExitCode::kUsage);
  }
  if (args.vary.size() == 2 && args.vary[0] == args.vary[1]) {
    throw Error("--vary '" + args.vary[0] + "' is given twice", ExitCode::kUsage);
  }
  const std::int64_t budget = parse_byte_size(args.budget, "--budget");
  Profile profile = resolve_profile(a);
  std::vector<Assignment> given = resolve_assignments(a, profile);
  if (a.eval.empty()) given = {Assignment{}};  // a profile's report.evaluate is for analyze
  std::vector<std::int64_t> outer_values;
  const std::string outer = args.vary.size() == 2 ? args.vary[0] : std::string();
  // With two varied symbols, --eval may list the outer one's values (the frontier's rows).
  if (!outer.empty()) {
    Assignment common;
    for (const Assignment& g : given) {
      if (const auto it = g.find(outer); it != g.end()) outer_values.push_back(it->second);
    }
    if (!outer_values.empty()) {
      for (Assignment& g : given) g.erase(outer);
    }
    std::sort(outer_values.begin(), outer_values.end());
    outer_values.erase(std::unique(outer_values.begin(), outer_values.end()), outer_values.end());
  }
  if (given.empty()) given = {Assignment{}};
  for (std::size_t k = 1; k < given.size(); ++k) {
    if (given[k] != given[0]) {
      throw Error(
          "--eval: cctx fit takes one value per fixed symbol (list values only for the "
          "frontier's outer symbol, the first --vary)",
          ExitCode::kUsage);
    }
  }
  allow_explicit_zeros(given, profile);
  const std::string inner = args.vary.back();
  auto host = std::make_shared<Host>(profile);
  Model model = Model::load(a.model, profile.limits);
  Session session(host, std::move(model));
  add_relations(session, a);
  FitReport report{a.model, host->profile().name, outer, {}};
  try {
    session.analyse();
    check_bounded_symbols(session.symbolic(), a.bounds);
    FitRequest request{inner, budget, given[0], "--eval"};
    if (outer.empty()) {
      report.fits.push_back(fit(session, request));
    } else {
      if (outer_values.empty()) {
        // The outer symbol alone, the inner one at its lower bound: where the rows end.
        FitRequest alone{outer, budget, given[0], "--eval"};
        const SymbolInfo* info = session.symbolic().pool().find_symbol(inner);
        alone.fixed[inner] = std::max<std::int64_t>(info != nullptr ? info->bounds.lo : 1, 0);
        outer_values = frontier_rows(fit(session, alone));
      }
      for (std::int64_t v : outer_values) {
        FitRequest row = request;
        row.fixed[outer] = v;
        report.fits.push_back(fit(session, row));
      }
    }
  } catch (const ExprError& e) {
    throw ModelError(a.model + ": " + e.what());
  }
  if (a.format == "json") {
    write_stdout(safe_text::json(fit_json(report), 2) + "\n");
  } else if (a.format == "csv") {
    write_stdout(fit_csv(report));
  } else {
    write_stdout(fit_text(report));
  }
  flush_stdout();
  print_diagnostics(session.symbolic(), a);
  end_process_after_output();
}

}  // namespace

void add_fit_command(CLI::App& app) {
  auto args = std::make_shared<FitArgs>();
  CLI::App* cmd = app.add_subcommand(
      "fit", "The largest value of a symbol (batch, context) whose reserve fits a budget");
  cmd->add_option("model", args->analysis.model, "ONNX model file")->required();
  cmd->add_option("--budget", args->budget,
                  "Bytes the process may use: 2GiB, 512MiB, 1.5G, 3000000000 (K/M/G/T and "
                  "KiB..TiB are binary, kB/MB/GB/TB decimal)")
      ->required();
  cmd->add_option("--vary", args->vary,
                  "The symbol to maximise; twice for the frontier (for each value of the first, "
                  "the largest of the second)")
      ->required()
      ->allow_extra_args(false);
  cmd->add_option("--profile", args->analysis.profile,
                  "Analysis profile: a YAML file or a shipped name; default: default");
  cmd->add_option("--eval", args->analysis.eval,
                  "Values of the other symbols, SYM=V[,SYM=V...]; with two --vary, the first "
                  "one's values (the frontier's rows)")
      ->allow_extra_args(false);
  cmd->add_option("--bounds", args->analysis.bounds,
                  "Symbol bounds SYM=LO:HI (HI may be 'inf'; repeatable): the search stays within")
      ->allow_extra_args(false);
  add_let_option(*cmd, args->analysis);
  cmd->add_option("--format", args->analysis.format, "table | json | csv")->capture_default_str();
  add_quiet_flag(*cmd, args->analysis);
  cmd->callback([args] { run_fit(*args); });
}

}  // namespace cctx::cli
