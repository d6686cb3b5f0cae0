// Contracts declared once (issue 45, SDK 1.9): a plugin's schema is checked by the host before any
// rule runs, through the real `cctx` binary, with the NPU example's C++ form (schema first), the
// ai.onnx plugin's schemas (ONNX's own) and a plugin whose schema contradicts itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::quoted;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// A profile loading ai.onnx and the NPU example's C++ form.
std::string npu_profile(const test::TempDir& dir, const std::string& extra = "") {
  std::ofstream(dir / "npu.yaml") << "plugins:\n  - name: onnx\n  - path: '" << FIXTURE_NPU_EXAMPLE
                                  << "'\n"
                                  << extra;
  return " --profile " + quoted(dir / "npu.yaml");
}

/// One com.npu node of op `op` over inputs `inputs`, written to `name`.onnx.
std::string one_node(const test::TempDir& dir, const std::string& name, const std::string& op,
                     const std::vector<std::pair<std::string, test::ShapeSpec>>& float_inputs,
                     const std::vector<onnx::AttributeProto>& attributes,
                     onnx::TensorProto::DataType second_type = onnx::TensorProto::FLOAT) {
  test::ModelBuilder b(18);
  b.opset("com.npu", 1);
  std::vector<std::string> names;
  for (std::size_t k = 0; k < float_inputs.size(); ++k) {
    b.input(float_inputs[k].first, k == 1 ? second_type : test::kFloat, float_inputs[k].second);
    names.push_back(float_inputs[k].first);
  }
  b.node(op, names, {"Y"}, attributes, "com.npu", "n");
  b.output("Y");
  std::ofstream(dir / (name + ".onnx"), std::ios::binary) << b.build().proto().SerializeAsString();
  return quoted(dir / (name + ".onnx"));
}

