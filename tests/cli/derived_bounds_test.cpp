// Bounds derived from the model (semantics.md "Bounds derived from the model"): a requirement
// the operator cannot run without (an integer divisor that must not be 0, dims that must be
// equal) narrows the bounds of the one input symbol it mentions, later rules simplify under them,
// the report says so, and evaluation outside them is refused with the reason. Assumptions (a
// Reshape entry taken not to be the copy marker) narrow nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::quoted;
using test::run_cctx;

std::string save(const test::ModelBuilder& b, const test::TempDir& dir, const std::string& name) {
  const std::filesystem::path path = dir / name;
  test::write_file(path, b.build().proto().SerializeAsString());
  return quoted(path);
}

nlohmann::json analyze_json(const std::string& model, const std::string& extra = "") {
  const test::RunResult r = run_cctx("analyze " + model + " --format json --quiet " + extra);
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

/// Swin's window partition in small: X[N, H]; windows A = (H//4 + 6)//7 (per side, padded to a
/// multiple of 7), a batch of N*A windows, and the batch recovered as (N*A) / A, the integer
/// division the torchvision export makes. Y = Reshape(X, [(N*A)/A, -1]).
test::ModelBuilder window_model() {
  test::ModelBuilder b(17);
  b.input("X", test::kFloat, {"N", "H"});
  b.initializer_ints("zero", {0}, {});
  b.initializer_ints("one", {1}, {});
  b.initializer_ints("four", {4}, {});
  b.initializer_ints("six", {6}, {});
  b.initializer_ints("seven", {7}, {});
  b.initializer_ints("axes0", {0});
  b.initializer_ints("minus1", {-1});
  b.node("Shape", {"X"}, {"s"});
  b.node("Gather", {"s", "zero"}, {"n"});
  b.node("Gather", {"s", "one"}, {"h"});
  b.node("Div", {"h", "four"}, {"h4"});
  b.node("Add", {"h4", "six"}, {"h4p"});
  b.node("Div", {"h4p", "seven"}, {"a"});  // windows per side, 0 when H < 4
  b.node("Mul", {"n", "a"}, {"na"});
  b.node("Div", {"na", "a"}, {"batch"});  // the model cannot run when a == 0
  b.node("Unsqueeze", {"batch", "axes0"}, {"b1"});
  b.node("Concat", {"b1", "minus1"}, {"shape"}, {test::attr("axis", 0)});
  b.node("Reshape", {"X", "shape"}, {"Y"});
  b.output("Y");
  return b;
}

TEST(DerivedBounds, ANonZeroDivisorNarrowsTheInputAndTheQuotientSimplifies) {
  test::TempDir dir;
  const std::string model = save(window_model(), dir, "windows.onnx");
  const nlohmann::json j = analyze_json(model);
  const nlohmann::json& h = symbol(j, "H");
  EXPECT_EQ(h["bounds"], nlohmann::json::parse("[4, null]"));
  const std::string why = h.value("narrowed_by", "");
  EXPECT_NE(why.find("required by node 7"), std::string::npos) << why;
  EXPECT_NE(why.find("(Div)"), std::string::npos) << why;
  EXPECT_EQ(symbol(j, "N")["bounds"], nlohmann::json::parse("[1, null]"));
  EXPECT_FALSE(symbol(j, "N").contains("narrowed_by"));
  // (N*A)/A is N once A >= 1 is provable, so Y keeps X's dims instead of fresh ones.
  EXPECT_EQ(j["values"]["Y"]["shape"], nlohmann::json::parse(R"(["N", "H"])"));
  // Inferred again under the narrowed bounds, the divisor is proven >= 1: the requirement is
  // met there and stays only as the reason. Broadcasting requirements are marked in the list.
  // The table says it, and evaluation below the derived bound is refused with the reason.
  const test::RunResult table = run_cctx("analyze " + model + " --eval N=2 --eval H=4");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("Bounds the model requires (derived from its constraints):\n  H in "
                           "[4, +inf]: required by node 7"),
            std::string::npos)
      << table.out;
  const test::RunResult below = run_cctx("analyze " + model + " --eval N=2 --eval H=3");
  EXPECT_NE(below.exit_code, 0);
  EXPECT_NE(below.err.find("outside its bounds [4, +inf] (required by node 7"), std::string::npos)
      << below.err;
}

TEST(DerivedBounds, ExplicitBoundsAreNarrowedTheSameWay) {
  test::TempDir dir;
  const std::string model = save(window_model(), dir, "windows.onnx");
  const nlohmann::json j = analyze_json(model, "--bounds H=2:100");
  EXPECT_EQ(symbol(j, "H")["bounds"], nlohmann::json::parse("[4, 100]"));
}

