// The fatal-signal handler of the `cctx` command and the "which rule is running" marker it reads.
// Everything the handler touches is a static buffer filled before the rule runs; it calls only
// write(2), signal(2) and raise(3), which are async-signal-safe.
#include "cctx/crash_report.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace cctx {

namespace {

constexpr std::size_t kCapacity = 1024;
char g_running[kCapacity];           // "plugin 'onnx 0.1.0 (/x.so)', shape rule of ai.onnx::Relu"
volatile sig_atomic_t g_length = 0;  // 0: no rule is running
char g_alt_stack[1 << 16];           // the handler's stack when the main one has overflowed

void append(std::size_t& at, std::string_view text) {
  const std::size_t n = std::min(text.size(), kCapacity - at);
  std::memcpy(g_running + at, text.data(), n);
  at += n;
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGABRT:
      return "SIGABRT";
    default:
      return "a fatal signal";
  }
}

void write_all(const char* text, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(STDERR_FILENO, text, size);
    if (n <= 0) return;
    text += n;
    size -= static_cast<std::size_t>(n);
  }
}
void write_text(const char* text) { write_all(text, std::strlen(text)); }

void on_fatal_signal(int sig) {
  write_text("cctx: fatal signal ");
  write_text(signal_name(sig));
  const std::size_t length = static_cast<std::size_t>(g_length);
  if (length > 0) {
    write_text(" in ");
    write_all(g_running, length);
    write_text("; the plugin crashed the process\n");
  } else {
    write_text(" (internal error: please report it)\n");
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

void install_crash_reporter() {
  stack_t alt{};
  alt.ss_sp = g_alt_stack;
  alt.ss_size = sizeof g_alt_stack;
  ::sigaltstack(&alt, nullptr);
  struct sigaction action {};
  action.sa_handler = &on_fatal_signal;
  action.sa_flags = SA_ONSTACK | SA_RESETHAND;
  ::sigemptyset(&action.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::sigaction(sig, &action, nullptr);
}

RunningRule::RunningRule(std::string_view origin, std::string_view kind, std::string_view domain,
                         std::string_view op) noexcept
    : outer_(g_length != 0) {
  if (outer_) return;
  std::size_t at = 0;
  append(at, "plugin '");
  append(at, origin);
  append(at, "', ");
  append(at, kind);
  append(at, " rule of ");
  append(at, domain.empty() ? std::string_view("ai.onnx") : domain);
  append(at, "::");
  append(at, op);
  g_length = static_cast<sig_atomic_t>(at);
}

RunningRule::~RunningRule() {
  if (!outer_) g_length = 0;
}

}  // namespace cctx
