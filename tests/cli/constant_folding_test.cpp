// memory.fold_shape_constants through the real binary: the nodes ONNX Runtime's ConstantFolding
// computes when a session loads (a Shape of static dims, then every node whose inputs are all
// constants) are held like initializers (in the session) and run no kernel (no per-node run
// overhead). A static dim read out of a Shape with symbolic dims is not folded: ONNX Runtime
// 1.30 computes it at every run (its saved graphs keep the Gather).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::quoted;
using test::run_cctx;
using Json = nlohmann::json;

TEST(ConstantFolding, NodesOnnxRuntimeFoldsAreHeldLikeInitializers) {
  test::TempDir dir;
  // x [B, 4, 6] is reshaped twice to [-1, 6]: once with the 6 read from a constant table's
  // shape (Shape of static dims, then Gather, Unsqueeze, Concat of constants: all folded), once
  // with the 6 read from x's own shape (Shape of x is symbolic: that chain runs).
  test::ModelBuilder b(18);
  b.input("x", test::kFloat, {"B", 4, 6});
  b.initializer(test::tensor_zeros("table", test::kFloat, {2, 6}));
  b.initializer_ints("one", {1}, {});
  b.initializer_ints("two", {2}, {});
  b.initializer_ints("axis0", {0});
  b.initializer_ints("minus_one", {-1});
  b.node("Shape", {"table"}, {"table_shape"});
  b.node("Gather", {"table_shape", "one"}, {"six"});
  b.node("Unsqueeze", {"six", "axis0"}, {"six_1d"});
  b.node("Concat", {"minus_one", "six_1d"}, {"target"}, {test::attr("axis", 0)});
  b.node("Reshape", {"x", "target"}, {"y"});
  b.node("Shape", {"x"}, {"x_shape"});
  b.node("Gather", {"x_shape", "two"}, {"x_six"});
  b.node("Unsqueeze", {"x_six", "axis0"}, {"x_six_1d"});
  b.node("Concat", {"minus_one", "x_six_1d"}, {"x_target"}, {test::attr("axis", 0)});
  b.node("Reshape", {"x", "x_target"}, {"y2"});
  b.node("Add", {"y", "y2"}, {"out"});
  b.output("out");
  const auto model = dir / "reshape_by_shape.onnx";
  test::write_file(model, b.build().proto().SerializeAsString());
  const std::string shipped = test::source_dir().string() + "/config/profiles/";
  test::write_file(dir / "no_folding.yaml", "extends: " + shipped +
                                                "onnxruntime-cpu-no-arena.yaml\n"
                                                "memory: {fold_shape_constants: false}\n");
  auto analyse = [&](const std::string& profile) {
    const test::RunResult r =
        run_cctx("analyze " + quoted(model) + " --format json --eval B=3 --profile " +
                 quoted(std::filesystem::path(profile)));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json::parse(r.out);
  };
  const Json folded = analyse(shipped + "onnxruntime-cpu-no-arena.yaml");
  const Json running = analyse((dir / "no_folding.yaml").string());
  std::vector<std::string> folded_nodes;
  for (const Json& n : folded["nodes"]) {
    if (n.value("folded_at_load", false)) folded_nodes.push_back(n["outputs"][0]);
  }
  EXPECT_EQ(folded_nodes, (std::vector<std::string>{"table_shape", "six", "six_1d", "target"}));
  for (const Json& n : running["nodes"]) EXPECT_FALSE(n.contains("folded_at_load"));
  const Json& f = folded["peak"]["evaluations"][0];
  const Json& r = running["peak"]["evaluations"][0];
  // The session holds table_shape (16 bytes), six (8), six_1d (8) and target (16).
  EXPECT_EQ(std::int64_t{f["session_bytes"]} - std::int64_t{r["session_bytes"]}, 48);
  // The run loses four kernels' bookkeeping (90 bytes each) and those values.
  EXPECT_GE(std::int64_t{r["run_bytes"]} - std::int64_t{f["run_bytes"]}, 4 * 90);
}

}  // namespace
}  // namespace cctx
