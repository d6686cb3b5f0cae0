// The in-place and memory stages (semantics.md, "In-place reuse" and "Per-node memory profile"),
// and the memory profile's packed bucket.
#include <gtest/gtest.h>

#include <array>

#include "cctx/report.hpp"
#include "stage_test_support.hpp"

namespace cctx {
namespace {

using namespace stage_test;

// A bucket packs its tags beside the amounts; entries read back as (tag, amount) pairs in the
// order they were added, and a sixth entry or a value outside Tag is refused.
TEST(MemoryProfile, BucketReadsBackItsEntriesInOrder) {
  static_assert(sizeof(Bucket) == 24);
  Bucket b;
  EXPECT_TRUE(b.empty());
  const std::array<Tag, 5> tags = {Tag::kNone, Tag::kAmbiguous, Tag::kAxes, Tag::kShape,
                                   Tag::kWeight};
  for (std::uint32_t k = 0; k < tags.size(); ++k) b.emplace_back(tags[k], Expr{100 + k});
  ASSERT_EQ(b.size(), 5u);
  std::size_t k = 0;
  for (const auto& [tag, amount] : b) {
    EXPECT_EQ(tag, tags[k]);
    EXPECT_EQ(amount, Expr{static_cast<std::uint32_t>(100 + k)});
    ++k;
  }
  EXPECT_EQ(k, 5u);
  EXPECT_EQ(b.front(), (Bucket::value_type{Tag::kNone, Expr{100}}));
  EXPECT_EQ(b.back(), (Bucket::value_type{Tag::kWeight, Expr{104}}));
  EXPECT_THROW(b.emplace_back(Tag::kWeight, Expr{1}), std::length_error);
  EXPECT_THROW(Bucket({{static_cast<Tag>(9), Expr{1}}}), std::invalid_argument);
  const Bucket two{{Tag::kWeight, Expr{7}}, {Tag::kShape, Expr{8}}};
  EXPECT_EQ(two[0], (Bucket::value_type{Tag::kWeight, Expr{7}}));
  EXPECT_EQ(two[1], (Bucket::value_type{Tag::kShape, Expr{8}}));
  EXPECT_EQ(two, (Bucket{{Tag::kWeight, Expr{7}}, {Tag::kShape, Expr{8}}}));
  EXPECT_FALSE(two == (Bucket{{Tag::kWeight, Expr{7}}, {Tag::kAxes, Expr{8}}}));
  EXPECT_FALSE(two == (Bucket{{Tag::kWeight, Expr{7}}}));
}

TEST(Inplace, NoReuseWhileTheInputIsReadLater) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"});
  b.node("Neg", {"X"}, {"A"}).node("Relu", {"A"}, {"B"}).node("Add", {"A", "B"}, {"C"});
  b.node("Add", {"C", "C"}, {"D"}).node("MatMul", {"D", "D"}, {"E"}).output("E", kFloat);
  auto a = test::analyze(b);
  EXPECT_TRUE(a.ctx->inplace(1).empty()) << "A is read again by node 2";
  ASSERT_EQ(a.ctx->inplace(2).size(), 1u) << "A and B both die at node 2";
  EXPECT_EQ(a.ctx->inplace(2)[0].input, 0u);
  EXPECT_TRUE(a.ctx->inplace(3).empty()) << "Add(C, C): the buffer is read twice";
  EXPECT_TRUE(a.ctx->inplace(4).empty()) << "MatMul has no policy";
}

TEST(Inplace, ReshapeAliasKeepsTheBufferAliveUntilBothDie) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 4}).initializer_ints("s", {-1});
  b.node("Neg", {"X"}, {"A"}).node("Reshape", {"A", "s"}, {"Y"});
  b.node("Relu", {"A"}, {"B"})
      .node("Relu", {"Y"}, {"C"})
      .node("Add", {"B", "C"}, {"D"})
      .output("D", kFloat);
  auto a = test::analyze(b);
  ASSERT_EQ(a.ctx->inplace(1).size(), 1u);
  EXPECT_EQ(a.ctx->inplace(1)[0].mode, ReuseMode::kAlias);
  EXPECT_EQ(a.print(a.ctx->memory(1).output_allocation), "0");
  EXPECT_TRUE(a.ctx->inplace(2).empty()) << "Relu(A) while the view Y still lives";
  // At node 3 the buffer of A/Y (16*N) is still live.
  EXPECT_EQ(a.print(a.ctx->memory(3).already_allocated), "48*N+8");
}

