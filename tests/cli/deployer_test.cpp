// What a deployer acts on (docs/deployers.md, "Which figure to reserve" and "The largest batch that
// fits"), through the real binary: the reserve figure, relations (--let), scenario files, and `cctx
// fit` checked against `cctx analyze --eval` at the value it returns and the next one.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "model_builder.hpp"
#include "output_checks.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::contains;
using test::expect_error;
using test::quoted;
using test::run_cctx;
using Json = nlohmann::json;

class Deployer : public ::testing::Test {
 protected:
  void SetUp() override {
    // A decoder's step in miniature: the caller's cache past [B, P, 8] and new tokens x [B, S, 8]
    // are concatenated into present [B, P+S, 8]; a mask [B, T] has the total length T.
    test::ModelBuilder b(18);
    b.input("past", test::kFloat, {"B", "P", 8});
    b.input("x", test::kFloat, {"B", "S", 8});
    b.input("mask", test::kFloat, {"B", "T"});
    b.node("Concat", {"past", "x"}, {"present"}, {test::attr("axis", 1)});
    b.node("Relu", {"present"}, {"y"});
    b.node("ReduceSum", {"mask"}, {"m"});
    b.node("Mul", {"y", "m"}, {"out"});
    b.output("out");
    b.output("present");
    test::write_file(model_, b.build().proto().SerializeAsString());
  }
  Json analyze_json(const std::string& extra) const {
    const test::RunResult r = run_cctx("analyze " + quoted(model_) + " --format json " + extra);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json::parse(r.out);
  }
  Json fit_json(const std::string& extra) const {
    const test::RunResult r = run_cctx("fit " + quoted(model_) + " --format json " + extra);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json::parse(r.out);
  }
  test::TempDir dir_;
  std::filesystem::path model_ = dir_ / "decoder_step.onnx";
};

TEST_F(Deployer, ReserveIsSessionPlusInputsPlusRun) {
  for (const char* profile :
       {"default", "onnxruntime-cpu-unoptimized-no-arena", "onnxruntime-cpu-unoptimized"}) {
    const Json doc = analyze_json(std::string("--profile ") + profile + " --eval B=2,P=5,S=3,T=8");
    const Json& e = doc["peak"]["evaluations"][0];
    // The inputs the caller holds: past 2*5*8, x 2*3*8, mask 2*8 floats.
    EXPECT_EQ(e["input_bytes"], 4 * (80 + 48 + 16)) << profile;
    EXPECT_EQ(e["reserve_bytes"].get<std::int64_t>(), e["session_bytes"].get<std::int64_t>() +
                                                          e["input_bytes"].get<std::int64_t>() +
                                                          e["run_bytes"].get<std::int64_t>())
        << profile;
  }
  // Roles: the weights inside the session, the scratch inside the run.
  const Json roles =
      analyze_json("--profile onnxruntime-cpu-unoptimized-no-arena --eval B=2,P=5,S=3,T=8");
  const Json& r = roles["peak"]["evaluations"][0];
  EXPECT_EQ(r["weight_bytes"], 0);  // the fixture has no initializers
  EXPECT_GE(r["run_bytes"].get<std::int64_t>(), r["run_scratch_bytes"].get<std::int64_t>());
  const test::RunResult text = run_cctx("analyze " + quoted(model_) + " --eval B=2,P=5,S=3,T=8");
  EXPECT_TRUE(contains(text.out, "reserve ")) << text.out;
  EXPECT_TRUE(contains(text.out,
                       "    of which: weights 0, runtime 0; inputs 576 (KV cache 320); "
                       "activations and outputs "))
      << text.out;
  EXPECT_TRUE(contains(text.out, " = session 0 + inputs 576 + run ")) << text.out;
  const test::RunResult csv =
      run_cctx("analyze " + quoted(model_) + " --format csv --eval B=2,P=5,S=3,T=8");
  EXPECT_TRUE(contains(csv.out, "reserve_bytes@B=2,P=5,S=3,T=8")) << csv.out;
}

