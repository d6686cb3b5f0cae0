// Declarative ops that look at their inputs, through the real `cctx` binary with saved .onnx
// models and YAML profiles: `bytes(inK)`, `elem_bytes(inK)` and `numel(inK)` in expressions
// (float16 counted at 2 bytes, int4 rounded per tensor as the host rounds its values), their
// failures naming the node and the expression, and `inputs:` requirements (rank, presence) that
// make a node that does not fit a rule failure instead of a silent shape.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::quoted;
using test::run_cctx;
using test::write_file;

constexpr int kInt4 = 22;  // onnx::TensorProto::INT4

nlohmann::json parse(const std::string& text) { return nlohmann::json::parse(text); }

bool has_warning(const nlohmann::json& doc, const std::string& text) {
  for (const auto& w : doc["warnings"]) {
    if (w.dump().find(text) != std::string::npos) return true;
  }
  return false;
}

/// The JSON report of `cctx analyze MODEL --profile PROFILE`, which must succeed.
nlohmann::json analyze_json(const std::filesystem::path& model,
                            const std::filesystem::path& profile) {
  auto r =
      run_cctx("analyze " + quoted(model) + " --profile " + quoted(profile) + " --format json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? parse(r.out) : nlohmann::json::object();
}

/// Node `n`'s scratch is the named unknown `unknown`, with a warning that names the node (`who`)
/// and says why (`why`): never a silent 0 or a guessed size.
void expect_scratch_failure(const nlohmann::json& doc, int n, const std::string& unknown,
                            const std::string& who, const std::string& why) {
  EXPECT_EQ(doc["nodes"][n]["peak_scratch_bytes"], unknown);
  EXPECT_TRUE(has_warning(doc, who + ": scratch estimate unavailable (" + why + ")"))
      << doc["warnings"];
}

/// Four com.acme ops on inputs of element types float16, int4 and string, each with a scratch
/// of its input's bytes; saved as m.onnx.
std::filesystem::path bytes_model(const test::TempDir& dir) {
  test::ModelBuilder b(18);
  b.opset("com.acme", 1);
  b.input("h", test::kFloat16, {"N", 8});
  b.input("q", kInt4, {"N", 3});
  b.input("s", test::kString, {"N"});
  b.node("Twice", {"h"}, {"h2"}, {}, "com.acme", "twice");
  b.node("Elems", {"h"}, {"h3"}, {}, "com.acme", "elems");
  b.node("Packed", {"q"}, {"q2"}, {}, "com.acme", "packed");
  b.node("Twice", {"s"}, {"s2"}, {}, "com.acme", "strings");
  b.node("PerElement", {"q"}, {"q3"}, {}, "com.acme", "per_element");
  for (const char* out : {"h2", "h3", "q2", "s2", "q3"}) b.output(out);
  const std::filesystem::path path = dir / "m.onnx";
  b.build().save(path);
  return path;
}

constexpr const char* kBytesProfile = R"(plugins: [{name: onnx}]
ops:
  - domain: com.acme
    op_type: Twice
    outputs: [{shape: in0}]
    scratch: 2 * bytes(in0)
  - domain: com.acme
    op_type: Elems
    outputs: [{shape: in0}]
    scratch: numel(in0) * elem_bytes(in0)
  - domain: com.acme
    op_type: Packed
    outputs: [{shape: in0}]
    scratch: bytes(in0)
  - domain: com.acme
    op_type: PerElement
    outputs: [{shape: in0}]
    scratch: numel(in0) * elem_bytes(in0)
)";

TEST(CliDeclarativeInputs, BytesCountsTheInputsElementSize) {
  test::TempDir dir;
  write_file(dir / "p.yaml", kBytesProfile);
  const auto doc = analyze_json(bytes_model(dir), dir / "p.yaml");
  const auto& nodes = doc["nodes"];
  // float16 [N, 8]: 2 bytes an element, so 2 * bytes(in0) = 2 * 16*N.
  EXPECT_EQ(doc["values"]["h"]["bytes"], "16*N");
  EXPECT_EQ(nodes[0]["peak_scratch_bytes"], "32*N");
  // numel(in0) * elem_bytes(in0) is the same tensor's bytes.
  EXPECT_EQ(nodes[1]["peak_scratch_bytes"], "16*N");
  // int4 [N, 3]: two elements a byte, rounded up per tensor exactly as the host sizes q itself.
  EXPECT_EQ(nodes[2]["peak_scratch_bytes"], doc["values"]["q"]["bytes"]);
  EXPECT_EQ(nodes[2]["peak_scratch_bytes"], "(3*N+1)//2");

  // A string has no byte size; an int4 element is half a byte, so elem_bytes refuses it.
  expect_scratch_failure(doc, 3, "scratch_Twice_3", "node 3 'strings' (com.acme:Twice)",
                         "scratch: 'bytes(in0)' in '2 * bytes(in0)': input 0 is string, which "
                         "has no fixed element size");
  expect_scratch_failure(doc, 4, "scratch_PerElement_4",
                         "node 4 'per_element' (com.acme:PerElement)",
                         "scratch: 'elem_bytes(in0)' in 'numel(in0) * elem_bytes(in0)': input 0 "
                         "is int4 (4 bits an element), not a whole number of bytes; bytes(in0) "
                         "rounds the tensor's bytes");
}

