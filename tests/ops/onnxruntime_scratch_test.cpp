// The ONNX Runtime scratch plugin (opsets/onnxruntime, libcctx_onnxruntime.so) through the real
// host: the ai.onnx plugin loaded first, ours after it with `override: true`, as the
// onnxruntime-cpu-unoptimized profiles load them. Expected bytes are the formulas of
// opsets/onnxruntime/ README.md, each checked there against onnxruntime-node 1.30 (no arena, one
// thread).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cctx/expr.hpp"
#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::attr;
using test::kBool;
using test::kFloat;
using test::ModelBuilder;
using Ints = std::vector<std::int64_t>;

constexpr const char* kProfile =
    "profile: onnxruntime-scratch-test\n"
    "plugins:\n"
    "  - name: onnx\n"
    "  - name: onnxruntime\n"
    "    override: true\n";

/// With the runtime parameter `threads` at one, as the `-unoptimized` profiles declare it.
Profile ort_profile(const std::string& extra = "") {
  const bool memory = extra.find("memory:") != std::string::npos;
  return parse_profile(
      std::string(kProfile) + (memory ? "" : "memory: {threads: {default: 1}}\n") + extra,
      "onnxruntime-scratch-test.yaml", test::source_dir());
}

test::Analysis analyze_ort(const ModelBuilder& b, const std::string& extra = "") {
  return test::analyze(b.build(), ort_profile(extra));
}

/// A model with one input X and one Conv (weight W of `w` dims, zeros) per call of `conv`.
ModelBuilder conv_model(test::ShapeSpec x, std::vector<std::int64_t> w,
                        std::vector<onnx::AttributeProto> attrs = {}, std::int64_t opset = 17) {
  ModelBuilder b(opset);
  b.input("X", kFloat, std::move(x)).initializer(test::tensor_zeros("W", kFloat, std::move(w)));
  b.node("Conv", {"X", "W"}, {"Y"}, std::move(attrs));
  return b;
}

std::string conv_scratch(test::ShapeSpec x, std::vector<std::int64_t> w,
                         std::vector<onnx::AttributeProto> attrs = {}) {
  return analyze_ort(conv_model(std::move(x), std::move(w), std::move(attrs))).scratch(0);
}

// ---- Conv ---------------------------------------------------------------------------------------

TEST(OrtConvScratch, SegmentedWorkingBufferWhenFiltersDoNotExceedTheOutput) {
  // 3x3 over 57x61, 32 filters < 3477 output positions: MLAS's 128x128-float buffer per thread,
  // for one image as many threads as 64 Ki multiply-adds each make (at most 16), for a batch one
  // per image. The ai.onnx plugin's full im2col is 2,002,752 bytes.
  EXPECT_EQ(conv_scratch({1, 16, 57, 61}, {32, 16, 3, 3}, {attr("pads", Ints{1, 1, 1, 1})}),
            "65536*min(16,threads)");
  EXPECT_EQ(conv_scratch({2, 16, 57, 61}, {32, 16, 3, 3}, {attr("pads", Ints{1, 1, 1, 1})}),
            "65536*min(2,threads)");
  EXPECT_EQ(
      test::analyze(conv_model({1, 16, 57, 61}, {32, 16, 3, 3}, {attr("pads", Ints{1, 1, 1, 1})}))
          .scratch(0),
      "2002752");  // the default profile: the ai.onnx plugin's estimate
  // Strided, dilated, 1-D and padded 1x1 all take the segmented path; 16 x 840 x 72 multiply-adds
  // make 15 threads' worth, 12 x 6 x 25 x 27 x 54 make 7, and so on.
  EXPECT_EQ(conv_scratch({1, 8, 57, 61}, {16, 8, 3, 3}, {attr("strides", Ints{2, 2})}),
            "65536*min(15,threads)");
  EXPECT_EQ(conv_scratch({1, 6, 31, 29}, {12, 6, 3, 3}, {attr("dilations", Ints{2, 2})}),
            "65536*min(7,threads)");
  EXPECT_EQ(conv_scratch({1, 4, 1001}, {8, 4, 5}), "65536*min(3,threads)");
  EXPECT_EQ(conv_scratch({1, 8, 13, 17}, {16, 8, 1, 1}, {attr("pads", Ints{1, 1, 1, 1})}), "65536");
  // F = 64 is not > 64 output positions.
  EXPECT_EQ(conv_scratch({1, 32, 15, 15}, {64, 32, 1, 1}, {attr("strides", Ints{2, 2})}),
            "65536*min(3,threads)");
  // At most 16 output positions: one thread's stride covers them.
  EXPECT_EQ(conv_scratch({1, 64, 4, 4}, {16, 64, 3, 3}, {attr("pads", Ints{1, 1, 1, 1})}), "65536");
}

