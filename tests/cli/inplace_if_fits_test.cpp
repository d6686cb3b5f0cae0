// In-place reuse that the symbols decide (semantics.md 7.4, `if_fits`): an output that takes an
// input's buffer in a fixed-size analysis exactly where the input is at least as large. The
// symbolic analysis evaluated at an assignment must equal the analysis of the model with its
// dims fixed there (issue 19 item 11): at N = 1 the broadcast Add reuses its [1] input, at N = 3
// it allocates.
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

/// X[N] + Relu(C)[1], then Neg: the Relu's output dies at the Add.
test::ModelBuilder model(const test::DimSpec& n) {
  test::ModelBuilder b(17);
  b.input("X", test::kFloat, {n});
  b.input("C", test::kFloat, {1});
  b.node("Relu", {"C"}, {"r"});
  b.node("Add", {"X", "r"}, {"s"});
  b.node("Neg", {"s"}, {"Y"});
  b.output("Y");
  return b;
}

nlohmann::json analyze_json(const test::ModelBuilder& b, const test::TempDir& dir,
                            const std::string& name, const std::string& extra = "") {
  const std::filesystem::path path = dir / name;
  test::write_file(path, b.build().proto().SerializeAsString());
  const test::RunResult r = run_cctx("analyze " + quoted(path) + " --format json --quiet " + extra);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(InplaceIfFits, TheSymbolicTotalIsTheFixedOneAtEveryAssignment) {
  test::TempDir dir;
  const nlohmann::json symbolic = analyze_json(model("N"), dir, "symbolic.onnx");
  const nlohmann::json& add = symbolic["nodes"][1];
  ASSERT_EQ(add["op_type"], "Add");
  ASSERT_EQ(add["inplace"].size(), 1u);
  EXPECT_EQ(add["inplace"][0]["kind"], "if_fits");
  EXPECT_EQ(add["inplace"][0]["input"], 1);
  for (int n : {1, 2, 3, 64}) {
    const nlohmann::json fixed = analyze_json(model(n), dir, "fixed.onnx");
    // The fixed analysis reuses exactly where the input is at least the output's size.
    EXPECT_EQ(fixed["nodes"][1]["inplace"].size(), n == 1 ? 1u : 0u) << n;
    const nlohmann::json at =
        analyze_json(model("N"), dir, "symbolic.onnx", "--eval N=" + std::to_string(n));
    EXPECT_EQ(at["peak"]["evaluations"][0]["bytes"], fixed["peak"]["total_bytes"]) << n;
    // Every node's total, evaluated with cctx's own evaluator.
    for (std::size_t k = 0; k < 3; ++k) {
      const nlohmann::json& amount = symbolic["nodes"][k]["memory"]["total_bytes"];
      const std::string total = amount.is_string() ? amount.get<std::string>() : amount.dump();
      const test::RunResult e = run_cctx("eval '" + total + "' N=" + std::to_string(n));
      ASSERT_EQ(e.exit_code, 0) << e.err;
      EXPECT_EQ(e.out, fixed["nodes"][k]["memory"]["total_bytes"].dump() + "\n")
          << "node " << k << " at N=" << n << ": " << total;
    }
  }
}

}  // namespace
}  // namespace cctx
