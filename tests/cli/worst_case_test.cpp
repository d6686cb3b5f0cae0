// `cctx analyze --eval` with only the input symbols: a data-dependent size is evaluated at the
// upper bound its operator never exceeds (semantics.md, "Data-dependent sizes and their worst
// case"), the report says which and at what value, and an explicit value still wins.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::quoted;
using test::run_cctx;

/// Writes the builder's model to `dir/name` and returns its quoted path.
std::string save(const test::ModelBuilder& b, const test::TempDir& dir, const std::string& name) {
  const std::filesystem::path path = dir / name;
  test::write_file(path, b.build().proto().SerializeAsString());
  return quoted(path);
}

nlohmann::json analyze_json(const std::string& model, const std::string& eval) {
  const test::RunResult r = run_cctx("analyze " + model + " --format json --quiet " + eval);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

const nlohmann::json& symbol(const nlohmann::json& report, const std::string& name) {
  for (const nlohmann::json& s : report["symbols"]) {
    if (s["name"] == name) return s;
  }
  static const nlohmann::json none;
  ADD_FAILURE() << "no symbol " << name;
  return none;
}

TEST(WorstCase, NonZeroIsTakenAtTheInputsElementCount) {
  const std::string model = quoted(test::source_dir() / "tests/cli/nonzero.onnx");  // X[N,4]
  const nlohmann::json j = analyze_json(model, "--eval N=5");
  EXPECT_EQ(symbol(j, "NonZero_0_o0_d1")["upper_bound"], "4*N");
  const nlohmann::json& e = j["peak"]["evaluations"][0];
  EXPECT_EQ(e["assignment"]["NonZero_0_o0_d1"], 20);
  ASSERT_EQ(e["at_upper_bound"].size(), 1u);
  EXPECT_EQ(e["at_upper_bound"][0]["symbol"], "NonZero_0_o0_d1");
  EXPECT_EQ(e["at_upper_bound"][0]["bound"], "4*N");
  EXPECT_EQ(e["at_upper_bound"][0]["value"], 20);
  // X (5x4 floats, 80 bytes) and Y (int64 [2, 20], 320 bytes).
  EXPECT_EQ(e["bytes"], 400);

  // The table says it on the peak's line.
  const test::RunResult table = run_cctx("analyze " + model + " --eval N=5");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("N=5,NonZero_0_o0_d1=20: 400 bytes"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("worst case, data-dependent sizes at their upper bound: "
                           "NonZero_0_o0_d1 <= 4*N = 20"),
            std::string::npos)
      << table.out;

  // An explicit value wins, and then nothing is at a bound.
  const nlohmann::json given = analyze_json(model, "--eval N=5 --eval NonZero_0_o0_d1=3");
  const nlohmann::json& g = given["peak"]["evaluations"][0];
  EXPECT_EQ(g["bytes"], 80 + 16 * 3);
  EXPECT_FALSE(g.contains("at_upper_bound"));
}

TEST(WorstCase, ADimParamDeclaredOnlyOnAnOutputDoesNotHideTheBound) {
  // torch.onnx writes names such as `Gather4150_dim_0` on data-dependent outputs: no graph input
  // has them, so a user gives the input sizes only. The inferred, bounded size stands for it.
  test::TempDir dir;
  test::ModelBuilder b(13);
  b.input("X", test::kFloat, {"N", 4});
  b.node("NonZero", {"X"}, {"Y"});
  b.output("Y", test::kInt64, {2, "NonZero_dim_1"});
  const std::string model = save(b, dir, "declared_out.onnx");
  const nlohmann::json j = analyze_json(model, "--eval N=5");
  EXPECT_EQ(j["values"]["Y"]["shape"][1], "NonZero_0_o0_d1");
  const nlohmann::json& e = j["peak"]["evaluations"][0];
  EXPECT_EQ(e["at_upper_bound"][0]["symbol"], "NonZero_0_o0_d1");
  EXPECT_EQ(e["bytes"], 400);  // as without the declaration

  // A declared name that a graph input has is the user's: it still replaces the fresh one.
  test::ModelBuilder c(13);
  c.input("X", test::kFloat, {"N", 4});
  c.node("NonZero", {"X"}, {"Y"});
  c.output("Y", test::kInt64, {2, "N"});
  const nlohmann::json k = analyze_json(save(c, dir, "declared_in.onnx"), "--eval N=5");
  EXPECT_EQ(k["values"]["Y"]["shape"][1], "N");
}

TEST(WorstCase, AnEmptyDimAskedForExplicitlyWidensItsBounds) {
  const std::string model = quoted(test::source_dir() / "tests/cli/nonzero.onnx");  // X[N,4]
  // --eval N=0 asks for an empty input: N's bounds become [0, +inf), as --bounds N=0:inf.
  const nlohmann::json j = analyze_json(model, "--eval N=0");
  EXPECT_EQ(j["peak"]["evaluations"][0]["assignment"]["N"], 0);
  EXPECT_EQ(j["peak"]["evaluations"][0]["reserve_bytes"],
            analyze_json(model,
                         "--eval N=0 --bounds N=0:inf")["peak"]["evaluations"][0]["reserve_bytes"]);
  // A bound the user set stays: 0 below it is refused, with the way to widen it.
  const test::RunResult refused =
      run_cctx("analyze " + model + " --quiet --eval N=0 --bounds N=1:9");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("outside its bounds [1, 9]"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--bounds N=0:9"), std::string::npos) << refused.err;
}

TEST(WorstCase, ABoundInTermsOfAnotherDataDependentSizeTakesThatOnesBoundFirst) {
  test::TempDir dir;
  test::ModelBuilder b(13);
  b.input("X", test::kFloat, {"N", 3});
  b.node("NonZero", {"X"}, {"I"});  // [2, n1], n1 <= 3*N
  b.node("NonZero", {"I"}, {"J"});  // [2, n2], n2 <= 2*n1
  b.output("J");
  const nlohmann::json j = analyze_json(save(b, dir, "chain.onnx"), "--eval N=7");
  EXPECT_EQ(symbol(j, "NonZero_1_o0_d1")["upper_bound"], "2*NonZero_0_o0_d1");
  const nlohmann::json& e = j["peak"]["evaluations"][0];
  EXPECT_EQ(e["assignment"]["NonZero_0_o0_d1"], 21);
  EXPECT_EQ(e["assignment"]["NonZero_1_o0_d1"], 42);
  ASSERT_EQ(e["at_upper_bound"].size(), 2u);
  EXPECT_EQ(e["at_upper_bound"][1]["bound"], "2*NonZero_0_o0_d1");
}

TEST(WorstCase, ABoundThatIsASizeCapTakesTheSizesOfItsDefinitionFirst) {
  test::TempDir dir;
  {
    std::ofstream profile(dir / "small_caps.yaml");
    profile << "plugins: [{name: onnx}]\nexpressions: {max_terms: 2}\n";
  }
  test::ModelBuilder b(13);
  b.input("X", test::kFloat, {"N"});
  b.input("Z", test::kFloat, {"M"});
  // Nine nodes first: the first NonZero is node 9, whose name sorts after node 10's.
  b.node("Identity", {"X"}, {"X0"});
  for (int k = 1; k < 9; ++k) {
    b.node("Identity", {"X" + std::to_string(k - 1)}, {"X" + std::to_string(k)});
  }
  b.node("NonZero", {"X8"}, {"I"});  // node 9: [1, n9], n9 <= N
  b.initializer_ints("flat", {-1});
  b.node("Reshape", {"I", "flat"}, {"If"});
  b.node("Cast", {"If"}, {"F"}, {test::attr("to", test::kFloat)});
  b.node("Concat", {"F", "X", "Z"}, {"C"}, {test::attr("axis", 0)});  // n9+N+M: a size cap
  b.node("NonZero", {"C"}, {"J"});                                    // node 13: at most the cap
  b.output("J");
  const std::string model = save(b, dir, "capped.onnx");
  const nlohmann::json j = analyze_json(
      model, "--profile " + quoted(dir / "small_caps.yaml") + " --eval N=3 --eval M=4");
  EXPECT_EQ(symbol(j, "NonZero_13_o0_d1")["upper_bound"].get<std::string>().rfind("cap_", 0), 0u);
  const nlohmann::json& e = j["peak"]["evaluations"][0];
  EXPECT_EQ(e["assignment"]["NonZero_9_o0_d1"], 3);
  EXPECT_EQ(e["assignment"]["NonZero_13_o0_d1"], 10);
}

TEST(WorstCase, NonMaxSuppressionTopKAndCompressHaveTheirOperatorsBounds) {
  test::TempDir dir;
  test::ModelBuilder b(13);
  b.input("boxes", test::kFloat, {"B", "S", 4});
  b.input("scores", test::kFloat, {"B", "C", "S"});
  b.input("k", test::kInt64, {1});
  b.input("cond", test::kBool, {"S"});
  b.initializer_ints("max_per_class", {10}, {1});
  b.node("NonMaxSuppression", {"boxes", "scores", "max_per_class"}, {"selected"});
  b.node("TopK", {"scores", "k"}, {"values", "indices"});
  b.node("Compress", {"boxes", "cond"}, {"kept"}, {test::attr("axis", 1)});
  b.output("selected");
  b.output("values");
  b.output("indices");
  b.output("kept");
  const nlohmann::json j =
      analyze_json(save(b, dir, "detect.onnx"), "--eval B=2 --eval C=3 --eval S=7");
  EXPECT_EQ(symbol(j, "NonMaxSuppression_0_o0_d0")["upper_bound"], "B*C*min(10,S)");
  EXPECT_EQ(symbol(j, "TopK_1_o0_d2")["upper_bound"], "S");
  EXPECT_EQ(symbol(j, "Compress_2_o0_d1")["upper_bound"], "S");
  const nlohmann::json& e = j["peak"]["evaluations"][0];
  EXPECT_EQ(e["assignment"]["NonMaxSuppression_0_o0_d0"], 2 * 3 * 7);
  EXPECT_EQ(e["assignment"]["TopK_1_o0_d2"], 7);
  EXPECT_EQ(e["assignment"]["Compress_2_o0_d1"], 7);
}

TEST(WorstCase, ALoopThatMayStopEarlyRunsAtMostMIterations) {
  test::TempDir dir;
  // body(i, cond_in) -> (cond_out, scan): scan is i as a 1-element float tensor.
  test::GraphBuilder body;
  body.input("i", test::kInt64, {});
  body.input("cond_in", test::kBool, {});
  body.node("Identity", {"cond_in"}, {"cond_out"});
  body.node("Cast", {"i"}, {"f"}, {test::attr("to", test::kFloat)});
  body.initializer_ints("one", {1}, {1});
  body.node("Reshape", {"f", "one"}, {"scan"});
  body.output("cond_out", test::kBool, {});
  body.output("scan", test::kFloat, {1});
  test::ModelBuilder b(13);
  b.input("X", test::kFloat, {"N"});
  b.input("go", test::kBool, {});
  b.initializer_ints("zero", {0}, {1});
  b.node("Shape", {"X"}, {"shape"});
  b.node("Gather", {"shape", "zero"}, {"m1"});
  b.initializer_ints("scalar", {}, {0});
  b.node("Reshape", {"m1", "scalar"}, {"M"});
  b.node("Loop", {"M", "go"}, {"trace"}, {test::attr("body", body.graph())});
  b.output("trace");
  const nlohmann::json j = analyze_json(save(b, dir, "loop.onnx"), "--eval N=9");
  const nlohmann::json& e = j["peak"]["evaluations"][0];
  ASSERT_TRUE(e.contains("at_upper_bound")) << e.dump();
  EXPECT_EQ(e["at_upper_bound"][0]["bound"], "N");
  EXPECT_EQ(e["at_upper_bound"][0]["value"], 9);
}

TEST(WorstCase, ASizeWithoutABoundMustStillBeGiven) {
  test::TempDir dir;
  test::ModelBuilder b(13);
  b.input("X", test::kFloat, {"N"});
  b.input("shape", test::kInt64, {2});
  b.node("ConstantOfShape", {"shape"}, {"Y"});  // the shape is data: nothing bounds it
  b.node("Relu", {"X"}, {"Z"});
  b.output("Y");
  b.output("Z");
  const test::RunResult r = run_cctx("analyze " + save(b, dir, "fill.onnx") + " --eval N=4");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--eval: no value for symbol 'ConstantOfShape_0_o0_d"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace cctx