// ONNX Runtime's intra-op threads, the runtime parameter `threads` of its profiles: the thread
// pool's 43.8 kB per thread beyond the first, and MLAS's Conv working buffer per thread.
TEST(DeployerThreads, ThreadsIsTheRuntimesParameter) {
  test::TempDir dir;
  const auto model = dir / "conv.onnx";
  // One image: 256 channels of 64x64 into 16 maps at stride 2, so the working buffer (64 KiB a
  // thread, up to 16) and not the 64 KiB output sets the run's peak.
  test::ModelBuilder b(17);
  b.input("X", test::kFloat, {"N", 256, 64, 64});
  b.initializer(test::tensor_zeros("W", test::kFloat, {16, 256, 3, 3}));
  b.node("Conv", {"X", "W"}, {"Y"},
         {test::attr("strides", std::vector<std::int64_t>{2, 2}),
          test::attr("pads", std::vector<std::int64_t>{1, 1, 1, 1})});
  b.output("Y");
  test::write_file(model, b.build().proto().SerializeAsString());
  auto evaluation = [&](const std::string& profile, const std::string& eval) {
    const test::RunResult r = run_cctx("analyze " + quoted(model) + " --format json --profile " +
                                       profile + " --eval " + eval);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json::parse(r.out)["peak"]["evaluations"][0];
  };
  const std::string lab = "onnxruntime-cpu-unoptimized-no-arena";  // MLAS's Conv, not NCHWc
  const Json one = evaluation(lab, "N=1");                         // the lab default: 1
  const Json four = evaluation(lab, "N=1,threads=4");
  EXPECT_EQ(one["threads"], 1);
  EXPECT_EQ(four["threads"], 4);
  EXPECT_EQ(four["session_bytes"].get<std::int64_t>() - one["session_bytes"].get<std::int64_t>(),
            3 * 43800);
  EXPECT_EQ(four["run_bytes"].get<std::int64_t>() - one["run_bytes"].get<std::int64_t>(),
            3 * 65536);
  // A batch takes one buffer per image, up to the threads.
  EXPECT_EQ(evaluation(lab, "N=2,threads=8")["run_scratch_bytes"], 2 * 65536);
  EXPECT_EQ(evaluation(lab, "N=3,threads=2")["run_scratch_bytes"], 2 * 65536);
  // ONNX Runtime's defaults: every physical core, unless the assignment says.
  const Json dflt = evaluation("onnxruntime-cpu-no-arena", "N=1");
  EXPECT_GE(dflt["threads"].get<std::int64_t>(), 1);
  const test::RunResult text =
      run_cctx("analyze " + quoted(model) + " --profile " + lab + " --eval N=1,threads=4");
  EXPECT_TRUE(contains(text.out, ", at 4 threads\n")) << text.out;
  // Not a symbol of the default profile, and never zero.
  expect_error(run_cctx("analyze " + quoted(model) + " --eval N=1,threads=2"), 2,
               {"the model has no symbol 'threads'"});
  expect_error(run_cctx("analyze " + quoted(model) + " --profile " + lab + " --eval N=1,threads=0"),
               2, {"--eval: threads=0: the runtime's intra-op threads", "must be at least 1"});
}

TEST_F(Deployer, TheKvCacheIsNamedWithItsBytesPerToken) {
  // The fixture's past [B, P, 8] -> present [B, P+S, 8] pair, found by the exporters' naming.
  const Json doc = analyze_json("--eval B=2,P=5,S=3,T=8");
  const Json& kv = doc["peak"]["kv_cache"];
  ASSERT_EQ(kv["pairs"].size(), 1U) << doc["peak"].dump();
  EXPECT_EQ(kv["pairs"][0]["past"], "past");
  EXPECT_EQ(kv["pairs"][0]["present"], "present");
  EXPECT_EQ(kv["past_bytes"], "32*B*P");
  EXPECT_EQ(kv["bytes_per_token"], "32*B");
  EXPECT_EQ(doc["peak"]["evaluations"][0]["kv_past_bytes"], 32 * 2 * 5);
  EXPECT_EQ(doc["peak"]["evaluations"][0]["kv_present_bytes"], 32 * 2 * 8);
  const test::RunResult text = run_cctx("analyze " + quoted(model_) + " --eval B=2,P=5,S=3,T=8");
  EXPECT_TRUE(contains(text.out, "KV cache: past 320 bytes (of the inputs), present 512 bytes"))
      << text.out;
  EXPECT_TRUE(contains(text.out, "  per token of context: 32*B\n")) << text.out;
}

