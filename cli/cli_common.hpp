// Shared pieces of the `cctx` subcommands.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cctx/compute_context.hpp"
#include "cctx/profile.hpp"
#include "cctx/session.hpp"
#include "cctx/upper_bounds.hpp"

namespace cctx::cli {

/// Options shared by the commands that run an analysis.
struct AnalysisArgs {
  std::string model;
  std::string profile;
  std::string format = "table";
  std::vector<std::string> eval;  ///< SYM=V[,V...]
  /// --worst-case: evaluate even without --eval, every data-dependent size at its upper bound
  /// (a model whose only symbols are data-dependent sizes: NonZero, NonMaxSuppression, ...).
  bool worst_case = false;
  std::vector<std::string> bounds;         ///< SYM=LO:HI
  std::vector<std::string> let;            ///< SYM=EXPR: relations (Session::add_relation)
  std::vector<std::string> inputs;         ///< --input NAME=D0,D1,...: dims the caller really feeds
  std::optional<std::string> scenarios;    ///< --scenarios FILE.yaml: named assignments
  bool wide = false;                       ///< --wide: the table format with every formula in place
  std::optional<std::string> budget;       ///< --budget 2GiB (analyze): fits or not, per evaluation
  std::optional<std::string> write_model;  ///< --write-model OUT.onnx
  bool quiet = false;                      ///< --quiet: no warnings on stderr
};

/// Every `--bounds` symbol is one the model's shapes mention: a bound on a name the model does not
/// have (a typo) would otherwise be accepted and change nothing. A usage error listing the model's
/// symbols otherwise.
void check_bounded_symbols(const ComputeContext& ctx, const std::vector<std::string>& bounds);

/// Adds --quiet to a command that analyses a model.
void add_quiet_flag(CLI::App& cmd, AnalysisArgs& args);
/// Adds --input NAME=D0,D1,... (Profile::input_dims) to a command that analyses a model.
void add_input_option(CLI::App& cmd, AnalysisArgs& args);
/// "NAME=D0,D1,..." as the name and its dims (split at the commas outside parentheses); throws
/// cctx::Error (usage) on bad text.
std::pair<std::string, std::vector<std::string>> parse_input_dims(const std::string& text);
/// The analysis's warnings and notes on stderr, one line each, unless --quiet. Every format
/// prints them there: stdout holds the report alone, so a JSON consumer still sees a rule fail.
void print_diagnostics(const ComputeContext& ctx, const AnalysisArgs& args);

/// CLI11 check of an output file option: an empty name is a usage error, not "no file".
const CLI::Validator& output_file_name();

/// The profile named by --profile, or the default one; --bounds applied on top.
Profile resolve_profile(const AnalysisArgs& args);
/// Cartesian product of the --eval lists, after the profile's report.evaluate when none given.
std::vector<Assignment> resolve_assignments(const AnalysisArgs& args, const Profile& profile);
/// An empty dim asked for explicitly (`--eval past=0`, a prefill scenario) is allowed: each
/// symbol given 0 whose bounds neither the profile nor --bounds set gets [0, +inf), as
/// `--bounds SYM=0:inf` would (the default [1, +inf) lets the simplifier assume non-empty dims).
void allow_explicit_zeros(const std::vector<Assignment>& assignments, Profile& profile);
/// The whole of `text` as a decimal integer (optional sign), or nullopt ("", "3x", out of range).
std::optional<std::int64_t> parse_integer(const std::string& text);
/// Parses "SYM=LO:HI" (HI may be "inf"); throws cctx::Error (usage) on bad text.
std::pair<std::string, Interval> parse_bounds(const std::string& text);

/// Writes `text` to standard output; throws cctx::Error (ExitCode::kOutput) naming the reason
/// when it cannot (a full disk, a closed pipe), rather than ending with a silently short file.
void write_stdout(std::string_view text);
/// Flushes standard output, with write_stdout's error when that fails (main calls it last).
void flush_stdout();
/// The exit code of a command that ran to its end: kOk unless it said otherwise (a check that
/// found something exits with kFindings after printing its report).
void set_success_exit_code(ExitCode code);
int success_exit_code();
/// Ends a command whose output is all written: flushes standard output (with flush_stdout's
/// error) and standard error, then ends the process with status 0 without unwinding. Nothing the
/// command built is freed piece by piece: the loaded model, the analysis and the plugins go back to
/// the kernel with the address space. Sanitizer builds return instead, so that their leak check
/// still sees every object freed.
void end_process_after_output();

/// Adds --let to a command that evaluates.
void add_let_option(CLI::App& cmd, AnalysisArgs& args);
/// Hands the --let relations to the session (usage error on "SYM=EXPR" that is not).
void add_relations(Session& session, const AnalysisArgs& args);
/// The model of `args` in a Session on a host of `profile`: an onnxruntime-genai folder's decoder
/// with its configuration applied to `profile` and its relations, then --let's. For the commands
/// that load one model and analyse it (fit, plan).
std::unique_ptr<Session> open_session(const AnalysisArgs& args, Profile& profile);

void add_analyze_command(CLI::App& app);
void add_fit_command(CLI::App& app);
void add_plan_command(CLI::App& app);
void add_shapes_command(CLI::App& app);
void add_print_command(CLI::App& app);
void add_plugins_command(CLI::App& app);
void add_profiles_command(CLI::App& app);
void add_eval_command(CLI::App& app);
void add_explain_command(CLI::App& app);
void add_diff_command(CLI::App& app);

}  // namespace cctx::cli