TEST(OrtConvScratch, DepthwiseUsesTheWorkingBuffer) {
  // 32 groups: one buffer per group, up to the threads.
  EXPECT_EQ(conv_scratch({1, 32, 57, 61}, {32, 1, 3, 3},
                         {attr("group", 32), attr("pads", Ints{1, 1, 1, 1})}),
            "65536*min(32,threads)");
}

TEST(OrtConvScratch, PointwiseAndFullWidthKernelsRunAsGemm) {
  EXPECT_EQ(conv_scratch({1, 64, 57, 61}, {32, 64, 1, 1}), "0");
  EXPECT_EQ(conv_scratch({1, 64, 57, 61}, {32, 64, 1, 1}, {attr("dilations", Ints{3, 3})}), "0");
  EXPECT_EQ(conv_scratch({1, 64, 57, 61}, {32, 64, 1, 1}, {attr("auto_pad", "SAME_UPPER")}), "0");
  // One channel per group, kernel as wide as the input, stride 1, no padding.
  EXPECT_EQ(conv_scratch({1, 1, 20, 5}, {8, 1, 3, 5}), "0");
  EXPECT_EQ(conv_scratch({1, 1, 20, 5}, {8, 1, 20, 1}), "0");
  EXPECT_EQ(conv_scratch({1, 1, 20, 5}, {8, 1, 3, 4}), "65536");
}

TEST(OrtConvScratch, FullIm2colWhenFiltersPerGroupExceedTheOutput) {
  // 256 filters > 49 positions: 49 * 64 * 9 * 4.
  EXPECT_EQ(conv_scratch({1, 64, 7, 7}, {256, 64, 3, 3}, {attr("pads", Ints{1, 1, 1, 1})}),
            "112896");
  // Two groups of 100 filters > 63 positions: one group's columns, 63 * 10 * 9 * 4.
  EXPECT_EQ(conv_scratch({1, 20, 9, 11}, {200, 10, 3, 3}, {attr("group", 2)}), "22680");
  // Strided 1x1: 128 filters > 64 positions, 64 * 32 * 4.
  EXPECT_EQ(conv_scratch({1, 32, 15, 15}, {128, 32, 1, 1}, {attr("strides", Ints{2, 2})}), "8192");
  // 3-D: 256 > 4*5*6 positions, 120 * 4 * 27 * 4.
  EXPECT_EQ(conv_scratch({1, 4, 6, 7, 8}, {256, 4, 3, 3, 3}), "51840");
}

TEST(OrtConvScratch, SymbolicSizesSelectExactly) {
  auto a = analyze_ort(
      conv_model({"N", 64, "H", "W"}, {256, 64, 3, 3}, {attr("pads", Ints{1, 1, 1, 1})}));
  const std::string s = a.scratch(0);
  auto at = [&](std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t threads) {
    return evaluate_expression(s, {{"N", n}, {"H", h}, {"W", w}, {"threads", threads}});
  };
  EXPECT_EQ(at(1, 7, 7, 1), 112896);  // full im2col, per image: no threads
  EXPECT_EQ(at(4, 7, 7, 8), 112896);
  EXPECT_EQ(at(1, 15, 17, 1), 255 * 64 * 9 * 4);  // 255 < 256
  EXPECT_EQ(at(1, 16, 16, 1), 65536);             // 256 is not > 256
  EXPECT_EQ(at(1, 57, 61, 1), 65536);
  EXPECT_EQ(at(1, 57, 61, 4), 4 * 65536);    // one image: as many threads as the work takes
  EXPECT_EQ(at(1, 57, 61, 40), 16 * 65536);  // ... at most 16
  EXPECT_EQ(at(3, 57, 61, 2), 2 * 65536);    // a batch: one per image, up to the threads
  EXPECT_EQ(at(3, 57, 61, 8), 3 * 65536);
  // Bounds that decide the comparison leave the segmented buffer alone.
  auto bounded = analyze_ort(
      conv_model({"N", 64, "H", "W"}, {256, 64, 3, 3}, {attr("pads", Ints{1, 1, 1, 1})}),
      "symbols: {H: [16, 4096], W: [16, 4096]}\n");
  EXPECT_EQ(
      evaluate_expression(bounded.scratch(0), {{"N", 1}, {"H", 99}, {"W", 16}, {"threads", 3}}),
      3 * 65536);
  auto small = analyze_ort(
      conv_model({"N", 64, "H", "W"}, {256, 64, 3, 3}, {attr("pads", Ints{1, 1, 1, 1})}),
      "symbols: {H: [1, 8], W: [1, 8]}\n");
  EXPECT_EQ(small.scratch(0), "2304*H*W");
}

