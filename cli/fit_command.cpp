// `cctx fit`: the largest value of a symbol whose reserve fits a budget, and the frontier of two.
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>
#include <utility>

#include "cctx/errors.hpp"
#include "cctx/fit.hpp"
#include "cctx/fit_report.hpp"
#include "cctx/host.hpp"
#include "cctx/output_file.hpp"
#include "cctx/safe_text.hpp"
#include "cctx/session.hpp"
#include "cli_common.hpp"
#include "genai_config.hpp"

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

std::unique_ptr<Session> open_session(const AnalysisArgs& args, Profile& profile) {
  std::vector<SymbolRelation> genai_relations;
  std::optional<Model> configured =
      load_with_genai_config(args.model, profile, StreamPayloads::kDrop, genai_relations);
  auto host = std::make_shared<Host>(profile);
  Model model = configured ? std::move(*configured) : Model::load(args.model, profile.limits);
  auto session = std::make_unique<Session>(host, std::move(model));
  for (SymbolRelation& r : genai_relations) session->add_relation(std::move(r));
  add_relations(*session, args);
  return session;
}

namespace {

struct FitArgs {
  AnalysisArgs analysis;
  std::string budget;
  std::vector<std::string> vary;
  std::optional<std::string> headroom;
  std::optional<std::string> plot;  ///< --plot OUT.svg
};

/// The values a figure of one fit shows: about 40 from the lower bound to a quarter past the
/// first value over the budget.
std::vector<std::int64_t> plot_values(const FitResult& f) {
  const std::int64_t lo = std::max<std::int64_t>(f.domain.lo, 0);
  std::int64_t top = f.next ? f.next->value : f.best ? f.best->value : lo;
  top = std::max(lo + 1, top + std::max<std::int64_t>(1, (top - lo) / 4));
  if (f.domain.hi != kPosInf) top = std::min(top, f.domain.hi);
  std::vector<std::int64_t> values;
  constexpr int kPoints = 40;
  for (int k = 0; k <= kPoints; ++k) {
    // Split so that no product overflows near 2^62 (the largest value a search tries).
    const std::int64_t span = top - lo;
    const std::int64_t v = lo + span / kPoints * k + span % kPoints * k / kPoints;
    if (values.empty() || values.back() != v) values.push_back(v);
  }
  return values;
}

/// "1MiB", "5%", "1MiB+5%", "0": bytes and percent of the reserve kept free under the budget.
std::pair<std::int64_t, std::int64_t> parse_headroom(const std::string& text) {
  std::int64_t bytes = 0, percent = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t plus = text.find('+', start);
    if (plus == std::string::npos) plus = text.size();
    const std::string part = text.substr(start, plus - start);
    start = plus + 1;
    if (!part.empty() && part.back() == '%') {
      const std::optional<std::int64_t> p = parse_integer(part.substr(0, part.size() - 1));
      if (!p || *p < 0 || *p > 100) {
        throw Error("--headroom '" + text + "': a percent is an integer from 0 to 100",
                    ExitCode::kUsage);
      }
      percent = *p;
    } else {
      bytes = parse_byte_size(part, "--headroom");
    }
  }
  return {bytes, percent};
}

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

/// onnxruntime-genai's search.max_length when the model has a genai_config.json and the varied
/// symbol is the attention mask's length (past plus new tokens): the longest context that fits.
/// Not with past_present_share_buffer, whose caches are max_length long whatever the context
/// (the fit then varies nothing the configuration sets).
std::vector<std::string> genai_settings(const std::string& model_path, const Model& model,
                                        const std::string& symbol, std::int64_t value) {
  const std::optional<GenaiConfig> config = find_genai_config(model_path);
  if (!config || config->share_buffer || genai_total_length_symbol(*config, model) != symbol) {
    return {};
  }
  return {"onnxruntime-genai (" + config->file.filename().string() +
          "): \"search\": {\"max_length\": " + std::to_string(value) + "}"};
}

