/// @file kit/rule_error.hpp
/// How a kit rule ends early: it throws a RuleError (through fail(), unsupported(), check() or
/// finish()), and guarded() (plugin.hpp), which every kit rule wrapper runs the rule in, turns it
/// into the Status the host expects. The exception never leaves the plugin: it is thrown and
/// caught inside the same shared library, so nothing of it crosses the boundary.
#pragma once

#include <string>
#include <utility>

#include "cctx/sdk/abi.hpp"

namespace cctx::sdk::kit {

/// A rule's early end. Not a std::exception on purpose: a plugin's own `catch (std::exception&)`
/// around library code must not swallow it.
class RuleError final {
 public:
  /// A failure the wrapper reports to the sink as `fail(code, message)`.
  RuleError(Status code, std::string message) : code_(code), message_(std::move(message)) {}

  /// An end whose status is already settled: the sink has been told (a sink call returned
  /// `status`), or the rule is complete (kOk). The wrapper returns `status` and reports nothing.
  static RuleError settled(Status status) {
    RuleError e(status, std::string());
    e.settled_ = true;
    return e;
  }

  Status code() const noexcept { return code_; }
  const std::string& message() const noexcept { return message_; }
  bool is_settled() const noexcept { return settled_; }

 private:
  Status code_;
  std::string message_;
  bool settled_ = false;
};

/// Ends the rule: the node breaks the operator's contract (kInvalidArgument). The host prefixes
/// the node's identity, so the message says only what is wrong. Declared to return Status so that
/// `return fail("...");` reads naturally; it never returns.
[[noreturn]] inline Status fail(std::string message) {
  throw RuleError(Status::kInvalidArgument, std::move(message));
}

/// Ends the rule: it cannot answer for this node (kUnsupported), e.g. an attribute it does not
/// know or a scratch estimate that needs a shape it does not have.
[[noreturn]] inline Status unsupported(std::string message) {
  throw RuleError(Status::kUnsupported, std::move(message));
}

/// Ends the rule with `status` when it is not kOk. For the result of a sink call or of a helper
/// that returns a Status: the sink already knows of the failure, so nothing more is reported.
inline void check(Status status) {
  if (status != Status::kOk) throw RuleError::settled(status);
}

/// Ends the rule now with `status` (kOk: the rule has said all it can, e.g. after setting an
/// unknown shape), from inside a helper that has no Status to return.
[[noreturn]] inline Status finish(Status status) { throw RuleError::settled(status); }

}  // namespace cctx::sdk::kit
