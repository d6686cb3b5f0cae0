// The graph view (semantics.md, "Shapes"; architecture.md, "Data flow"): topological order,
// attributes indexed with their nodes, kinds shared by the nodes of one operator, cycles and
// undefined inputs, body scoping, and the name table.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cctx/errors.hpp"
#include "model/graph_index.hpp"
#include "model/name_table.hpp"
#include "stage_test_support.hpp"

namespace cctx {
namespace {

using namespace stage_test;

TEST(Graph, UnsortedNodesAreSortedTopologically) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"});
  b.node("Relu", {"B"}, {"C"}).node("Abs", {"A"}, {"B"}).node("Neg", {"X"}, {"A"});
  auto a = test::analyze(b);
  const GraphView& g = a.ctx->graph();
  EXPECT_EQ(g.node(0).op_type, "Neg");
  EXPECT_EQ(g.node(1).op_type, "Abs");
  EXPECT_EQ(g.node(2).op_type, "Relu");
  EXPECT_EQ(g.node(2).proto_index, 0u);
  EXPECT_EQ(a.dims("C"), (Dims{"N"}));
}

void onnxruntime_order(Profile& p) { p.memory.execution_order = "reverse_dfs"; }

std::vector<std::string> outputs_in_order(const test::Analysis& a) {
  std::vector<std::string> names;
  const GraphView& g = a.ctx->graph();
  for (NodeId n = 0; n < g.main_node_count(); ++n) names.push_back(g.node(n).proto->output(0));
  return names;
}

/// A SwiGLU MLP written gate first: n = Relu(X); g = n Wg; silu = g * Sigmoid(g); u = n Wu;
/// d = (silu * u) Wd; Y = X + d.
ModelBuilder swiglu_mlp() {
  ModelBuilder b;
  b.input("X", kFloat, {"S", 4});
  for (const char* w : {"Wg", "Wu"}) b.initializer(test::tensor_zeros(w, kFloat, {4, 8}));
  b.initializer(test::tensor_zeros("Wd", kFloat, {8, 4}));
  b.node("Relu", {"X"}, {"n"}).node("MatMul", {"n", "Wg"}, {"g"}).node("Sigmoid", {"g"}, {"s"});
  b.node("Mul", {"g", "s"}, {"silu"}).node("MatMul", {"n", "Wu"}, {"u"});
  b.node("Mul", {"silu", "u"}, {"gu"}).node("MatMul", {"gu", "Wd"}, {"d"});
  b.node("Add", {"X", "d"}, {"Y"});
  b.output("Y", kFloat);
  return b;
}

TEST(Graph, ReverseDfsRunsTheNodesInOnnxRuntimesOrder) {
  // ONNX Runtime's GraphViewer walks back from Add; at the second Mul it takes the producer
  // written last first (u, the up projection), so "up" runs before "gate": one more [S, 8]
  // buffer is live at the first Mul (measured on ONNX Runtime 1.30: 150,368 bytes for this
  // shape of MLP in a decoder, against 117,904 with the two projections written the other way).
  EXPECT_EQ(outputs_in_order(test::analyze(swiglu_mlp())),
            (std::vector<std::string>{"n", "g", "s", "silu", "u", "gu", "d", "Y"}));
  EXPECT_EQ(outputs_in_order(test::analyze(swiglu_mlp(), &onnxruntime_order)),
            (std::vector<std::string>{"n", "u", "g", "s", "silu", "gu", "d", "Y"}));
}

TEST(Graph, ReverseDfsFollowsTheRuntimesNodeNumbers) {
  // After its optimiser, ONNX Runtime numbers the nodes it made after all others: the walk takes
  // the producer numbered last first. Numbered so that the up projection (written fifth) comes
  // first, the gate runs first.
  const Model model = swiglu_mlp().build();
  const std::vector<std::uint32_t> numbers{1, 2, 3, 4, 0, 5, 6, 7};
  const GraphView g(model, NodeOrder::kReverseDfs, numbers);
  std::vector<std::string> names;
  for (NodeId n = 0; n < g.main_node_count(); ++n) names.push_back(g.node(n).proto->output(0));
  EXPECT_EQ(names, (std::vector<std::string>{"n", "g", "s", "silu", "u", "gu", "d", "Y"}));
  EXPECT_EQ(g.runtime_number(4), 0u);  // u: the node the execution order puts fifth
  const GraphView file_numbers(model, NodeOrder::kReverseDfs);
  EXPECT_EQ(file_numbers.runtime_number(1), 4u);  // u again, second: its file position
}

TEST(Graph, ReverseDfsStartsFromTheLastWrittenNodeNothingReads) {
  // Two independent outputs: ONNX Runtime pushes the unread nodes in file order on a stack, so
  // the one written last runs first.
  ModelBuilder b;
  b.input("X", kFloat, {"N"});
  b.node("Neg", {"X"}, {"A"}).node("Abs", {"X"}, {"B"}).node("Relu", {"B"}, {"C"});
  b.output("A", kFloat).output("C", kFloat);
  EXPECT_EQ(outputs_in_order(test::analyze(b, &onnxruntime_order)),
            (std::vector<std::string>{"B", "C", "A"}));
  EXPECT_EQ(outputs_in_order(test::analyze(b)), (std::vector<std::string>{"A", "B", "C"}));
}

TEST(Graph, AttributesFollowTheirNodesWhenTheGraphIsSorted) {
  // File order Concat(axis=1), Transpose(perm=[0,1]), Relu: sorting renumbers every node, and
  // each must still answer with its own attributes (Transpose without its perm reverses axes).
  ModelBuilder b;
  b.input("X", kFloat, {"N", 3}).input("Y", kFloat, {"N", 3});
  b.node("Concat", {"A", "B"}, {"C"}, {attr("axis", 1)});
  b.node("Transpose", {"Y"}, {"B"}, {attr("perm", std::vector<std::int64_t>{0, 1})});
  b.node("Relu", {"X"}, {"A"});
  b.output("C", kFloat);
  auto a = test::analyze(b);
  const GraphView& g = a.ctx->graph();
  ASSERT_EQ(g.node(2).op_type, "Concat");
  ASSERT_EQ(g.index().attributes(2).size(), 1u);
  EXPECT_TRUE(g.index().attributes(2)[0].named("axis"));
  EXPECT_EQ(g.index().attributes(2)[0].type, AttributeKey::kInt);
  EXPECT_EQ(g.index().attributes(2)[0].int_value, 1);
  EXPECT_TRUE(g.index().attributes(g.node(0).op_type == "Relu" ? 0 : 1).empty());
  EXPECT_EQ(a.dims("B"), (Dims{"N", "3"}));
  EXPECT_EQ(a.dims("C"), (Dims{"N", "6"}));
}

TEST(Graph, LongAttributeNamesAreComparedWhole) {
  // Names past the key's inline prefix: same prefix and length, different tails.
  ModelBuilder b(17);
  b.opset("com.acme", 1);
  b.input("X", kFloat, {"N"});
  const std::string stem(AttributeKey::kPrefix + 4, 'a');
  std::vector<std::int64_t> many(AttributeKey::kInlineInts + 1);
  for (std::size_t k = 0; k < many.size(); ++k) many[k] = static_cast<std::int64_t>(k);
  b.node("Custom", {"X"}, {"Y"},
         {attr(stem + "bbbb", 1), attr(stem + "cccc", 2),
          attr("few", std::vector<std::int64_t>{4, -1, 7}), attr("many", many)},
         "com.acme");
  b.output("Y", kFloat, {"N"});
  auto a = test::analyze(b);
  const GraphView& g = a.ctx->graph();
  const auto keys = g.index().attributes(0);
  ASSERT_EQ(keys.size(), 4u);
  EXPECT_TRUE(keys[0].named(stem + "bbbb"));
  EXPECT_FALSE(keys[0].named(stem + "cccc"));
  EXPECT_TRUE(keys[1].named(stem + "cccc"));
  EXPECT_FALSE(keys[1].named(stem + "bbb"));
  EXPECT_EQ(keys[1].int_value, 2);
  // Short integer lists are copied next to the keys; long ones stay in the proto.
  ASSERT_TRUE(keys[2].ints_inline);
  const auto few = g.index().attribute_ints(keys[2]);
  EXPECT_EQ(std::vector<std::int64_t>(few.begin(), few.end()),
            (std::vector<std::int64_t>{4, -1, 7}));
  EXPECT_EQ(keys[3].type, AttributeKey::kInts);
  EXPECT_FALSE(keys[3].ints_inline);
}

TEST(Graph, CycleIsAnErrorNamingANodeOnIt) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"});
  b.node("Add", {"X", "C"}, {"A"}, {}, "", "first")
      .node("Relu", {"A"}, {"B"})
      .node("Neg", {"B"}, {"C"});
  b.node("Abs", {"X"}, {"D"});
  Model m = b.build();
  try {
    GraphView g(m);
    FAIL() << "no error";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("the graph has a cycle through node"), std::string::npos)
        << e.what();
    EXPECT_EQ(std::string(e.what()).find("Abs"), std::string::npos) << "Abs is not on the cycle";
  }
}