TEST(Inplace, ViewOfAGraphInputIsFreeAndProtected) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 4}).initializer_ints("s", {-1});
  b.node("Reshape", {"X", "s"}, {"Y"}).node("Relu", {"Y"}, {"Z"}).output("Z", kFloat);
  auto a = test::analyze(b);
  EXPECT_EQ(a.print(a.ctx->memory(0).output_allocation), "0");
  EXPECT_TRUE(a.ctx->inplace(1).empty()) << "Relu of a view of a protected input";
  EXPECT_EQ(bucket_text(a.ctx->pool(), a.ctx->memory(1).inputs), "weight=16*N");
}

TEST(Inplace, AllowInputOverwrite) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"})
      .node("Relu", {"X"}, {"Y"})
      .node("Neg", {"Y"}, {"Z"})
      .output("Z", kFloat);
  auto a = test::analyze(b, [](Profile& p) { p.inplace.allow_input_overwrite = true; });
  ASSERT_EQ(a.ctx->inplace(0).size(), 1u);
  EXPECT_EQ(bucket_text(a.ctx->pool(), a.ctx->memory(1).inputs), "-");
  EXPECT_EQ(bucket_text(a.ctx->pool(), a.ctx->memory(1).intermediates), "weight=4*N");

  ModelBuilder c;
  c.input("X", kFloat, {"N"}).node("Relu", {"X"}, {"Y"}).output("X", kFloat).output("Y", kFloat);
  auto d = test::analyze(c, [](Profile& p) { p.inplace.allow_input_overwrite = true; });
  EXPECT_TRUE(d.ctx->inplace(0).empty()) << "X is also a graph output";
}

TEST(Inplace, CastToNarrowerTypeIsGreater) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"}).initializer_ints("c4", {1, 2, 3, 4});
  b.node("Neg", {"X"}, {"A"}).node("Cast", {"A"}, {"B"}, {attr("to", test::kFloat16)});
  b.node("Identity", {"c4"}, {"I"}).node("Cast", {"I"}, {"J"}, {attr("to", kInt32)});
  b.output("B", test::kFloat16).output("J", kInt32);
  auto a = test::analyze(b);
  ASSERT_EQ(a.ctx->inplace(1).size(), 1u);
  EXPECT_EQ(a.ctx->inplace(1)[0].kind, ReuseKind::kGreater);
}

TEST(Inplace, StructuralFallbackPrefersAnEqualInput) {
  ModelBuilder b;
  b.opset("com.acme", 1);
  b.input("P", kInt64, {4}).input("Q", kInt32, {4});
  b.node("Neg", {"P"}, {"BIG"}).node("Neg", {"Q"}, {"EQ"});
  b.node("Consume", {"BIG", "EQ"}, {"R"}, {}, "com.acme")
      .value_info("R", kInt32, {4})
      .output("R", kInt32);
  auto a = test::analyze(b, [](Profile& p) { p.inplace.fallback = InplaceFallback::kStructural; });
  ASSERT_EQ(a.ctx->inplace(2).size(), 1u);
  EXPECT_EQ(a.ctx->inplace(2)[0].input, 1u);
  EXPECT_EQ(a.ctx->inplace(2)[0].kind, ReuseKind::kEqual);
}

TEST(Memory, ReluOfAnInput) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"}).node("Relu", {"X"}, {"Y"}).output("Y", kFloat);
  auto a = test::analyze(b);
  const MemoryProfile& p = a.ctx->memory(0);
  EXPECT_EQ(a.print(p.already_allocated), "4*N");
  EXPECT_EQ(a.print(p.output_allocation), "4*N");
  EXPECT_EQ(a.print(p.total), "8*N");
}

}  // namespace
}  // namespace cctx