TEST(DerivedBounds, InnerDimensionsThatMustBeEqualFixTheLowEnd) {
  // MatMul X[N, K] x W[768, 8]: K == 768 is required; K below 768 is cut off.
  test::TempDir dir;
  test::ModelBuilder b(17);
  b.input("X", test::kFloat, {"N", "K"});
  b.input("W", test::kFloat, {768, 8});
  b.node("MatMul", {"X", "W"}, {"Y"});
  b.output("Y");
  const nlohmann::json j = analyze_json(save(b, dir, "matmul.onnx"));
  EXPECT_EQ(symbol(j, "K")["bounds"], nlohmann::json::parse("[768, null]"));
}

TEST(DerivedBounds, AssumptionsAndBodyRequirementsNarrowNothing) {
  // Reshape to [N, H - 4]: the rule assumes H - 4 >= 1 (else 0 would be the copy marker), an
  // assumption: the model also runs at H = 4 (copying X's dim), so H keeps [1, +inf].
  test::TempDir dir;
  test::ModelBuilder b(17);
  b.input("X", test::kFloat, {"N", "H"});
  b.initializer_ints("zero", {0}, {});
  b.initializer_ints("one", {1}, {});
  b.initializer_ints("four", {4}, {});
  b.initializer_ints("axes0", {0});
  b.node("Shape", {"X"}, {"s"});
  b.node("Gather", {"s", "one"}, {"h"});
  b.node("Sub", {"h", "four"}, {"hm"});
  b.node("Unsqueeze", {"hm", "axes0"}, {"hm1"});
  b.node("Gather", {"s", "zero"}, {"n"});
  b.node("Unsqueeze", {"n", "axes0"}, {"n1"});
  b.node("Concat", {"n1", "hm1"}, {"shape"}, {test::attr("axis", 0)});
  b.node("Reshape", {"X", "shape"}, {"Y"});
  b.output("Y");
  const nlohmann::json j = analyze_json(save(b, dir, "assume.onnx"));
  EXPECT_EQ(symbol(j, "H")["bounds"], nlohmann::json::parse("[1, null]"));
  EXPECT_FALSE(symbol(j, "H").contains("narrowed_by"));
}

}  // namespace
}  // namespace cctx

namespace cctx {
namespace {

// A requirement whose failures are not at an end of the bounds narrows nothing, but `--eval` at a
// point where it fails is refused: the model cannot run there (semantics.md "Bounds derived from
// the model"). A[N] + B[M] needs N and M to broadcast.
TEST(DerivedBounds, AnEvaluationWhereARequirementFailsIsRefused) {
  test::TempDir dir;
  test::ModelBuilder b(17);
  b.input("A", test::kFloat, {"N"});
  b.input("B", test::kFloat, {"M"});
  b.node("Add", {"A", "B"}, {"Y"});
  b.output("Y");
  const std::string model = save(b, dir, "add.onnx");
  const test::RunResult bad = run_cctx("analyze " + model + " --eval N=3 --eval M=4");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.out, "");
  EXPECT_NE(bad.err.find("--eval M=4,N=3: the model cannot run there: node 0"), std::string::npos)
      << bad.err;
  EXPECT_NE(bad.err.find("requires N and M broadcast (there 3 and 4)"), std::string::npos)
      << bad.err;
  for (const char* ok : {"--eval N=3 --eval M=1", "--eval N=4 --eval M=4"}) {
    const test::RunResult r = run_cctx("analyze " + model + " --quiet " + ok);
    EXPECT_EQ(r.exit_code, 0) << ok << ": " << r.err;
  }
}

// ONNX Runtime refuses a Conv whose window is larger than its padded input: the Conv requires it,
// so H starts at the kernel's size and an evaluation below is refused without a hint to widen.
TEST(DerivedBounds, AConvWindowLargerThanItsInputIsRequired) {
  test::TempDir dir;
  test::ModelBuilder b(17);
  b.input("X", test::kFloat, {1, 1, "H", 8});
  b.initializer_floats("Wt", std::vector<float>(9, 1.0f), {1, 1, 3, 3});
  b.node("Conv", {"X", "Wt"}, {"Y"}, {test::attr("kernel_shape", std::vector<std::int64_t>{3, 3})});
  b.output("Y");
  const std::string model = save(b, dir, "conv.onnx");
  const nlohmann::json j = analyze_json(model);
  EXPECT_EQ(symbol(j, "H")["bounds"], nlohmann::json::parse("[3, null]"));
  const test::RunResult r = run_cctx("analyze " + model + " --eval H=2");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("required by node 0"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("widen its bounds"), std::string::npos) << r.err;
  // A pool runs there (an empty output): only an assumption, nothing narrowed.
  test::ModelBuilder p(17);
  p.input("X", test::kFloat, {1, 1, "H", 8});
  p.node("MaxPool", {"X"}, {"Y"}, {test::attr("kernel_shape", std::vector<std::int64_t>{3, 3})});
  p.output("Y");
  const nlohmann::json pool = analyze_json(save(p, dir, "pool.onnx"));
  EXPECT_EQ(symbol(pool, "H")["bounds"], nlohmann::json::parse("[1, null]"));
}

}  // namespace
}  // namespace cctx