TEST(DeployerKvCache, GroupQueryAttentionsSlotsNameTheCache) {
  // onnxruntime-genai's form: past_key/past_value are GroupQueryAttention's inputs 3 and 4.
  test::TempDir dir;
  test::ModelBuilder b(17);
  b.opset("com.microsoft", 1);
  b.input("q", test::kFloat, {"B", "S", 32}).input("k", test::kFloat, {"B", "S", 16});
  b.input("v", test::kFloat, {"B", "S", 16});
  b.input("cache_k", test::kFloat16, {"B", 2, "P", 8})
      .input("cache_v", test::kFloat16, {"B", 2, "P", 8});
  b.input("seqlens_k", test::kInt32, {"B"}).input("total", test::kInt32, {});
  b.node("GroupQueryAttention", {"q", "k", "v", "cache_k", "cache_v", "seqlens_k", "total"},
         {"out", "new_k", "new_v"}, {test::attr("num_heads", 4), test::attr("kv_num_heads", 2)},
         "com.microsoft");
  b.output("out");
  const auto model = dir / "gqa.onnx";
  test::write_file(model, b.build().proto().SerializeAsString());
  const test::RunResult r =
      run_cctx("analyze " + quoted(model) + " --format json --eval B=1,S=1,P=7");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json kv = Json::parse(r.out)["peak"]["kv_cache"];
  ASSERT_EQ(kv["pairs"].size(), 2U) << kv.dump();
  EXPECT_EQ(kv["pairs"][0]["found_by"], "GroupQueryAttention node 0 (past slot 3)");
  EXPECT_EQ(kv["pairs"][1]["present"], "new_v");
  // Two caches of 2 heads x 8 float16 per token and batch row.
  EXPECT_EQ(kv["bytes_per_token"], "64*B");
}

/// An onnxruntime-genai folder: a one-layer GroupQueryAttention decoder step written the way the
/// builder names its inputs, and its genai_config.json.
/// With `total` set, total_sequence_length's input is that constant (the attention's working
/// memory reads its value), else a graph input.
std::filesystem::path genai_folder(const test::TempDir& dir, bool share_buffer,
                                   std::optional<std::int64_t> total = std::nullopt) {
  const auto folder = dir / ((share_buffer ? "shared" : "plain") +
                             (total ? "_" + std::to_string(*total) : std::string()));
  std::filesystem::create_directories(folder);
  test::ModelBuilder b(17);
  b.opset("com.microsoft", 1);
  b.input("input_ids", test::kInt64, {"batch_size", "sequence_length"});
  b.input("attention_mask", test::kInt64, {"batch_size", "total_sequence_length"});
  b.input("past_key_values.0.key", test::kFloat, {"batch_size", 2, "past_sequence_length", 8});
  b.input("past_key_values.0.value", test::kFloat, {"batch_size", 2, "past_sequence_length", 8});
  b.input("q", test::kFloat, {"batch_size", "sequence_length", 32});
  b.input("kv", test::kFloat, {"batch_size", "sequence_length", 16});
  b.input("seqlens_k", test::kInt32, {"batch_size"});
  if (total) {
    b.initializer(test::tensor_ints("total", {*total}, {}, test::kInt32));
  } else {
    b.input("total", test::kInt32, {});
  }
  b.node(
      "GroupQueryAttention",
      {"q", "kv", "kv", "past_key_values.0.key", "past_key_values.0.value", "seqlens_k", "total"},
      {"out", "present.0.key", "present.0.value"},
      {test::attr("num_heads", 4), test::attr("kv_num_heads", 2)}, "com.microsoft");
  b.node("ReduceSum", {"attention_mask"}, {"mask_sum"});
  b.output("out").output("present.0.key").output("present.0.value").output("mask_sum");
  test::write_file(folder / "decoder.onnx", b.build().proto().SerializeAsString());
  test::write_file(folder / "genai_config.json",
                   std::string(R"({"model": {"context_length": 4096, "decoder": {
                     "filename": "decoder.onnx",
                     "inputs": {"input_ids": "input_ids", "attention_mask": "attention_mask",
                       "past_key_names": "past_key_values.%d.key",
                       "past_value_names": "past_key_values.%d.value"}}},
                     "search": {"max_length": 1024, "past_present_share_buffer": )") +
                       (share_buffer ? "true" : "false") + "}}");
  return folder;
}