TEST(Schema, NodesBreakingTheNpuContractAreRefusedBeforeTheRule) {
  test::TempDir dir;
  const std::string profile = npu_profile(dir);
  struct Case {
    std::string model;
    std::string message;
  };
  const std::vector<Case> cases = {
      {one_node(dir, "dtype", "KvAppend", {{"past", {1, 10, 64}}, {"new", {1, 1, 64}}},
                {test::attr("max_len", std::int64_t{128})}, onnx::TensorProto::INT64),
       "input 1 'new' is int64; the schema allows float32 (schema of npu_example 1.0"},
      {one_node(dir, "rank", "LayerNorm", {{"X", {4, 64}}, {"gamma", {64}}}, {}),
       "input 0 'X' has rank 2; the schema wants rank 3 (schema of npu_example 1.0"},
      {one_node(dir, "required", "FusedAttention",
                {{"Q", {1, 1, 64}}, {"K", {1, 4, 64}}, {"V", {1, 4, 64}}}, {}),
       "attribute 'num_heads' (INT) is required (schema of npu_example 1.0"},
      {one_node(dir, "range", "FusedAttention",
                {{"Q", {1, 1, 64}}, {"K", {1, 4, 64}}, {"V", {1, 4, 64}}},
                {test::attr("num_heads", std::int64_t{0})}),
       "attribute 'num_heads' is 0; the schema allows at least 1 (schema of npu_example 1.0"},
      {one_node(dir, "type", "KvAppend", {{"past", {1, 10, 64}}, {"new", {1, 1, 64}}},
                {test::attr("max_len", 128.0f)}),
       "attribute 'max_len' is FLOAT; the schema declares INT (schema of npu_example 1.0"},
      {one_node(dir, "count", "LayerNorm", {{"X", {1, 4, 64}}, {"gamma", {64}}, {"beta", {64}}},
                {}),
       "has 3 inputs; the schema declares 2 (schema of npu_example 1.0"},
  };
  for (const Case& c : cases) {
    const auto r = test::run_cctx("analyze " + c.model + profile + " --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(has(r.err, "node 0 'n' (com.npu:")) << r.err;
    EXPECT_TRUE(has(r.err, c.message)) << c.message << "\n" << r.err;
    // The rule did not run: the output has no shape, and the refusal is the node's failure.
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["rule_failures"].size(), 1u) << r.out;
    EXPECT_TRUE(has(j["rule_failures"][0]["rule"].get<std::string>(), "schema of npu_example"));
    // Under shapes.strict the same breach is an error of one line.
    test::TempDir strict_dir;
    const auto strict =
        test::run_cctx("analyze " + c.model + npu_profile(strict_dir, "shapes:\n  strict: true\n"));
    EXPECT_EQ(strict.exit_code, 4) << strict.err;
    EXPECT_TRUE(has(strict.err, c.message)) << strict.err;
  }
}

TEST(Schema, AnAttributeTheSchemaDoesNotDeclareIsNamedWithTheNearestOne) {
  test::TempDir dir;
  const std::string model =
      one_node(dir, "typo", "KvAppend", {{"past", {1, 10, 64}}, {"new", {1, 1, 64}}},
               {test::attr("maxlen", std::int64_t{128})});
  const auto r = test::run_cctx("analyze " + model + npu_profile(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.err,
                  "attribute 'maxlen' is not in the schema (did you mean 'max_len'?) "
                  "(schema of npu_example 1.0"))
      << r.err;
  EXPECT_TRUE(has(r.err, "attribute 'max_len' (INT) is required")) << r.err;
}

TEST(Schema, PluginsOpPrintsTheContract) {
  test::TempDir dir;
  const auto r = test::run_cctx("plugins --op com.npu::KvAppend" + npu_profile(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "  schema@1: npu_example 1.0")) << r.out;
  EXPECT_TRUE(has(r.out,
                  "  schema from opset 1:\n"
                  "    input 0 'past' rank 3: float32\n"
                  "    input 1 'new' rank 3: float32\n"
                  "    outputs 1..1\n"
                  "    attribute max_len: INT, required, at least 1\n"))
      << r.out;
  // ai.onnx's come from ONNX's schemas: Gemm's inputs, optional C, and its defaults.
  const auto gemm = test::run_cctx("plugins --op Gemm --format json");
  ASSERT_EQ(gemm.exit_code, 0) << gemm.err;
  const auto doc = nlohmann::json::parse(gemm.out);
  const nlohmann::json* newest = nullptr;
  for (const auto& rule : doc[0]["rules"]) {
    if (rule["kind"] == "schema" && rule["since_version"] == 13) newest = &rule;
  }
  ASSERT_NE(newest, nullptr) << gemm.out;
  const auto& schema = (*newest)["schema"];
  EXPECT_EQ(schema["inputs"][2]["name"], "C");
  EXPECT_EQ(schema["inputs"][2]["optional"], true);
  EXPECT_TRUE(std::find(schema["inputs"][0]["dtypes"].begin(), schema["inputs"][0]["dtypes"].end(),
                        "bfloat16") != schema["inputs"][0]["dtypes"].end());
  bool alpha = false;
  for (const auto& a : schema["attributes"]) {
    if (a["name"] == "alpha") {
      alpha = true;
      EXPECT_EQ(a["type"], "FLOAT");
      EXPECT_EQ(a["default"], 1.0);
    }
    if (a["name"] == "transA") {
      EXPECT_EQ(a["default"], 0);
    }
  }
  EXPECT_TRUE(alpha) << gemm.out;
}

TEST(Schema, AnOnnxNodeBreakingOnnxsSchemaIsRefusedNamingIt) {
  test::TempDir dir;
  // Cast without its required `to`; a Relu of uint64 (Relu-14 takes floats and signed
  // integers only). At opset 17: the onnx library cctx builds with knows ai.onnx up to the
  // opset its version has, and its contracts hold up to there.
  test::ModelBuilder b(17);
  b.input("X", test::kFloat, {"N", 4});
  b.input("U", onnx::TensorProto::UINT64, {"N", 4});
  b.node("Cast", {"X"}, {"A"}, {}, "", "cast");
  b.node("Relu", {"U"}, {"B"}, {}, "", "relu");
  b.output("A");
  b.output("B");
  std::ofstream(dir / "m.onnx", std::ios::binary) << b.build().proto().SerializeAsString();
  const auto r = test::run_cctx("analyze " + quoted(dir / "m.onnx"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.err, "node 0 'cast' (Cast): attribute 'to' (INT) is required (schema of onnx"))
      << r.err;
  EXPECT_TRUE(has(r.err, "node 1 'relu' (Relu): input 0 'X' is uint64; the schema allows "))
      << r.err;
}

TEST(Schema, AContradictoryDeclarationRefusesThePlugin) {
  test::TempDir dir;
  std::ofstream(dir / "p.yaml") << "plugins:\n  - name: onnx\n  - path: '" << FIXTURE_BAD_SCHEMA
                                << "'\n";
  const auto r = test::run_cctx("plugins --profile " + quoted(dir / "p.yaml"));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(has(r.err, "schema of Concat2: input 0 'parts' is variadic but not the last input"))
      << r.err;
}

}  // namespace
}  // namespace cctx