/// The servers' settings the answer translates to: Triton's max_batch_size when the varied
/// symbol is the first dim of every input (Triton's batch dimension, which its config leaves out
/// of the inputs' dims).
std::vector<std::string> server_settings(const ComputeContext& ctx, const std::string& symbol,
                                         std::int64_t value) {
  const GraphView& g = ctx.graph();
  bool batch = false;
  for (const ValueId v : g.main().inputs) {
    if (g.value(v).is_initializer()) continue;
    const ValueShape& shape = ctx.shape(v);
    if (!shape.known_rank || shape.dims.empty() || ctx.pool().print(shape.dims[0]) != symbol) {
      return {};
    }
    batch = true;
  }
  if (!batch) return {};
  return {"Triton (config.pbtxt): max_batch_size: " + std::to_string(value)};
}

void run_fit(const FitArgs& args) {
  const AnalysisArgs& a = args.analysis;
  if (a.format != "table" && a.format != "json" && a.format != "csv" && a.format != "html") {
    throw Error("--format must be table, json, csv or html", ExitCode::kUsage);
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
  std::optional<OutputFile> plot_out;  // opened (and refused) before the analysis
  if (args.plot) plot_out.emplace(*args.plot);
  const std::unique_ptr<Session> opened = open_session(a, profile);
  Session& session = *opened;
  FitReport report{a.model, session.host().profile().name, outer, {}};
  std::vector<FitPoint> points;  // the figure's (--plot, --format html)
  try {
    session.analyse();
    check_bounded_symbols(session.symbolic(), a.bounds);
    FitRequest request{inner,
                       budget,
                       given[0],
                       "--eval",
                       session.host().profile().memory.headroom_bytes,
                       session.host().profile().memory.headroom_percent};
    if (args.headroom) {
      std::tie(request.headroom_bytes, request.headroom_percent) = parse_headroom(*args.headroom);
    }
    if (outer.empty()) {
      report.fits.push_back(fit(session, request));
    } else {
      if (outer_values.empty()) {
        // The outer symbol alone, the inner one at its lower bound: where the rows end.
        FitRequest alone = request;
        alone.vary = outer;
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
    if (plot_out || a.format == "html") {
      if (outer.empty()) points = sweep(session, request, plot_values(report.fits.front()));
    }
    if (plot_out) {
      plot_out->write(fit_svg(report, points));
      plot_out->commit();
    }
  } catch (const ExprError& e) {
    throw ModelError(a.model + ": " + e.what());
  }
  if (outer.empty() && report.fits.front().best) {
    const std::int64_t best = report.fits.front().best->value;
    report.suggestions = server_settings(session.symbolic(), inner, best);
    for (std::string& s : genai_settings(a.model, session.model(), inner, best)) {
      report.suggestions.push_back(std::move(s));
    }
  }
  if (a.format == "json") {
    write_stdout(safe_text::json(fit_json(report), 2) + "\n");
  } else if (a.format == "csv") {
    write_stdout(fit_csv(report));
  } else if (a.format == "html") {
    write_stdout(fit_html(report, points));
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
  cmd->add_option("--headroom", args->headroom,
                  "Kept free under the budget: bytes, a percent of the reserve, or both "
                  "(1MiB+5%); default: the profile's memory.headroom_bytes/percent, the "
                  "runtime's measured error band");
  cmd->add_option("--format", args->analysis.format,
                  "table | json | csv | html (one self-contained page with the figure)")
      ->capture_default_str();
  cmd->add_option("--plot", args->plot,
                  "Write an SVG of the reserve against the varied symbol with the budget (the "
                  "frontier with two --vary)")
      ->check(output_file_name());
  add_input_option(*cmd, args->analysis);
  add_quiet_flag(*cmd, args->analysis);
  cmd->callback([args] { run_fit(*args); });
}

}  // namespace cctx::cli