TEST(CliDeclarativeInputs, AnUnknownRankFailsTheRule) {
  test::TempDir dir;
  test::ModelBuilder b(18);
  b.opset("com.acme", 1);
  b.input("x", test::kFloat, test::ShapeSpec::unknown());
  b.node("Twice", {"x"}, {"y"}, {}, "com.acme", "unranked");
  b.output("y");
  b.build().save(dir / "u.onnx");
  write_file(dir / "p.yaml", kBytesProfile);
  expect_scratch_failure(analyze_json(dir / "u.onnx", dir / "p.yaml"), 0, "scratch_Twice_0",
                         "node 0 'unranked' (com.acme:Twice)",
                         "scratch: 'bytes(in0)' in '2 * bytes(in0)': input 0 has an unknown rank");
}

/// com.acme::Mat2D nodes: a fitting one (2-D, then 2-D and 1-D), a 3-D input, and a node whose
/// required input 0 is omitted; saved as mm.onnx.
std::filesystem::path mat_model(const test::TempDir& dir) {
  test::ModelBuilder b(18);
  b.opset("com.acme", 1);
  b.input("a", test::kFloat, {"M", "K"});
  b.input("v", test::kFloat, {"K"});
  b.input("t", test::kFloat, {"B", "M", "K"});
  b.node("Mat2D", {"a"}, {"y0"}, {}, "com.acme", "fits");
  b.node("Mat2D", {"a", "v"}, {"y1"}, {}, "com.acme", "fits_too");
  b.node("Mat2D", {"t"}, {"y2"}, {}, "com.acme", "three_d");
  b.node("Mat2D", {"", "v"}, {"y3"}, {}, "com.acme", "no_first");
  for (const char* out : {"y0", "y1", "y2", "y3"}) b.output(out);
  const std::filesystem::path path = dir / "mm.onnx";
  b.build().save(path);
  return path;
}

constexpr const char* kMatProfile = R"(plugins: [{name: onnx}]
shapes: {fallback: [unknown_rank]}
ops:
  - domain: com.acme
    op_type: Mat2D
    inputs: [{rank: 2}, {rank: [1, 2], optional: true}]
    outputs: [{dtype: float32, shape: ["in0[0]", "in0[1]"]}]
)";

TEST(CliDeclarativeInputs, AnInputOfTheWrongRankIsARuleFailureNamingTheNode) {
  test::TempDir dir;
  write_file(dir / "p.yaml", kMatProfile);
  const std::filesystem::path model = mat_model(dir);
  const auto doc = analyze_json(model, dir / "p.yaml");
  EXPECT_EQ(doc["values"]["y0"]["shape"], parse(R"(["M", "K"])"));
  EXPECT_EQ(doc["values"]["y1"]["shape"], parse(R"(["M", "K"])"));
  // The 3-D input does not silently get a shape: the rule fails, the fallback applies.
  EXPECT_FALSE(doc["values"]["y2"].contains("shape") && doc["values"]["y2"]["shape"].is_array())
      << doc["values"]["y2"];
  EXPECT_TRUE(has_warning(doc,
                          "node 2 'three_d' (com.acme:Mat2D): input 0 has rank 3, but the "
                          "op requires rank 2 (inputs[0])"))
      << doc["warnings"];
  EXPECT_TRUE(has_warning(doc,
                          "node 3 'no_first' (com.acme:Mat2D): the node has no input 0, "
                          "which the op requires (inputs[0])"))
      << doc["warnings"];

  // In strict mode the first node that does not fit ends the run (exit code 4), named.
  write_file(dir / "strict.yaml", "extends: p.yaml\nshapes: {strict: true}\n");
  auto strict = run_cctx("analyze " + quoted(model) + " --profile " + quoted(dir / "strict.yaml"));
  EXPECT_EQ(strict.exit_code, 4) << strict.err;
  EXPECT_EQ(strict.err,
            "cctx: node 2 'three_d' (com.acme:Mat2D) [domain 'com.acme', opset 1]: input 0 has "
            "rank 3, but the op requires rank 2 (inputs[0])\n");
}

TEST(CliDeclarativeInputs, BadInputRequirementsAreProfileErrors) {
  test::TempDir dir;
  write_file(dir / "p.yaml",
             "ops:\n  - domain: com.acme\n    op_type: Mat2D\n"
             "    inputs: [{rank: 2}, {rnak: 1}]\n    outputs: [{shape: in0}]\n");
  auto r = run_cctx("plugins --profile " + quoted(dir / "p.yaml"));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.err,
            "cctx: " + (dir / "p.yaml").string() +
                ":4:26: unknown key 'rnak' in 'ops[0].inputs[1]'; allowed: rank, optional, dtype; "
                "did you mean 'rank'?\n");
}

}  // namespace
}  // namespace cctx