TEST(Graph, UndefinedInputAndEmptyOpTypeAreErrors) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"}).node("Relu", {"nowhere"}, {"Y"}, {}, "", "r");
  Model m = b.build();
  EXPECT_THROW({ GraphView g(m); }, ModelError);
  ModelBuilder c;
  c.input("X", kFloat, {"N"}).node("", {"X"}, {"Y"});
  Model m2 = c.build();
  EXPECT_THROW({ GraphView g(m2); }, ModelError);
}

TEST(Graph, NodesOfOneOperatorShareAKind) {
  ModelBuilder b;
  b.opset("com.example", 1);
  b.input("X", kFloat, {"N"});
  b.node("Relu", {"X"}, {"A"})
      .node("Abs", {"A"}, {"B"})
      .node("Relu", {"B"}, {"C"})
      .node("Relu", {"C"}, {"D"}, {}, "com.example")
      .node("Relu", {"D"}, {"E"}, {}, "ai.onnx");
  Model m = b.build();
  GraphView g(m);
  ASSERT_EQ(g.main_node_count(), 5u);
  EXPECT_EQ(g.op_kind_count(), 3u);  // Relu, Abs, com.example:Relu ("ai.onnx" is "")
  EXPECT_EQ(g.node(0).kind, g.node(2).kind);
  EXPECT_EQ(g.node(0).kind, g.node(4).kind);
  EXPECT_NE(g.node(0).kind, g.node(1).kind);
  EXPECT_NE(g.node(0).kind, g.node(3).kind);
  EXPECT_EQ(g.find("C"), g.node(2).outputs[0]);
  EXPECT_EQ(g.find("missing"), kNoValue);
}

