// Plugins that misbehave, through the real `cctx` binary: a rule that throws is contained (a
// warning naming the plugin, the analysis goes on); a rule that crashes the process cannot be
// contained, but the line printed before the process dies names the plugin and the rule.
#include <gtest/gtest.h>

#include <fstream>

#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::quoted;

/// X -> com.test::Foo -> Y -> Relu -> Z, and the profile that loads `plugin` after the ai.onnx
/// one, written into `dir`; returns the arguments naming both.
std::string write_model(const char* plugin, const test::TempDir& dir) {
  test::ModelBuilder b(18);
  b.opset("com.test", 1);
  b.input("X", test::kFloat, {"N", 4});
  b.node("Foo", {"X"}, {"Y"}, {}, "com.test", "suspect");
  b.node("Relu", {"Y"}, {"Z"});
  b.output("Z");
  {
    std::ofstream out(dir / "m.onnx", std::ios::binary);
    out << b.build().proto().SerializeAsString();
    std::ofstream profile(dir / "p.yaml");
    profile << "plugins:\n  - name: onnx\n  - path: '" << plugin << "'\n";
  }
  return quoted(dir / "m.onnx") + " --profile " + quoted(dir / "p.yaml");
}

test::RunResult analyze_with(const char* plugin, const test::TempDir& dir,
                             const std::string& extra = "") {
  return test::run_cctx("analyze " + write_model(plugin, dir) + extra);
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(PluginMisbehaviour, RuleThatThrowsIsContained) {
  test::TempDir dir;
  auto r = analyze_with(FIXTURE_RULE_THROWS, dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("index out of range in Foo rule"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rule_throws"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("Peak total bytes"), std::string::npos) << r.out;
}

// A failed rule is in plain sight whatever the format: its warning on stderr (naming the rule and
// its message), the fallback's warning saying the rule failed rather than that none exists.
TEST(PluginMisbehaviour, RuleFailureIsOnStderrInEveryFormat) {
  test::TempDir dir;
  for (const char* format : {"table", "json", "csv", "html"}) {
    auto r = analyze_with(FIXTURE_RULE_THROWS, dir, std::string(" --format ") + format);
    EXPECT_EQ(r.exit_code, 0) << format << ": " << r.err;
    EXPECT_TRUE(has(r.err,
                    "warning: node 0 'suspect' (com.test:Foo): index out of range in Foo "
                    "rule (shape rule rule_throws 0.1 ("))
        << format << ": " << r.err;
    EXPECT_TRUE(has(r.err, "the shape rule of rule_throws 0.1 (")) << format << ": " << r.err;
    EXPECT_FALSE(has(r.err, "no shape rule")) << format << ": " << r.err;
  }
  auto quiet = analyze_with(FIXTURE_RULE_THROWS, dir, " --format json --quiet");
  EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
  // The report keeps them: the warnings and the failure itself, with the rule's message.
  EXPECT_TRUE(has(quiet.out, "\"rule_failures\": [")) << quiet.out;
  EXPECT_TRUE(has(quiet.out, "\"message\": \"index out of range in Foo rule\"")) << quiet.out;
  EXPECT_TRUE(has(quiet.out, "\"kind\": \"shape\"")) << quiet.out;
}

// An --eval that cannot finish because a rule failed names the rule, its plugin and its message,
// not only the symbol that stands for its unknown result.
TEST(PluginMisbehaviour, EvalStoppedByAFailedRuleNamesIt) {
  test::TempDir dir;
  auto r = analyze_with(FIXTURE_RULE_THROWS, dir, " --format json --eval N=3");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "--eval: cannot evaluate the totals: the shape rule of rule_throws 0.1 ("))
      << r.err;
  EXPECT_TRUE(has(r.err,
                  "failed at node 0 'suspect' (com.test:Foo): index out of range in Foo "
                  "rule; the totals depend on 'bytes_Y'"))
      << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  // Giving the unknown a value still evaluates, as before.
  auto given = analyze_with(FIXTURE_RULE_THROWS, dir,
                            " --eval N=3 --eval bytes_Y=48 --eval bytes_Z=48 --quiet");
  EXPECT_EQ(given.exit_code, 0) << given.err;
}

// `explain` lists the rules of the node that failed, in the table and in JSON.
TEST(PluginMisbehaviour, ExplainShowsFailedRules) {
  test::TempDir dir;
  const std::string args = write_model(FIXTURE_RULE_THROWS, dir);
  auto table = test::run_cctx("explain " + args + " 0");
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_TRUE(has(table.out, "  failed: the shape rule of rule_throws 0.1 (")) << table.out;
  EXPECT_TRUE(has(table.out, "): index out of range in Foo rule\n")) << table.out;
  EXPECT_TRUE(has(table.err, "index out of range in Foo rule")) << table.err;
  auto json = test::run_cctx("explain " + args + " 0 --format json --quiet");
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_TRUE(has(json.out, "\"rule_failures\": [\n    {\n      \"kind\": \"shape\"")) << json.out;
  EXPECT_EQ(json.err, "");
  // Node 1 (Relu) has a rule that worked: nothing listed.
  auto relu = test::run_cctx("explain " + args + " 1 --format json --quiet");
  EXPECT_TRUE(has(relu.out, "\"rule_failures\": []")) << relu.out;
}

// A scratch estimate that fails: the --eval error names the estimator's plugin and message.
TEST(PluginMisbehaviour, EvalStoppedByAFailedEstimateNamesIt) {
  test::TempDir dir;
  test::ModelBuilder b(18);
  b.opset("com.test", 1);
  b.input("X", test::kFloat, {"N", 4});
  b.node("Reshape", {"X", "S"}, {"R"});  // S unknown: R has an unknown rank
  b.input("S", test::kInt64, {"K"});
  b.node("Foo", {"R"}, {"Y"}, {}, "com.test", "suspect");
  b.output("Y");
  {
    std::ofstream out(dir / "m.onnx", std::ios::binary);
    out << b.build().proto().SerializeAsString();
    std::ofstream profile(dir / "p.yaml");
    profile << "plugins:\n  - name: onnx\n  - path: '" << FIXTURE_GOOD << "'\n";
  }
  // The unknown-rank values' sizes are given: only the failed estimate is left.
  auto e =
      test::run_cctx("analyze " + quoted(dir / "m.onnx") + " --profile " + quoted(dir / "p.yaml") +
                     " --eval N=2 --eval K=3 --eval bytes_R=24 --eval bytes_Y=24 --quiet");
  EXPECT_EQ(e.exit_code, 2) << e.err;
  EXPECT_TRUE(has(e.err, "the scratch rule of good 1.2.3 (")) << e.err;
  EXPECT_TRUE(has(e.err, "failed at node 1 'suspect' (com.test:Foo): unknown rank")) << e.err;
}

TEST(PluginMisbehaviour, RuleThatCrashesIsNamedBeforeTheProcessDies) {
  test::TempDir dir;
  auto r = analyze_with(FIXTURE_CRASHES_IN_RULE, dir);
  EXPECT_EQ(r.exit_code, 128 + 11) << r.err;  // killed by SIGSEGV, not a tidy exit
  EXPECT_NE(r.err.find("cctx: fatal signal SIGSEGV in plugin 'crashes_in_rule 0.1"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("shape rule of com.test::Foo"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

}  // namespace
}  // namespace cctx
