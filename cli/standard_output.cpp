// Standard output with its failures reported: `cctx analyze big.onnx --format json > out.json` on
// a full disk must end with an error and a non-zero exit, not a truncated file and status 0.
#include <cerrno>
#include <cstdio>
#include <cstring>
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

void flush_stdout() {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) cannot_write(errno == 0 ? EIO : errno);
}

}  // namespace cctx::cli
