// The SDK's rule kit through the real `cctx` binary and a real plugin written with it only
// (fixtures/kit_rules.cpp: sdk/README.md's ten-line element-wise plugin plus a rule using the
// kit's early ends). Each early end must reach the user as the rule's own message.
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

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// The model built by `build` and a profile loading the kit fixture after the ai.onnx plugin;
/// returns the arguments naming both.
template <class Build>
std::string write_model(const test::TempDir& dir, Build build) {
  test::ModelBuilder b(18);
  b.opset("com.acme", 1);
  build(b);
  std::ofstream(dir / "m.onnx", std::ios::binary) << b.build().proto().SerializeAsString();
  std::ofstream(dir / "p.yaml") << "plugins:\n  - name: onnx\n  - path: '" << FIXTURE_KIT_RULES
                                << "'\n";
  return quoted(dir / "m.onnx") + " --profile " + quoted(dir / "p.yaml");
}

/// The words of `shapes_table`'s row for value `name`.
std::vector<std::string> row(const std::string& shapes_table, const std::string& name) {
  std::istringstream table(shapes_table);
  std::string line;
  while (std::getline(table, line)) {
    std::istringstream cells(line);
    std::vector<std::string> words{std::istream_iterator<std::string>(cells), {}};
    if (!words.empty() && words[0] == name) return words;
  }
  return {};
}

TEST(PluginKit, ElementwiseOpOfTheReadmeGetsItsShapeAndReusesItsInput) {
  test::TempDir dir;
  const std::string args = write_model(dir, [](test::ModelBuilder& b) {
    b.input("X", test::kFloat, {"N", 7});
    b.node("Relu", {"X"}, {"T"});
    b.node("FusedGelu", {"T"}, {"Y"}, {}, "com.acme", "gelu");
    b.output("Y");
  });
  auto shapes = test::run_cctx("shapes " + args);
  ASSERT_EQ(shapes.exit_code, 0) << shapes.err;
  EXPECT_EQ(shapes.err, "");
  const std::vector<std::string> y = row(shapes.out, "Y");
  ASSERT_GE(y.size(), 3u) << shapes.out;
  EXPECT_EQ(y[1], "float32") << shapes.out;
  EXPECT_EQ(y[2], "[N,7]") << shapes.out;
  auto json = test::run_cctx("analyze " + args + " --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_TRUE(has(json.out, "\"mode\": \"may_reuse\"")) << json.out;
  EXPECT_TRUE(has(json.out, "\"rule_failures\": []")) << json.out;
}

TEST(PluginKit, UnifiedDimsAreKept) {
  test::TempDir dir;
  const std::string args = write_model(dir, [](test::ModelBuilder& b) {
    b.input("A", test::kFloat, {"N", "K"});
    b.input("B", test::kFloat, {5});
    b.node("Pair", {"A", "B"}, {"Y"}, {}, "com.acme", "pair");
    b.output("Y");
  });
  auto shapes = test::run_cctx("shapes " + args);
  ASSERT_EQ(shapes.exit_code, 0) << shapes.err;
  EXPECT_EQ(shapes.err, "");
  const std::vector<std::string> y = row(shapes.out, "Y");
  ASSERT_GE(y.size(), 3u) << shapes.out;
  EXPECT_EQ(y[2], "[N,5]") << shapes.out;  // the concrete side of K = 5
}

/// Runs `cctx analyze --format json` on a one-Pair model (B is [4]).
test::RunResult run_pair(const test::TempDir& dir, const std::vector<std::string>& inputs,
                         const test::ShapeSpec& a) {
  const std::string args = write_model(dir, [&](test::ModelBuilder& m) {
    m.input("A", test::kFloat, a);
    m.input("B", test::kFloat, {4});
    m.node("Pair", inputs, {"Y"}, {}, "com.acme", "pair");
    m.output("Y");
  });
  return test::run_cctx("analyze " + args + " --format json");
}

TEST(PluginKit, EachEarlyEndReachesTheUserAsTheRulesMessage) {
  {
    test::TempDir dir;
    auto r = run_pair(dir, {"A", ""}, {"N", 3});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(has(r.err, "expects at least 2 inputs; input 1 is missing")) << r.err;
    EXPECT_TRUE(has(r.err, "the shape rule of acme_kit 1.0.0 (")) << r.err;
    EXPECT_TRUE(has(r.out, "\"message\": \"expects at least 2 inputs; input 1 is missing\""))
        << r.out;
  }
  {
    test::TempDir dir;
    auto r = run_pair(dir, {"A", "B"}, {"N", 3});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(has(r.err, "last dims differ: 3 vs 4")) << r.err;
  }
  {
    test::TempDir dir;
    auto r = run_pair(dir, {"A", "B"}, test::ShapeSpec(std::vector<test::DimSpec>{}));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(has(r.err, "A must have rank >= 1")) << r.err;
    EXPECT_TRUE(has(r.out, "\"kind\": \"shape\"")) << r.out;
  }
}

}  // namespace
}  // namespace cctx
