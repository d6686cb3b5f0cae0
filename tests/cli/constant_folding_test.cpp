// memory.fold_shape_constants through the real binary: the nodes whose outputs the shapes decide
// (a Shape's static dim, then Unsqueeze and Concat of it) are folded as ONNX Runtime's
// ConstantFolding folds them when a session loads: their outputs are held like initializers (in
// the session) and they run no kernel (no per-node run overhead).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::quoted;
using test::run_cctx;
using Json = nlohmann::json;

TEST(ConstantFolding, NodesTheShapesDecideAreHeldLikeInitializers) {
  test::TempDir dir;
  // x [B, 4, 6] -> Reshape to [-1, 6], the 6 read from x's shape: Shape is symbolic (B), so it
  // runs; Gather(shape, 2) = 6, Unsqueeze -> [6] and Concat([-1], [6]) are constants.
  test::ModelBuilder b(18);
  b.input("x", test::kFloat, {"B", 4, 6});
  b.initializer_ints("two", {2}, {});
  b.initializer_ints("axis0", {0});
  b.initializer_ints("minus_one", {-1});
  b.node("Shape", {"x"}, {"shape"});
  b.node("Gather", {"shape", "two"}, {"six"});
  b.node("Unsqueeze", {"six", "axis0"}, {"six_1d"});
  b.node("Concat", {"minus_one", "six_1d"}, {"target"}, {test::attr("axis", 0)});
  b.node("Reshape", {"x", "target"}, {"y"});
  b.node("Relu", {"y"}, {"out"});
  b.output("out");
  const auto model = dir / "reshape_by_shape.onnx";
  test::write_file(model, b.build().proto().SerializeAsString());
  const std::string shipped = test::source_dir().string() + "/config/profiles/";
  test::write_file(dir / "no_folding.yaml", "extends: " + shipped +
                                                "onnxruntime-cpu-no-arena.yaml\n"
                                                "memory: {fold_shape_constants: false}\n");
  auto evaluate = [&](const std::string& profile) {
    const test::RunResult r =
        run_cctx("analyze " + quoted(model) + " --format json --eval B=3 --profile " +
                 quoted(std::filesystem::path(profile)));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json::parse(r.out)["peak"]["evaluations"][0];
  };
  const Json folded = evaluate(shipped + "onnxruntime-cpu-no-arena.yaml");
  const Json running = evaluate((dir / "no_folding.yaml").string());
  // The session holds six (8 bytes), six_1d (8) and target (16).
  EXPECT_EQ(std::int64_t{folded["session_bytes"]} - std::int64_t{running["session_bytes"]}, 32);
  // The run loses three kernels' bookkeeping (90 bytes each) and those values.
  EXPECT_GE(std::int64_t{running["run_bytes"]} - std::int64_t{folded["run_bytes"]}, 3 * 90);
}

}  // namespace
}  // namespace cctx