TEST(OrtConvScratch, WinsAtEveryOpset) {
  for (std::int64_t opset : {11, 13, 17, 21, 22, 23}) {
    auto a = analyze_ort(
        conv_model({1, 16, 57, 61}, {32, 16, 3, 3}, {attr("pads", Ints{1, 1, 1, 1})}, opset));
    EXPECT_EQ(a.scratch(0), "65536*min(16,threads)") << "opset " << opset;
  }
}

TEST(OrtConvScratch, ConvTransposeColumnsAlways) {
  ModelBuilder b(17);
  b.input("X", kFloat, {1, 16, 31, 29}).initializer(test::tensor_zeros("W", kFloat, {16, 8, 3, 3}));
  b.input("P", kFloat, {1, 8, 20, 20}).initializer(test::tensor_zeros("W1", kFloat, {8, 4, 1, 1}));
  b.node("ConvTranspose", {"X", "W"}, {"Y"}, {attr("strides", Ints{2, 2})});
  b.node("ConvTranspose", {"P", "W1"}, {"Q"});
  auto a = analyze_ort(b);
  EXPECT_EQ(a.scratch(0), "258912");  // 8 * 9 * 31 * 29 * 4
  EXPECT_EQ(a.scratch(1), "6400");    // 4 * 1 * 400 * 4: 1x1 too
}

// ---- Where, Softmax -----------------------------------------------------------------------------

TEST(OrtTensorScratch, WhereSelectsIntoTwoTemporaries) {
  ModelBuilder b(17);
  b.input("c", kBool, {257, 129}).input("x", kFloat, {257, 129}).input("y", kFloat, {257, 129});
  b.input("c1", kBool, {257, 1}).input("x1", kFloat, {1, 129}).input("y1", kFloat, {1, 1});
  b.input("cs", kBool, {"N", 1}).input("xs", kFloat, {"N", "M"});
  b.node("Where", {"c", "x", "y"}, {"o"});
  b.node("Where", {"c1", "x1", "y1"}, {"o1"});
  b.node("Where", {"cs", "xs", "xs"}, {"o2"});
  auto a = analyze_ort(b);
  EXPECT_EQ(a.scratch(0), "265224");  // 2 * 257 * 129 * 4
  EXPECT_EQ(a.scratch(1), "133640");  // (257 * 129 + 257) * 4
  EXPECT_EQ(a.scratch(2), "8*M*N");
}

TEST(OrtTensorScratch, SoftmaxOnAnInnerAxisFromOpset13) {
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    for (std::int64_t opset : {11, 13, 17}) {
      ModelBuilder b(opset);
      b.input("x", kFloat, {3, 211, 97});
      b.node(op, {"x"}, {"a"}, {attr("axis", 1)});
      b.node(op, {"x"}, {"b"}, {attr("axis", -1)});
      b.node(op, {"x"}, {"c"}, {attr("axis", 2)});
      auto a = analyze_ort(b);
      EXPECT_EQ(a.scratch(0), opset >= 13 ? "491208" : "0") << op << " " << opset;
      EXPECT_EQ(a.scratch(1), "0") << op << " " << opset;
      EXPECT_EQ(a.scratch(2), "0") << op << " " << opset;
    }
  }
}

// ---- recurrent ----------------------------------------------------------------------------------

/// S=13, B=3, I=17, H=23 with bias, outputs as listed.
ModelBuilder recurrent(const char* op, std::int64_t gates, const char* direction,
                       std::vector<std::string> outputs) {
  const std::int64_t d = std::string(direction) == "bidirectional" ? 2 : 1;
  ModelBuilder b(17);
  b.input("X", kFloat, {13, 3, 17});
  b.initializer(test::tensor_zeros("W", kFloat, {d, gates * 23, 17}));
  b.initializer(test::tensor_zeros("R", kFloat, {d, gates * 23, 23}));
  b.initializer(test::tensor_zeros("B", kFloat, {d, 2 * gates * 23}));
  b.node(op, {"X", "W", "R", "B"}, outputs,
         {attr("hidden_size", 23), attr("direction", direction)});
  return b;
}

