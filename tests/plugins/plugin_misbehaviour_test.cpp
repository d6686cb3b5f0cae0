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

/// X -> com.test::Foo -> Y, with the profile that loads `plugin` after the ai.onnx one.
test::RunResult analyze_with(const char* plugin, const test::TempDir& dir) {
  test::ModelBuilder b(18);
  b.opset("com.test", 1);
  b.input("X", test::kFloat, {"N", 4});
  b.node("Foo", {"X"}, {"Y"}, {}, "com.test", "suspect");
  b.output("Y");
  {
    std::ofstream out(dir / "m.onnx", std::ios::binary);
    out << b.build().proto().SerializeAsString();
    std::ofstream profile(dir / "p.yaml");
    profile << "plugins:\n  - name: onnx\n  - path: '" << plugin << "'\n";
  }
  return test::run_cctx("analyze " + quoted(dir / "m.onnx") + " --profile " +
                        quoted(dir / "p.yaml"));
}

TEST(PluginMisbehaviour, RuleThatThrowsIsContained) {
  test::TempDir dir;
  auto r = analyze_with(FIXTURE_RULE_THROWS, dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("index out of range in Foo rule"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rule_throws"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("Peak total bytes"), std::string::npos) << r.out;
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
