// `cctx`: the command line. Every failure ends as one line on stderr and a documented exit code
// (0 ok, 2 usage, 3 bad input, 4 strict-mode analysis error, 5 output not written); never a
// stack trace.
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cctx/crash_report.hpp"
#include "cctx/errors.hpp"
#include "cctx/expr.hpp"
#include "cctx/large_stack.hpp"
#include "cctx/safe_text.hpp"
#include "cli_common.hpp"

namespace {
/// A message names files, values and nodes of the model: one line, nothing a terminal acts on.
std::string shown(const char* message) { return cctx::safe_text::terminal(message); }
}  // namespace

/// `cctx eval '-N+2*N' N=2`: an expression that begins with '-' (as cctx itself prints some) would
/// read as an option to CLI11. eval's first positional, when it begins with '-', gets a leading
/// space, which the expression parser skips and CLI11 does not take for an option.
std::vector<std::string> eval_arguments(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  if (argc < 3 || args[1] != "eval") return args;
  for (std::size_t k = 2; k < args.size(); ++k) {
    std::string& a = args[k];
    if (a == "--") break;  // the user separated them already
    if (a == "--bounds") {
      ++k;  // its value
      continue;
    }
    if (a == "-h" || a == "--help" || a.rfind("--bounds=", 0) == 0) continue;
    if (a.size() > 1 && a[0] == '-') a.insert(a.begin(), ' ');
    break;  // the expression: the positionals after it are assignments
  }
  return args;
}

namespace {

int run(int argc, char** argv) {
  // A plugin is native code in this process: if one crashes, say which one before dying.
  cctx::install_crash_reporter();
  CLI::App app{"cctx: per-node memory of ONNX graphs as formulas in their symbolic dimensions"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("cctx ") + CCTX_VERSION);
  cctx::cli::add_analyze_command(app);
  cctx::cli::add_fit_command(app);
  cctx::cli::add_plan_command(app);
  cctx::cli::add_shapes_command(app);
  cctx::cli::add_print_command(app);
  cctx::cli::add_plugins_command(app);
  cctx::cli::add_profiles_command(app);
  cctx::cli::add_eval_command(app);
  cctx::cli::add_explain_command(app);
  cctx::cli::add_diff_command(app);
  try {
    // Deeply nested subgraphs recurse: the whole command runs on a stack of known size.
    // Standard output is flushed on the same thread, where errno holds a failed write's reason.
    cctx::run_with_large_stack(cctx::kAnalysisStackBytes, [&] {
      std::vector<std::string> args = eval_arguments(argc, argv);
      std::vector<char*> pointers;
      pointers.reserve(args.size());
      for (std::string& a : args) pointers.push_back(a.data());
      app.parse(static_cast<int>(pointers.size()), pointers.data());
      cctx::cli::flush_stdout();
    });
    return cctx::cli::success_exit_code();
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return static_cast<int>(cctx::ExitCode::kUsage);
  } catch (const cctx::Error& e) {
    std::cerr << "cctx: " << shown(e.what()) << "\n";
    return static_cast<int>(e.exit_code());
  } catch (const cctx::ExprError& e) {
    std::cerr << "cctx: " << shown(e.what()) << "\n";
    return static_cast<int>(cctx::ExitCode::kBadInput);
  } catch (const std::bad_alloc&) {
    std::cerr << "cctx: out of memory\n";
    return static_cast<int>(cctx::ExitCode::kBadInput);
  } catch (const std::exception& e) {
    std::cerr << "cctx: internal error: " << shown(e.what()) << "\n";
    return 1;
  }
}

}  // namespace

// What escapes run() (building the command line itself) is an internal error, said in one line.
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (...) {
    std::fputs("cctx: internal error\n", stderr);
    return 1;
  }
}
