// The fatal-signal handler of the `cctx` command and the "which rule is running" marker it reads.
// Everything the handler touches is a static buffer filled before the rule runs; it calls only
// write(2), signal(2) and raise(3), which are async-signal-safe.
#include "cctx/crash_report.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstring>

#include "cctx/output_file.hpp"

namespace cctx {

namespace {

// The running rule, as the four pieces of "plugin 'ORIGIN', KIND rule of DOMAIN::OP". Only the
// views are stored (a rule runs for every node: formatting the line each time was a measurable
// share of a million-node analysis); the texts they point at (the registry's origin, the model's
// op names) outlive the rule call. The handler reads them with write(2) only.
struct Piece {
  const char* data;
  std::size_t size;
};
Piece g_pieces[4];
volatile sig_atomic_t g_running = 0;  // 0: no rule is running
char g_alt_stack[1 << 16];            // the handler's stack when the main one has overflowed

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
  if (g_running != 0) {
    write_text(" in plugin '");
    write_all(g_pieces[0].data, g_pieces[0].size);
    write_text("', ");
    write_all(g_pieces[1].data, g_pieces[1].size);
    write_text(" rule of ");
    write_all(g_pieces[2].data, g_pieces[2].size);
    write_text("::");
    write_all(g_pieces[3].data, g_pieces[3].size);
    write_text("; the plugin crashed the process\n");
  } else {
    write_text(" (internal error: please report it)\n");
  }
  remove_temporary_files_from_signal();
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
    : outer_(g_running != 0) {
  if (outer_) return;
  if (domain.empty()) domain = "ai.onnx";
  g_pieces[0] = Piece{origin.data(), origin.size()};
  g_pieces[1] = Piece{kind.data(), kind.size()};
  g_pieces[2] = Piece{domain.data(), domain.size()};
  g_pieces[3] = Piece{op.data(), op.size()};
  std::atomic_signal_fence(std::memory_order_seq_cst);  // the pieces are complete before the flag
  g_running = 1;
}

RunningRule::~RunningRule() {
  if (!outer_) g_running = 0;
}

}  // namespace cctx
