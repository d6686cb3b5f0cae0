// Declarative custom ops through the real `cctx` binary: the example vendor's declarative.yaml
// and declarative_model.onnx end to end (shapes, in-place, scratch, peak), `cctx plugins` in its
// three formats, a clash with a plugin's rule (exit 3 naming both; `override: true` replaces it),
// and bad profiles (one line, exit 3).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::quoted;
using test::run_cctx;
using test::write_file;

std::filesystem::path example_dir() { return test::source_dir() / "plugins/example_vendor"; }
std::string example_model() { return quoted(example_dir() / "declarative_model.onnx"); }
std::string example_profile() { return quoted(example_dir() / "declarative.yaml"); }

void expect_one_line_error(const test::RunResult& r, const std::string& expected) {
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.err, "cctx: " + expected + "\n");
  EXPECT_TRUE(r.out.empty()) << r.out;
}

nlohmann::json parse(const std::string& text) { return nlohmann::json::parse(text); }

TEST(CliDeclarativeOps, ExampleModelEndToEnd) {
  auto r = run_cctx("analyze " + example_model() + " --profile " + example_profile() +
                    " --format json --eval batch=2 --eval seq=128");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto doc = parse(r.out);
  const auto& values = doc["values"];
  // ScaledAdd: in0's shape and type.
  EXPECT_EQ(values["h"]["shape"], parse(R"(["batch", "seq", 64])"));
  EXPECT_EQ(values["h"]["dtype"], "float32");
  // SplitHeads: [in0[0], in0[1], attr.num_heads, in0[-1] // attr.num_heads] with num_heads=4.
  EXPECT_EQ(values["hs"]["shape"], parse(R"(["batch", "seq", 4, 16])"));
  // TiledAttention: Q's shape with V's last dim.
  EXPECT_EQ(values["o"]["shape"], parse(R"(["batch", 4, "seq", 16])"));
  // QuantizeRows: attr.to's default (3, int8) and a fixed float32 output.
  EXPECT_EQ(values["oq"]["shape"], parse(R"(["batch", 4, "seq", 16])"));
  EXPECT_EQ(values["oq"]["dtype"], "int8");
  EXPECT_EQ(values["oq"]["bytes"], "64*batch*seq");
  EXPECT_EQ(values["scales"]["shape"], parse(R"(["batch", 4, "seq"])"));
  EXPECT_EQ(values["scales"]["dtype"], "float32");
  EXPECT_EQ(values["scales"]["bytes"], "16*batch*seq");

  const auto& nodes = doc["nodes"];
  ASSERT_EQ(nodes.size(), 6u);
  EXPECT_EQ(nodes[1]["op_type"], "ScaledAdd");
  EXPECT_EQ(nodes[1]["inplace"],
            parse(R"([{"output": 0, "input": 0, "kind": "equal", "mode": "may_reuse"}])"));
  EXPECT_EQ(nodes[1]["memory"]["output_allocation_bytes"], 0);
  EXPECT_EQ(nodes[2]["op_type"], "SplitHeads");
  EXPECT_EQ(nodes[2]["inplace"],
            parse(R"([{"output": 0, "input": 0, "kind": "equal", "mode": "alias"}])"));
  EXPECT_EQ(nodes[2]["memory"]["output_allocation_bytes"], 0);
  EXPECT_EQ(nodes[4]["op_type"], "TiledAttention");
  EXPECT_EQ(nodes[4]["peak_scratch_bytes"], "512*batch*seq");  // 4 * batch * 4 * seq * block=32
  EXPECT_EQ(nodes[5]["memory"]["output_allocation_bytes"], "80*batch*seq");
  for (std::size_t n : {0u, 1u, 2u, 3u, 5u}) EXPECT_EQ(nodes[n]["peak_scratch_bytes"], 0) << n;

  // x and the bias (256*batch*seq + 256), q and o (2 * 256*batch*seq) and the scratch.
  EXPECT_EQ(doc["peak"]["total_bytes"], "1280*batch*seq+256");
  EXPECT_EQ(doc["peak"]["node"], 4);
  EXPECT_EQ(doc["peak"]["evaluations"][0]["bytes"], 1280 * 2 * 128 + 256);
  EXPECT_TRUE(doc["warnings"].empty()) << doc["warnings"];
}

