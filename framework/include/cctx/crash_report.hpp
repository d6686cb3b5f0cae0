// Names the plugin rule that was running when the process dies of a fatal signal. A plugin is
// native code in our address space: a crash in it cannot be contained, but the user must learn
// which plugin (and which rule, for which op) to blame before the process goes down.
#pragma once

#include <string_view>

namespace cctx {

/// Installs handlers for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT (on an alternate stack, so a
/// stack overflow is reported too). The handler writes one line to stderr with async-signal-safe
/// calls only, then re-raises the signal with the default action: the exit status still says
/// "killed by signal". Called by the `cctx` command; a library host (Python) keeps its own.
void install_crash_reporter();

/// Marks a plugin rule as running for its lifetime (pipeline stages wrap every rule call). Keeps
/// the views, not copies: the texts must stay valid until the object is destroyed.
class RunningRule {
 public:
  RunningRule(std::string_view origin, std::string_view kind, std::string_view domain,
              std::string_view op) noexcept;
  ~RunningRule();
  RunningRule(const RunningRule&) = delete;
  RunningRule& operator=(const RunningRule&) = delete;

 private:
  bool outer_;  ///< a rule was already marked (nested calls keep the outer, first description)
};

}  // namespace cctx
