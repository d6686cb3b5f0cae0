// The pipeline stages on small models (semantics.md 15): fallbacks and fresh symbols, byte
// sizes, tags, lifetimes, in-place reuse and the memory profile, plus graph construction.
#include <gtest/gtest.h>

#include <array>

#include "cctx/errors.hpp"
#include "cctx/name_table.hpp"
#include "cctx/report.hpp"
#include "model/metadata.hpp"
#include "model_builder.hpp"
#include "pipeline/node_flags.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::attr;
using test::Dims;
using test::kFloat;
using test::kInt32;
using test::kInt64;
using test::ModelBuilder;

std::string bytes(const test::Analysis& a, const std::string& name) {
  auto b = a.ctx->value_bytes(a.id(name));
  return b ? a.print(*b) : "unsized";
}

std::vector<std::string> names(const test::Analysis& a, ValueIds values) {
  std::vector<std::string> out;
  for (ValueId v : values) out.emplace_back(a.ctx->graph().value(v).name);
  return out;
}

/// X -> Relu -> A, then Y = If(c, then_branch, else_branch): bodies that read or redefine A.
ModelBuilder if_after_relu(const ModelBuilder& then_branch, const ModelBuilder& else_branch) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"}).input("c", test::kBool, {});
  b.node("Relu", {"X"}, {"A"});
  b.node("If", {"c"}, {"Y"},
         {attr("then_branch", then_branch.graph()), attr("else_branch", else_branch.graph())});
  b.output("Y", kFloat);
  return b;
}

// ---- graph construction ------------------------------------------------------------------------

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
  ASSERT_EQ(g.attributes(2).size(), 1u);
  EXPECT_TRUE(g.attributes(2)[0].named("axis"));
  EXPECT_EQ(g.attributes(2)[0].type, AttributeKey::kInt);
  EXPECT_EQ(g.attributes(2)[0].int_value, 1);
  EXPECT_TRUE(g.attributes(g.node(0).op_type == "Relu" ? 0 : 1).empty());
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
  const auto keys = g.attributes(0);
  ASSERT_EQ(keys.size(), 4u);
  EXPECT_TRUE(keys[0].named(stem + "bbbb"));
  EXPECT_FALSE(keys[0].named(stem + "cccc"));
  EXPECT_TRUE(keys[1].named(stem + "cccc"));
  EXPECT_FALSE(keys[1].named(stem + "bbb"));
  EXPECT_EQ(keys[1].int_value, 2);
  // Short integer lists are copied next to the keys; long ones stay in the proto.
  ASSERT_TRUE(keys[2].ints_inline);
  const auto few = g.attribute_ints(keys[2]);
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

// ---- shapes: fallbacks, fresh symbols, declarations
// ----------------------------------------------

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

TEST(Shapes, UnnamedDeclaredDimGetsAnUnkSymbol) {
  ModelBuilder b;
  b.input("in.1", kFloat, {"", 4}).node("Relu", {"in.1"}, {"Y"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"unk_in_1_d0", "4"}));
}

TEST(Shapes, UnparseableDimParamBecomesAnOpaqueSymbol) {
  ModelBuilder b;
  b.input("X", kFloat, {"batch size", 4}).node("Relu", {"X"}, {"Y"});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"batch size", "4"}));
}

TEST(Shapes, OnnxSchemaFallbackForAnOpWithoutRule) {
  // No plugin at all, opset 13: ONNX's own inference runs; symbolic dims pass through as
  // dim_params and come back as the same symbols.
  ModelBuilder b(13);
  b.input("A", kFloat, {"N", 4}).input("B", kFloat, {4, "M"}).node("MatMul", {"A", "B"}, {"C"});
  Profile p;
  auto a = test::analyze(b.build(), p);
  EXPECT_EQ(a.dims("C"), (Dims{"N", "M"}));
  EXPECT_TRUE(a.has_warning("used ONNX schema inference")) << a.warnings();
}

TEST(Shapes, OnnxSchemaUnknownDimsBecomeProducerNamedSymbols) {
  ModelBuilder b(13);
  b.input("X", kFloat, {"N", 4});
  b.node("Relu", {"X"}, {"R"}).node("Relu", {"R"}, {"S"}).node("Relu", {"S"}, {"T"});
  b.node("NonZero", {"T"}, {"Y"});
  Profile p;
  auto a = test::analyze(b.build(), p);
  ASSERT_EQ(a.dims("Y").size(), 2u);
  EXPECT_EQ(a.dims("Y")[0], "2");
  EXPECT_EQ(a.dims("Y")[1], "NonZero_3_o0_d1");
}

