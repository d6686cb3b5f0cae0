// A vendor plugin's silent mistakes are loud (issue 45): each case of fixtures/silent_wrongs.cpp,
// through the real `cctx` binary, gets a message that names it; none gives a figure quietly.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::quoted;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// X [N, 4] read by one com.slip node of each kind; `version` is the model's com.slip opset.
/// Returns the arguments naming the model and a profile loading the fixture after ai.onnx.
std::string write_model(const test::TempDir& dir, std::int64_t version = 1,
                        const std::string& profile_extra = "") {
  test::ModelBuilder b(18);
  b.opset("com.slip", version);
  b.input("X", test::kFloat, {"N", 4});
  b.node("UnsetScratch", {"X"}, {"A"}, {}, "com.slip", "unset");
  b.node("DeepAxis", {"X"}, {"B"}, {}, "com.slip", "deep");
  b.node("AbsentValue", {"X", ""}, {"C"}, {}, "com.slip", "absent");
  b.node("Silent", {"X"}, {"D"}, {}, "com.slip", "silent");
  b.node("Attention", {"X"}, {"E"}, {test::attr("num_heads", std::int64_t{8})}, "com.slip",
         "attention");
  b.node("Atention", {"X"}, {"F"}, {}, "com.slip", "misspelt");
  for (const char* out : {"A", "B", "C", "D", "E", "F"}) b.output(out);
  std::ofstream(dir / "m.onnx", std::ios::binary) << b.build().proto().SerializeAsString();
  std::ofstream(dir / "p.yaml") << "plugins:\n  - name: onnx\n  - path: '" << FIXTURE_SILENT_WRONGS
                                << "'\n"
                                << profile_extra;
  return quoted(dir / "m.onnx") + " --profile " + quoted(dir / "p.yaml");
}

