// `cctx plan`: the static memory plan of a model (docs/design/memory-plan.md): every
// intermediate buffer's offset and size in one arena, as expressions valid for every size.
#include <nlohmann/json.hpp>
#include <optional>

#include "cctx/errors.hpp"
#include "cctx/host.hpp"
#include "cctx/memory_plan.hpp"
#include "cctx/output_file.hpp"
#include "cctx/plan_report.hpp"
#include "cctx/report.hpp"
#include "cctx/safe_text.hpp"
#include "cctx/session.hpp"
#include "cli_common.hpp"

namespace cctx::cli {

namespace {

struct PlanArgs {
  AnalysisArgs analysis;
  int check = 0;  ///< --check N: assignments to verify the plan at
  std::uint64_t seed = 1;
  std::int64_t alignment = 64;
  bool no_scratch = false;
  std::int64_t span = kUnboundedSpan;
};

void run_plan(const PlanArgs& args) {
  const AnalysisArgs& a = args.analysis;
  if (a.format != "table" && a.format != "json" && a.format != "html") {
    throw Error("--format must be table, json or html", ExitCode::kUsage);
  }
  if (args.check < 0) throw Error("--check: give a number of assignments", ExitCode::kUsage);
  if (args.alignment < 1 || args.alignment > (std::int64_t{1} << 30)) {
    throw Error("--align: a number of bytes from 1 to 2^30", ExitCode::kUsage);
  }
  if (args.span < 0) throw Error("--span: a non-negative number", ExitCode::kUsage);
  Profile profile = resolve_profile(a);
  std::vector<Assignment> given = resolve_assignments(a, profile);
  if (a.format == "html" && given.empty()) {
    throw Error("--format html draws the plan at an assignment: add --eval SYM=V[,V...]",
                ExitCode::kUsage);
  }
  allow_explicit_zeros(given, profile);
  const std::unique_ptr<Session> opened = open_session(a, profile);
  Session& session = *opened;
  MemoryPlan plan;
  PlanReport report{a.model, session.host().profile().name, &plan, {}, std::nullopt};
  std::string text;
  try {
    session.analyse();
    check_bounded_symbols(session.symbolic(), a.bounds);
    const ComputeContext& ctx = session.symbolic();
    plan = make_memory_plan(ctx, PlanOptions{args.alignment, !args.no_scratch});
    if (!given.empty()) {
      // The session checks the assignments and completes them (relations, data-dependent sizes
      // at their upper bounds); the plan is the symbolic analysis's, evaluated there.
      report.evaluations = evaluate_plan(ctx, plan, session.evaluate(given).assignments, true);
    }
    if (args.check > 0) {
      PlanCheckOptions options;
      options.assignments = args.check;
      options.seed = args.seed;
      options.unbounded_span = args.span;
      report.check = check_memory_plan(ctx, plan, options);
    }
    if (a.format == "json") {
      text = safe_text::json(plan_json(ctx, report), 1) + "\n";
    } else if (a.format == "html") {
      text = plan_html(ctx, report);
    } else {
      text = plan_text(ctx, report, a.wide);
    }
  } catch (const ExprError& e) {
    throw ModelError(a.model + ": " + e.what());
  }
  write_stdout(text);
  flush_stdout();
  print_diagnostics(session.symbolic(), a);
  if (report.check && (report.check->overlaps > 0 || report.check->outside > 0 ||
                       !report.check->failures.empty())) {
    throw Error(a.model + ": the plan check failed: " + report.check->failures.front(),
                ExitCode::kAnalysis);
  }
  end_process_after_output();
}

}  // namespace

void add_plan_command(CLI::App& app) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand(
      "plan",
      "A static memory plan: each intermediate buffer's offset in one arena, as formulas valid "
      "for every size");
  cmd->add_option("model", args->analysis.model, "ONNX model file")->required();
  cmd->add_option("--profile", args->analysis.profile,
                  "Analysis profile: a YAML file or a shipped name (its in-place reuse decides "
                  "which values share a buffer); default: default");
  cmd->add_option("--bounds", args->analysis.bounds,
                  "Symbol bounds SYM=LO:HI (HI may be 'inf'; repeatable): the sizes the plan and "
                  "its check cover")
      ->allow_extra_args(false);
  cmd->add_option("--eval", args->analysis.eval,
                  "The concrete offsets at SYM=V[,SYM=V...] (repeatable; lists of values combine)")
      ->allow_extra_args(false);
  add_let_option(*cmd, args->analysis);
  cmd->add_option("--check", args->check,
                  "Verify the plan at N assignments (corners, crossings of two sizes, random): no "
                  "overlap, every buffer in the arena; the arena against the live-bytes floor");
  cmd->add_option("--seed", args->seed, "Seed of --check's random assignments")
      ->capture_default_str();
  cmd->add_option("--span", args->span,
                  "--check samples a symbol without an upper bound up to its lower bound + SPAN")
      ->capture_default_str();
  cmd->add_option("--align", args->alignment,
                  "Round every buffer's size up to a multiple of this many bytes")
      ->capture_default_str();
  cmd->add_flag("--no-scratch", args->no_scratch,
                "Leave the nodes' scratch (working memory) out of the arena");
  cmd->add_option("--format", args->analysis.format,
                  "table | json (cctx.memory_plan/1, for a runtime to replay) | html (the plan "
                  "drawn at each --eval)")
      ->capture_default_str();
  cmd->add_flag("--wide", args->analysis.wide, "Every formula in place in the table");
  add_input_option(*cmd, args->analysis);
  add_quiet_flag(*cmd, args->analysis);
  cmd->callback([args] { run_plan(*args); });
}

}  // namespace cctx::cli