TEST(Shapes, NewerOpsetSkipsTheSchemaFallback) {
  ModelBuilder b(18);
  b.input("A", kFloat, {"N", 4}).input("B", kFloat, {4, "M"}).node("MatMul", {"A", "B"}, {"C"});
  auto a = test::analyze(b.build(), Profile{});
  EXPECT_EQ(a.dims("C"), (Dims{"<unknown rank>"}));
  EXPECT_TRUE(a.has_warning("opset 18 is newer than the linked ONNX schemas (17)")) << a.warnings();
}

TEST(Shapes, CustomOpUsesItsDeclaredShape) {
  ModelBuilder b;
  b.opset("com.acme", 1).input("X", kFloat, {"N", 8});
  b.node("Foo", {"X"}, {"Y"}, {}, "com.acme").value_info("Y", kFloat, {"N", 8});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "8"}));
  EXPECT_TRUE(a.has_warning("used the declared output shapes")) << a.warnings();
}

TEST(Shapes, UndeclaredCustomOpHasUnknownRankAndASymbolicSize) {
  ModelBuilder b;
  b.opset("com.acme", 1).input("X", kFloat, {"N", 8});
  b.node("Foo", {"X"}, {"Y"}, {}, "com.acme").node("Relu", {"Y"}, {"Z"}).output("Z", kFloat);
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"<unknown rank>"}));
  EXPECT_TRUE(a.has_warning("'Y' get an unknown rank")) << a.warnings();
  EXPECT_EQ(names(a, a.ctx->unknown_rank_values()), (std::vector<std::string>{"Y", "Z"}));
  const MemoryProfile& p = a.ctx->memory(0);
  ASSERT_EQ(p.outputs.size(), 1u);
  EXPECT_EQ(a.print(p.outputs[0].second), "bytes_Y");
}

TEST(Shapes, StrictModeMakesAnUnknownOpAnError) {
  ModelBuilder b;
  b.opset("com.acme", 3)
      .input("X", kFloat, {"N", 8})
      .node("Foo", {"X"}, {"Y"}, {}, "com.acme", "foo1");
  Profile p = test::default_profile();
  p.shapes.strict = true;
  try {
    test::analyze(b.build(), p);
    FAIL() << "no error";
  } catch (const AnalysisError& e) {
    EXPECT_EQ(std::string(e.what()),
              "node 0 'foo1' (com.acme:Foo) [domain 'com.acme', opset 3]: no shape rule and no "
              "declared shape for 'Y'");
  }
}

TEST(Shapes, DeclaredIntegerRefinesAnInferredSymbol) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", 4}).node("Relu", {"X"}, {"Y"}).output("Y", kFloat, {8, 4});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"8", "4"}));
  ASSERT_EQ(a.ctx->constraints().size(), 1u);
  EXPECT_EQ(a.ctx->constraints()[0].kind, Constraint::Kind::kEq);
}

TEST(Shapes, ConflictingDeclarationWarnsAndKeepsTheInference) {
  ModelBuilder b;
  b.input("X", kFloat, {3, 4}).node("Relu", {"X"}, {"Y"}).output("Y", kFloat, {5, 4});
  auto a = test::analyze(b);
  EXPECT_EQ(a.dims("Y"), (Dims{"3", "4"}));
  EXPECT_TRUE(a.has_warning("'Y' dim 0 is declared 5 but inferred 3")) << a.warnings();
}

// ---- byte sizes (semantics.md 4) ---------------------------------------------------------------

TEST(Bytes, SubByteAndWideTypes) {
  ModelBuilder b;
  b.input("i4", 22, {5}).input("i4n", 22, {"N"}).input("u2", 25, {5}).input("f8", 24, {3});
  b.input("c128", 15, {2}).input("scalar", kFloat, {}).input("empty", kFloat, {0, 4});
  b.input("text", test::kString, {3});
  for (const char* v : {"i4", "i4n", "u2", "f8", "c128", "scalar", "empty", "text"}) {
    b.node("Identity", {v}, {std::string(v) + "_out"});
  }
  auto a = test::analyze(b);
  EXPECT_EQ(bytes(a, "i4"), "3");
  EXPECT_EQ(bytes(a, "i4n"), "(N+1)//2");
  EXPECT_EQ(bytes(a, "u2"), "2");
  EXPECT_EQ(bytes(a, "f8"), "3");
  EXPECT_EQ(bytes(a, "c128"), "32");
  EXPECT_EQ(bytes(a, "scalar"), "4");
  EXPECT_EQ(bytes(a, "empty"), "0");
  EXPECT_EQ(bytes(a, "text"), "unsized");
  // A zero-size buffer is left out of the buckets.
  const MemoryProfile& p = a.ctx->memory(0);
  for (const auto& [tag, amount] : p.inputs) EXPECT_NE(a.print(amount), "0");
  EXPECT_NE(std::find(a.ctx->unsized_values().begin(), a.ctx->unsized_values().end(), a.id("text")),
            a.ctx->unsized_values().end());
}

