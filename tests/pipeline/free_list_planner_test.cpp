// The free_list buffer planner (ONNX Runtime's sequential plan) through the shipped
// onnxruntime-cpu-unoptimized-no-arena profile: no element-wise op in place, freed buffers reused
// at equal size, a reused buffer held until its last value's last reader, graph outputs on their
// own.
#include <gtest/gtest.h>

#include "cctx/host.hpp"
#include "cctx/profile.hpp"
#include "stage_test_support.hpp"

namespace cctx {
namespace {

using namespace stage_test;

test::Analysis analyze_for_onnxruntime(const ModelBuilder& b) {
  const Profile profile = load_profile(Host::profile_path("onnxruntime-cpu-unoptimized-no-arena"));
  return test::analyze(b.build(), profile);
}

std::int64_t as_int(const test::Analysis& a, Expr e) { return *a.ctx->pool().as_int(e); }

// X -> A -> B -> C -> D -> Y, each Add(v, v) of 4 floats (16 bytes).
ModelBuilder add_chain() {
  ModelBuilder b;
  b.input("X", kFloat, {std::int64_t{4}});
  const char* names[] = {"X", "A", "B", "C", "D", "Y"};
  for (int k = 0; k + 1 < 6; ++k) b.node("Add", {names[k], names[k]}, {names[k + 1]});
  b.output("Y", kFloat);
  return b;
}

TEST(FreeListPlanner, ReusesFreedBuffersOfTheSameSize) {
  const test::Analysis a = analyze_for_onnxruntime(add_chain());
  // A and B are new; C takes A's buffer (freed after B), D takes B's; Y, a graph output, is
  // new. No Add runs in place.
  const std::int64_t allocated[] = {16, 16, 0, 0, 16};
  const std::int64_t total[] = {32, 48, 48, 48, 48};
  for (NodeId n = 0; n < 5; ++n) {
    EXPECT_TRUE(a.ctx->inplace(n).empty()) << n;
    EXPECT_EQ(as_int(a, a.ctx->memory(n).output_allocation), allocated[n]) << n;
    EXPECT_EQ(as_int(a, a.ctx->memory(n).total), total[n]) << n;
  }
  // A's buffer holds A then C: released after D, C's last reader, not after B.
  EXPECT_TRUE(a.ctx->release_after(1).empty());
  EXPECT_EQ(names(a, a.ctx->release_after(3)), (std::vector<std::string>{"A", "C"}));
  const PeakEvaluation e = a.ctx->evaluate_peak({});
  // The buffers beyond X, and the runtime's own bytes once the five nodes have run.
  const Profile profile = load_profile(Host::profile_path("onnxruntime-cpu-unoptimized-no-arena"));
  EXPECT_EQ(e.run_bytes, 48 - 16 + a.run_frame_bytes(profile, 5));
}

// With a dim ONNX's inference cannot name (here a dim of the input left unnamed), sizes are not
// provably equal to the runtime: nothing is reused, every Add allocates.
TEST(FreeListPlanner, UnknownDimsAreNeverReused) {
  ModelBuilder b;
  b.input("X", kFloat, {std::string()});  // neither value nor name
  const char* names[] = {"X", "A", "B", "C", "D", "Y"};
  for (int k = 0; k + 1 < 6; ++k) b.node("Add", {names[k], names[k]}, {names[k + 1]});
  b.output("Y", kFloat);
  const test::Analysis a = analyze_for_onnxruntime(b);
  for (NodeId n = 0; n < 5; ++n) {
    EXPECT_NE(a.print(a.ctx->memory(n).output_allocation), "0") << n;
  }
}

// ONNX Runtime's own onnx knows opset 23's RMSNormalization and infers its output; the linked
// onnx library (older) does not, and left everything downstream without a shape, so nothing was
// reused there. Such values are sized by cctx's shapes: here C takes A's freed buffer, as in
// add_chain. (Measured on the Attention-23 decoder of tests/decoders: a 64-token prefill went
// from 0.58x to 0.98x of ONNX Runtime's run.)
TEST(FreeListPlanner, ValuesAfterAnOperatorTheLinkedOnnxLacksAreStillReused) {
  ModelBuilder b(23);
  b.input("X", kFloat, {"N", 4});
  b.initializer(test::tensor_zeros("W", kFloat, {4}));
  b.node("RMSNormalization", {"X", "W"}, {"R"});
  const char* chain[] = {"R", "A", "B", "C", "D", "Y"};
  for (int k = 0; k + 1 < 6; ++k) b.node("Add", {chain[k], chain[k]}, {chain[k + 1]});
  b.output("Y", kFloat);
  const test::Analysis a = analyze_for_onnxruntime(b);
  EXPECT_EQ(a.print(a.ctx->memory(3).output_allocation), "0");  // C, in A's buffer
  EXPECT_EQ(names(a, a.ctx->release_after(4)), (std::vector<std::string>{"A", "C"}));
}

// After the runtime's rewrites (onnxruntime-cpu-no-arena, level all), a value a rewrite made has
// the shape its operator's schema gives it: the DequantizeLinear copied for the second reader
// (ONNX Runtime's EnsureUniqueDQForNodeUnit) keeps its input's dims, [N, S, 64], so once its reader
// has run, the next value of that size takes its buffer, as ONNX Runtime's planner does. It runs
// first: it is numbered after the model's nodes, and Add takes its higher-numbered producer first.
// The same after an operator the linked onnx library lacks (RMSNormalization-23): the copy
// carries its input's dims, which ONNX Runtime's newer schemas infer (S too, which a schema that
// computes its dims would leave unknown), and is reused the same way.
ModelBuilder dequantized_twice(bool after_rms_norm) {
  ModelBuilder b(after_rms_norm ? 23 : 17);
  b.input("X", kFloat, {"N", "S", 64});
  b.initializer_floats("s", {0.5F}, {});
  b.initializer(test::tensor_zeros("z", test::kUint8, {}));
  if (after_rms_norm) {
    b.initializer(test::tensor_zeros("W", kFloat, {64}));
    b.node("RMSNormalization", {"X", "W"}, {"R"});
  }
  b.node("QuantizeLinear", {after_rms_norm ? "R" : "X", "s", "z"}, {"q"});
  b.node("DequantizeLinear", {"q", "s", "z"}, {"d"});
  b.node("Neg", {"d"}, {"a"});
  b.node("Abs", {"d"}, {"e"});
  b.node("Neg", {"e"}, {"c"});
  b.node("Add", {"a", "c"}, {"Y"});
  b.output("Y", kFloat);
  return b;
}

TEST(FreeListPlanner, ValuesTheRewritesMadeHaveTheirSchemasShapes) {
  const Profile profile = load_profile(Host::profile_path("onnxruntime-cpu-no-arena"));
  for (const bool after_rms_norm : {false, true}) {
    const test::Analysis a = test::analyze(dequantized_twice(after_rms_norm).build(), profile);
    const NodeId first = after_rms_norm ? 1 : 0;
    std::vector<std::string> order;
    for (NodeId n = first; n < a.ctx->graph().main_node_count(); ++n)
      order.push_back(a.ctx->graph().node(n).proto->output(0));
    EXPECT_EQ(order, (std::vector<std::string>{"q", "d/duplicated", "e", "c", "d", "a", "Y"}));
    // c takes the copy's buffer (freed after e), d takes e's: no new buffer for either.
    EXPECT_EQ(a.print(a.ctx->memory(first + 3).output_allocation), "0") << after_rms_norm;
    EXPECT_EQ(a.print(a.ctx->memory(first + 4).output_allocation), "0") << after_rms_norm;
    // The copy is new, or after RMSNormalization takes R's buffer (freed by the QuantizeLinear).
    EXPECT_EQ(a.print(a.ctx->memory(first + 1).output_allocation),
              after_rms_norm ? "0" : "256*N*S");
  }
}

}  // namespace
}  // namespace cctx