TEST(NameTable, FindsEveryNameThroughGrowthAndKeepsTheFirstId) {
  std::vector<std::string> names;
  for (int k = 0; k < 5000; ++k) names.push_back("/model/layers." + std::to_string(k) + "/out");
  NameTable table;  // no reserve: grows (rehashes) many times
  for (std::size_t k = 0; k < names.size(); ++k) {
    const auto [id, inserted] = table.try_emplace(names[k], static_cast<std::uint32_t>(k));
    EXPECT_TRUE(inserted);
    EXPECT_EQ(id, k);
  }
  EXPECT_EQ(table.size(), names.size());
  for (std::size_t k = 0; k < names.size(); ++k) EXPECT_EQ(table.find(names[k]), k);
  const auto [id, inserted] = table.try_emplace(names[7], 99999);
  EXPECT_FALSE(inserted);
  EXPECT_EQ(id, 7u);
  EXPECT_EQ(table.find("/model/layers.7/ou"), NameTable::kAbsent);
  EXPECT_EQ(table.find(""), NameTable::kAbsent);
  std::size_t visited = 0;
  table.for_each([&](std::string_view name, std::uint32_t k) {
    EXPECT_EQ(name, names[k]);  // insertion order
    EXPECT_EQ(k, visited++);
  });
  EXPECT_EQ(visited, names.size());
}

TEST(Graph, ABodyNameDefinedLaterShadowsTheOuterOne) {
  // The else branch reads A before (in file order) the node that redefines A in the branch: the
  // read binds to the branch's A, not the outer A that is already known when it is met.
  ModelBuilder then_branch, else_branch;
  then_branch.node("Relu", {"A"}, {"t"}).output("t", kFloat);
  else_branch.node("Abs", {"A"}, {"e"}).node("Neg", {"X"}, {"A"}).output("e", kFloat);
  auto a = test::analyze(if_after_relu(then_branch, else_branch));
  const GraphView& g = a.ctx->graph();
  const ValueId outer_a = g.find("A");
  ASSERT_NE(outer_a, kNoValue);
  std::size_t abs_nodes = 0;
  for (const NodeEntry& n : g.nodes()) {
    if (n.op_type == "Relu" && n.graph != 0) {
      EXPECT_EQ(n.inputs[0], outer_a);  // the then branch reads the outer A
    }
    if (n.op_type != "Abs") continue;
    ++abs_nodes;
    EXPECT_NE(n.inputs[0], outer_a);
    EXPECT_EQ(g.value(n.inputs[0]).graph, n.graph);  // the branch's own A
  }
  EXPECT_EQ(abs_nodes, 1u);
  EXPECT_EQ(a.dims("Y"), (Dims{"N"}));
}

}  // namespace
}  // namespace cctx