TEST(CliDeclarativeOps, HtmlReportNamesTheProfileOps) {
  auto r =
      run_cctx("analyze " + example_model() + " --profile " + example_profile() + " --format html");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("<b>profile:declarative.yaml</b> (4 declarative ops) <code>" +
                       (example_dir() / "declarative.yaml").string() + "</code>"),
            std::string::npos);
}

TEST(CliDeclarativeOps, PluginsListsTheProfileAsAPseudoPlugin) {
  auto r = run_cctx("plugins --profile " + example_profile() + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = parse(r.out);
  ASSERT_EQ(doc.size(), 2u);
  EXPECT_EQ(doc[0]["name"], "onnx");
  EXPECT_EQ(doc[0]["kind"], "library");
  const auto& p = doc[1];
  EXPECT_EQ(p["name"], "profile:declarative.yaml");
  EXPECT_EQ(p["kind"], "profile");
  EXPECT_EQ(p["path"], (example_dir() / "declarative.yaml").string());
  EXPECT_EQ(p["domains"],
            parse(R"([{"domain": "com.example.simple", "min_version": 1, "max_version": 1}])"));
  EXPECT_EQ(p["ops"], parse(R"({
    "com.example.simple::QuantizeRows": {"shape": [1]},
    "com.example.simple::ScaledAdd": {"inplace": [1], "shape": [1], "tag_traits": [1]},
    "com.example.simple::SplitHeads": {"inplace": [1], "shape": [1]},
    "com.example.simple::TiledAttention": {"scratch": [1], "shape": [1]}})"));

  auto table = run_cctx("plugins --profile " + example_profile());
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("profile:declarative.yaml  (declarative ops)  " +
                           (example_dir() / "declarative.yaml").string() +
                           "\n  domain com.example.simple opsets 1..1\n  4 ops:\n"
                           "    com.example.simple::QuantizeRows: shape@1\n"),
            std::string::npos)
      << table.out;

  auto markdown = run_cctx("plugins --profile " + example_profile() + " --format markdown");
  ASSERT_EQ(markdown.exit_code, 0) << markdown.err;
  EXPECT_NE(markdown.out.find("\n## Declarative ops `profile:declarative.yaml`\n\n"
                              "- domain `com.example.simple`, opsets 1 to 1\n"
                              "- 4 operators: 4 with a shape rule, 2 with an in-place policy, 1 "
                              "with a scratch estimator\n"),
            std::string::npos)
      << markdown.out;
  EXPECT_NE(markdown.out.find("| com.example.simple::ScaledAdd | 1 | traits 1 | 1 |  |\n"),
            std::string::npos)
      << markdown.out;
}

/// com.test::Foo (the `good` fixture plugin's op) on [N, 8].
std::filesystem::path foo_model(const test::TempDir& dir) {
  test::ModelBuilder b(18);
  b.opset("com.test", 1);
  b.input("X", test::kFloat, {"N", 8});
  b.node("Relu", {"X"}, {"R"});
  b.node("Foo", {"R"}, {"Y"}, {}, "com.test");
  b.output("Y", test::kFloat);
  const std::filesystem::path path = dir / "foo.onnx";
  b.build().save(path);
  return path;
}

std::string foo_profile(bool override_rules) {
  return std::string("plugins:\n  - name: onnx\n  - path: ") + FIXTURE_GOOD +
         "\nops:\n  - domain: com.test\n    op_type: Foo\n    outputs:\n"
         "      - shape: [\"2 * in0[0]\", \"in0[1] // 2\"]\n    scratch: 100\n" +
         (override_rules ? "    override: true\n" : "");
}

TEST(CliDeclarativeOps, ClashWithAPluginRuleNamesBoth) {
  test::TempDir dir;
  write_file(dir / "p.yaml", foo_profile(false));
  auto r = run_cctx("analyze " + quoted(foo_model(dir)) + " --profile " + quoted(dir / "p.yaml"));
  expect_one_line_error(r, (dir / "p.yaml").string() +
                               ":5:5: shape rule com.test::Foo@1 is already registered by good "
                               "1.2.3 (" FIXTURE_GOOD
                               "); set 'override: true' on this op to replace it");
}

