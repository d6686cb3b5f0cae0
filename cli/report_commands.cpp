// `cctx explain` and `cctx diff`: reports that answer "why this much here" and "what changed".
#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cctx/compute_context.hpp"
#include "cctx/errors.hpp"
#include "cctx/host.hpp"
#include "cctx/report.hpp"
#include "cctx/safe_text.hpp"
#include "cctx/session.hpp"
#include "cli_common.hpp"

namespace cctx::cli {

namespace {

struct ExplainArgs {
  AnalysisArgs analysis;
  std::string node;  ///< index in the memory table, or the node's name
};

void check_format(const std::string& format) {
  if (format != "table" && format != "json") {
    throw Error("--format must be table or json", ExitCode::kUsage);
  }
}

/// A main-graph node by its index or, when the text is not a number, by its name. A name wins
/// only when it is not all digits, so "3" always means node 3.
NodeId find_node(const ComputeContext& ctx, const std::string& text) {
  const bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
  if (digits) {
    std::uint64_t index = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), index);
    if (error != std::errc() || index >= ctx.node_count()) {
      throw Error(fmt::format("node {}: the graph has {} nodes (0..{})", text, ctx.node_count(),
                              ctx.node_count() == 0 ? 0 : ctx.node_count() - 1),
                  ExitCode::kUsage);
    }
    return static_cast<NodeId>(index);
  }
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    if (ctx.graph().node(n).proto->name() == text) return n;
  }
  throw Error("node '" + text + "': no node of the main graph has this name", ExitCode::kUsage);
}

void run_explain(const ExplainArgs& args) {
  check_format(args.analysis.format);
  Profile profile = resolve_profile(args.analysis);
  profile.decision_log = true;  // the in-place events of the node are part of the explanation
  std::vector<Assignment> evaluate = resolve_assignments(args.analysis, profile);
  Session session(std::make_shared<Host>(profile), Model::load(args.analysis.model));
  session.analyse();
  check_bounded_symbols(session.symbolic(), args.analysis.bounds);
  // As analyze does: one assignment an undecided If depends on is explained at those sizes.
  Evaluation ev = session.evaluate(std::move(evaluate));
  evaluate = ev.assignments;
  const ComputeContext& ctx = *ev.context;
  const bool fixed = !ev.fixed_sizes.empty();
  const std::string& because = ev.fixed_because;
  const NodeId node = find_node(ctx, args.node);
  nlohmann::ordered_json doc;
  try {
    doc = explain_node(ctx, node, evaluate);
  } catch (const ExprError& e) {
    throw Error(std::string("--eval: ") + e.what() + "; assign every symbol with --eval SYM=V",
                ExitCode::kUsage);
  }
  std::string note;
  if (fixed) {
    doc["at_fixed_sizes"] = because;
    note =
        "Analysed with its inputs at " + assignment_label(ev.fixed_sizes) + ": " + because + "\n";
  }
  write_stdout(args.analysis.format == "json" ? safe_text::json(doc, 2) + "\n"
                                              : note + explain_text(doc));
  flush_stdout();
  print_diagnostics(ctx, args.analysis);
}

struct DiffArgs {
  std::vector<std::string> inputs;    ///< one model, or two reports/models
  std::vector<std::string> profiles;  ///< per analysed side, or one for both
  std::vector<std::string> eval;
  std::vector<std::string> bounds;
  std::string format = "table";
};

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open the file");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A JSON report starts with '{'; an ONNX model (protobuf) never does.
bool looks_like_json(const std::string& text) {
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) == 0) return c == '{';
  }
  return false;
}

/// One side: a JSON report read as is, or a model analysed under `profile_path` ("" = default).
DiffSide load_side(const std::string& path, const std::string& profile_path, const DiffArgs& args) {
  const std::string text = read_text(path);
  if (looks_like_json(text)) {
    try {
      return DiffSide{path, nlohmann::json::parse(text)};
    } catch (const nlohmann::json::parse_error& e) {
      throw Error(path + ": not valid JSON (" + e.what() + ")");
    }
  }
  AnalysisArgs analysis;
  analysis.model = path;
  analysis.profile = profile_path;
  analysis.bounds = args.bounds;
  analysis.eval = args.eval;
  Profile profile = resolve_profile(analysis);
  std::vector<Assignment> evaluate = resolve_assignments(analysis, profile);
  Session session(std::make_shared<Host>(profile), Model::load(path));
  session.analyse();
  check_bounded_symbols(session.symbolic(), args.bounds);
  Evaluation ev = session.evaluate(std::move(evaluate));
  const std::string report = safe_text::json(
      json_report(*ev.context, ReportOptions{path, ev.assignments, std::move(ev.at_upper_bound),
                                             ev.fixed_sizes, ev.fixed_because}));
  return DiffSide{path + " (profile " + profile.name + ")", nlohmann::json::parse(report)};
}

