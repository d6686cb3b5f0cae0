// `cctx analyze`, `cctx shapes` and `cctx print`.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <future>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <unordered_set>

#include "cctx/compute_context.hpp"
#include "cctx/errors.hpp"
#include "cctx/fit.hpp"
#include "cctx/host.hpp"
#include "cctx/output_file.hpp"
#include "cctx/report.hpp"
#include "cctx/safe_text.hpp"
#include "cctx/session.hpp"
#include "cli_common.hpp"
#include "genai_config.hpp"

namespace cctx::cli {

std::optional<std::int64_t> parse_integer(const std::string& text) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != text.size()) return std::nullopt;
  return v;
}

std::pair<std::string, Interval> parse_bounds(const std::string& text) {
  const std::size_t eq = text.find('='), colon = text.find(':', eq == std::string::npos ? 0 : eq);
  auto bad = [&]() {
    return Error("--bounds '" + text + "': expected SYM=LO:HI (HI may be 'inf')", ExitCode::kUsage);
  };
  if (eq == std::string::npos || eq == 0 || colon == std::string::npos) throw bad();
  std::string name = text.substr(0, eq);
  auto number = [&](const std::string& s, bool allow_inf) -> std::int64_t {
    if (allow_inf && (s == "inf" || s == "+inf" || s.empty())) return kPosInf;
    const std::optional<std::int64_t> v = parse_integer(s);
    if (!v) throw bad();
    return *v;
  };
  Interval i{number(text.substr(eq + 1, colon - eq - 1), false),
             number(text.substr(colon + 1), true)};
  if (i.lo < 0 || i.lo > i.hi)
    throw Error("--bounds '" + text + "': need 0 <= LO <= HI", ExitCode::kUsage);
  return {name, i};
}

Profile resolve_profile(const AnalysisArgs& args) {
  Profile profile = args.profile.empty() ? Host::default_profile()
                                         : load_profile(Host::profile_path(args.profile));
  std::set<std::string> given;
  for (const std::string& b : args.bounds) {
    auto [name, interval] = parse_bounds(b);
    if (!given.insert(name).second) {
      throw Error("--bounds '" + b + "': '" + name + "' is given twice", ExitCode::kUsage);
    }
    profile.symbols[name] = interval;
  }
  for (const std::string& text : args.inputs) {
    auto [name, dims] = parse_input_dims(text);
    if (!profile.input_dims.emplace(name, std::move(dims)).second) {
      throw Error("--input '" + text + "': '" + name + "' is given twice", ExitCode::kUsage);
    }
  }
  return profile;
}

std::pair<std::string, std::vector<std::string>> parse_input_dims(const std::string& text) {
  const std::size_t eq = text.find('=');
  const auto bad = [&] {
    return Error("--input '" + text +
                     "': expected NAME=D0,D1,... (one integer or expression per axis, e.g. "
                     "attention_mask=batch_size,past_sequence_length+sequence_length)",
                 ExitCode::kUsage);
  };
  if (eq == std::string::npos || eq == 0) throw bad();
  std::vector<std::string> dims;
  std::string current;
  int depth = 0;
  for (std::size_t i = eq + 1; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ',';
    if (c == ',' && depth == 0) {
      if (current.find_first_not_of(' ') == std::string::npos) throw bad();
      dims.push_back(current);
      current.clear();
      continue;
    }
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    current += c;
  }
  return {text.substr(0, eq), dims};
}

void allow_explicit_zeros(const std::vector<Assignment>& assignments, Profile& profile) {
  for (const Assignment& a : assignments) {
    for (const auto& [name, value] : a) {
      if (value == 0 && profile.symbols.count(name) == 0) profile.symbols[name] = {0, kPosInf};
    }
  }
}

