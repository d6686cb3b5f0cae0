// `--input NAME=D0,D1,...` through the real binary: an input's dims as the caller really feeds
// them, for a model whose declaration says otherwise. Hugging Face Optimum declares a decoder's
// attention mask `past_sequence_length + 1` (true at a decode step only); cctx reads that as
// arithmetic, so a prompt after a past is refused, with a hint naming the declaration and the
// option that says what is fed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::expect_error;
using test::quoted;
using test::run_cctx;
using Json = nlohmann::json;

class InputDims : public ::testing::Test {
 protected:
  void SetUp() override {
    // present = Concat(past [B, P, 8], x [B, S, 8]) along 1; its row sums [B, P+S] are added to
    // the mask the model declares [B, P + 1]: they broadcast only when S = 1 (or P + 1 = 1).
    test::ModelBuilder b(18);
    b.input("past", test::kFloat, {"B", "P", 8});
    b.input("x", test::kFloat, {"B", "S", 8});
    b.input("mask", test::kFloat, {"B", "P + 1"});
    b.initializer_ints("axes", {2});
    b.node("Concat", {"past", "x"}, {"present"}, {test::attr("axis", 1)});
    b.node("ReduceSum", {"present", "axes"}, {"rows"}, {test::attr("keepdims", 0)});
    b.node("Add", {"rows", "mask"}, {"out"});
    b.output("out");
    b.output("present");
    test::write_file(model_, b.build().proto().SerializeAsString());
  }
  test::TempDir dir_;
  std::filesystem::path model_ = dir_ / "optimum_style.onnx";
};

TEST_F(InputDims, ADeclarationThatCannotHoldIsNamedWithTheOptionThatFixesIt) {
  expect_error(
      run_cctx("analyze " + quoted(model_) + " --eval B=1,P=5,S=3"), 2,
      {"cannot run there", "the model declares mask's dim 1 as 'P + 1'", "--input mask=B,EXPR"});
}

TEST_F(InputDims, TheFedDimsReplaceTheDeclaredOnes) {
  const test::RunResult r = run_cctx("analyze " + quoted(model_) +
                                     " --format json --eval B=1,P=5,S=3 --input mask=B,P+S");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json e = Json::parse(r.out)["peak"]["evaluations"][0];
  // Inputs the caller holds: past 5*8, x 3*8 and the mask 5+3 floats.
  EXPECT_EQ(e["input_bytes"], 4 * (40 + 24 + 8));
  const test::RunResult shapes =
      run_cctx("shapes " + quoted(model_) + " --input mask=B,P+S --format json");
  ASSERT_EQ(shapes.exit_code, 0) << shapes.err;
  EXPECT_NE(shapes.out.find("\"P+S\""), std::string::npos) << shapes.out;
}

TEST_F(InputDims, BadInputOptionsAreUsageErrors) {
  const std::string analyze = "analyze " + quoted(model_) + " --input ";
  expect_error(run_cctx(analyze + "mask=B"), 2, {"--input mask", "1 dims given", "declares 2"});
  expect_error(run_cctx(analyze + "attn=B,P"), 2, {"no input 'attn'", "its inputs: past, x, mask"});
  expect_error(run_cctx(analyze + "mask=B,+"), 2, {"--input mask", "'+' is not a dim"});
  expect_error(run_cctx(analyze + "mask="), 2, {"expected NAME=D0,D1"});
  expect_error(run_cctx(analyze + "axes=3"), 2, {"no input 'axes'"});  // a weight
  expect_error(run_cctx(analyze + "mask=B,P --input mask=B,S"), 2, {"'mask' is given twice"});
}

}  // namespace
}  // namespace cctx
