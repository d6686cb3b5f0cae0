// The static memory plan (cctx/memory_plan.hpp) on small models: its structure, its offsets at
// an assignment, and a checker that finds every way a plan can be broken.
#include "cctx/memory_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "stage_test_support.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using namespace stage_test;

/// x [N, S] -> Relu a -> (Exp b, Neg c) -> Add d -> MatMul with its transpose e [N, N]
/// -> ReduceSum f; a residual (a read again by the Add) and buffers whose sizes cross (N*S
/// against N*N) as N and S change.
ModelBuilder crossing_model() {
  ModelBuilder b;
  b.input("x", kFloat, {"N", "S"});
  b.node("Relu", {"x"}, {"a"});
  b.node("Exp", {"a"}, {"b"});
  b.node("Neg", {"a"}, {"c"});
  b.node("Add", {"b", "c"}, {"d"});
  b.node("Add", {"d", "a"}, {"d2"});
  b.node("Transpose", {"d2"}, {"t"}, {attr("perm", std::vector<std::int64_t>{1, 0})});
  b.node("MatMul", {"d2", "t"}, {"e"});
  b.node("ReduceSum", {"e"}, {"f"});
  b.output("f", kFloat);
  b.output("d2", kFloat);
  return b;
}

TEST(MemoryPlan, EveryIntermediateHasABufferAndTheCheckPasses) {
  const test::Analysis a = analyze(crossing_model());
  const MemoryPlan plan = make_memory_plan(*a.ctx);
  // Every main-graph output is in one buffer; the graph input x is the caller's.
  std::vector<std::string> planned;
  for (const PlannedBuffer& b : plan.buffers) {
    for (const ValueId v : b.values) planned.emplace_back(a.ctx->graph().value(v).name);
  }
  std::sort(planned.begin(), planned.end());
  for (const char* name : {"a", "b", "c", "d", "d2", "t", "e", "f"}) {
    EXPECT_TRUE(std::binary_search(planned.begin(), planned.end(), name)) << name;
  }
  EXPECT_FALSE(std::binary_search(planned.begin(), planned.end(), "x"));
  EXPECT_EQ(plan.symbols, (std::vector<std::string>{"N", "S"}));
  PlanCheckOptions options;
  options.assignments = 3000;
  const PlanCheck check = check_memory_plan(*a.ctx, plan, options);
  EXPECT_EQ(check.overlaps, 0);
  EXPECT_EQ(check.outside, 0);
  EXPECT_TRUE(check.failures.empty()) << check.failures.front();
  EXPECT_EQ(check.checked, 3000);
  EXPECT_GT(check.crossings, 0);  // N*S and N*N change order inside the box
  EXPECT_EQ(check.over_no_reuse, 0);
}

TEST(MemoryPlan, ASmallBoxIsCheckedWhole) {
  const test::Analysis a = analyze(crossing_model(), [](Profile& p) {
    p.symbols["N"] = Interval{1, 6};
    p.symbols["S"] = Interval{2, 9};
  });
  const MemoryPlan plan = make_memory_plan(*a.ctx);
  PlanCheckOptions options;
  options.assignments = 10000;
  const PlanCheck check = check_memory_plan(*a.ctx, plan, options);
  EXPECT_EQ(check.checked + check.skipped, 6 * 8);
  EXPECT_EQ(check.overlaps, 0);
}

TEST(MemoryPlan, OffsetsAtAnAssignmentFollowTheBuffersBelow) {
  const test::Analysis a = analyze(crossing_model());
  const MemoryPlan plan = make_memory_plan(*a.ctx, PlanOptions{1, false});
  const PlanValues at =
      evaluate_plan(*a.ctx, plan, std::vector<Assignment>{{{"N", 3}, {"S", 5}}}, true).front();
  std::int64_t arena = 0;
  for (std::size_t b = 0; b < plan.buffers.size(); ++b) {
    std::int64_t offset = 0;
    for (const std::uint32_t j : plan.buffers[b].below) {
      offset = std::max(offset, at.offsets[j] + at.sizes[j]);
    }
    EXPECT_EQ(at.offsets[b], offset) << b;
    arena = std::max(arena, at.offsets[b] + at.sizes[b]);
    // Without alignment a buffer's size is its tensor's bytes: a's is 3*5 floats.
    if (!plan.buffers[b].values.empty() &&
        a.ctx->graph().value(plan.buffers[b].values[0]).name == std::string_view("a")) {
      EXPECT_EQ(at.sizes[b], 60);
    }
  }
  EXPECT_EQ(at.arena, arena);
  EXPECT_GE(at.arena, at.floor);
  ASSERT_TRUE(at.best_fit.has_value());
  EXPECT_GE(*at.best_fit, at.floor);
  ASSERT_TRUE(plan.arena.has_value());  // a small plan has its closed form
  EXPECT_EQ(a.ctx->pool().eval(*plan.arena, {{"N", 3}, {"S", 5}}), at.arena);
}