TEST(OrtRecurrentScratch, LstmWorkspaces) {
  // Forward, Y only: 2H + 3BH + 4HBS + 4H + (Y_h, Y_c locals) 2BH floats, B int32 lengths.
  EXPECT_EQ(analyze_ort(recurrent("LSTM", 4, "forward", {"Y"})).scratch(0), "16296");
  EXPECT_EQ(analyze_ort(recurrent("LSTM", 4, "forward", {"Y", "Yh", "Yc"})).scratch(0), "15744");
  // Both directions alive, the reverse one with its reversed input and output.
  EXPECT_EQ(analyze_ort(recurrent("LSTM", 4, "bidirectional", {"Y"})).scratch(0), "38832");
}

TEST(OrtRecurrentScratch, GruAndRnnWorkspaces) {
  // With B int32 sequence lengths per direction's object (sequence_lens absent).
  EXPECT_EQ(analyze_ort(recurrent("GRU", 3, "forward", {"Y"})).scratch(0), "12432");
  EXPECT_EQ(analyze_ort(recurrent("GRU", 3, "bidirectional", {"Y"})).scratch(0), "31104");
  EXPECT_EQ(analyze_ort(recurrent("RNN", 1, "forward", {"Y"})).scratch(0), "3588");
  EXPECT_EQ(analyze_ort(recurrent("RNN", 1, "bidirectional", {"Y"})).scratch(0), "3588");
}

/// The arena's regions after two runs of one bidirectional LSTM (hidden 16, input 8, batch 8,
/// all three outputs) at `seq` steps.
std::int64_t lstm_arena_bytes(std::int64_t seq, bool memory_pattern) {
  ModelBuilder b(17);
  b.input("X", kFloat, {"S", 8, 8});
  b.initializer(test::tensor_zeros("W", kFloat, {2, 64, 8}));
  b.initializer(test::tensor_zeros("R", kFloat, {2, 64, 16}));
  b.initializer(test::tensor_zeros("B", kFloat, {2, 128}));
  b.node("LSTM", {"X", "W", "R", "B"}, {"Y", "Yh", "Yc"},
         {attr("hidden_size", 16), attr("direction", "bidirectional")});
  b.output("Y").output("Yh").output("Yc");
  const std::string arena = std::string(
                                "memory:\n"
                                "  threads: {default: 1}\n"
                                "  buffer_plan: free_list\n"
                                "  arena:\n"
                                "    initial_region_bytes: 1048576\n"
                                "    max_doubling_bytes: 1073741824\n"
                                "    rounding_bytes: 256\n"
                                "    max_dead_bytes_per_chunk: 134217728\n"
                                "    initializers: false\n"
                                "    memory_pattern: ") +
                            (memory_pattern ? "true\n" : "false\n");
  const test::Analysis a = analyze_ort(b, arena);
  return a.ctx->evaluate_peak({{"S", seq}}).run_bytes;
}

TEST(OrtRecurrentScratch, WorkspaceBlocksFragmentTheArenaAsOnnxRuntimes) {
  // ONNX Runtime 1.30 (onnxruntime-node, optimisation off, one thread, arena without the memory
  // pattern) keeps this LSTM in its first 1 MiB region up to 144 steps and takes a 2 MiB one
  // from 146 (measured: 1,091,000 and 3,257,576 bytes). The workspace is 16 blocks; as one block
  // the replay stayed in 1 MiB up to 160 steps or more. The BFC arena leaves a chunk whole when it
  // is under twice the request: the reverse direction's output_iofc swallows the rest of the region
  // and its reversed input has to go to a new one.
  const std::int64_t mib = 1 << 20;
  EXPECT_LT(lstm_arena_bytes(144, false), 2 * mib);
  EXPECT_GE(lstm_arena_bytes(146, false), 3 * mib);
  EXPECT_GE(lstm_arena_bytes(146, true), 3 * mib);
}

// ---- attention ---------------------------------------------------------------------------------

/// One ai.onnx Attention-23 with 3-D Q [1, 64, 64] (4 heads of 16), K and V [1, 64, 32] (2 heads).
test::Analysis onnx_attention(std::int64_t causal, bool bool_mask) {
  ModelBuilder b(23);
  b.input("Q", kFloat, {1, 64, 64}).input("K", kFloat, {1, 64, 32}).input("V", kFloat, {1, 64, 32});
  std::vector<std::string> inputs = {"Q", "K", "V"};
  if (bool_mask) {
    b.input("M", test::kBool, {64, 64});
    inputs.emplace_back("M");
  }
  b.node("Attention", inputs, {"Y"},
         {attr("is_causal", causal), attr("q_num_heads", 4), attr("kv_num_heads", 2)});
  return analyze_ort(b);
}

