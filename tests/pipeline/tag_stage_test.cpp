// The tag stage (semantics.md, "Tags"): merge rules, Concat inheritance, backward tags, metadata
// seeds, bodies.
#include <gtest/gtest.h>

#include "model/metadata.hpp"
#include "stage_test_support.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using namespace stage_test;

TEST(Tags, MergeRules) {
  EXPECT_EQ(merge_tag(Tag::kWeight, Tag::kShape), Tag::kShape);
  EXPECT_EQ(merge_tag(Tag::kShape, Tag::kWeight), Tag::kShape);
  EXPECT_EQ(merge_tag(Tag::kShape, Tag::kAxes), Tag::kAmbiguous);
  EXPECT_EQ(merge_tag(Tag::kAmbiguous, Tag::kWeight), Tag::kAmbiguous);
  EXPECT_EQ(merge_tag(Tag::kNone, Tag::kAxes), Tag::kAxes);
  EXPECT_EQ(merge_tag(Tag::kAxes, Tag::kNone), Tag::kAxes);
  EXPECT_EQ(parse_tag(" Shape "), Tag::kShape);
  EXPECT_EQ(parse_tag("WEIGHT"), Tag::kWeight);
  EXPECT_FALSE(parse_tag("foo").has_value());
}

TEST(Tags, ConcatInheritance) {
  ModelBuilder b;
  b.opset("com.acme", 1).input("X", kFloat, {"N"});
  // V comes from an op without inputs: nothing tags it.
  b.node("Make", {}, {"V"}, {}, "com.acme").value_info("V", kInt64, {1});
  b.node("Shape", {"X"}, {"S"}).node("Concat", {"S", "V"}, {"C1"}, {attr("axis", 0)});
  b.node("Shape", {"X"}, {"S2"}).node("Concat", {"X", "S2"}, {"C2"}, {attr("axis", 0)});
  auto a = test::analyze(b);
  EXPECT_EQ(a.ctx->value_tag(a.id("V")), Tag::kShape) << "tagged backward by Concat";
  EXPECT_EQ(a.ctx->value_tag(a.id("C1")), Tag::kShape) << "shape + untagged";
  EXPECT_EQ(a.ctx->value_tag(a.id("C2")), Tag::kWeight) << "weight + shape";
}

TEST(Tags, BackwardTagsCrossAChainOnePassPerNode) {
  // Each pass over the main graph carries the shape tag one Identity further back. After the
  // first pass only nodes next to a change run again: this guards that skip.
  ModelBuilder b;
  b.input("X", kFloat, {"N"}).input("A0", kInt64, {1});
  b.node("Identity", {"A0"}, {"A1"}).node("Identity", {"A1"}, {"A2"});
  b.node("Identity", {"A2"}, {"A3"}).node("Identity", {"A3"}, {"A4"});
  b.node("Reshape", {"X", "A4"}, {"Y"});
  auto a = test::analyze(b);
  for (const char* name : {"A0", "A1", "A2", "A3", "A4"})
    EXPECT_EQ(a.ctx->value_tag(a.id(name)), Tag::kShape) << name;
  for (NodeId n = 0; n < 4; ++n) EXPECT_EQ(a.ctx->node_tag(n), Tag::kShape) << n;
}

TEST(Tags, InputMetadataSeedsTheTag) {
  ModelBuilder b;
  b.input("X", kInt64, {2}).node("Identity", {"X"}, {"Y"});
  Model m = b.build();
  set_metadata(*m.proto().mutable_graph()->mutable_input(0), kValueInfoMetadataField,
               "cctx.value_tag", "shape");
  auto a = test::analyze(std::move(m), test::default_profile());
  EXPECT_EQ(a.ctx->value_tag(a.id("X")), Tag::kShape);
  EXPECT_EQ(a.ctx->value_tag(a.id("Y")), Tag::kShape);
}

TEST(Tags, LoopBodyInputBoundToAShapeValue) {
  ModelBuilder body;
  body.input("i", kInt64, {}).input("cond", test::kBool, {}).input("carried", kInt64, {2});
  body.node("Identity", {"cond"}, {"cond_out"}).node("Identity", {"carried"}, {"carried_out"});
  body.output("cond_out", test::kBool).output("carried_out", kInt64);
  ModelBuilder b;
  b.input("X", kFloat, {"N", 4}).initializer_ints("M", {3}, {}).input("c", test::kBool, {});
  b.node("Shape", {"X"}, {"S"});
  b.node("Loop", {"M", "c", "S"}, {"final"}, {attr("body", body.graph())});
  auto a = test::analyze(b);
  const GraphView& g = a.ctx->graph();
  ValueId carried = kNoValue;
  for (ValueId v = 0; v < g.values().size(); ++v) {
    if (g.value(v).name == "carried" && g.value(v).graph != 0) carried = v;
  }
  ASSERT_NE(carried, kNoValue);
  EXPECT_EQ(a.ctx->value_tag(carried), Tag::kShape);
  EXPECT_EQ(a.ctx->value_tag(a.id("final")), Tag::kShape);
}

TEST(Tags, IfOutputsMergeBothBranches) {
  ModelBuilder then_branch, else_branch;
  then_branch.node("Shape", {"X"}, {"t"}).output("t", kInt64);
  else_branch.node("Identity", {"X"}, {"e"}).output("e", kFloat);
  ModelBuilder b;
  b.input("X", kFloat, {"N"}).input("c", test::kBool, {});
  b.node("If", {"c"}, {"Y"},
         {attr("then_branch", then_branch.graph()), attr("else_branch", else_branch.graph())});
  auto a = test::analyze(b);
  EXPECT_EQ(a.ctx->value_tag(a.id("Y")), Tag::kShape);  // weight merged with shape -> shape
}

}  // namespace
}  // namespace cctx
