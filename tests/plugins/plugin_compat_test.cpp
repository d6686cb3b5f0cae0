// Binary compatibility through the real `cctx` binary: one plugin source built against a copy of
// SDK 1.1's headers and against today's SDK loads and answers the same, and the toolchain check
// refuses only the flags that change a layout, naming them.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::quoted;

/// X[N,4] -> Scale -> Y -> Small -> Z -> Repeat -> S -> SequenceLength -> L, with a profile that
/// loads `plugin` after the ai.onnx one; returns the arguments naming both.
std::string write_model(const std::string& plugin, const test::TempDir& dir,
                        const std::string& plugin_extra = "") {
  test::ModelBuilder b(18);
  b.opset("com.legacy", 1);
  b.input("X", test::kFloat, {"N", 4});
  b.node("Scale", {"X"}, {"Y"}, {}, "com.legacy", "scale");
  b.node("Small", {"Y"}, {"Z"}, {}, "com.legacy", "small");
  b.node("Repeat", {"Z"}, {"S"}, {}, "com.legacy", "repeat");
  b.node("SequenceLength", {"S"}, {"L"});
  b.output("Z");
  b.output("L");
  std::ofstream(dir / "m.onnx", std::ios::binary) << b.build().proto().SerializeAsString();
  std::ofstream(dir / "p.yaml") << "plugins:\n  - name: onnx\n  - path: '" << plugin << "'\n"
                                << plugin_extra;
  return quoted(dir / "m.onnx") + " --profile " + quoted(dir / "p.yaml");
}

/// `text` with every occurrence of `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
    text.replace(at, from.size(), to);
    at += to.size();
  }
  return text;
}

TEST(PluginCompat, PluginBuiltAgainstSdk11AnswersAsToday) {
  test::TempDir old_dir, new_dir;
  const std::string evaluate = " --format json --eval N=5";
  auto old_run = test::run_cctx("analyze " + write_model(FIXTURE_LEGACY_1_1, old_dir) + evaluate);
  auto new_run = test::run_cctx("analyze " + write_model(FIXTURE_LEGACY_TODAY, new_dir) + evaluate);
  ASSERT_EQ(old_run.exit_code, 0) << old_run.err;
  ASSERT_EQ(new_run.exit_code, 0) << new_run.err;
  EXPECT_EQ(old_run.err, "");
  EXPECT_EQ(new_run.err, "");
  // Byte for byte, but for the plugin's file and the model's folder.
  EXPECT_EQ(
      replaced(replaced(old_run.out, FIXTURE_LEGACY_1_1, "PLUGIN"), old_dir.path().string(), "DIR"),
      replaced(replaced(new_run.out, FIXTURE_LEGACY_TODAY, "PLUGIN"), new_dir.path().string(),
               "DIR"));
  // And the answers are the rules' answers: handle and constant scratch, the symbolic length.
  EXPECT_NE(old_run.out.find("\"peak_scratch_bytes\": \"48*N\""), std::string::npos) << old_run.out;
  EXPECT_NE(old_run.out.find("\"peak_scratch_bytes\": 4096"), std::string::npos) << old_run.out;
  auto shapes = test::run_cctx("shapes " + write_model(FIXTURE_LEGACY_1_1, old_dir));
  // The sequence's symbolic length reaches SequenceLength: L holds the value [N].
  std::istringstream table(shapes.out);
  std::string line;
  std::vector<std::string> row;
  while (std::getline(table, line)) {
    std::istringstream cells(line);
    std::vector<std::string> words{std::istream_iterator<std::string>(cells), {}};
    if (!words.empty() && words[0] == "L") row = words;
  }
  EXPECT_EQ(row, (std::vector<std::string>{"L", "int64", "[]", "[N]", "weight"})) << shapes.out;
}

