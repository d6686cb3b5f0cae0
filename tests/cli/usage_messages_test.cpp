// Errors that finish the sentence, and what a deployer types (docs/cli.md, "The command line"): a
// mistyped profile name lists the shipped ones, an unknown symbol lists the model's, an
// expression may begin with '-', and one --eval may assign several symbols.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::contains;
using test::expect_error;
using test::quoted;
using test::run_cctx;

class UsageMessages : public ::testing::Test {
 protected:
  void SetUp() override {
    test::ModelBuilder b(18);
    b.input("X", test::kFloat, {"N", "M"});
    b.node("Relu", {"X"}, {"Y"});
    b.output("Y");
    test::write_file(model_, b.build().proto().SerializeAsString());
  }
  test::RunResult analyze(const std::string& extra) const {
    return run_cctx("analyze " + quoted(model_) + " " + extra);
  }
  test::TempDir dir_;
  std::filesystem::path model_ = dir_ / "m.onnx";
};

TEST_F(UsageMessages, MistypedProfileNameListsTheShippedOnes) {
  const test::RunResult r = analyze("--profile onnxruntime-cpu-noarena");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(contains(r.err,
                       "onnxruntime-cpu-noarena: no such file, and no shipped profile of "
                       "that name (shipped: default, "))
      << r.err;
  EXPECT_TRUE(contains(r.err, "did you mean 'onnxruntime-cpu-no-arena'?")) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}

TEST_F(UsageMessages, UnknownSymbolListsTheModelsSymbols) {
  const test::RunResult r = analyze("--eval Q=1");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "--eval: the model has no symbol 'Q' (its inputs' symbols: M, N)"))
      << r.err;
}

TEST_F(UsageMessages, EvalTakesAnExpressionBeginningWithMinus) {
  const test::RunResult simplified = run_cctx("eval '-N+2*N'");
  EXPECT_EQ(simplified.exit_code, 0) << simplified.err;
  EXPECT_EQ(simplified.out, "N\n");
  const test::RunResult evaluated = run_cctx("eval '-3*N+10' N=2 --bounds N=1:4");
  EXPECT_EQ(evaluated.exit_code, 0) << evaluated.err;
  EXPECT_EQ(evaluated.out, "4\n");
  const test::RunResult bounded = run_cctx("eval --bounds N=1:4 '-N+2*N' N=3");
  EXPECT_EQ(bounded.exit_code, 0) << bounded.err;
  EXPECT_EQ(bounded.out, "3\n");
}

TEST_F(UsageMessages, OneEvalAssignsSeveralSymbols) {
  const test::RunResult r = analyze("--eval N=2,3,M=5 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto evaluations = nlohmann::json::parse(r.out)["peak"]["evaluations"];
  ASSERT_EQ(evaluations.size(), 2U);
  EXPECT_EQ(evaluations[0]["assignment"], nlohmann::json::parse(R"({"M": 5, "N": 2})"));
  EXPECT_EQ(evaluations[1]["assignment"], nlohmann::json::parse(R"({"M": 5, "N": 3})"));
  EXPECT_EQ(evaluations[1]["bytes"].get<std::int64_t>(), 2 * 4 * 3 * 5);
  const test::RunResult twice = analyze("--eval N=2,N=3");
  EXPECT_EQ(twice.exit_code, 2) << twice.err;
  EXPECT_TRUE(contains(twice.err, "'N' is given twice")) << twice.err;
}

}  // namespace
}  // namespace cctx