TEST(CliDeclarativeOps, OverrideReplacesThePluginRulesOfTheKindsItDeclares) {
  test::TempDir dir;
  write_file(dir / "p.yaml", foo_profile(true));
  auto r = run_cctx("analyze " + quoted(foo_model(dir)) + " --profile " + quoted(dir / "p.yaml") +
                    " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = parse(r.out);
  EXPECT_EQ(doc["values"]["Y"]["shape"], parse(R"(["2*N", 4])"));  // the op's shape, not Foo's
  EXPECT_EQ(doc["nodes"][1]["peak_scratch_bytes"], 100);           // the op's scratch
  // The plugin's in-place policy (kind not declared by the op) stays: Y may reuse R's buffer.
  EXPECT_EQ(doc["nodes"][1]["inplace"][0]["mode"], "may_reuse");

  auto plugins = run_cctx("plugins --profile " + quoted(dir / "p.yaml") + " --format json");
  ASSERT_EQ(plugins.exit_code, 0) << plugins.err;
  const auto list = parse(plugins.out);
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[1]["ops"]["com.test::Foo"], parse(R"({"inplace": [1], "tag": [1]})"));
  EXPECT_EQ(list[2]["name"], "profile:p.yaml");
  EXPECT_EQ(list[2]["ops"]["com.test::Foo"], parse(R"({"scratch": [1], "shape": [1]})"));
}

TEST(CliDeclarativeOps, BadProfileIsOneLineAndExitCode3) {
  test::TempDir dir;
  write_file(dir / "p.yaml",
             "ops:\n  - domain: d\n    op_type: X\n    outputs:\n      - shape:\n"
             "          - in0[0] // attr.\n");
  auto r = run_cctx("analyze " + example_model() + " --profile " + quoted(dir / "p.yaml"));
  expect_one_line_error(r, (dir / "p.yaml").string() +
                               ":6:28: 'ops[0].outputs[0].shape[0]': bad expression 'in0[0] // "
                               "attr.': expected an attribute name after 'attr.'");
  // `cctx plugins` reads the same profile: the same error.
  auto p = run_cctx("plugins --profile " + quoted(dir / "p.yaml"));
  expect_one_line_error(p, (dir / "p.yaml").string() +
                               ":6:28: 'ops[0].outputs[0].shape[0]': bad expression 'in0[0] // "
                               "attr.': expected an attribute name after 'attr.'");
}

TEST(CliDeclarativeOps, RuleFailureWarnsAndStrictModeExits4) {
  // The example profile without SplitHeads' num_heads: remove the attribute by declaring the op
  // again in a child profile that reads `attr.heads`, which the model does not set.
  test::TempDir dir;
  write_file(dir / "child.yaml", "extends: " + (example_dir() / "declarative.yaml").string() +
                                     R"(
ops:
  - domain: com.example.simple
    op_type: SplitHeads
    outputs:
      - shape:
          - in0[0]
          - in0[1]
          - attr.heads
          - in0[-1] // attr.heads
    alias: [[0, 0]]
)");
  auto r = run_cctx("analyze " + example_model() + " --profile " + quoted(dir / "child.yaml"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: node 2 'split_heads' (com.example.simple:SplitHeads): "
                       "outputs[0].shape[2]: 'attr.heads': the node has no attribute 'heads' and "
                       "the op declares no default (shape rule profile " +
                       (dir / "child.yaml").string() + ":3:5); using the fallbacks\n"),
            std::string::npos)
      << r.err;

  write_file(dir / "strict.yaml", "extends: child.yaml\nshapes: {strict: true}\n");
  auto strict =
      run_cctx("analyze " + example_model() + " --profile " + quoted(dir / "strict.yaml"));
  EXPECT_EQ(strict.exit_code, 4) << strict.err;
  EXPECT_EQ(strict.err,
            "cctx: node 2 'split_heads' (com.example.simple:SplitHeads) [domain "
            "'com.example.simple', opset 1]: outputs[0].shape[2]: 'attr.heads': the node has no "
            "attribute 'heads' and the op declares no default\n");
}

}  // namespace
}  // namespace cctx