/// The assignments of --eval, else those the first report was evaluated at.
std::vector<Assignment> diff_assignments(const DiffArgs& args, const DiffSide& before) {
  if (!args.eval.empty()) {
    AnalysisArgs analysis;
    analysis.eval = args.eval;
    return resolve_assignments(analysis, Profile{});
  }
  std::vector<Assignment> out;
  const nlohmann::json peak = before.report.value("peak", nlohmann::json::object());
  // Named locals: a range-for over a member of a temporary would read a destroyed object.
  const nlohmann::json evaluations = peak.value("evaluations", nlohmann::json::array());
  for (const auto& e : evaluations) {
    const nlohmann::json assignment = e.value("assignment", nlohmann::json::object());
    Assignment a;
    for (const auto& [name, value] : assignment.items()) {
      if (!value.is_number_integer()) {
        throw Error(before.label + ": not a cctx.analysis/1 report: the evaluation's value of '" +
                    name + "' is " + value.dump() + " (an integer expected)");
      }
      a[name] = value.get<std::int64_t>();
    }
    out.push_back(std::move(a));
  }
  return out;
}

void run_diff(const DiffArgs& args) {
  check_format(args.format);
  const std::vector<std::string>& p = args.profiles;
  if (p.size() > 2) throw Error("diff: at most two --profile options", ExitCode::kUsage);
  DiffSide before, after;
  if (args.inputs.size() == 1) {
    if (p.empty()) {
      throw Error(
          "diff of one model: give --profile P (compared with the default profile) or "
          "--profile P1 --profile P2",
          ExitCode::kUsage);
    }
    before = load_side(args.inputs[0], p.size() == 2 ? p[0] : "", args);
    after = load_side(args.inputs[0], p.back(), args);
  } else {
    before = load_side(args.inputs[0], p.empty() ? "" : p.front(), args);
    after = load_side(args.inputs[1], p.empty() ? "" : p.back(), args);
  }
  const nlohmann::ordered_json doc = diff_reports(before, after, diff_assignments(args, before));
  std::cout << (args.format == "json" ? safe_text::json(doc, 2) + "\n" : diff_text(doc));
}

}  // namespace

void add_explain_command(CLI::App& app) {
  auto args = std::make_shared<ExplainArgs>();
  CLI::App* cmd = app.add_subcommand(
      "explain", "Why a node needs its memory: live buffers, outputs, in-place decisions, scratch");
  cmd->add_option("model", args->analysis.model, "ONNX model file")->required();
  cmd->add_option("node", args->node, "The node: its index in the memory table, or its name")
      ->required();
  cmd->add_option("--profile", args->analysis.profile, "Analysis profile (YAML)");
  cmd->add_option("--eval", args->analysis.eval, "Also evaluate the amounts at SYM=V[,V...]")
      ->allow_extra_args(false);
  cmd->add_option("--bounds", args->analysis.bounds, "Symbol bounds SYM=LO:HI (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--format", args->analysis.format, "table | json")->capture_default_str();
  add_input_option(*cmd, args->analysis);
  add_quiet_flag(*cmd, args->analysis);
  cmd->callback([args] { run_explain(*args); });
}

void add_diff_command(CLI::App& app) {
  auto args = std::make_shared<DiffArgs>();
  CLI::App* cmd = app.add_subcommand(
      "diff",
      "Per-node change of total bytes, the peak and in-place decisions between two JSON reports "
      "or models, or one model under two profiles");
  cmd->add_option("inputs", args->inputs,
                  "BEFORE [AFTER]: `analyze --format json` reports or models")
      ->required()
      ->expected(1, 2);
  cmd->add_option("--profile", args->profiles,
                  "Profile of the analysed models; with one model, the profile compared with the "
                  "default one, or twice for before and after")
      ->allow_extra_args(false);
  cmd->add_option("--eval", args->eval, "Evaluate the changes at SYM=V[,V...] (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--bounds", args->bounds, "Symbol bounds SYM=LO:HI for analysed models")
      ->allow_extra_args(false);
  cmd->add_option("--format", args->format, "table | json")->capture_default_str();
  cmd->callback([args] { run_diff(*args); });
}

}  // namespace cctx::cli