TEST(DeployerGenai, TheFolderAnswersForItsConfiguration) {
  test::TempDir dir;
  const auto plain = genai_folder(dir, false);
  // max_length bounds the context symbols: past_sequence_length 1024 is the largest.
  const test::RunResult r = run_cctx("analyze " + quoted(plain) +
                                     " --format json --eval batch_size=2,sequence_length=1,"
                                     "past_sequence_length=1023,total_sequence_length=1024");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "max_length 1024 bounds ")) << r.err;
  const Json doc = Json::parse(r.out);
  EXPECT_EQ(doc["peak"]["kv_cache"]["pairs"].size(), 2U);
  const test::RunResult beyond = run_cctx("analyze " + quoted(plain) +
                                          " --eval batch_size=1,sequence_length=1,"
                                          "past_sequence_length=2000,total_sequence_length=2001");
  EXPECT_EQ(beyond.exit_code, 3);
  EXPECT_TRUE(contains(beyond.err, "outside its bounds [1, 1024]")) << beyond.err;
  // The largest context that fits a budget stops at the configuration's max_length.
  const test::RunResult fit = run_cctx(
      "fit " + quoted(plain / "decoder.onnx") +
      " --format json --budget 1GiB --vary past_sequence_length --eval batch_size=1,"
      "sequence_length=1 --let total_sequence_length=past_sequence_length+sequence_length");
  ASSERT_EQ(fit.exit_code, 0) << fit.err;
  const Json found = Json::parse(fit.out)["fits"][0];
  EXPECT_EQ(found["value"], 1023) << fit.out;
  EXPECT_TRUE(contains(found["limited_by"].get<std::string>(),
                       "'total_sequence_length' = 1025 is outside its bounds [1, 1024]"))
      << fit.out;
  // Varying the total length, the answer is onnxruntime-genai's search.max_length.
  const test::RunResult context =
      run_cctx("fit " + quoted(plain) +
               " --format json --budget 256KiB --vary total_sequence_length --eval batch_size=1,"
               "sequence_length=1 --let past_sequence_length=total_sequence_length-sequence_length "
               "--bounds past_sequence_length=0:1024");
  ASSERT_EQ(context.exit_code, 0) << context.err;
  const Json answer = Json::parse(context.out);
  ASSERT_TRUE(answer["fits"][0]["value"].is_number()) << context.out;
  const std::int64_t longest = answer["fits"][0]["value"];
  EXPECT_LT(longest, 1024) << context.out;  // the budget decides, not max_length
  ASSERT_EQ(answer["suggestions"].size(), 1U) << context.out;
  EXPECT_EQ(answer["suggestions"][0],
            "onnxruntime-genai (genai_config.json): \"search\": {\"max_length\": " +
                std::to_string(longest) + "}");
  // With a shared past/present buffer the past caches are max_length long whatever is given.
  const auto shared = genai_folder(dir, true);
  const test::RunResult s = run_cctx("analyze " + quoted(shared) +
                                     " --format json --eval batch_size=1,sequence_length=1,"
                                     "total_sequence_length=8");
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_TRUE(contains(s.err, "past_present_share_buffer")) << s.err;
  EXPECT_EQ(Json::parse(s.out)["peak"]["evaluations"][0]["assignment"]["past_sequence_length"],
            1024);
}

