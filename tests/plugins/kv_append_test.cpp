// A KV cache appended in place into a buffer with room (IInplaceSink::write_into, issue 45 item
// 4), through the real `cctx` binary, in both forms: the C++ plugin fixtures/kv_append.cpp and
// the declarative kv_append.yaml. Figures checked by hand.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::quoted;

/// past [B, 2, P, 8] and new [B, 2, S, `head`] of `new_type` -> KvAppend (max_len 64) -> present.
std::string write_model(const test::TempDir& dir, std::int64_t head = 8,
                        int new_type = test::kFloat) {
  test::ModelBuilder b(18);
  b.opset("com.npu", 1);
  b.input("past", test::kFloat, {"B", 2, "P", 8});
  b.input("new", new_type, {"B", 2, "S", head});
  b.node("KvAppend", {"past", "new"}, {"present"}, {test::attr("max_len", std::int64_t{64})},
         "com.npu", "append");
  b.output("present");
  std::ofstream(dir / "m.onnx", std::ios::binary) << b.build().proto().SerializeAsString();
  std::ofstream(dir / "cpp.yaml") << "plugins:\n  - name: onnx\n  - path: '" << FIXTURE_KV_APPEND
                                  << "'\n";
  std::ofstream(dir / "off.yaml") << "extends: '" << (dir / "cpp.yaml").string()
                                  << "'\ninplace:\n  enabled: false\n";
  return quoted(dir / "m.onnx");
}

nlohmann::json evaluation(const test::RunResult& r) {
  return nlohmann::json::parse(r.out)["peak"]["evaluations"][0];
}

TEST(KvAppend, WrittenIntoTheCacheBufferInBothForms) {
  test::TempDir dir;
  const std::string model = write_model(dir);
  for (const std::string& profile : {quoted(dir / "cpp.yaml"), std::string(KV_APPEND_YAML)}) {
    auto r = test::run_cctx("analyze " + model + " --profile " + profile +
                            " --eval B=1,P=10,S=1 --format json --quiet");
    ASSERT_EQ(r.exit_code, 0) << profile << ": " << r.err;
    // past's buffer has room for 1 * 2 * 64 * 8 float32 = 4,096 bytes, which the caller
    // allocates; new is 1 * 2 * 1 * 8 * 4 = 64; present (704 bytes) allocates nothing.
    const nlohmann::json e = evaluation(r);
    EXPECT_EQ(e["input_bytes"], 4096 + 64) << profile;
    EXPECT_EQ(e["bytes"], 4096 + 64) << profile;
    EXPECT_NE(r.out.find("\"mode\": \"write_into\""), std::string::npos) << r.out;
  }
  // Without in-place reuse: the inputs as they are (640 + 64) and a new present of 704 bytes.
  auto off = test::run_cctx("analyze " + model + " --profile " + quoted(dir / "off.yaml") +
                            " --eval B=1,P=10,S=1 --format json --quiet");
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_EQ(evaluation(off)["input_bytes"], 640 + 64);
  EXPECT_EQ(evaluation(off)["bytes"], 640 + 64 + 704);
}

// Past the capacity the node cannot run: the evaluation is refused naming it (63 + 2 rows of
// 64 bytes per head: 4,160 > 4,096).
TEST(KvAppend, PastTheCapacityIsRefused) {
  test::TempDir dir;
  const std::string model = write_model(dir);
  for (const std::string& profile : {quoted(dir / "cpp.yaml"), std::string(KV_APPEND_YAML)}) {
    auto r = test::run_cctx("analyze " + model + " --profile " + profile +
                            " --eval B=1,P=63,S=2 --quiet");
    EXPECT_NE(r.exit_code, 0) << profile << ": " << r.out;
    EXPECT_NE(r.err.find("node 0 'append' (com.npu:KvAppend) writes 'present'"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("into the buffer of 'past', which has room for"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("(there 4160 > 4096)"), std::string::npos) << r.err;
    auto fits = test::run_cctx("analyze " + model + " --profile " + profile +
                               " --eval B=1,P=62,S=2 --quiet");
    EXPECT_EQ(fits.exit_code, 0) << fits.err;
  }
}

// Two malformed models, a head size that differs and an int64 `new`: the C++ rule refuses both,
// and so does the declarative op, with its `requires:` and `inputs[K].dtype` (before those keys,
// YAML could not say it and both analysed silently).
TEST(KvAppend, MalformedModelsAreRefusedInBothForms) {
  struct Case {
    std::int64_t head;
    int new_type;
    const char* cpp;
    const char* yaml;
  };
  for (const Case& c : {Case{4, test::kFloat, "past and new differ in B, H or D",
                             "requires eq(in0[3], in1[3]), which does not hold here (8 and 4)"},
                        Case{8, test::kInt64, "past and new must be float",
                             "input 1 is int64, but the op requires float32 (inputs[1])"}}) {
    test::TempDir dir;
    const std::string model = write_model(dir, c.head, c.new_type);
    auto cpp = test::run_cctx("analyze " + model + " --profile " + quoted(dir / "cpp.yaml"));
    EXPECT_NE(cpp.err.find(c.cpp), std::string::npos) << cpp.err;
    auto yaml = test::run_cctx("analyze " + model + " --profile " + std::string(KV_APPEND_YAML));
    EXPECT_NE(yaml.err.find(c.yaml), std::string::npos) << yaml.err;
  }
}

}  // namespace
}  // namespace cctx
