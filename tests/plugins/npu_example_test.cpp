// The NPU example of plugins/npu_example (issue 45): four operators in C++ (npu_plugin.cpp) and
// without code (npu.yaml). One small decoder layer analysed with each form gives the same figures,
// node by node, and the figures are checked by hand.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::quoted;

/// x [B, S, 64], past [B, P, 64] -> LayerNorm -> h; q = MatMul4Bit(h, wq), k = MatMul4Bit(h, wk)
/// (4-bit weights [64, 32] uint8); present = KvAppend(past, k) into a 128-row cache;
/// o = FusedAttention(q, present, present) with 4 heads.
std::string write_model(const test::TempDir& dir) {
  test::ModelBuilder b(18);
  b.opset("com.npu", 1);
  b.input("x", test::kFloat, {"B", "S", 64});
  b.input("past", test::kFloat, {"B", "P", 64});
  b.initializer(test::tensor_zeros("gamma", test::kFloat, {64}));
  b.initializer(test::tensor_zeros("wq", onnx::TensorProto::UINT8, {64, 32}));
  b.initializer(test::tensor_zeros("wk", onnx::TensorProto::UINT8, {64, 32}));
  b.node("LayerNorm", {"x", "gamma"}, {"h"}, {}, "com.npu", "norm");
  b.node("MatMul4Bit", {"h", "wq"}, {"q"}, {}, "com.npu", "q_proj");
  b.node("MatMul4Bit", {"h", "wk"}, {"k"}, {}, "com.npu", "k_proj");
  b.node("KvAppend", {"past", "k"}, {"present"}, {test::attr("max_len", std::int64_t{128})},
         "com.npu", "append");
  b.node("FusedAttention", {"q", "present", "present"}, {"o"},
         {test::attr("num_heads", std::int64_t{4})}, "com.npu", "attention");
  b.output("o");
  b.output("present");
  std::ofstream(dir / "m.onnx", std::ios::binary) << b.build().proto().SerializeAsString();
  std::ofstream(dir / "cpp.yaml") << "plugins:\n  - name: onnx\n  - path: '" << FIXTURE_NPU_EXAMPLE
                                  << "'\n";
  return quoted(dir / "m.onnx");
}

TEST(NpuExample, BothFormsGiveTheSameFiguresCheckedByHand) {
  test::TempDir dir;
  const std::string model = write_model(dir);
  const std::string at = " --eval B=1,S=1,P=10 --quiet";
  const std::string cpp_profile = " --profile " + quoted(dir / "cpp.yaml");
  const std::string yaml_profile = " --profile " + std::string(NPU_EXAMPLE_YAML);
  auto cpp = test::run_cctx("analyze " + model + cpp_profile + at + " --format csv");
  auto yaml = test::run_cctx("analyze " + model + yaml_profile + at + " --format csv");
  ASSERT_EQ(cpp.exit_code, 0) << cpp.err;
  ASSERT_EQ(yaml.exit_code, 0) << yaml.err;
  EXPECT_EQ(cpp.out, yaml.out);

  auto json = test::run_cctx("analyze " + model + yaml_profile + at + " --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  const nlohmann::json& e = doc["peak"]["evaluations"][0];
  // By hand, B=1, S=1, P=10 (float32): x is 1*1*64*4 = 256 bytes; past's buffer has room for
  // 128 rows: 1*128*64*4 = 32,768 bytes, what the caller allocates.
  EXPECT_EQ(e["input_bytes"], 256 + 32768);
  // Scratch as formulas: LayerNorm a mean and a deviation per row, 2*B*S float32; each
  // MatMul4Bit dequantizes 64 x 64 float32 = 16,384 bytes; the attention holds the scores of 4
  // heads over the P+S rows of present: 4*B*S*(P+S) float32.
  const nlohmann::json& nodes = doc["nodes"];
  ASSERT_EQ(nodes.size(), 5u);
  EXPECT_EQ(nodes[0]["peak_scratch_bytes"], "8*B*S");
  EXPECT_EQ(nodes[1]["peak_scratch_bytes"], 16384);
  EXPECT_EQ(nodes[2]["peak_scratch_bytes"], 16384);
  EXPECT_EQ(nodes[3]["peak_scratch_bytes"], 0);
  EXPECT_EQ(nodes[4]["peak_scratch_bytes"], "16*B*P*S+16*B*S*S");
  // The peak is at k_proj (node 2): x 256 + past's 32,768 + the weights 4,352 (gamma 256, two
  // 2,048-byte 4-bit matrices) + h 256 + q 256 held, k's 256 allocated, 16,384 of scratch.
  EXPECT_EQ(e["node"], 2);
  EXPECT_EQ(e["bytes"], 256 + 32768 + 4352 + 256 + 256 + 256 + 16384);
  EXPECT_EQ(e["session_bytes"], 4352);
  EXPECT_EQ(e["reserve_bytes"], e["bytes"]);
  // KvAppend allocates nothing: its total is what was held before it.
  EXPECT_EQ(nodes[3]["memory"]["output_allocation_bytes"], 0);
  // present is written into past's buffer: the node allocates nothing.
  EXPECT_NE(json.out.find("\"mode\": \"write_into\""), std::string::npos);
  // The table's KV cache lines say where present is: in the past's buffer, not the run's.
  auto table = test::run_cctx("analyze " + model + yaml_profile + at);
  EXPECT_NE(table.out.find("KV cache: past 2560 bytes (of the inputs), present 2816 bytes (in the "
                           "past's buffer)"),
            std::string::npos)
      << table.out;
  // A context past the cache is refused: 127 + 2 rows > 128.
  auto full = test::run_cctx("analyze " + model + yaml_profile + " --eval B=1,S=2,P=127 --quiet");
  EXPECT_NE(full.exit_code, 0) << full.out;
  auto full_cpp =
      test::run_cctx("analyze " + model + cpp_profile + " --eval B=1,S=2,P=127 --quiet");
  EXPECT_NE(full_cpp.exit_code, 0) << full_cpp.out;
}

}  // namespace
}  // namespace cctx