// Under ONNX Runtime's profiles a shared buffer is bound as onnxruntime-genai binds it: each
// present is written into its past's buffer (write_into), so the runtime allocates no present
// (measured against ONNX Runtime by tests/validate/kv_share_buffer_test.py).
TEST(DeployerGenai, ASharedBufferHoldsNoPresentUnderTheRuntimeProfiles) {
  test::TempDir dir;
  const std::string at =
      " --profile onnxruntime-cpu-no-arena --format json --eval batch_size=1,sequence_length=1,"
      "total_sequence_length=8";
  const test::RunResult plain = run_cctx("analyze " + quoted(genai_folder(dir, false, 8)) + at +
                                         ",past_sequence_length=1024");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const test::RunResult shared = run_cctx("analyze " + quoted(genai_folder(dir, true, 8)) + at);
  ASSERT_EQ(shared.exit_code, 0) << shared.err;
  EXPECT_TRUE(contains(shared.err,
                       "each present is written into its past's buffer "
                       "(kv_share_buffer: on)"))
      << shared.err;
  const Json doc = Json::parse(shared.out);
  // Found by type: the profile numbers nodes in ONNX Runtime's execution order.
  const auto found = std::find_if(doc["nodes"].begin(), doc["nodes"].end(), [](const Json& n) {
    return n["op_type"] == "GroupQueryAttention";
  });
  ASSERT_NE(found, doc["nodes"].end()) << shared.out;
  const Json& gqa = *found;
  ASSERT_EQ(gqa["inplace"].size(), 2U) << gqa.dump();
  for (const Json& d : gqa["inplace"]) EXPECT_EQ(d["mode"], "write_into") << gqa.dump();
  // Each present is [1, 2, 1024, 8] float32, 65,536 bytes: the runtime's own two are gone; the
  // binding's copies of them (onnxruntime-node copies every output) stay.
  const std::int64_t plain_run = Json::parse(plain.out)["peak"]["evaluations"][0]["run_bytes"];
  const std::int64_t shared_run = doc["peak"]["evaluations"][0]["run_bytes"];
  EXPECT_EQ(plain_run - shared_run, 2 * 65536) << plain_run << " " << shared_run;
  EXPECT_EQ(doc["peak"]["evaluations"][0]["kv_present_bytes"], 2 * 65536);
}

TEST_F(Deployer, AnalyzeSaysWhetherEachReserveFitsTheBudget) {
  const Json doc = analyze_json("--budget 1KiB --eval B=1,2,P=5,S=3,T=8");
  // Reserves of 288 + run and 576 + run bytes: the first fits 1 KiB, the second does not.
  const Json& e = doc["peak"]["evaluations"];
  EXPECT_EQ(e[0]["within_budget"], e[0]["reserve_bytes"].get<std::int64_t>() <= 1024);
  EXPECT_EQ(e[1]["within_budget"], e[1]["reserve_bytes"].get<std::int64_t>() <= 1024);
  EXPECT_NE(e[0]["within_budget"], e[1]["within_budget"]) << doc["peak"].dump();
  const test::RunResult text =
      run_cctx("analyze " + quoted(model_) + " --budget 1KiB --eval B=1,2,P=5,S=3,T=8");
  EXPECT_TRUE(contains(text.out, "    within the budget of 1.00 KiB: ")) << text.out;
  EXPECT_TRUE(contains(text.out, "    over the budget of 1.00 KiB by ")) << text.out;
}

TEST_F(Deployer, LetComputesTheSymbolsAnAssignmentLacks) {
  const Json doc = analyze_json("--let T=P+S --eval B=1,P=7,S=1");
  EXPECT_EQ(doc["peak"]["evaluations"][0]["assignment"]["T"], 8);
  // A parameter of the relations (ctx) is used, then dropped from the assignment.
  const Json param = analyze_json("--let P=ctx-1 --let T=P+S --eval B=1,S=1,ctx=4096");
  const Json& a = param["peak"]["evaluations"][0]["assignment"];
  EXPECT_EQ(a["P"], 4095);
  EXPECT_EQ(a["T"], 4096);
  EXPECT_FALSE(a.contains("ctx"));
  expect_error(run_cctx("analyze " + quoted(model_) + " --let T=P+S --eval B=1,P=7,S=1,T=9"), 2,
               {"--eval B=1,P=7,S=1,T=9 gives T=9, but --let 'T=P+S' makes it 8"});
  expect_error(run_cctx("analyze " + quoted(model_) + " --let Q=P+S --eval B=1,P=7,S=1,T=8"), 2,
               {"--let 'Q=P+S': the model has no symbol 'Q'"});
  expect_error(run_cctx("analyze " + quoted(model_) + " --let T=P+ --eval B=1"), 2,
               {"--let 'T=P+'"});
}

