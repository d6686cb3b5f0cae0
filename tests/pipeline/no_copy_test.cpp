// No copy of the model (issue 23): the analysis views the loaded model's own messages. A model
// without local-function calls is analysed as it is; inlining calls makes new nodes for the
// bodies only and borrows everything else; the free_list planner's run of ONNX's inference
// borrows what that inference only reads. None of them changes the model.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "cctx/errors.hpp"
#include "cctx/host.hpp"
#include "cctx/profile.hpp"
#include "stage_test_support.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using namespace stage_test;

/// Every main-graph node of the view that is one of `g`'s own nodes (by address).
std::size_t nodes_viewed_in_place(const GraphView& view, const onnx::GraphProto& g) {
  std::size_t count = 0;
  for (NodeId n : view.main().nodes) {
    const onnx::NodeProto* p = view.node(n).proto;
    for (const onnx::NodeProto& own : g.node()) count += p == &own ? 1 : 0;
  }
  return count;
}

bool initializers_viewed_in_place(const GraphView& view, const onnx::GraphProto& g) {
  for (const onnx::TensorProto& t : g.initializer()) {
    const ValueId v = view.find(t.name());
    if (v == kNoValue || view.value(v).initializer != &t) return false;
  }
  return true;
}

TEST(NoCopy, AModelWithoutCallsIsAnalysedAsLoaded) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 4});
  b.initializer_floats("W", std::vector<float>(16, 1.0F), {4, 4});
  b.node("MatMul", {"X", "W"}, {"A"}).node("Relu", {"A"}, {"Y"});
  b.output("Y", kFloat);
  const test::Analysis a = test::analyze(b);
  const onnx::GraphProto& g = a.model->proto().graph();
  EXPECT_EQ(&a.ctx->graph().model(), a.model.get());
  EXPECT_EQ(nodes_viewed_in_place(a.ctx->graph(), g), 2U);
  EXPECT_TRUE(initializers_viewed_in_place(a.ctx->graph(), g));
}

/// X -> Relu -> A -> local:Twice -> B -> Neg -> Y, with Twice(x) = Add(x, x) and an initializer
/// W that only the last node reads.
Model model_with_a_call() {
  ModelBuilder b;
  b.opset("local", 1);
  b.input("X", kFloat, {"N", 4});
  b.initializer_floats("W", std::vector<float>(4, 1.0F), {4});
  b.node("Relu", {"X"}, {"A"}).node("Twice", {"A"}, {"B"}, {}, "local", "call");
  b.node("Add", {"B", "W"}, {"Y"});
  b.output("Y", kFloat);
  Model model = b.build();
  onnx::FunctionProto* f = model.proto().add_functions();
  f->set_name("Twice");
  f->set_domain("local");
  f->add_input("x");
  f->add_output("y");
  f->add_opset_import()->set_version(18);
  onnx::NodeProto* add = f->add_node();
  add->set_op_type("Add");
  add->add_input("x");
  add->add_input("x");
  add->add_output("y");
  return model;
}

TEST(NoCopy, InliningMakesOnlyTheBodiesNodes) {
  Model model = model_with_a_call();
  const std::string before = model.proto().SerializeAsString();
  {
    const test::Analysis a = test::analyze(std::move(model), test::default_profile());
    const onnx::GraphProto& g = a.model->proto().graph();
    const GraphView& view = a.ctx->graph();
    EXPECT_NE(&view.model(), a.model.get());  // the inlined form
    ASSERT_EQ(view.main().nodes.size(), 3U);
    // Relu and the last Add are the loaded model's nodes; the call's Add is new.
    EXPECT_EQ(nodes_viewed_in_place(view, g), 2U);
    EXPECT_TRUE(initializers_viewed_in_place(view, g));
    EXPECT_EQ(a.dims("B"), (Dims{"N", "4"}));
    EXPECT_EQ(a.dims("Y"), (Dims{"N", "4"}));
    EXPECT_EQ(a.model->proto().SerializeAsString(), before);
  }
}

TEST(NoCopy, TheInlinedFormWrittenIntoTheAnalysedModelKeepsTheViewValid) {
  test::Analysis a = test::analyze(model_with_a_call(), test::default_profile());
  a.ctx->write_to_model(*a.model);
  const onnx::GraphProto& g = a.model->proto().graph();
  EXPECT_EQ(a.model->proto().functions_size(), 0);
  ASSERT_EQ(g.node_size(), 3);
  EXPECT_EQ(g.node(1).op_type(), "Add");
  EXPECT_EQ(g.node(1).name(), "call/");
  // Every node the analysis views is now one of the written model's own.
  EXPECT_EQ(nodes_viewed_in_place(a.ctx->graph(), g), 3U);
  EXPECT_EQ(a.dims("B"), (Dims{"N", "4"}));
  bool typed = false;
  for (const onnx::ValueInfoProto& vi : g.value_info()) typed = typed || vi.name() == "B";
  EXPECT_TRUE(typed);
}

TEST(NoCopy, ACallThatFailsLeavesTheModelWhole) {
  // Two inputs to a function of one: refused, after the graph's other parts were lent.
  Model model = model_with_a_call();
  model.proto().mutable_graph()->mutable_node(1)->add_input("X");
  const std::string before = model.proto().SerializeAsString();
  auto m = std::make_unique<Model>(std::move(model));
  {
    auto host = test::make_host(test::default_profile());
    ComputeContext ctx(*host);
    EXPECT_THROW(ctx.compute(*m), ModelError);
  }
  EXPECT_EQ(m->proto().SerializeAsString(), before);
}

TEST(NoCopy, TheFreeListPlannerLeavesTheModelUnchanged) {
  // ONNX's inference writes value_info into the graph and into bodies: not into this model.
  test::GraphBuilder then_body;
  then_body.node("Neg", {"A"}, {"T"}).output("T", kFloat);
  test::GraphBuilder else_body;
  else_body.node("Abs", {"A"}, {"E"}).output("E", kFloat);
  ModelBuilder b;
  b.input("X", kFloat, {"N", 4}).input("C", test::kBool, {std::int64_t{1}});
  b.initializer_floats("W", std::vector<float>(4, 1.0F), {4});
  b.node("Add", {"X", "W"}, {"A"});
  b.node("If", {"C"}, {"Y"},
         {attr("then_branch", then_body.graph()), attr("else_branch", else_body.graph())});
  b.output("Y", kFloat);
  Model model = b.build();
  const std::string before = model.proto().SerializeAsString();
  const Profile profile = load_profile(Host::profile_path("onnxruntime-cpu-unoptimized-no-arena"));
  const test::Analysis a = test::analyze(std::move(model), profile);
  EXPECT_EQ(a.model->proto().SerializeAsString(), before);
  EXPECT_EQ(nodes_viewed_in_place(a.ctx->graph(), a.model->proto().graph()), 2U);
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "4"}));
}

}  // namespace
}  // namespace cctx
