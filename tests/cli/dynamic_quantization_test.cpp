// What onnxruntime.quantization.quantize_dynamic writes, through the real binary
// (docs/design/rewrites.md, "ONNX Runtime's rewrites"): under the level-`all` profiles a
// dynamically quantized MatMul (DynamicQuantizeLinear, MatMulInteger, Cast, the Mul by the two
// scales, a bias Add) is the one DynamicQuantizeMatMul ONNX Runtime runs, with its 8-bit copy
// of A as scratch; a quantized value two MatMulIntegers share stays quantized once, each
// product a MatMulIntegerToFloat. com.microsoft DynamicQuantizeLSTM has LSTM's shapes and
// workspaces. The real graphs are checked against ONNX Runtime by `validate_accuracy`.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::quoted;
using test::run_cctx;
using Json = nlohmann::json;

/// x [B, S, 16] -> one dynamically quantized MatMul per weight (16 x 24), each read by
/// `readers` products of the same quantized x, with a bias Add when `bias`.
std::filesystem::path write_model(const test::TempDir& dir, const std::string& name, int readers,
                                  bool bias) {
  test::ModelBuilder b(17);
  b.input("x", test::kFloat, {"B", "S", std::int64_t{16}});
  b.initializer(test::tensor_zeros("w_zero", test::kInt8, {}));
  b.initializer(test::tensor_zeros("bias", test::kFloat, {24}));
  b.node("DynamicQuantizeLinear", {"x"}, {"q", "q_scale", "q_zero"}, {}, "", "quantize");
  for (int k = 0; k < readers; ++k) {
    const std::string n = std::to_string(k);
    // Each weight its own scale, as the quantizer writes them (equal scale products would be one
    // node after CommonSubexpressionElimination, read twice: ONNX Runtime then fuses neither).
    b.initializer(test::tensor_zeros("w" + n, test::kInt8, {16, 24}));
    b.initializer(test::tensor_floats("w_scale" + n, {0.5F / static_cast<float>(k + 1)}, {}));
    b.node("MatMulInteger", {"q", "w" + n, "q_zero", "w_zero"}, {"m" + n}, {}, "", "mmi" + n);
    b.node("Cast", {"m" + n}, {"c" + n}, {test::attr("to", std::int64_t{1})}, "", "cast" + n);
    b.node("Mul", {"q_scale", "w_scale" + n}, {"k" + n}, {}, "", "scales" + n);
    b.node("Mul", {"c" + n, "k" + n}, {"p" + n}, {}, "", "mul" + n);
    if (bias) {
      b.node("Add", {"bias", "p" + n}, {"y" + n}, {}, "", "add" + n);
    } else {
      b.node("Relu", {"p" + n}, {"y" + n}, {}, "", "relu" + n);
    }
    b.output("y" + n, test::kFloat);
  }
  const auto path = dir / (name + ".onnx");
  test::write_file(path, b.build().proto().SerializeAsString());
  return path;
}

Json analyze(const std::filesystem::path& model, const std::string& profile) {
  const test::RunResult r = run_cctx("analyze " + quoted(model) + " --profile " + profile +
                                     " --format json --eval B=2,S=5,threads=1");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return Json::parse(r.out);
}

std::vector<std::string> op_types(const Json& j) {
  std::vector<std::string> ops;
  for (const Json& n : j["nodes"]) ops.push_back(n["op_type"].get<std::string>());
  return ops;
}

TEST(DynamicQuantization, OneMatMulWithItsBiasIsOneDynamicQuantizeMatMul) {
  test::TempDir dir;
  const auto model = write_model(dir, "one", 1, true);
  const Json j = analyze(model, "onnxruntime-cpu-no-arena");
  ASSERT_EQ(op_types(j), std::vector<std::string>{"DynamicQuantizeMatMul"});
  const Json& node = j["nodes"][0];
  EXPECT_EQ(node["domain"], "com.microsoft");
  EXPECT_EQ(node["inputs"], Json({"x", "w0", "w_scale0", "w_zero", "bias"}));
  EXPECT_EQ(node["outputs"], Json({"y0"}));
  EXPECT_EQ(node["rewritten_from"]["rules"],
            Json({"MatMulIntegerToFloatFusion(bias)", "DynamicQuantizeMatMulFusion(bias)"}));
  // Its scratch: x quantized to 8 bits, B x S x 16 bytes.
  EXPECT_EQ(node["peak_scratch_bytes"], "16*B*S");
  // The lab profile plans the file's six nodes.
  EXPECT_EQ(analyze(model, "onnxruntime-cpu-unoptimized-no-arena")["nodes"].size(), 6u);
}