TEST(SilentWrongs, EachMistakeIsNamed) {
  test::TempDir dir;
  const auto r = test::run_cctx("analyze " + write_model(dir) + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // A Dim never set: handle 0 names nothing; it used to print as the model's first symbol.
  EXPECT_TRUE(has(r.err,
                  "node 0 'unset' (com.slip:UnsetScratch): scratch estimate unavailable "
                  "(used a Dim that was never set (handle 0) through ExprApi::binary"))
      << r.err;
  // Reads the node cannot answer fail the rule; they used to give 0.
  EXPECT_TRUE(has(r.err,
                  "node 1 'deep' (com.slip:DeepAxis): read dim 2 of input 0 'X', whose "
                  "rank is 2 (INodeView::input_dim_handle) (shape rule silent_wrongs 0.1"))
      << r.err;
  EXPECT_TRUE(has(r.err,
                  "node 2 'absent' (com.slip:AbsentValue): read element 0 of the value of "
                  "input 1, which the node does not have (INodeView::input_value_handle)"))
      << r.err;
  // OK without an output is the rule's failure, not a missing rule.
  EXPECT_TRUE(has(r.err,
                  "node 3 'silent' (com.slip:Silent): the shape rule returned OK but set "
                  "no output (shape rule silent_wrongs 0.1"))
      << r.err;
  EXPECT_FALSE(has(r.err, "(com.slip:Silent): no shape rule")) << r.err;
  // An attribute asked for by a near-miss of the node's own: a warning with the right name.
  EXPECT_TRUE(has(r.err,
                  "node 4 'attention' (com.slip:Attention): the scratch rule of "
                  "silent_wrongs 0.1"))
      << r.err;
  EXPECT_TRUE(has(r.err,
                  "asked for attribute 'num_head', which the node does not have (did you "
                  "mean 'num_heads'?); its default was used"))
      << r.err;
  // An op type no rule has, next to one that has: "did you mean".
  EXPECT_TRUE(has(r.err, "(com.slip:Atention): no shape rule (did you mean 'Attention'?)"))
      << r.err;
  // None of the wrong figures reached the report: B and C have no shape, A's scratch is unknown.
  EXPECT_FALSE(has(r.out, "\"shape\": [\"N\", 4, 0]")) << r.out;
  EXPECT_TRUE(has(r.out, "scratch_UnsetScratch_0")) << r.out;
}

// An evaluation that needs what the failed rules left unknown is refused naming a rule, never a
// number (before, N=3 gave a total with B = [3, 4, 0] and a scratch of 3 * N bytes).
TEST(SilentWrongs, EvaluationThroughTheirResultsIsRefused) {
  test::TempDir dir;
  const auto r = test::run_cctx("analyze " + write_model(dir) + " --eval N=3 --quiet");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(has(r.err, "--eval: cannot evaluate the totals: the shape rule of silent_wrongs 0.1"))
      << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

// A model importing the vendor's domain at an opset the plugin does not declare: a warning, and
// strict analysis refuses it.
TEST(SilentWrongs, UndeclaredOpsetWarnsAndStrictRefuses) {
  test::TempDir dir;
  auto r = test::run_cctx("analyze " + write_model(dir, 2) + " --quiet --format json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out,
                  "the model imports com.slip opset 2, newer than the newest the loaded "
                  "rules know (1, silent_wrongs 0.1"))
      << r.out;
  r = test::run_cctx("analyze " + write_model(dir, 2, "shapes:\n  strict: true\n"));
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_TRUE(has(r.err, "the model imports com.slip opset 2, newer than the newest")) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
}

// `cctx plugins --check MODEL` lists each mistake once, by kind, with exit code 6; scoped to
// another plugin it finds nothing of them and exits 0.
TEST(SilentWrongs, PluginsCheckListsThem) {
  test::TempDir dir;
  const std::string model = write_model(dir, 2);
  const std::string profile = " --profile " + quoted(dir / "p.yaml");
  auto r = test::run_cctx("plugins --check " + quoted(dir / "m.onnx") + profile + " --format json");
  EXPECT_EQ(r.exit_code, 6) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["findings"], 7) << r.out;  // 4 rule failures, 1 slip, 1 missing rule, 1 opset
  ASSERT_EQ(doc["rule_failures"].size(), 4u) << r.out;
  std::vector<std::string> failed;
  for (const auto& f : doc["rule_failures"]) failed.push_back(f["op"].get<std::string>());
  std::sort(failed.begin(), failed.end());
  EXPECT_EQ(failed, (std::vector<std::string>{"com.slip::AbsentValue", "com.slip::DeepAxis",
                                              "com.slip::Silent", "com.slip::UnsetScratch"}));
  ASSERT_EQ(doc["attribute_slips"].size(), 1u);
  EXPECT_TRUE(has(doc["attribute_slips"][0].get<std::string>(), "did you mean 'num_heads'?"));
  ASSERT_EQ(doc["opsets"].size(), 1u);
  ASSERT_EQ(doc["missing_rules"].size(), 1u) << r.out;
  EXPECT_TRUE(has(doc["missing_rules"][0].get<std::string>(), "did you mean 'Attention'?"));
  // num_heads, which the scratch rule never read, is a note: 1 attribute.
  ASSERT_EQ(doc["unread_attributes"].size(), 1u) << r.out;
  EXPECT_EQ(doc["unread_attributes"][0]["attribute"], "num_heads");
  EXPECT_EQ(doc["notes"], 1);

  auto table = test::run_cctx("plugins --check " + quoted(dir / "m.onnx") + profile);
  EXPECT_EQ(table.exit_code, 6) << table.err;
  EXPECT_TRUE(has(table.out, "m.onnx: 7 findings, 1 note\n")) << table.out;
  EXPECT_TRUE(has(table.out, "\nrules that failed (4):\n")) << table.out;

  auto onnx_only =
      test::run_cctx("plugins --check " + quoted(dir / "m.onnx") + profile + " --plugin onnx");
  EXPECT_EQ(onnx_only.exit_code, 0) << onnx_only.out;
  EXPECT_TRUE(has(onnx_only.out, "m.onnx: 0 findings, 0 notes\n")) << onnx_only.out;
}

}  // namespace
}  // namespace cctx
