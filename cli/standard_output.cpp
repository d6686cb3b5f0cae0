// Standard output with its failures reported: `cctx analyze big.onnx --format json > out.json` on
// a full disk must end with an error and a non-zero exit, not a truncated file and status 0.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "cctx/errors.hpp"
#include "cli_common.hpp"

namespace cctx::cli {

namespace {
[[noreturn]] void cannot_write(int error) {
  throw Error(std::string("cannot write to standard output: ") + std::strerror(error),
              ExitCode::kOutput);
}
}  // namespace

void write_stdout(std::string_view text) {
  // std::cout is synchronised with stdio (the default), so both go through the one FILE buffer
  // in order, and ferror(stdout) also sees what std::cout failed to write.
  errno = 0;
  // glibc's fwrite may report a whole count when the flush inside it failed and only set the
  // stream's error flag: both are checked, while errno still holds the reason.
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::ferror(stdout) != 0)
    cannot_write(errno == 0 ? EIO : errno);
}

namespace {
ExitCode g_success_exit_code = ExitCode::kOk;
}  // namespace

void set_success_exit_code(ExitCode code) { g_success_exit_code = code; }
int success_exit_code() { return static_cast<int>(g_success_exit_code); }

void flush_stdout() {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) cannot_write(errno == 0 ? EIO : errno);
}

// Whether this build checks for leaks at exit (AddressSanitizer's LeakSanitizer).
#if defined(__SANITIZE_ADDRESS__)
#define CCTX_LEAK_CHECKED_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define CCTX_LEAK_CHECKED_BUILD 1
#endif
#endif

void end_process_after_output() {
  flush_stdout();
  std::cerr.flush();
  std::clog.flush();
#ifndef CCTX_LEAK_CHECKED_BUILD
  // Like a compiler that does not free its trees before exiting: on a 10k-node model, unwinding
  // freed the model's arena, the analysis, the report writer and each plugin (dlclose) one by one,
  // and the worker thread's exit handed its allocator caches back, for 2-3 ms of a 55 ms run. The
  // kernel takes the whole address space back at once. Nothing else is pending: no temporary
  // files, and every output file was committed before the report was written.
  std::_Exit(0);
#endif
}

}  // namespace cctx::cli
