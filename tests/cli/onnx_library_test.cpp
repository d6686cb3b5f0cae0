// ONNX's own inference (libonnx) lives in cctx's module libcctx_onnx_library.so, opened only when
// an analysis needs it (pipeline/onnx_library.hpp): through the real binary, with the dynamic
// loader's log of the files it opens (LD_DEBUG=files).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "test_env.hpp"

namespace cctx {
namespace {

namespace fs = std::filesystem;
using test::quoted;
using test::run_cctx;

std::string model(const char* name) { return quoted(test::source_dir() / "tests/models" / name); }

bool opened(const test::RunResult& r, const std::string& file) {
  return r.err.find("file=" + file) != std::string::npos;
}

TEST(OnnxLibrary, NotLoadedWhenEveryOperatorHasARule) {
  const auto r = run_cctx("analyze " + model("cnn.onnx") + " --format json", "env LD_DEBUG=files");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(opened(r, "libstdc++.so.6")) << r.err;  // the loader's log is there
  EXPECT_FALSE(opened(r, "libonnx.so")) << r.err;
  EXPECT_EQ(r.err.find("libcctx_onnx_library.so"), std::string::npos) << r.err;
#ifdef CCTX_STATIC_ONNX_MESSAGES
  // The executable's ONNX messages and protobuf are its own, linked statically
  // (framework/CMakeLists.txt, cctx_onnx_messages): neither shared library is loaded at start.
  EXPECT_FALSE(opened(r, "libonnx_proto.so")) << r.err;
  EXPECT_FALSE(opened(r, "libprotobuf.so")) << r.err;
#endif
}

TEST(OnnxLibrary, LoadedForOnnxSchemaInference) {
  const auto r =
      run_cctx("analyze " + model("cnn.onnx") + " --profile no-plugins", "env LD_DEBUG=files");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(opened(r, "libonnx.so")) << r.err;
  EXPECT_NE(r.err.find("libcctx_onnx_library.so"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(Conv): no cctx shape rule; used ONNX schema inference"), std::string::npos)
      << r.err;
}

#ifdef CCTX_EXECUTABLE_MALLOC
// Strings and vectors cross between the executable and libonnx's module (onnx_library.hpp), and
// the executable links its own libstdc++ while the libraries it loads bring the shared one
// (cli/CMakeLists.txt): every copy must allocate from the executable's malloc, or memory freed
// on one side would come from another heap.
TEST(OnnxLibrary, LoadedLibrariesAllocateFromTheExecutablesMalloc) {
  const auto r =
      run_cctx("analyze " + model("cnn.onnx") + " --profile no-plugins", "env LD_DEBUG=bindings");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int from_shared_libstdcxx = 0;
  std::istringstream log(r.err);
  for (std::string line; std::getline(log, line);) {
    if (line.find("normal symbol `malloc'") == std::string::npos &&
        line.find("normal symbol `free'") == std::string::npos) {
      continue;
    }
    const std::size_t to = line.find(" to ");
    ASSERT_NE(to, std::string::npos) << line;
    // "binding file LIB [0] to OBJECT [0]: ...": OBJECT must be the executable, never libc.
    EXPECT_EQ(line.find("libc.so", to), std::string::npos) << line;
    if (line.find("libstdc++.so") < to) ++from_shared_libstdcxx;
  }
  EXPECT_GT(from_shared_libstdcxx, 0) << "libstdc++.so's malloc was never bound:\n" << r.err;
}
#endif

TEST(OnnxLibrary, LoadedForTheRuntimeShapesOfTheFreeListPlanner) {
  const auto r =
      run_cctx("analyze " + model("cnn.onnx") + " --profile onnxruntime-cpu-unoptimized-no-arena",
               "env LD_DEBUG=files");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(opened(r, "libonnx.so")) << r.err;
}

// An installation without the module: the analysis that needs it stops with one line naming the
// file; one that does not need it is not affected.
TEST(OnnxLibrary, MissingModuleIsAnErrorOfTheInstallation) {
  test::TempDir prefix;
  fs::create_directories(prefix / "bin");
  fs::create_directories(prefix / "lib/cctx");
  fs::copy_file(test::cctx_binary(), prefix / "bin/cctx");
  fs::copy(test::plugin_dir(), prefix / "lib/cctx/plugins", fs::copy_options::recursive);
  fs::create_directories(prefix / "share/cctx");
  fs::copy(test::profile_dir(), prefix / "share/cctx/profiles", fs::copy_options::recursive);
  auto run = [&](const std::string& args) {
    const std::string err = (prefix / "err").string();
    const std::string command = quoted(prefix / "bin/cctx") + " " + args + " >/dev/null 2>" + err;
    const int status = std::system(command.c_str());
    return std::pair{WIFEXITED(status) ? WEXITSTATUS(status) : -1, test::read_file(err)};
  };
  const auto [fine, fine_err] = run("analyze " + model("cnn.onnx"));
  EXPECT_EQ(fine, 0) << fine_err;
  const auto [code, err] = run("analyze " + model("cnn.onnx") + " --profile no-plugins");
  EXPECT_EQ(code, 3) << err;
  EXPECT_NE(err.find("cannot load " + (prefix / "lib/cctx/libcctx_onnx_library.so").string()),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find('\n'), err.size() - 1) << err;
}

}  // namespace
}  // namespace cctx
