// The arena model (pipeline/arena_model.hpp): the region ladder, best fit, splitting and merging
// of ONNX Runtime's BFC arena, and the memory pattern's offsets; then the
// onnxruntime-cpu-unoptimized profile end to end on a small chain whose arena can be worked out by
// hand.
#include "pipeline/arena_model.hpp"

#include <gtest/gtest.h>

#include "cctx/host.hpp"
#include "cctx/profile.hpp"
#include "stage_test_support.hpp"

namespace cctx {
namespace {

constexpr std::int64_t kMiB = std::int64_t{1} << 20;

Profile::Memory::Arena defaults() {
  Profile::Memory::Arena a;
  a.enabled = true;
  return a;
}

TEST(RegionArena, RegionsDoubleFromOneMebibyte) {
  RegionArena arena(defaults());
  EXPECT_EQ(arena.alloc(0), RegionArena::kNone);  // nothing for an empty tensor
  EXPECT_EQ(arena.reserved(), 0);
  arena.alloc(kMiB);  // fills the first region exactly
  EXPECT_EQ(arena.reserved(), kMiB);
  arena.alloc(kMiB);  // the next region is twice the first
  EXPECT_EQ(arena.reserved(), 3 * kMiB);
  arena.alloc(3 * kMiB);  // fits the 4 MiB the ladder has reached
  EXPECT_EQ(arena.reserved(), 7 * kMiB);
}

TEST(RegionArena, AnOversizedRequestSkipsRungsAndTheNextRegionStaysTheSame) {
  RegionArena arena(defaults());
  arena.alloc(3 * kMiB);  // 1 MiB doubles to 4 MiB inside the loop: no doubling after it
  EXPECT_EQ(arena.reserved(), 4 * kMiB);
  arena.alloc(3 * kMiB);  // the 1 MiB left does not fit: another 4 MiB region
  EXPECT_EQ(arena.reserved(), 8 * kMiB);
  arena.alloc(3 * kMiB);  // then 8 MiB
  EXPECT_EQ(arena.reserved(), 16 * kMiB);
}

TEST(RegionArena, RequestsRoundUpAndSplitOnlyLargeChunks) {
  RegionArena arena(defaults());
  EXPECT_EQ(arena.rounded(1), 256);
  // 600 KiB of a 1 MiB chunk: the chunk is less than twice the request, so all of it is
  // handed out and a second 600 KiB needs a region.
  arena.alloc(600 * 1024);
  arena.alloc(600 * 1024);
  EXPECT_EQ(arena.reserved(), 3 * kMiB);
  // 2 MiB region: 600 KiB taken from its front, 1448 KiB left: 400 KiB more fit.
  arena.alloc(400 * 1024);
  EXPECT_EQ(arena.reserved(), 3 * kMiB);
}

TEST(RegionArena, FreedNeighboursMerge) {
  RegionArena arena(defaults());
  const auto a = arena.alloc(256 * 1024);
  const auto b = arena.alloc(256 * 1024);
  const auto c = arena.alloc(256 * 1024);
  arena.free(a);
  arena.free(c);
  arena.free(b);  // merges with both: the whole first region is one free chunk again
  arena.alloc(kMiB);
  EXPECT_EQ(arena.reserved(), kMiB);
}

TEST(RegionArena, BestFitTakesTheSmallestChunkThatFits) {
  RegionArena arena(defaults());
  const auto small = arena.alloc(kMiB);      // region 1 (1 MiB)
  const auto large = arena.alloc(2 * kMiB);  // region 2 (2 MiB)
  arena.free(large);
  arena.free(small);
  arena.alloc(kMiB);  // into the 1 MiB chunk: the 2 MiB one stays whole
  arena.alloc(2 * kMiB);
  EXPECT_EQ(arena.reserved(), 3 * kMiB);
}

TEST(PatternTracer, BestFitGapsAndGrowth) {
  PatternTracer p;
  p.alloc(0, 100);
  p.alloc(1, 50);  // [100, 150)
  p.free(0);       // gap [0, 100)
  p.alloc(2, 60);  // the gap: [0, 60)
  p.alloc(3, 40);  // fits [60, 100) exactly
  EXPECT_EQ(p.peak(), 150);
  p.alloc(4, 10);  // no gap: after the highest block
  EXPECT_EQ(p.peak(), 160);
  p.free(1);       // gap [100, 150)
  p.free(4);       // merges with the tail: [100, 160)
  p.alloc(5, 30);  // best fit among gaps of 60: [100, 130)
  p.alloc(6, 40);  // only [130, 160) is left, too small: after the highest block, at 130
  EXPECT_EQ(p.peak(), 170);
  p.alloc(7, 0);  // an empty block takes no room
  EXPECT_EQ(p.peak(), 170);
}

TEST(PatternTracer, TheSmallestGapWinsAndTheLowestAmongEquals) {
  PatternTracer p;
  for (std::uint32_t k = 0; k < 5; ++k) p.alloc(k, 10);  // [0,10) ... [40,50)
  p.free(1);                                             // gap [10, 20)
  p.free(3);                                             // gap [30, 40)
  p.alloc(5, 10);                                        // the lower one
  p.free(0);                                             // gap [0, 10)
  p.alloc(6, 10);                                        // [0, 10): the lowest of two fits
  p.alloc(7, 10);                                        // [30, 40)
  p.alloc(8, 1);                                         // nothing left: at 50
  EXPECT_EQ(p.peak(), 51);
}

using namespace stage_test;

// X[N] -> Relu -> A -> Sigmoid -> Y with N floats of 1 MiB: run 1 puts A in the first region
// (1 MiB) and Y, a graph output, in a second (2 MiB); run 2 asks for the pattern's block (A:
// 1 MiB), which the first region holds, and Y goes to the second again: 3 MiB reserved.
TEST(ArenaProfile, TinyChainByHand) {
  for (const auto& [n, want] :
       {std::pair{std::int64_t{1} << 18, 3 * kMiB}, std::pair{std::int64_t{1} << 20, 8 * kMiB},
        std::pair{std::int64_t{1000}, kMiB}}) {
    ModelBuilder b;
    b.input("X", kFloat, {n});
    b.node("Relu", {"X"}, {"A"});
    b.node("Sigmoid", {"A"}, {"Y"});
    b.output("Y", kFloat);
    const Profile profile = load_profile(Host::profile_path("onnxruntime-cpu-unoptimized"));
    const test::Analysis a = test::analyze(b.build(), profile);
    // The regions, and the runtime's own bytes beside them (malloc) at the last node.
    EXPECT_EQ(a.ctx->evaluate_peak({}).run_bytes, want + a.run_frame_bytes(profile, 2)) << n;
  }
}

/// What memory.arena.prepacked adds to the session of the shipped arena profile (`make` builds
/// the model, once per profile).
template <class Make>
std::int64_t packed_bytes(Make make) {
  const Profile packing = load_profile(Host::profile_path("onnxruntime-cpu-unoptimized"));
  Profile plain = packing;
  plain.memory.arena.prepacked.clear();
  auto session = [&](const Profile& profile) {
    return test::analyze(make(), profile).ctx->evaluate_peak({}).session_bytes;
  };
  return session(packing) - session(plain);
}

// memory.arena.prepacked: a QLinearConv of uint8 activations packs its int8 weights into the
// arena as the session loads (a first region of 1 MiB for 36,864 bytes) and the original goes;
// with int8 activations (another kernel path) nothing is packed there.
TEST(ArenaProfile, PackedWeightsTakeRegionsAtLoad) {
  auto model = [](int activations) {
    ModelBuilder b;
    b.input("X", activations, {1, 64, 8, 8});
    for (const char* s : {"xs", "ws", "ys"}) b.initializer_floats(s, {0.5F}, {});
    b.initializer(test::tensor_zeros("xz", activations, {}));
    b.initializer(test::tensor_zeros("yz", activations, {}));
    b.initializer(test::tensor_zeros("wz", test::kInt8, {}));
    b.initializer(test::tensor_zeros("W", test::kInt8, {64, 64, 3, 3}));
    b.node("QLinearConv", {"X", "xs", "xz", "W", "ws", "wz", "ys", "yz"}, {"Y"},
           {attr("kernel_shape", std::vector<std::int64_t>{3, 3}),
            attr("pads", std::vector<std::int64_t>{1, 1, 1, 1})});
    b.output("Y", activations);
    return b.build();
  };
  auto packed = [&](int activations) { return packed_bytes([&] { return model(activations); }); };
  EXPECT_EQ(packed(test::kUint8), kMiB - 36864);
  EXPECT_EQ(packed(test::kInt8), 0);
}

// `temporary`: QGemm with transB transposes its B into the arena as the session loads and frees
// the copy, whatever its A: the region stays (1 MiB for 10 x 1000 bytes), the original too.
// Without transB nothing is copied there.
TEST(ArenaProfile, TemporaryCopiesLeaveTheirRegion) {
  auto model = [](int activations, std::int64_t trans_b) {
    ModelBuilder b;
    b.input("A", activations, {2, 1000});
    for (const char* s : {"as", "bs", "ys"}) b.initializer_floats(s, {0.5F}, {});
    b.initializer(test::tensor_zeros("az", activations, {}));
    b.initializer(test::tensor_zeros("yz", activations, {}));
    b.initializer(test::tensor_zeros("bz", test::kInt8, {}));
    b.initializer(test::tensor_zeros(
        "B", test::kInt8,
        trans_b != 0 ? std::vector<std::int64_t>{10, 1000} : std::vector<std::int64_t>{1000, 10}));
    b.node("QGemm", {"A", "as", "az", "B", "bs", "bz", "", "ys", "yz"}, {"Y"},
           {attr("transB", trans_b)}, "com.microsoft");
    b.output("Y", activations);
    return b.build();
  };
  auto packed = [&](int activations, std::int64_t trans_b) {
    return packed_bytes([&] { return model(activations, trans_b); });
  };
  EXPECT_EQ(packed(test::kInt8, 1), kMiB);
  EXPECT_EQ(packed(test::kUint8, 1), kMiB);
  EXPECT_EQ(packed(test::kInt8, 0), 0);
  EXPECT_EQ(packed(test::kUint8, 0), 0);
}

}  // namespace
}  // namespace cctx
