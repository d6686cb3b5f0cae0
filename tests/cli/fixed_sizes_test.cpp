// `cctx analyze --eval` on a model whose input sizes decide which branch of an If runs (PyTorch's
// "squeeze if the size is 1", then a size read back from the result): the symbolic formulas need
// a size only the branch decides, so the one assignment is evaluated by analysing the model again
// with its inputs at those sizes (semantics.md "Evaluation at fixed sizes"). The figures must
// equal those of the same model declared with those sizes.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::attr;
using test::GraphBuilder;
using test::kFloat;
using test::ModelBuilder;
using test::quoted;
using test::run_cctx;

/// X[B, N] -> Y = If(N == 1, Squeeze(X, 1), Identity(X)) (rank 1 or 2), then
/// Z = ConstantOfShape([Shape(Y)[0], 8]): Z's first dim is B, but only once the branch is known.
ModelBuilder squeeze_then_read_back(const test::ShapeSpec& x) {
  GraphBuilder squeeze, keep;
  squeeze.initializer_ints("axis", {1}, {1}).node("Squeeze", {"X", "axis"}, {"s"}).output("s");
  keep.node("Identity", {"X"}, {"k"}).output("k");
  ModelBuilder m(16);
  m.input("X", kFloat, x);
  m.initializer_ints("one", {1}, {}).initializer_ints("zero", {0}, {});
  m.initializer_ints("zero1", {0}, {1}).initializer_ints("eight", {8}, {1});
  m.node("Shape", {"X"}, {"sh"}).node("Gather", {"sh", "one"}, {"n"});
  m.node("Equal", {"n", "one"}, {"c"});
  m.node("If", {"c"}, {"Y"},
         {attr("then_branch", squeeze.graph()), attr("else_branch", keep.graph())});
  m.node("Shape", {"Y"}, {"ysh"}).node("Gather", {"ysh", "zero"}, {"d0"});
  m.node("Unsqueeze", {"d0", "zero1"}, {"d0v"})
      .node("Concat", {"d0v", "eight"}, {"zsh"}, {attr("axis", 0)});
  m.node("ConstantOfShape", {"zsh"}, {"Z"});
  m.output("Y").output("Z");
  return m;
}

std::string save(const ModelBuilder& b, const test::TempDir& dir, const std::string& name) {
  const std::filesystem::path path = dir / name;
  test::write_file(path, b.build().proto().SerializeAsString());
  return quoted(path);
}

nlohmann::json analyze_json(const std::string& args) {
  const test::RunResult r = run_cctx("analyze " + args + " --format json --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

TEST(FixedSizes, AnIfTheSizesDecideIsEvaluatedAtThoseSizes) {
  test::TempDir dir;
  const std::string symbolic = save(squeeze_then_read_back({"B", "N"}), dir, "symbolic.onnx");
  for (const auto& [b, n] : {std::pair{3, 5}, std::pair{7, 1}, std::pair{1, 1}}) {
    SCOPED_TRACE("B=" + std::to_string(b) + " N=" + std::to_string(n));
    const nlohmann::json j = analyze_json(symbolic + " --eval B=" + std::to_string(b) +
                                          " --eval N=" + std::to_string(n));
    const nlohmann::json& e = j["peak"]["evaluations"][0];
    EXPECT_EQ(e["assignment"], (nlohmann::json{{"B", b}, {"N", n}}));
    EXPECT_EQ(e["at_fixed_sizes"], true);
    EXPECT_EQ(e["fixed_because"],
              "node 3 (If) chooses a branch the symbolic analysis could not decide");
    // The same model declared at those sizes: every node's total and the peak agree.
    const std::string fixed = save(squeeze_then_read_back({b, n}), dir, "fixed.onnx");
    const nlohmann::json f = analyze_json(fixed);
    EXPECT_EQ(e["bytes"], f["peak"]["total_bytes"]);
    ASSERT_EQ(j["nodes"].size(), f["nodes"].size());
    for (std::size_t k = 0; k < f["nodes"].size(); ++k) {
      EXPECT_EQ(j["nodes"][k]["memory"]["total_bytes"], f["nodes"][k]["memory"]["total_bytes"])
          << "node " << k;
    }
    // X (4*B*N bytes) and Z (4*B*8 bytes) at least; Y is X's size or a view of it.
    EXPECT_GE(e["bytes"].get<std::int64_t>(), 4 * b * n + 32 * b);
  }
  // The table says which analysis it shows.
  const test::RunResult table = run_cctx("analyze " + symbolic + " --quiet --eval B=3 --eval N=5");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(
      table.out.rfind("Analysed with its inputs at B=3,N=5: node 3 (If) chooses a branch ", 0), 0u)
      << table.out;
}

TEST(FixedSizes, ExplainAndDiffEvaluateAtThoseSizesToo) {
  test::TempDir dir;
  const std::string symbolic = save(squeeze_then_read_back({"B", "N"}), dir, "symbolic.onnx");
  const test::RunResult explain =
      run_cctx("explain " + symbolic + " 3 --format json --quiet --eval B=3 --eval N=5");
  ASSERT_EQ(explain.exit_code, 0) << explain.err;
  const nlohmann::json doc = nlohmann::json::parse(explain.out);
  EXPECT_EQ(doc["at_fixed_sizes"],
            "node 3 (If) chooses a branch the symbolic analysis could not decide");
  // diff of the model with itself under the default profile: no change, figures evaluated.
  const test::RunResult diff =
      run_cctx("diff " + symbolic + " " + symbolic + " --eval B=3 --eval N=5 --format json");
  EXPECT_EQ(diff.exit_code, 0) << diff.err;
}

TEST(FixedSizes, ASweepKeepsTheSymbolicAnalysisAndNamesWhatItLacks) {
  // Several assignments are one symbolic analysis evaluated several times: the size the branch
  // decides has no value there, and the error says so (evaluate them one at a time).
  test::TempDir dir;
  const std::string symbolic = save(squeeze_then_read_back({"B", "N"}), dir, "symbolic.onnx");
  const test::RunResult r = run_cctx("analyze " + symbolic + " --quiet --eval B=3 --eval N=1,5");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("--eval: no value for symbol '"), std::string::npos) << r.err;
}

TEST(FixedSizes, AnEvaluableModelKeepsItsSymbolicAnalysis) {
  // Nothing is missing: no second analysis, no note.
  test::TempDir dir;
  ModelBuilder m(16);
  m.input("X", kFloat, {"B", "N"});
  m.node("Relu", {"X"}, {"Y"}).output("Y");
  const std::string model = save(m, dir, "relu.onnx");
  const nlohmann::json j = analyze_json(model + " --eval B=2 --eval N=3");
  EXPECT_FALSE(j["peak"]["evaluations"][0].contains("at_fixed_sizes"));
  EXPECT_EQ(j["peak"]["total_bytes"], "8*B*N");  // still the formula
  EXPECT_EQ(j["peak"]["evaluations"][0]["bytes"], 48);
}

}  // namespace
}  // namespace cctx