TEST_F(Deployer, ProfileRelationsApply) {
  const auto profile = dir_ / "decoder.yaml";
  test::write_file(profile,
                   "extends: onnxruntime-cpu-unoptimized-no-arena\nreport:\n  let: {T: P + S}\n");
  const Json doc = analyze_json("--profile " + quoted(profile) + " --eval B=1,P=3,S=2");
  EXPECT_EQ(doc["peak"]["evaluations"][0]["assignment"]["T"], 5);
}

TEST_F(Deployer, ScenariosAreEvaluatedSideBySide) {
  const auto file = dir_ / "scenarios.yaml";
  test::write_file(file,
                   "let: {T: P + S}\n"
                   "prefill: {B: 1, P: 0, S: 512}\n"
                   "decode: {B: 8, P: 2047, S: 1}\n");
  const test::RunResult r =
      run_cctx("analyze " + quoted(model_) +
               " --profile onnxruntime-cpu-unoptimized-no-arena --scenarios " + quoted(file));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "Scenarios side by side")) << r.out;
  EXPECT_TRUE(contains(r.out, "  prefill (B=1,P=0,S=512,T=512): ")) << r.out;
  EXPECT_TRUE(contains(r.out, "  decode (B=8,P=2047,S=1,T=2048): ")) << r.out;
  const Json doc = analyze_json("--scenarios " + quoted(file));
  EXPECT_EQ(doc["peak"]["evaluations"][1]["scenario"], "decode");
  expect_error(
      run_cctx("analyze " + quoted(model_) + " --scenarios " + quoted(file) + " --eval B=1"), 2,
      {"--scenarios and --eval"});
  test::write_file(file, "decode: {B: eight}\n");
  expect_error(run_cctx("analyze " + quoted(model_) + " --scenarios " + quoted(file)), 3,
               {"scenarios.yaml:1:"});
}

TEST_F(Deployer, FitReturnsTheLargestValueWithinTheBudget) {
  for (const char* profile :
       {"default", "onnxruntime-cpu-unoptimized-no-arena", "onnxruntime-cpu-unoptimized"}) {
    for (const char* budget : {"9MiB", "16MiB", "100MB"}) {
      const Json doc = fit_json(std::string("--profile ") + profile + " --budget " + budget +
                                " --vary B --eval P=511,S=1 --let T=P+S --headroom 0");
      const Json& f = doc["fits"][0];
      ASSERT_FALSE(f["value"].is_null()) << profile << " " << budget;
      const std::int64_t v = f["value"];
      const std::int64_t limit = f["budget_bytes"];
      // The figure at the value and at the next one, as analyze gives them.
      const std::string at = "B=" + std::to_string(v) + ",P=511,S=1,T=512";
      const std::string next = "B=" + std::to_string(v + 1) + ",P=511,S=1,T=512";
      const Json a = analyze_json(std::string("--profile ") + profile + " --eval " + at);
      const Json b = analyze_json(std::string("--profile ") + profile + " --eval " + next);
      const std::int64_t ra = a["peak"]["evaluations"][0]["reserve_bytes"];
      const std::int64_t rb = b["peak"]["evaluations"][0]["reserve_bytes"];
      EXPECT_EQ(ra, f["at"]["reserve_bytes"]) << profile << " " << budget;
      EXPECT_LE(ra, limit) << profile << " " << budget;
      EXPECT_GT(rb, limit) << profile << " " << budget;
      EXPECT_EQ(f["proved_monotone"], std::string(profile) != "onnxruntime-cpu-unoptimized")
          << profile;
    }
  }
}