std::vector<Assignment> resolve_assignments(const AnalysisArgs& args, const Profile& profile) {
  const std::int64_t limit = profile.limits.assignments;
  auto too_many = [&](const std::string& what) {
    return Error(what + " more than " + std::to_string(limit) +
                     " assignments (limits.assignments; a profile raises it: "
                     "limits: {assignments: N})",
                 ExitCode::kUsage);
  };
  if (args.eval.empty() && args.worst_case && profile.report.evaluate.empty()) {
    return {Assignment{}};  // no symbol given: every data-dependent size at its bound
  }
  if (args.eval.empty()) {
    if (static_cast<std::int64_t>(profile.report.evaluate.size()) > limit) {
      throw too_many("the profile's report.evaluate lists " +
                     std::to_string(profile.report.evaluate.size()) + ",");
    }
    return profile.report.evaluate;
  }
  // Every list parsed and the product counted before any assignment is made.
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> lists;
  std::int64_t count = 1;
  for (const std::string& spec : args.eval) {
    // SYM=V[,V...][,SYM2=V[,V...]]...: an item with '=' starts a symbol, a bare value extends
    // the last one (`--eval batch=8,seq=1,past_seq=2047` is one assignment of three symbols).
    const std::size_t first_eq = spec.find('=');
    if (first_eq == std::string::npos || first_eq == 0 || first_eq + 1 == spec.size()) {
      throw Error("--eval '" + spec + "': expected SYM=V[,V...][,SYM=V...]", ExitCode::kUsage);
    }
    std::size_t start = 0;
    while (start <= spec.size()) {
      std::size_t end = spec.find(',', start);
      if (end == std::string::npos) end = spec.size();
      std::string item = spec.substr(start, end - start);
      start = end + 1;
      if (const std::size_t eq = item.find('='); eq != std::string::npos) {
        const std::string name = item.substr(0, eq);
        if (name.empty()) {
          throw Error("--eval '" + spec + "': '" + item + "' names no symbol", ExitCode::kUsage);
        }
        for (const auto& [earlier, values] : lists) {
          if (earlier == name) {
            throw Error("--eval '" + spec + "': '" + name +
                            "' is given twice (list every value once: --eval " + name + "=V1,V2)",
                        ExitCode::kUsage);
          }
        }
        lists.emplace_back(name, std::vector<std::int64_t>{});
        item = item.substr(eq + 1);
      }
      const std::optional<std::int64_t> v = parse_integer(item);
      if (!v) {
        throw Error("--eval '" + spec + "': '" + item + "' is not an integer", ExitCode::kUsage);
      }
      lists.back().second.push_back(*v);
    }
  }
  for (const auto& [name, values] : lists) {
    const auto n = static_cast<std::int64_t>(values.size());
    count = count > limit / n ? limit + 1 : count * n;
  }
  if (count > limit) {
    std::string sizes;
    for (const auto& [name, values] : lists) {
      sizes += (sizes.empty() ? "" : " x ") + std::to_string(values.size());
    }
    throw too_many("--eval: " + sizes + " values make");
  }
  std::vector<Assignment> result{Assignment{}};
  for (const auto& [name, values] : lists) {
    std::vector<Assignment> next;
    next.reserve(result.size() * values.size());
    for (const Assignment& base : result) {
      for (std::int64_t v : values) {
        Assignment a = base;
        a[name] = v;
        next.push_back(std::move(a));
      }
    }
    result = std::move(next);
  }
  return result;
}

const CLI::Validator& output_file_name() {
  static const CLI::Validator check(
      [](const std::string& name) {
        return name.empty() ? std::string("an empty file name (give the file to write)")
                            : std::string();
      },
      "FILE");
  return check;
}

void check_bounded_symbols(const ComputeContext& ctx, const std::vector<std::string>& bounds) {
  if (bounds.empty()) return;
  std::set<std::string> mentioned;
  std::unordered_set<std::uint32_t> seen;  // a dim shared by many values is read once
  const GraphView& g = ctx.graph();
  for (ValueId v = 0; v < g.values().size(); ++v) {
    for (const Expr d : ctx.shape(v).dims) {
      if (!seen.insert(d.id).second) continue;
      for (std::string& name : ctx.pool().symbols_of(d)) mentioned.insert(std::move(name));
    }
  }
  for (const std::string& b : bounds) {
    const std::string name = parse_bounds(b).first;
    if (mentioned.count(name) != 0) continue;
    std::string listed;
    std::size_t shown = 0;
    for (const std::string& m : mentioned) {
      const SymbolInfo* info = ctx.pool().find_symbol(m);
      if (info == nullptr || info->kind != SymbolKind::kDeclared) continue;
      if (++shown > 12) {
        listed += ", ...";
        break;
      }
      listed += (listed.empty() ? "" : ", ") + m;
    }
    throw Error(
        "--bounds '" + b + "': the model has no symbol '" + name + "'" +
            (listed.empty() ? " (it has no symbolic dims)" : " (its symbols: " + listed + ")"),
        ExitCode::kUsage);
  }
}