TEST(PluginCompat, HardeningAssertionsAreAccepted) {
  test::TempDir dir;
  auto r = test::run_cctx("analyze " + write_model(FIXTURE_HARDENED, dir) + " --eval N=5");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

// Plugins built with another C++ runtime (the pre-C++11 string ABI of manylinux2014 and
// devtoolset, libstdc++'s debug containers, SDK 1.1's ambiguous check bit) are real builds of the
// same source: each loads with one warning naming the flag, and answers byte for byte as the
// plugin built like cctx; `toolchain: strict` refuses each, naming the flag.
TEST(PluginCompat, OtherRuntimesLoadWithAWarningAndAnswerTheSame) {
  test::TempDir base_dir;
  const std::string evaluate = " --format csv --eval N=5 --quiet";
  auto base = test::run_cctx("analyze " + write_model(FIXTURE_LEGACY_TODAY, base_dir) + evaluate);
  ASSERT_NE(base.out.find("48"), std::string::npos) << base.out;
  ASSERT_EQ(base.exit_code, 0) << base.err;
  const std::string expected =
      replaced(replaced(base.out, FIXTURE_LEGACY_TODAY, "PLUGIN"), base_dir.path().string(), "DIR");
  struct Variant {
    const char* plugin;
    const char* difference;
  };
  for (const Variant& v : {
           Variant{FIXTURE_OLD_STRING_ABI,
                   "built with _GLIBCXX_USE_CXX11_ABI=0, but cctx uses _GLIBCXX_USE_CXX11_ABI=1"},
           Variant{FIXTURE_DEBUG_LAYOUT,
                   "built with _GLIBCXX_DEBUG, but cctx was built without it"},
           Variant{FIXTURE_LEGACY_1_1_HARDENED,
                   "built with _GLIBCXX_DEBUG or _GLIBCXX_ASSERTIONS, which SDK 1.1 headers do "
                   "not tell apart, but cctx without _GLIBCXX_DEBUG"},
#ifdef FIXTURE_LIBCXX
           Variant{FIXTURE_LIBCXX, "built with libc++, but cctx uses libstdc++"},
#endif
       }) {
    test::TempDir dir;
    auto r = test::run_cctx("analyze " + write_model(v.plugin, dir) + " --eval N=5");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, std::string("warning: ") + v.plugin + ": " + v.difference +
                         "; loaded all the same, as no C++ library type crosses the plugin "
                         "boundary ('toolchain: strict' refuses it)\n");
    // The same figures, node by node (the CSV report has no warnings list).
    auto csv = test::run_cctx("analyze " + write_model(v.plugin, dir) + evaluate);
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    EXPECT_EQ(replaced(replaced(csv.out, v.plugin, "PLUGIN"), dir.path().string(), "DIR"), expected)
        << v.plugin;

    auto strict =
        test::run_cctx("analyze " + write_model(v.plugin, dir, "    toolchain: strict\n"));
    EXPECT_EQ(strict.exit_code, 3) << strict.err;
    EXPECT_EQ(strict.err, std::string("cctx: ") + v.plugin + ": " + v.difference +
                              " (the profile says toolchain: strict); rebuild the plugin with the "
                              "same C++ runtime as cctx\n");
  }
}

// A plugin compiled with -fno-exceptions (the fixture refuses to compile otherwise) from
// plugin_entry.hpp and shape_helpers.hpp: its shape, reuse and scratch reach the report.
TEST(PluginCompat, PluginWithoutExceptionsAnswers) {
  test::TempDir dir;
  test::ModelBuilder b(18);
  b.opset("com.noexc", 1);
  b.input("X", test::kFloat, {"N", 4});
  b.node("Scale", {"X"}, {"Y"}, {}, "com.noexc", "scale");
  b.node("Relu", {"Y"}, {"Z"});
  b.output("Z");
  std::ofstream(dir / "m.onnx", std::ios::binary) << b.build().proto().SerializeAsString();
  std::ofstream(dir / "p.yaml") << "plugins:\n  - name: onnx\n  - path: '" << FIXTURE_NO_EXCEPTIONS
                                << "'\n";
  auto r = test::run_cctx("analyze " + quoted(dir / "m.onnx") + " --profile " +
                          quoted(dir / "p.yaml") + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("\"peak_scratch_bytes\": \"32*N\""), std::string::npos) << r.out;
  auto shapes =
      test::run_cctx("shapes " + quoted(dir / "m.onnx") + " --profile " + quoted(dir / "p.yaml"));
  EXPECT_NE(shapes.out.find("  Y      float32  [N,4]"), std::string::npos) << shapes.out;
}

#ifdef FIXTURE_ASAN
// A plugin built with gcc's -fsanitize=address: a sanitizer build of cctx (this test's own build
// is one when it was compiled with ASan) runs it; any other refuses it before loading it, in one
// line, where dlopen would have ended the process with ASan's start-up complaint.
TEST(PluginCompat, SanitizedPluginRunsInASanitizerBuildOnly) {
  test::TempDir dir;
  test::ModelBuilder b(18);
  b.opset("com.test", 1);
  b.input("X", test::kFloat, {"N", 4});
  b.node("Foo", {"X"}, {"Y"}, {}, "com.test");
  b.output("Y");
  std::ofstream(dir / "m.onnx", std::ios::binary) << b.build().proto().SerializeAsString();
  std::ofstream(dir / "p.yaml") << "plugins:\n  - name: onnx\n  - path: '" << FIXTURE_ASAN << "'\n";
  auto r = test::run_cctx("analyze " + quoted(dir / "m.onnx") + " --profile " +
                          quoted(dir / "p.yaml") + " --eval N=2 --quiet");
#if defined(__SANITIZE_ADDRESS__)
  EXPECT_EQ(r.exit_code, 0) << r.err;
#else
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.err.find("cctx: " + std::string(FIXTURE_ASAN) +
                       ": built with -fsanitize=address (it needs libasan.so"),
            0u)
      << r.err;
  EXPECT_NE(r.err.find("), but this cctx has no such runtime; load it into a cctx built with the "
                       "same sanitizer"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
#endif
}
#endif

}  // namespace
}  // namespace cctx