TEST(MemoryPlan, AlignmentRoundsEverySize) {
  const test::Analysis a = analyze(crossing_model());
  const MemoryPlan plan = make_memory_plan(*a.ctx, PlanOptions{64, true});
  const PlanValues at =
      evaluate_plan(*a.ctx, plan, std::vector<Assignment>{{{"N", 3}, {"S", 5}}}, false).front();
  for (std::size_t b = 0; b < plan.buffers.size(); ++b) {
    EXPECT_EQ(at.sizes[b] % 64, 0) << b;
    EXPECT_EQ(at.offsets[b] % 64, 0) << b;
  }
}

// The checker does not trust the plan: each way of breaking one is found.
class BrokenPlan : public ::testing::Test {
 protected:
  PlanCheck check(const MemoryPlan& plan) const {
    PlanCheckOptions options;
    options.assignments = 200;
    return check_memory_plan(*a_.ctx, plan, options);
  }
  test::Analysis a_ = analyze(crossing_model());
  MemoryPlan plan_ = make_memory_plan(*a_.ctx);
};

TEST_F(BrokenPlan, ABufferLaidOnNothingOverlaps) {
  auto it = std::find_if(plan_.buffers.begin(), plan_.buffers.end(),
                         [](const PlannedBuffer& b) { return !b.below.empty(); });
  ASSERT_NE(it, plan_.buffers.end());
  it->below.clear();
  // The closed forms would disagree first: without them, the recurrence alone is the plan.
  for (PlannedBuffer& b : plan_.buffers) b.offset.reset();
  plan_.arena.reset();
  const PlanCheck c = check(plan_);
  EXPECT_GT(c.overlaps, 0);
  EXPECT_NE(c.failures.front().find("are both alive at node"), std::string::npos)
      << c.failures.front();
}

TEST_F(BrokenPlan, AClosedFormThatDisagreesIsFound) {
  auto it = std::find_if(plan_.buffers.begin(), plan_.buffers.end(),
                         [](const PlannedBuffer& b) { return !b.below.empty(); });
  ASSERT_NE(it, plan_.buffers.end());
  it->offset = a_.ctx->pool().integer(0);
  const PlanCheck c = check(plan_);
  EXPECT_FALSE(c.failures.empty());
  EXPECT_NE(c.failures.front().find("by its formula"), std::string::npos) << c.failures.front();
}

TEST_F(BrokenPlan, AnArenaTooSmallIsFound) {
  plan_.tops.resize(1);  // the arena forgets the other tops
  plan_.arena.reset();
  const PlanCheck c = check(plan_);
  EXPECT_GT(c.outside, 0);
}

TEST_F(BrokenPlan, AValueLeftOutIsFound) {
  auto it = std::find_if(plan_.buffers.begin(), plan_.buffers.end(),
                         [](const PlannedBuffer& b) { return !b.values.empty(); });
  it->values.clear();
  const PlanCheck c = check(plan_);
  ASSERT_FALSE(c.failures.empty());
  EXPECT_NE(c.failures.front().find("has no buffer in the plan"), std::string::npos)
      << c.failures.front();
}

TEST_F(BrokenPlan, ABufferTooSmallForItsValueIsFound) {
  auto it = std::find_if(plan_.buffers.begin(), plan_.buffers.end(),
                         [](const PlannedBuffer& b) { return !b.values.empty(); });
  it->size = a_.ctx->pool().integer(4);
  const PlanCheck c = check(plan_);
  EXPECT_GT(c.outside, 0);
}

TEST(MemoryPlan, TheFreeListProfileIsPlannedToo) {
  Model model = crossing_model().build();
  const test::Analysis a = test::analyze(
      std::move(model),
      load_profile(test::profile_dir() / "onnxruntime-cpu-unoptimized-no-arena.yaml"));
  const MemoryPlan plan = make_memory_plan(*a.ctx);
  PlanCheckOptions options;
  options.assignments = 1000;
  const PlanCheck check = check_memory_plan(*a.ctx, plan, options);
  EXPECT_EQ(check.overlaps + check.outside, 0);
  EXPECT_TRUE(check.failures.empty());
}

}  // namespace
}  // namespace cctx