namespace {

// On large graphs a terminal user sees each stage finish (stderr only, never when piped).
void report_progress(void*, const StageTiming& finished, std::size_t nodes) {
  constexpr std::size_t kLargeGraph = 100000;
  if (nodes > kLargeGraph) {
    std::fprintf(stderr, "cctx: %-9s %8.2f s  (%zu nodes)\n", finished.stage.c_str(),
                 finished.seconds, nodes);
  }
}

void watch_progress(ComputeContext& ctx) {
  if (::isatty(STDERR_FILENO) != 0) ctx.set_progress(&report_progress, nullptr);
}

/// Files `cctx analyze` draws besides its main output.
struct FigureArgs {
  std::optional<std::string> plot;        ///< --plot OUT.svg: total_bytes per node and assignment
  std::optional<std::string> plot_stack;  ///< --plot-stack OUT.svg: by source and tag, first one
};

// An expression failure deep in the pipeline (a byte size beyond int64, an evaluation that
// overflows) is a property of the model: say which file it came from.
/// For an --eval value outside a symbol's bounds ("symbol 'n' = 0 is outside its bounds [1,
/// +inf] in ..."): how to widen them. The default [1, +inf) excludes empty tensors, which ONNX
/// allows; the simplifier relies on it, so it stays the default and 0 is asked for explicitly.
std::string bounds_hint(const ExprError& e) {
  if (e.kind() != ExprError::Kind::kOutOfBounds) return "";
  const std::string what = e.what();
  // Bounds the model's requirements narrowed: the model cannot run beyond them, widening would
  // only evaluate what never happens.
  if (what.find("(required by ") != std::string::npos) return "";
  static constexpr std::string_view kHead = "symbol '",
                                    kMid = "' = ", kTail = " is outside its bounds [",
                                    kComma = ", ";
  if (!what.starts_with(kHead)) return "";
  const std::size_t mid = what.find(kMid), tail = what.find(kTail);
  if (mid == std::string::npos || tail == std::string::npos || tail < mid) return "";
  const std::size_t lo_at = tail + kTail.size(), comma = what.find(kComma, lo_at);
  const std::size_t close = comma == std::string::npos ? comma : what.find(']', comma);
  if (close == std::string::npos) return "";
  const std::string name = what.substr(kHead.size(), mid - kHead.size());
  const std::string value = what.substr(mid + kMid.size(), tail - mid - kMid.size());
  std::string lo = what.substr(lo_at, comma - lo_at);
  std::string hi = what.substr(comma + kComma.size(), close - comma - kComma.size());
  const std::optional<std::int64_t> v = parse_integer(value), l = parse_integer(lo);
  if (!v) return "";
  if (l && *v < *l) {
    lo = value;
  } else {
    hi = value;
  }
  if (hi == "+inf") hi = "inf";
  return " (to evaluate there, widen its bounds: --bounds " + name + "=" + lo + ":" + hi + ")";
}

template <class Work>
void naming_model(const std::string& model, Work&& work) {
  try {
    work();
  } catch (const ExprError& e) {
    throw ModelError(model + ": " + e.what() + bounds_hint(e));
  } catch (const std::bad_alloc&) {
    throw ModelError(model + ": out of memory while analysing it");
  }
}

/// Starts loading the profile's plugins (dlopen, relocations, rule registration) on a thread of
/// its own, to run while the model is parsed: the two are independent, and the plugins took 2-3 ms
/// of a 10k-node analysis. get() hands the host over, or rethrows its error; a model that fails
/// to load is reported first, as before (the future waits for the host when it is dropped).
std::future<std::unique_ptr<Host>> start_host(const Profile& profile) {
  return std::async(std::launch::async, [profile] { return std::make_unique<Host>(profile); });
}

void run_analyze(const AnalysisArgs& args, const FigureArgs& figures) {
  if (args.format != "table" && args.format != "json" && args.format != "csv" &&
      args.format != "html") {
    throw Error("--format must be table, json, csv or html", ExitCode::kUsage);
  }
  Profile profile = resolve_profile(args);
  std::vector<Assignment> evaluate = resolve_assignments(args, profile);
  std::optional<ScenarioFile> scenarios;
  std::vector<std::string> names;
  if (args.scenarios) {
    if (!args.eval.empty()) {
      throw Error(
          "--scenarios and --eval: give the assignments one way (a scenario file lists "
          "every symbol's value)",
          ExitCode::kUsage);
    }
    scenarios = load_scenarios(*args.scenarios);
    evaluate.clear();
    for (const Scenario& s : scenarios->scenarios) {
      evaluate.push_back(s.values);
      names.push_back(s.name);
    }
  }
  allow_explicit_zeros(evaluate, profile);
  const std::int64_t budget_bytes = args.budget ? parse_byte_size(*args.budget, "--budget") : 0;
  const bool plotting = figures.plot || figures.plot_stack;
  if (plotting && evaluate.empty()) {
    throw Error("--plot and --plot-stack draw evaluated bytes: add --eval SYM=V[,V...]",
                ExitCode::kUsage);
  }
  // A stream cannot be read twice: its weights are kept for --write-model.
  const StreamPayloads payloads = args.write_model ? StreamPayloads::kKeep : StreamPayloads::kDrop;
  // onnxruntime-genai's configuration bounds the symbols the host's profile carries: the model is
  // read before the host then (the configuration names the symbols through the model's inputs).
  std::vector<SymbolRelation> genai_relations;
  std::optional<Model> configured =
      load_with_genai_config(args.model, profile, payloads, genai_relations);
  auto host_loading = start_host(profile);
  Model model =
      configured ? std::move(*configured) : Model::load(args.model, profile.limits, payloads);
  // Output files are opened (and refused) before the analysis, and written only after it:
  // whatever fails on the way, a target keeps its old bytes.
  std::optional<OutputFile> model_out, plot_out, stack_out;
  if (args.write_model) {
    model_out.emplace(*args.write_model);
    model.check_save_target(*model_out);
  }
  if (figures.plot) plot_out.emplace(*figures.plot);
  if (figures.plot_stack) stack_out.emplace(*figures.plot_stack);
  Session session(host_loading.get(), std::move(model));
  for (SymbolRelation& r : genai_relations) session.add_relation(std::move(r));
  if (scenarios) {
    for (const auto& [symbol, expression] : scenarios->let) {
      session.add_relation({symbol, expression, "the scenario file's let"});
    }
  }
  add_relations(session, args);
  const Host& host = session.host();
  ComputeContext& ctx = session.symbolic();
  watch_progress(ctx);
  // Render everything before writing anything, so that an evaluation error leaves no output.
  // The JSON report is the exception that proves it: its writer evaluates here, and formats its
  // text (161 MB at 100k nodes) only while streaming it out, below.
  std::string text, plot, stack;
  std::optional<JsonReportWriter> json;
  // When the formulas need a size that the input sizes decide (which branch of an If runs, a
  // rank that depends on it), one assignment is evaluated by analysing the model again with
  // those sizes fixed (semantics.md "Evaluation at fixed sizes"): Session::evaluate decides.
  const ComputeContext* report_ctx = &ctx;
  naming_model(args.model, [&] {
    session.analyse();
    check_bounded_symbols(ctx, args.bounds);
    Evaluation ev = session.evaluate(evaluate);
    report_ctx = ev.context;
    evaluate = ev.assignments;
    const std::string specialized = ev.fixed_sizes.empty() ? std::string()
                                                           : "Analysed with its inputs at " +
                                                                 assignment_label(ev.fixed_sizes) +
                                                                 ": " + ev.fixed_because + "\n";
    const ComputeContext& rctx = *report_ctx;
    ReportOptions options{args.model,     evaluate,         std::move(ev.at_upper_bound),
                          ev.fixed_sizes, ev.fixed_because, names,
                          budget_bytes};
    if (args.format == "json") {
      json.emplace(rctx, options);
    } else if (args.format == "csv") {
      text = csv_report(rctx, options);
    } else if (args.format == "html") {
      text = html_report(rctx, HtmlReportOptions{options, host.plugins()});
    } else {
      // Without --wide, what would not fit a terminal moves: long formulas to a footer, the
      // per-node figures of a large graph to one row per node.
      FormulaFolder folder(!args.wide);
      text = specialized + rewrites_text(rctx) + "Symbolic ComputeContext.memory table:\n" +
             memory_table(rctx, &folder) + "\n" + scratch_listing(rctx, &folder);
      if (!evaluate.empty()) {
        constexpr std::size_t kColumnsThatFit = 12;
        text += "\n" + (args.wide || rctx.node_count() <= kColumnsThatFit
                            ? evaluated_totals_table(rctx, evaluate)
                            : evaluated_totals_by_node(rctx, evaluate));
      }
      text +=
          "\n" + peak_summary(rctx, evaluate, options.at_upper_bound, names, &folder, budget_bytes);
      if (const std::string footer = folder.footer(); !footer.empty()) text += "\n" + footer;
    }
    if (plot_out) plot = total_bytes_svg(rctx, evaluate);
    if (stack_out) stack = memory_stack_svg(rctx, evaluate.front());
  });
  if (model_out) {
    ctx.write_to_model(session.model());
    session.model().save(*model_out);
  }
  for (auto [file, svg] : {std::pair{&plot_out, &plot}, std::pair{&stack_out, &stack}}) {
    if (!*file) continue;
    (*file)->write(*svg);
    (*file)->commit();
  }
  if (json) {
    json->write(write_stdout);
    write_stdout("\n");
  } else {
    write_stdout(text);
  }
  flush_stdout();  // before the diagnostics: std::cerr would flush it, hiding a failure's reason
  print_diagnostics(*report_ctx, args);  // those of the analysis reported
  end_process_after_output();
}

void run_shapes(const AnalysisArgs& args) {
  if (args.format != "table" && args.format != "json") {
    throw Error("--format must be table or json", ExitCode::kUsage);
  }
  Profile profile = resolve_profile(args);
  auto host_loading = start_host(profile);
  Model model = Model::load(args.model, profile.limits);
  const std::unique_ptr<Host> host = host_loading.get();
  // Shapes, tags and each value's bytes: in-place decisions, the memory profile, the scratch
  // estimates and the peak are not asked for, so their stages do not run (322M -> 305M
  // instructions on a 10k-node chain; the symbols and warnings only they make are not listed).
  Profile only_shapes = host->profile();
  only_shapes.memory.enabled = false;
  only_shapes.scratch.enabled = false;
  only_shapes.inplace.enabled = false;
  ComputeContext ctx(host->registry(), std::move(only_shapes));
  naming_model(args.model, [&] { ctx.compute(model); });
  check_bounded_symbols(ctx, args.bounds);
  if (args.format == "json") {
    // Streamed as the analysis report is (shapes_json(...).dump(2), byte for byte): the tree of
    // a 100k-node graph took 4x the time of the analysis it reports.
    JsonReportWriter(ctx, ReportOptions{args.model, {}, {}}, JsonReportWriter::Document::kShapes)
        .write(write_stdout);
    write_stdout("\n");
  } else {
    write_stdout(shapes_table(ctx));
  }
  flush_stdout();
  print_diagnostics(ctx, args);
  end_process_after_output();
}

}  // namespace