TEST_F(Deployer, FitKeepsTheHeadroomFree) {
  // The runtime profiles keep their measured error band free: 1 MiB + 1% without the arena.
  const Json doc = fit_json(
      "--profile onnxruntime-cpu-unoptimized-no-arena --budget 16MiB --vary B --eval "
      "P=511,S=1,T=512");
  const Json& f = doc["fits"][0];
  EXPECT_EQ(f["headroom"]["bytes"], 1 << 20);
  EXPECT_EQ(f["headroom"]["percent"], 1);
  const std::int64_t at = f["at"]["reserve_bytes"], next = f["next"]["reserve_bytes"];
  EXPECT_LE(at + (1 << 20) + at / 100, 16 << 20);
  EXPECT_GT(next + (1 << 20) + next / 100, 16 << 20);
  // --headroom overrides it: bytes, a percent of the reserve, or both.
  const Json none = fit_json(
      "--profile onnxruntime-cpu-unoptimized-no-arena --budget 16MiB --vary B --eval "
      "P=511,S=1,T=512 "
      "--headroom 0");
  EXPECT_GT(none["fits"][0]["value"].get<std::int64_t>(), f["value"].get<std::int64_t>());
  const Json both = fit_json("--budget 16MiB --vary B --eval P=511,S=1,T=512 --headroom 2MiB+10%");
  EXPECT_EQ(both["fits"][0]["headroom"]["bytes"], 2 << 20);
  EXPECT_EQ(both["fits"][0]["headroom"]["percent"], 10);
  expect_error(run_cctx("fit " + quoted(model_) +
                        " --budget 16MiB --vary B --eval P=1,S=1,T=2 --headroom 120%"),
               2, {"--headroom '120%'"});
}

TEST_F(Deployer, FitPlotsTheReserveAgainstTheSymbol) {
  const auto svg = dir_ / "fit.svg";
  const Json doc = fit_json("--budget 16MiB --vary B --eval P=511,S=1,T=512 --plot " + quoted(svg));
  const std::string figure = test::read_file(svg);
  EXPECT_TRUE(contains(figure, "data-kind=\"fit\"")) << figure;
  EXPECT_TRUE(contains(figure, "class=\"budget\" data-value=\"16777216\"")) << figure;
  EXPECT_TRUE(contains(figure, "class=\"found\" data-value=\"" +
                                   std::to_string(doc["fits"][0]["value"].get<std::int64_t>()) +
                                   "\""))
      << figure;
  EXPECT_TRUE(contains(figure, "<polyline class=\"reserve\"")) << figure;
  const auto frontier = dir_ / "frontier.svg";
  const test::RunResult r =
      run_cctx("fit " + quoted(model_) + " --budget 4MiB --vary B --vary P --eval S=1 " +
               "--let T=P+S --plot " + quoted(frontier));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(test::read_file(frontier), "<polyline class=\"frontier\""));
}

TEST_F(Deployer, FitGivesTritonsMaxBatchSizeWhenItVariesTheBatchDim) {
  const Json doc = fit_json("--budget 16MiB --vary B --eval P=511,S=1,T=512");
  ASSERT_EQ(doc["suggestions"].size(), 1U) << doc.dump();
  EXPECT_EQ(doc["suggestions"][0], "Triton (config.pbtxt): max_batch_size: " +
                                       std::to_string(doc["fits"][0]["value"].get<std::int64_t>()));
  // Not for a symbol that is not every input's first dim.
  EXPECT_TRUE(
      fit_json("--budget 16MiB --vary P --eval B=1,S=1 --let T=P+S")["suggestions"].empty());
}