// ---- tags (semantics.md 5)
// -----------------------------------------------------------------------

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

// ---- lifetimes (semantics.md 6)
// ---------------------------------------------------------------------

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

// ---- in-place and memory (semantics.md 7-8)
// ------------------------------------------------------------

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

// ---- per-node flags
// --------------------------------------------------------------------------------------------

TEST(NodeFlags, OneWordUpTo64FlagsAndAVectorAbove) {
  for (const std::size_t count : {0, 1, 3, 63, 64, 65, 130}) {
    NodeFlags flags(count);
    ASSERT_EQ(flags.size(), count);
    for (std::size_t k = 0; k < count; ++k) EXPECT_FALSE(flags[k]) << count;
    for (std::size_t k = 0; k < count; k += 3) flags.set(k);
    for (std::size_t k = 0; k < count; ++k) EXPECT_EQ(flags[k], k % 3 == 0) << count << " " << k;
    if (count > 0) {
      flags.set(0, false);
      EXPECT_FALSE(flags[0]);
    }
    flags.set_all();
    for (std::size_t k = 0; k < count; ++k) EXPECT_TRUE(flags[k]) << count << " " << k;
    flags.reset(count);  // cleared again for the next node
    for (std::size_t k = 0; k < count; ++k) EXPECT_FALSE(flags[k]) << count << " " << k;
  }
}

// ---- the streamed JSON report
// ---------------------------------------------------------------------

/// The CLI streams the report (append_json_report); it must be the DOM's dump(2), byte for byte.
void expect_streamed_report_matches(const test::Analysis& a) {
  const ReportOptions options{"model.onnx", {Assignment{{"N", 3}, {"NonZero_1_o0_d1", 5}}}};
  std::string streamed;
  append_json_report(streamed, *a.ctx, options);
  EXPECT_EQ(streamed, json_report(*a.ctx, options).dump(2));
}

TEST(JsonReport, StreamedEqualsTheDocumentWithValuesNodesAndWarnings) {
  ModelBuilder b(17);
  b.input("X", kFloat, {"N", 4}).initializer_floats("W", std::vector<float>(16, 1.0f), {4, 4});
  b.node("MatMul", {"X", "W"}, {"M"}, {}, "", "mat\"mul\nnode");  // a name that needs escaping
  b.node("NonZero", {"M"}, {"Z"});
  b.node("Shape", {"M"}, {"S"});
  b.output("Z", kInt64).output("S", kInt64);
  expect_streamed_report_matches(test::analyze(b));
}

TEST(JsonReport, StreamedEscapesNamesAsTheDocumentDoes) {
  // Quote, backslash, tab, a control character, DEL and UTF-8, in value, node and op names.
  const std::string odd = "a\"b\\c\td\x01e\x7f\xc3\xa9";
  ModelBuilder b(17);
  b.input("X" + odd, kFloat, {"N", 4});
  b.node("Relu", {"X" + odd}, {"Y" + odd}, {}, "", "n" + odd);
  b.node("Custom" + odd, {"Y" + odd}, {"Z"}, {}, "com.odd");
  b.opset("com.odd", 1).output("Z", kFloat, {"N", 4});  // declared: the unknown op is sized
  expect_streamed_report_matches(test::analyze(b));
}

TEST(JsonReport, StreamedInPiecesEqualsTheDocument) {
  // A 3,000-node chain: a report of a few megabytes, handed over in pieces of about a megabyte.
  ModelBuilder b(17);
  b.input("X", kFloat, {"N", 4});
  constexpr int kNodes = 3000;
  for (int k = 0; k < kNodes; ++k) {
    b.node("Relu", {k == 0 ? "X" : "v" + std::to_string(k - 1)}, {"v" + std::to_string(k)});
  }
  b.output("v" + std::to_string(kNodes - 1), kFloat);
  const test::Analysis a = test::analyze(b);
  const ReportOptions options{"chain.onnx", {Assignment{{"N", 2}}}};
  std::vector<std::size_t> pieces;
  std::string streamed;
  JsonReportWriter(*a.ctx, options).write([&](std::string_view piece) {
    pieces.push_back(piece.size());
    streamed += piece;
  });
  ASSERT_GE(pieces.size(), 3u);
  for (std::size_t k = 0; k + 1 < pieces.size(); ++k) {
    EXPECT_GE(pieces[k], JsonReportWriter::kPieceBytes);
    EXPECT_LT(pieces[k], JsonReportWriter::kPieceBytes + 4096);  // one value or node over
  }
  EXPECT_EQ(streamed, json_report(*a.ctx, options).dump(2));
}

TEST(JsonReport, StreamedEqualsTheDocumentOfAnEmptyGraph) {
  ModelBuilder b(17);
  expect_streamed_report_matches(test::analyze(b));
}

}  // namespace
}  // namespace cctx
