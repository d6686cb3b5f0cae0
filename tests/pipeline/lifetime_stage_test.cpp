// The lifetime stage (semantics.md, "Lifetimes"): releases after the last reader, captures of
// bodies.
#include <gtest/gtest.h>

#include "stage_test_support.hpp"

namespace cctx {
namespace {

using namespace stage_test;

TEST(Lifetimes, ValueReadTwiceIsReleasedAfterItsLastReader) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"});
  b.node("Relu", {"X"}, {"A"}).node("Neg", {"A"}, {"B"}).node("Abs", {"B"}, {"C"});
  b.node("Add", {"A", "C"}, {"D"}).node("Neg", {"X"}, {"unread"}).output("D", kFloat);
  auto a = test::analyze(b);
  EXPECT_EQ(names(a, a.ctx->release_after(3)), (std::vector<std::string>{"A", "C"}));
  for (NodeId n = 0; n < 5; ++n) {
    for (const ValueIds list : {a.ctx->release_after(n), a.ctx->not_used_after(n)}) {
      for (ValueId v : list) EXPECT_NE(a.ctx->graph().value(v).name, "unread");
    }
  }
  EXPECT_EQ(names(a, a.ctx->not_used_after(4)), (std::vector<std::string>{"X"}));
}

TEST(Lifetimes, IfBodyCaptureExtendsTheLifetime) {
  ModelBuilder then_branch, else_branch;
  then_branch.node("Relu", {"A"}, {"t"}).output("t", kFloat);
  else_branch.node("Neg", {"X"}, {"A"})
      .node("Abs", {"A"}, {"e"})
      .output("e", kFloat);  // redefines A
  auto a = test::analyze(if_after_relu(then_branch, else_branch));
  EXPECT_EQ(names(a, a.ctx->release_after(1)), (std::vector<std::string>{"A"}));
  const NodeEntry& if_node = a.ctx->graph().node(1);
  EXPECT_EQ(names(a, if_node.captures), (std::vector<std::string>{"A", "X"}));
}

}  // namespace
}  // namespace cctx