TEST(OrtAttentionScratch, ProbabilitiesAndTheCausalMask) {
  // B*Hq*S*T floats of probabilities; a causal node without a mask also builds an S x T float
  // mask (measured on onnxruntime-node 1.30: +16,384 bytes at 64 tokens), and a boolean mask is
  // copied to floats.
  EXPECT_EQ(onnx_attention(0, false).scratch(0), "65536");
  EXPECT_EQ(onnx_attention(1, false).scratch(0), "81920");
  EXPECT_EQ(onnx_attention(0, true).scratch(0), "81920");
}

// ---- the rest -----------------------------------------------------------------------------------

TEST(OrtTensorScratch, ResizeTopKAndZeros) {
  ModelBuilder b(17);
  b.input("x", kFloat, {1, 3, 45, 51});
  b.initializer_floats("s", {1, 1, 2, 2}, {4});
  b.node("Resize", {"x", "", "s"}, {"lin"}, {attr("mode", "linear")});
  b.node("Resize", {"x", "", "s"}, {"near"}, {attr("mode", "nearest")});
  b.input("t", kFloat, {37, 1001});
  b.initializer_ints("k", {5}, {1});
  b.node("TopK", {"t", "k"}, {"v", "i"});
  b.input("l", kFloat, {7, 33, 64});
  b.initializer(test::tensor_zeros("g", kFloat, {64}));
  b.node("LayerNormalization", {"l", "g", "g"}, {"ln"}, {attr("axis", -1)});
  b.input("p", kFloat, {4, 131, 257}).input("q", kFloat, {4, 257, 199});
  b.node("MatMul", {"p", "q"}, {"pq"});
  auto a = analyze_ort(b);
  EXPECT_EQ(a.scratch(0), "3072");  // 16 * (90 + 102)
  EXPECT_EQ(a.scratch(1), "0");
  EXPECT_EQ(a.scratch(2), "8008");  // 8 * 1001
  EXPECT_EQ(a.scratch(3), "0");     // the ai.onnx plugin counts 1848 bytes of row statistics
  EXPECT_EQ(a.scratch(4), "0");
}

// ---- registration -------------------------------------------------------------------------------

TEST(OrtRegistration, NeedsOverrideAndLeavesTheOnnxPluginNoScratchOfItsOps) {
  test::TempDir dir;
  test::write_file(dir / "p.yaml", kProfile);
  test::RunResult r =
      test::run_cctx("plugins --format json --profile " + test::quoted(dir / "p.yaml"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The ai.onnx plugin keeps its shape rules; every scratch key of the ops we estimate is ours.
  for (const char* op : {"Conv", "ConvTranspose", "Where", "Softmax", "LSTM"}) {
    EXPECT_NE(r.out.find("\"ai.onnx::" + std::string(op) + "\""), std::string::npos) << op;
  }
  const auto onnx_at = r.out.find("\"name\": \"onnx\"");
  const auto ort_at = r.out.find("\"name\": \"onnxruntime\"");
  ASSERT_NE(onnx_at, std::string::npos);
  ASSERT_NE(ort_at, std::string::npos);
  ASSERT_LT(onnx_at, ort_at);
  const std::string onnx_part = r.out.substr(onnx_at, ort_at - onnx_at);
  for (const char* op : {"Conv", "ConvTranspose", "Softmax", "LogSoftmax", "LSTM", "GRU", "RNN",
                         "Resize", "TopK", "LayerNormalization", "MatMul", "Gemm"}) {
    const auto at = onnx_part.find("\"ai.onnx::" + std::string(op) + "\": {");
    ASSERT_NE(at, std::string::npos) << op;
    const auto end = onnx_part.find('}', at);
    EXPECT_EQ(onnx_part.substr(at, end - at).find("\"scratch\""), std::string::npos)
        << op << " still has an ai.onnx scratch estimator: " << onnx_part.substr(at, end - at);
  }
  // Without `override: true` the clash is an error naming both plugins.
  test::write_file(dir / "q.yaml", "plugins:\n  - name: onnx\n  - name: onnxruntime\n");
  test::RunResult q = test::run_cctx("plugins --profile " + test::quoted(dir / "q.yaml"));
  EXPECT_EQ(q.exit_code, 3) << q.out;
  EXPECT_NE(q.err.find("override"), std::string::npos) << q.err;
}

}  // namespace
}  // namespace cctx