TEST(DynamicQuantization, WithoutABiasTheProductStillFuses) {
  test::TempDir dir;
  const Json j = analyze(write_model(dir, "plain", 1, false), "onnxruntime-cpu-no-arena");
  EXPECT_EQ(op_types(j), (std::vector<std::string>{"DynamicQuantizeMatMul", "Relu"}));
  EXPECT_EQ(j["nodes"][0]["inputs"], Json({"x", "w0", "w_scale0", "w_zero"}));
}

TEST(DynamicQuantization, AQuantizedValueTwoProductsReadStaysQuantizedOnce) {
  test::TempDir dir;
  const Json j = analyze(write_model(dir, "shared", 2, true), "onnxruntime-cpu-no-arena");
  EXPECT_EQ(op_types(j), (std::vector<std::string>{"DynamicQuantizeLinear", "MatMulIntegerToFloat",
                                                   "MatMulIntegerToFloat"}));
  // (The runtime's order runs the second product first.)
  EXPECT_EQ(j["nodes"][2]["inputs"],
            Json({"q", "w0", "q_scale", "w_scale0", "q_zero", "w_zero", "bias"}));
  EXPECT_EQ(j["nodes"][1]["inputs"][1], "w1");
}

TEST(DynamicQuantization, DynamicQuantizeLstmHasLstmsShapesAndWorkspaces) {
  test::TempDir dir;
  test::ModelBuilder b(17);
  b.opset("com.microsoft", 1);
  b.input("X", test::kFloat, {"S", "B", std::int64_t{8}});
  b.initializer(test::tensor_zeros("W", test::kInt8, {2, 8, 64}));
  b.initializer(test::tensor_zeros("R", test::kInt8, {2, 16, 64}));
  for (const char* s : {"W_scale", "R_scale"}) {
    b.initializer(test::tensor_zeros(s, test::kFloat, {2}));
  }
  for (const char* z : {"W_zero_point", "R_zero_point"}) {
    b.initializer(test::tensor_zeros(z, test::kInt8, {2}));
  }
  b.node("DynamicQuantizeLSTM",
         {"X", "W", "R", "", "", "", "", "", "W_scale", "W_zero_point", "R_scale", "R_zero_point"},
         {"Y", "Y_h", "Y_c"},
         {test::attr("hidden_size", std::int64_t{16}), test::attr("direction", "bidirectional")},
         "com.microsoft", "lstm");
  b.output("Y", test::kFloat);
  const auto model = dir / "lstm.onnx";
  test::write_file(model, b.build().proto().SerializeAsString());
  const test::RunResult r =
      run_cctx("analyze " + quoted(model) + " --profile onnxruntime-cpu-no-arena --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("no shape rule"), std::string::npos) << r.err;
  const Json j = Json::parse(r.out);
  EXPECT_EQ(j["values"]["Y"]["shape"], Json({"S", 2, "B", 16}));
  EXPECT_EQ(j["values"]["Y_h"]["shape"], Json({2, "B", 16}));
  // Two directions' LSTM objects, and per direction X quantized (S*B*8 bytes, as long as that
  // is at least B*16) and a step's int32 product (B*64*4).
  const test::RunResult at = run_cctx("analyze " + quoted(model) +
                                      " --profile onnxruntime-cpu-no-arena --format json "
                                      "--eval S=7,B=3,threads=1");
  ASSERT_EQ(at.exit_code, 0) << at.err;
  const std::int64_t scratch =
      Json::parse(at.out)["peak"]["evaluations"][0]["run_scratch_bytes"].get<std::int64_t>();
  // S=7, B=3, I=8, H=16, float32: each direction's object holds H, H, 3 x BH and 4 x BH x S;
  // the reverse one also X and Y reversed (S x B x I, S x B x H); B int32 lengths each.
  const std::int64_t h = 16 * 4, bh = 3 * 16 * 4;
  const std::int64_t object = 2 * h + 3 * bh + 4 * bh * 7;
  const std::int64_t lstm = 2 * object + (7 * 3 * 8 * 4 + 7 * bh) + 2 * 3 * 4;
  const std::int64_t quantized = 2 * (7 * 3 * 8 + 3 * 64 * 4);
  EXPECT_EQ(scratch, lstm + quantized);
}

}  // namespace
}  // namespace cctx
