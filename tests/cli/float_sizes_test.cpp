// Floating-point sizes (expressions.md 4.5) through the real binary: torchvision's detection
// resize (tests/realmodels/resize_transform.onnx) computes its output size in float32; cctx keeps
// the computation as a symbol with a definition, evaluates it as ONNX Runtime rounds it (11x25
// gives 281x639, not the exact quotient's 281x640), and reports it in the JSON and the table.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "test_env.hpp"

namespace cctx {
namespace {

using test::quoted;
using test::run_cctx;

std::filesystem::path model_path() {
  return test::source_dir() / "tests/realmodels/resize_transform.onnx";
}

nlohmann::json analyze_json(const std::string& model, const std::string& extra = "") {
  const test::RunResult r = run_cctx("analyze " + model + " --format json --quiet " + extra);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

/// The model with its image fixed at 3 x h x w.
std::string fixed_model(const test::TempDir& dir, std::int64_t h, std::int64_t w) {
  onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(test::read_file(model_path())));
  auto* dims = m.mutable_graph()
                   ->mutable_input(0)
                   ->mutable_type()
                   ->mutable_tensor_type()
                   ->mutable_shape()
                   ->mutable_dim();
  const std::int64_t values[] = {3, h, w};
  for (int k = 0; k < 3; ++k) {
    dims->Mutable(k)->Clear();
    dims->Mutable(k)->set_dim_value(values[k]);
  }
  const std::filesystem::path path =
      dir / ("fixed_" + std::to_string(h) + "x" + std::to_string(w) + ".onnx");
  test::write_file(path, m.SerializeAsString());
  return quoted(path);
}

TEST(FloatSizes, ResizedDimsAreSymbolsWithTheirComputation) {
  const nlohmann::json j = analyze_json(quoted(model_path()));
  const nlohmann::json& resized = j["values"]["resized"]["shape"];
  ASSERT_EQ(resized.size(), 4u);
  const std::string h = resized[2], w = resized[3];
  int found = 0;
  for (const nlohmann::json& s : j["symbols"]) {
    if (s["name"] != h && s["name"] != w) continue;
    ++found;
    EXPECT_EQ(s["kind"], "fresh");
    EXPECT_EQ(s.value("floating_point", false), true);
    const std::string side = s["name"] == h ? "height" : "width";
    EXPECT_EQ(s["definition"], "floor(float32(" + side +
                                   ")*min(1.0f/float32(min(height,width))*320.0f,1.0f/"
                                   "float32(max(height,width))*640.0f))");
  }
  EXPECT_EQ(found, 2);
  // The definition evaluates as ONNX Runtime rounds: 639, one below the exact quotient's floor.
  const std::string definition =
      "floor(float32(width)*min(1.0f/float32(min(height,width))*320.0f,1.0f/"
      "float32(max(height,width))*640.0f))";
  const test::RunResult r = run_cctx("eval '" + definition + "' height=11 width=25");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "639\n");
}

TEST(FloatSizes, EvaluationEqualsTheFixedModel) {
  test::TempDir dir;
  for (auto [h, w] :
       {std::pair{11, 25}, std::pair{128, 128}, std::pair{97, 123}, std::pair{1, 1}}) {
    const std::string eval =
        "--eval height=" + std::to_string(h) + " --eval width=" + std::to_string(w);
    const nlohmann::json symbolic = analyze_json(quoted(model_path()), eval);
    const nlohmann::json fixed = analyze_json(fixed_model(dir, h, w));
    ASSERT_TRUE(fixed["peak"]["total_bytes"].is_number()) << fixed["peak"];
    EXPECT_EQ(symbolic["peak"]["evaluations"][0]["bytes"], fixed["peak"]["total_bytes"])
        << h << "x" << w;
    EXPECT_FALSE(symbolic["peak"]["evaluations"][0].contains("at_upper_bound"));
    if (h == 11) {
      EXPECT_EQ(fixed["values"]["resized"]["shape"], nlohmann::json::parse("[1, 3, 281, 639]"));
    }
  }
}

TEST(FloatSizes, AWrittenModelCarriesTheDefinitions) {
  test::TempDir dir;
  const test::RunResult r = run_cctx("analyze " + quoted(model_path()) + " --quiet --write-model " +
                                     quoted(dir / "out.onnx"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(test::read_file(dir / "out.onnx")));
  std::map<std::string, std::string> definitions;
  for (const auto& p : m.metadata_props()) {
    if (p.key().rfind("cctx.definition.", 0) == 0) definitions[p.key().substr(16)] = p.value();
  }
  ASSERT_EQ(definitions.size(), 2u);
  // Every dim_param of `resized` is evaluable with them.
  for (const auto& vi : m.graph().value_info()) {
    if (vi.name() != "resized") continue;
    const auto& dims = vi.type().tensor_type().shape().dim();
    ASSERT_EQ(dims.size(), 4);
    EXPECT_EQ(definitions.count(dims[2].dim_param()), 1u) << dims[2].dim_param();
    EXPECT_EQ(definitions.count(dims[3].dim_param()), 1u) << dims[3].dim_param();
  }
}

TEST(FloatSizes, TheTableListsThem) {
  const test::RunResult r =
      run_cctx("analyze " + quoted(model_path()) + " --eval height=11 --eval width=25");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Sizes computed in floating point (evaluated as the runtime rounds them):"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("= floor(float32(height)*min("), std::string::npos) << r.out;
  // A user asking to simplify a definition is told to give values.
  const test::RunResult e = run_cctx("eval 'floor(float32(w)*0.5f)'");
  EXPECT_EQ(e.exit_code, 3);
  EXPECT_NE(e.err.find("computes in floating point"), std::string::npos) << e.err;
}

}  // namespace
}  // namespace cctx