void add_quiet_flag(CLI::App& cmd, AnalysisArgs& args) {
  cmd.add_flag("-q,--quiet", args.quiet,
               "Print no warnings on stderr (they stay in the report's \"warnings\")");
}

void add_input_option(CLI::App& cmd, AnalysisArgs& args) {
  cmd.add_option("--input", args.inputs,
                 "Dims of an input as it is really fed, replacing the model's declaration: "
                 "NAME=D0,D1,... (integers or expressions; repeatable), e.g. "
                 "attention_mask=batch_size,past_sequence_length+sequence_length")
      ->allow_extra_args(false);
}

void print_diagnostics(const ComputeContext& ctx, const AnalysisArgs& args) {
  if (!args.quiet) std::cerr << diagnostics_text(ctx);
}

void add_analyze_command(CLI::App& app) {
  auto args = std::make_shared<AnalysisArgs>();
  auto figures = std::make_shared<FigureArgs>();
  CLI::App* cmd =
      app.add_subcommand("analyze", "Per-node memory profile, scratch and peak of a model");
  cmd->add_option("model", args->model, "ONNX model file")->required();
  cmd->add_option(
      "--profile", args->profile,
      "Analysis profile: a YAML file, or the name of one cctx ships (default, "
      "onnxruntime-cpu-unoptimized, onnxruntime-cpu-unoptimized-no-arena); default: default");
  cmd->add_option("--format", args->format, "table | json | csv | html (one self-contained page)")
      ->capture_default_str();
  cmd->add_option("--eval", args->eval, "Evaluate totals and the peak at SYM=V[,V...] (repeatable)")
      ->allow_extra_args(false);
  add_let_option(*cmd, *args);
  cmd->add_option("--budget", args->budget,
                  "Say for each evaluation whether its reserve fits (2GiB, 512MiB, ...); the HTML "
                  "report's reserve figures draw the line");
  cmd->add_flag("--wide", args->wide,
                "Table format: every formula in place and the evaluated totals as one row per "
                "assignment, however wide (default: long formulas in a footer, F1, F2, ...)");
  cmd->add_option("--scenarios", args->scenarios,
                  "A YAML file of named assignments evaluated side by side: "
                  "NAME: {SYM: V, ...} (and let: {SYM: EXPR})");
  cmd->add_flag("--worst-case", args->worst_case,
                "Evaluate even without --eval: every data-dependent size at its upper bound "
                "(--eval's symbols still required)");
  cmd->add_option("--bounds", args->bounds, "Symbol bounds SYM=LO:HI (HI may be 'inf'; repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--write-model", args->write_model,
                  "Write the model with inferred shapes and annotations")
      ->check(output_file_name());
  cmd->add_option("--plot", figures->plot,
                  "Write an SVG of total bytes per node, one line per --eval assignment")
      ->check(output_file_name());
  cmd->add_option("--plot-stack", figures->plot_stack,
                  "Write an SVG of the memory at each node by source and tag (first assignment)")
      ->check(output_file_name());
  add_input_option(*cmd, *args);
  add_quiet_flag(*cmd, *args);
  cmd->callback([args, figures] { run_analyze(*args, *figures); });
}

void add_shapes_command(CLI::App& app) {
  auto args = std::make_shared<AnalysisArgs>();
  CLI::App* cmd =
      app.add_subcommand("shapes", "Inferred dtype, symbolic shape, value and tag of every value");
  cmd->add_option("model", args->model, "ONNX model file")->required();
  cmd->add_option("--profile", args->profile, "Analysis profile (YAML)");
  cmd->add_option("--format", args->format, "table | json")->capture_default_str();
  cmd->add_option("--bounds", args->bounds, "Symbol bounds SYM=LO:HI")->allow_extra_args(false);
  add_input_option(*cmd, *args);
  add_quiet_flag(*cmd, *args);
  cmd->callback([args] { run_shapes(*args); });
}

void add_print_command(CLI::App& app) {
  auto model_path = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("print", "Compact text listing of a model's graph");
  cmd->add_option("model", *model_path, "ONNX model file")->required();
  cmd->callback(
      [model_path] { std::cout << model_listing(Model::load(*model_path), ListingStyle::kFull); });
}

}  // namespace cctx::cli
