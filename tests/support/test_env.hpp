// Paths of the build tree handed to the tests by CMake, and small helpers shared by test files.
#pragma once

#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <string>

#include "cctx/compute_context.hpp"
#include "cctx/host.hpp"
#include "cctx/model.hpp"
#include "cctx/profile.hpp"

namespace cctx::test {

inline std::filesystem::path source_dir() { return CCTX_TEST_SOURCE_DIR; }
inline std::filesystem::path plugin_dir() { return CCTX_TEST_PLUGIN_DIR; }
inline std::filesystem::path profile_dir() { return CCTX_TEST_PROFILE_DIR; }
inline std::filesystem::path cctx_binary() { return CCTX_TEST_BINARY; }
inline std::filesystem::path seed_model() { return source_dir() / "examples/seed/seed.onnx"; }

/// The built default profile (loads the real libcctx_onnx.so).
inline Profile default_profile() { return load_profile(profile_dir() / "default.yaml"); }

/// A host whose plugins are found in the build tree.
inline std::unique_ptr<Host> make_host(Profile profile) {
  return std::make_unique<Host>(std::move(profile),
                                std::vector<std::filesystem::path>{plugin_dir()});
}

/// A fresh, empty temporary folder removed at destruction.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "cctx-test-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

/// `p` in single quotes for the shell command of run_cctx.
std::string quoted(const std::filesystem::path& p);
/// The whole file as bytes ("" when it cannot be read).
std::string read_file(const std::filesystem::path& p);
/// Replaces the file with `bytes`.
void write_file(const std::filesystem::path& p, const std::string& bytes);

/// Result of running the real `cctx` binary.
struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// Runs build/bin/cctx with `args` (a shell-quoted string), capturing stdout and stderr.
/// `prefix` is put before the binary (e.g. "setpriv --reuid=65534 ..." to drop root).
RunResult run_cctx(const std::string& args, const std::string& prefix = "");

/// Whether `needle` occurs in `text`.
bool contains(const std::string& text, const std::string& needle);

/// The bad-input contract of one run (docs/robustness.md, "Bad input"): exit code `code`, one line
/// on stderr holding every needle, nothing on stdout. Records gtest failures.
void expect_error(const RunResult& r, int code, std::initializer_list<std::string> needles);

}  // namespace cctx::test
