// Report files (figures, HTML) are written whole or not at all: a temporary file in the target
// folder, renamed into place once complete.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "cctx/errors.hpp"
#include "cctx/report.hpp"

namespace cctx {

void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  std::string temp = (dir / ("." + path.filename().string() + ".cctx-XXXXXX")).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    throw Error(path.string() + ": cannot create a file in " + dir.string() + " (" +
                std::strerror(errno) + ")");
  }
  ::close(fd);
  std::ofstream out(temp, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    std::remove(temp.c_str());
    throw Error(path.string() + ": write failed");
  }
  std::error_code ignored;  // the default mode is only less convenient, not wrong
  std::filesystem::permissions(temp, std::filesystem::perms(0644), ignored);
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(temp.c_str());
    throw Error(path.string() + ": cannot replace the file (" + std::strerror(err) + ")");
  }
}

}  // namespace cctx