TEST_F(Deployer, FitWritesOnePageWithTheTableAndTheFigure) {
  const test::RunResult page =
      run_cctx("fit " + quoted(model_) + " --budget 16MiB --vary B --eval P=511,S=1,T=512 " +
               "--format html");
  ASSERT_EQ(page.exit_code, 0) << page.err;
  EXPECT_EQ(page.out.rfind("<!DOCTYPE html>", 0), 0U);
  EXPECT_TRUE(contains(page.out, "<table id=\"fit-table\">")) << page.out;
  EXPECT_TRUE(contains(page.out, "data-kind=\"fit\"")) << page.out;
  EXPECT_TRUE(contains(page.out, "max_batch_size")) << page.out;
  // The figure inside is well-formed XML (the page itself is HTML5).
  const std::size_t svg = page.out.find("<svg"), end = page.out.find("</svg>");
  ASSERT_NE(svg, std::string::npos);
  EXPECT_EQ(test::xml_problem(page.out.substr(svg, end + 6 - svg)), "");
  const test::RunResult frontier =
      run_cctx("fit " + quoted(model_) + " --budget 4MiB --vary B --vary P --eval S=1,B=1,2,4 " +
               "--let T=P+S --format html");
  ASSERT_EQ(frontier.exit_code, 0) << frontier.err;
  EXPECT_TRUE(contains(frontier.out, "<polyline class=\"frontier\"")) << frontier.out;
  EXPECT_TRUE(contains(frontier.out, "<table id=\"fit-table\">")) << frontier.out;
}

TEST_F(Deployer, FitNamesWhatLimitsTheAnswer) {
  const Json capped = fit_json("--budget 1GiB --vary B --bounds B=1:10 --eval P=1,S=1,T=2");
  EXPECT_EQ(capped["fits"][0]["value"], 10);
  EXPECT_TRUE(contains(capped["fits"][0]["limited_by"].get<std::string>(), "B <= 10"));
  const Json none = fit_json("--budget 100 --vary B --eval P=1000,S=1,T=1001");
  EXPECT_TRUE(none["fits"][0]["value"].is_null());
  EXPECT_EQ(none["fits"][0]["next"]["value"], 1);
  const test::RunResult text =
      run_cctx("fit " + quoted(model_) + " --budget 100 --vary B --eval P=1000,S=1,T=1001");
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "No value of B fits")) << text.out;
}

TEST_F(Deployer, FrontierGivesTheLargestInnerValuePerRow) {
  const Json doc = fit_json("--budget 4MiB --vary B --vary P --eval S=1 --let T=P+S");
  ASSERT_GE(doc["fits"].size(), 2U);
  std::int64_t previous = INT64_MAX;
  for (const Json& f : doc["fits"]) {
    ASSERT_FALSE(f["value"].is_null());
    EXPECT_LE(f["at"]["reserve_bytes"].get<std::int64_t>(), 4 << 20);
    EXPECT_GT(f["next"]["reserve_bytes"].get<std::int64_t>(), 4 << 20);
    // More rows of B leave room for a shorter cache.
    EXPECT_LE(f["value"].get<std::int64_t>(), previous);
    previous = f["value"];
  }
  const test::RunResult rows = run_cctx("fit " + quoted(model_) +
                                        " --budget 4MiB --vary B --vary P --eval S=1,B=1,2,3 "
                                        "--let T=P+S");
  EXPECT_EQ(rows.exit_code, 0) << rows.err;
  EXPECT_TRUE(contains(rows.out, "Frontier within 4.00 MiB")) << rows.out;
  const test::RunResult csv = run_cctx("fit " + quoted(model_) +
                                       " --budget 4MiB --vary B --vary P --eval S=1,B=1,2,3 "
                                       "--let T=P+S --format csv");
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 4) << csv.out;
}

TEST_F(Deployer, FitRefusesWhatItCannotAnswer) {
  expect_error(run_cctx("fit " + quoted(model_) + " --budget 2GB --vary Q --eval P=1,S=1,T=2"), 2,
               {"the model has no symbol 'Q'"});
  expect_error(run_cctx("fit " + quoted(model_) + " --budget lots --vary B --eval P=1,S=1,T=2"), 2,
               {"--budget 'lots': expected a size in bytes"});
  expect_error(run_cctx("fit " + quoted(model_) + " --budget 1GiB --vary B --eval P=1"), 2,
               {"no value for symbol"});
  expect_error(run_cctx("fit " + quoted(model_) + " --budget 1GiB --vary B --eval B=2,P=1"), 2,
               {"'B' is both varied and given a value"});
}

}  // namespace
}  // namespace cctx
