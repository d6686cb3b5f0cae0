// Graph rewrites (docs/design/rewrites.md): the rule text, the matcher on real models, and the
// onnxruntime plugin's rewrites through the shipped onnxruntime-cpu-no-arena profile.
#include "rewrite/graph_rewrite.hpp"

#include <gtest/gtest.h>

#include <array>

#include "cctx/errors.hpp"
#include "cctx/host.hpp"
#include "cctx/profile.hpp"
#include "rewrite/rewrite_rule.hpp"
#include "stage_test_support.hpp"

namespace cctx {
namespace {

using namespace stage_test;

std::vector<std::shared_ptr<const RewriteRule>> rules(
    std::initializer_list<std::array<const char*, 3>> texts, std::vector<int> passes = {}) {
  std::vector<std::shared_ptr<const RewriteRule>> out;
  for (const auto& [name, pattern, replacement] : texts) {
    const int pass = out.size() < passes.size() ? passes[out.size()] : 0;
    out.push_back(
        std::make_shared<const RewriteRule>(parse_rewrite_rule(name, pattern, replacement, pass)));
  }
  return out;
}

std::vector<std::string> inputs_of(const Model& m, int node) {
  const onnx::NodeProto& n = m.proto().graph().node(node);
  return {n.input().begin(), n.input().end()};
}

std::vector<std::string> ops(const Model& m) {
  std::vector<std::string> out;
  for (const onnx::NodeProto& n : m.proto().graph().node()) {
    out.push_back((n.domain().empty() ? "" : n.domain() + ":") + n.op_type());
  }
  return out;
}

std::string error_of(const char* pattern, const char* replacement) {
  try {
    parse_rewrite_rule("R", pattern, replacement);
  } catch (const PluginError& e) {
    return e.what();
  }
  return "";
}

TEST(RewriteRule, RefusesTextItCannotMatchWithOneLineNamingTheRule) {
  EXPECT_EQ(error_of("y = Relu(x", "y = x"), "rewrite 'R': pattern at character 11: expected ','");
  EXPECT_EQ(error_of("a = Relu(x); y = Relu(x)", "y = x"),
            "rewrite 'R': a pattern node is not an input, direct or not, of the pattern's last "
            "node");
  EXPECT_EQ(error_of("y = Relu(x)", "y = Sigmoid(z)"),
            "rewrite 'R': the replacement reads 'z', which the pattern does not bind");
  EXPECT_EQ(error_of("y = Relu(x{scalar})", "y = x"),
            "rewrite 'R': pattern at character 19: 'scalar', 'value=V', 'zeros', 'whole' and "
            "'eK=V' check a constant: write 'const x{...}'");
  EXPECT_EQ(error_of("y = Relu(x)", "y = Sigmoid(x) [k=@q]"),
            "rewrite 'R': the replacement's attribute refers to 'q', which no pattern node makes");
}

TEST(RewriteRule, BuiltinRewritesAreNamedAndTakeNoReplacement) {
  EXPECT_EQ(error_of("builtin:constant_folding", ""),
            "rewrite 'R': no built-in rewrite 'constant_folding' (there are "
            "builtin:common_subexpressions, builtin:same_type_casts, "
            "builtin:constant_reshape_shapes and builtin:unique_dequantize_per_reader)");
  EXPECT_EQ(error_of("builtin:common_subexpressions", "y = x"),
            "rewrite 'R': a built-in rewrite takes no replacement");
  EXPECT_EQ(parse_rewrite_rule("CSE", "builtin:common_subexpressions", "").builtin,
            "common_subexpressions");
}

// Two equal Shape -> Gather -> Unsqueeze chains (as exporters write them) collapse into one,
// node by node in one sweep; a node whose output the graph returns stays, and so do a random
// node and a node with a tensor attribute (ONNX Runtime treats both as distinct).
TEST(GraphRewrite, CommonSubexpressionsCollapseEqualChains) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", std::int64_t{4}});
  b.initializer(test::tensor_zeros("i", kInt64, {}));
  b.initializer(test::tensor_zeros("axes", kInt64, {1}));
  for (const char* k : {"1", "2"}) {
    const std::string s = std::string("s") + k, g = std::string("g") + k, u = std::string("u") + k;
    b.node("Shape", {"X"}, {s});
    b.node("Gather", {s, "i"}, {g}, {test::attr("axis", std::int64_t{0})});
    b.node("Unsqueeze", {g, "axes"}, {u});
  }
  b.node("Concat", {"u1", "u2"}, {"shape"}, {test::attr("axis", std::int64_t{0})});
  b.node("Relu", {"X"}, {"r1"});
  b.node("Relu", {"X"}, {"r2"});  // a graph output: stays
  b.node("RandomNormalLike", {"X"}, {"n1"});
  b.node("RandomNormalLike", {"X"}, {"n2"});
  b.node("ConstantOfShape", {"shape"}, {"c1"},
         {test::attr("value", test::tensor_zeros("v", kFloat, {1}))});
  b.node("ConstantOfShape", {"shape"}, {"c2"},
         {test::attr("value", test::tensor_zeros("v", kFloat, {1}))});
  b.node("Sum", {"r1", "n1", "n2", "c1", "c2"}, {"Y"});
  b.output("Y", kFloat);
  b.output("r2", kFloat);
  const Model model = b.build();
  const auto rewritten =
      rewrite_model(model, rules({{"CSE", "builtin:common_subexpressions", ""}}));
  ASSERT_NE(rewritten, nullptr);
  EXPECT_EQ(ops(rewritten->model()),
            (std::vector<std::string>{"Shape", "Gather", "Unsqueeze", "Concat", "Relu", "Relu",
                                      "RandomNormalLike", "RandomNormalLike", "ConstantOfShape",
                                      "ConstantOfShape", "Sum"}));
  EXPECT_EQ(inputs_of(rewritten->model(), 3), (std::vector<std::string>{"u1", "u1"}));
  EXPECT_EQ(rewritten->summary().applied,
            (std::vector<std::pair<std::string, std::size_t>>{{"CSE", 3}}));
}

// Two ConstantOfShape of one Shape merge when the runtime folds them at load (the Shape's input
// has static dims as the runtime sees them): constants compared by value; with a symbolic dim
// in the runtime's shape they stay two (ONNX Runtime compares tensor attributes not at all).
TEST(GraphRewrite, CommonSubexpressionsMergeNodesTheRuntimeFolds) {
  ModelBuilder b;
  b.input("X", kFloat, {std::int64_t{2}, std::int64_t{4}});
  b.node("Shape", {"X"}, {"s"});
  for (const char* c : {"c1", "c2"}) {
    b.node("ConstantOfShape", {"s"}, {c},
           {test::attr("value", test::tensor_zeros("v", kFloat, {1}))});
  }
  b.node("Sum", {"X", "c1", "c2"}, {"Y"});
  b.output("Y", kFloat);
  const Model model = b.build();
  for (const bool static_dims : {true, false}) {
    onnx::TensorShapeProto x;
    x.add_dim()->set_dim_value(2);
    if (static_dims) {
      x.add_dim()->set_dim_value(4);
    } else {
      x.add_dim()->set_dim_param("S");
    }
    const ValueTypeQuery types{[](std::string_view) { return 1; },
                               [](std::string_view) { return 2; },
                               [&x](std::string_view name) -> const onnx::TensorShapeProto* {
                                 return name == "X" ? &x : nullptr;
                               }};
    const auto rewritten =
        rewrite_model(model, rules({{"CSE", "builtin:common_subexpressions", ""}}), types);
    if (!static_dims) {
      EXPECT_EQ(rewritten, nullptr);
      continue;
    }
    ASSERT_NE(rewritten, nullptr);
    EXPECT_EQ(ops(rewritten->model()),
              (std::vector<std::string>{"Shape", "ConstantOfShape", "Sum"}));
    EXPECT_EQ(inputs_of(rewritten->model(), 2), (std::vector<std::string>{"X", "c1", "c1"}));
  }
}

// Exporters write one Constant per use: two Unsqueeze nodes whose axes are distinct Constant
// nodes of equal contents are one subexpression (ONNX Runtime holds both as initializers and
// compares them by value), and the second axes constant, unread, goes. Unequal contents, or an
// initializer a graph input may override, keep their nodes apart.
TEST(GraphRewrite, CommonSubexpressionsCompareSmallConstantsByValue) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"});
  b.input("fed", kInt64, {std::int64_t{1}});
  b.initializer(test::tensor_zeros("fed", kInt64, {1}));
  auto axes = [&b](const char* name, std::int64_t value) {
    b.node("Constant", {}, {name}, {test::attr("value", test::tensor_ints(name, {value}, {1}))});
  };
  axes("a0", 0);
  axes("a0_again", 0);
  axes("a1", 1);
  b.node("Unsqueeze", {"X", "a0"}, {"u1"});
  b.node("Unsqueeze", {"X", "a0_again"}, {"u2"});
  b.node("Unsqueeze", {"X", "a1"}, {"u3"});
  b.node("Unsqueeze", {"X", "fed"}, {"u4"});
  b.node("Sum", {"u1", "u2", "u3", "u4"}, {"Y"});
  b.output("Y", kFloat);
  const Model model = b.build();  // the rewritten model borrows its messages
  const auto rewritten =
      rewrite_model(model, rules({{"CSE", "builtin:common_subexpressions", ""}}));
  ASSERT_NE(rewritten, nullptr);
  EXPECT_EQ(ops(rewritten->model()), (std::vector<std::string>{"Constant", "Constant", "Unsqueeze",
                                                               "Unsqueeze", "Unsqueeze", "Sum"}));
  EXPECT_EQ(inputs_of(rewritten->model(), 5), (std::vector<std::string>{"u1", "u1", "u3", "u4"}));
}

// builtin:same_type_casts removes a Cast to the type its input has: a constant's own, or what
// the type query says (ONNX's inference, in the pipeline); an unknown type, another type, or a
// Cast whose output the graph returns stay.
TEST(GraphRewrite, SameTypeCastsGoWhereTheInputsTypeIsKnown) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"});
  b.initializer(test::tensor_zeros("k", kInt64, {1}));
  b.node("Relu", {"X"}, {"r"});
  b.node("Cast", {"r"}, {"c1"}, {test::attr("to", std::int64_t{kFloat})});
  b.node("Cast", {"r"}, {"c2"}, {test::attr("to", std::int64_t{kInt64})});
  b.node("Cast", {"k"}, {"c3"}, {test::attr("to", std::int64_t{kInt64})});
  b.node("Sigmoid", {"c1"}, {"s"});
  b.node("Cast", {"s"}, {"c4"}, {test::attr("to", std::int64_t{kFloat})});  // s: untyped
  b.node("Cast", {"r"}, {"out"}, {test::attr("to", std::int64_t{kFloat})});
  b.node("Sum", {"c2", "c3"}, {"Y"});
  b.output("Y", kInt64);
  b.output("c4", kFloat);
  b.output("out", kFloat);
  const ValueTypeQuery types{
      [](std::string_view name) { return name == "r" ? std::int32_t{kFloat} : 0; },
      [](std::string_view) { return -1; },
      {}};
  const Model model = b.build();
  const auto rewritten =
      rewrite_model(model, rules({{"CastElimination", "builtin:same_type_casts", ""}}), types);
  ASSERT_NE(rewritten, nullptr);
  EXPECT_EQ(ops(rewritten->model()),
            (std::vector<std::string>{"Relu", "Cast", "Sigmoid", "Cast", "Cast", "Sum"}));
  EXPECT_EQ(inputs_of(rewritten->model(), 2), (std::vector<std::string>{"r"}));
  EXPECT_EQ(inputs_of(rewritten->model(), 5), (std::vector<std::string>{"c2", "k"}));
  // Without the query only the constant's Cast is known.
  const auto alone =
      rewrite_model(model, rules({{"CastElimination", "builtin:same_type_casts", ""}}));
  ASSERT_NE(alone, nullptr);
  EXPECT_EQ(alone->summary().applied,
            (std::vector<std::pair<std::string, std::size_t>>{{"CastElimination", 1}}));
}

// `x{rank=3}` tests a value's rank through the type query (a constant's from its dims), and
// `const k{value=1}` a one-element constant's contents.
TEST(GraphRewrite, RankAndValueTestsReadTheQueryAndTheConstant) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", "S", std::int64_t{8}});
  b.input("Z", kFloat, {"N", std::int64_t{8}});
  b.initializer(test::tensor_floats("one", {1.0F}, {}));
  b.initializer(test::tensor_floats("two", {2.0F}, {}));
  b.node("Mul", {"X", "one"}, {"m1"});
  b.node("Mul", {"X", "two"}, {"m2"});
  b.node("Mul", {"Z", "one"}, {"m3"});
  b.node("Sum", {"m1", "m2", "m3"}, {"Y"});
  b.output("Y", kFloat);
  const ValueTypeQuery types{[](std::string_view) { return 0; },
                             [](std::string_view name) { return name == "X" ? 3 : 2; },
                             {}};
  const Model model = b.build();
  const auto rewritten = rewrite_model(
      model, rules({{"Noop", "y = Mul(x{rank=3}, const k{rank=0, value=1})", "y = x"}}), types);
  ASSERT_NE(rewritten, nullptr);
  EXPECT_EQ(ops(rewritten->model()), (std::vector<std::string>{"Mul", "Mul", "Sum"}));
  EXPECT_EQ(inputs_of(rewritten->model(), 2), (std::vector<std::string>{"X", "m2", "m3"}));
  // Nothing known about ranks: nothing matches.
  EXPECT_EQ(
      rewrite_model(model, rules({{"Noop", "y = Mul(x{rank=3}, const k{value=1})", "y = x"}})),
      nullptr);
}

// `const k{zeros}`: every element 0 (a Pad that pads nothing); `x{d1%4}` on a value, a pattern
// node's output too, reads the dim from the type query's shape.
TEST(GraphRewrite, ZerosAndDimTestsOfValues) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", std::int64_t{8}});
  b.input("Z", kFloat, {"N", std::int64_t{6}});
  b.initializer(test::tensor_ints("no_pads", {0, 0, 0, 0}, {4}));
  b.initializer(test::tensor_ints("some_pads", {0, 1, 0, 1}, {4}));
  b.node("Pad", {"X", "no_pads"}, {"p1"});
  b.node("Relu", {"p1"}, {"r1"});
  b.node("Pad", {"X", "some_pads"}, {"p2"});
  b.node("Relu", {"p2"}, {"r2"});
  b.node("Sigmoid", {"Z"}, {"s"});
  b.node("Tanh", {"s"}, {"t"});
  b.node("Sum", {"r1", "r2", "t"}, {"Y"});
  b.output("Y", kFloat);
  onnx::TensorShapeProto six;
  six.add_dim()->set_dim_param("N");
  six.add_dim()->set_dim_value(6);
  const ValueTypeQuery types{[](std::string_view) { return 0; }, [](std::string_view) { return 2; },
                             [&six](std::string_view name) -> const onnx::TensorShapeProto* {
                               return name == "s" ? &six : nullptr;
                             }};
  const Model model = b.build();
  const auto rewritten =
      rewrite_model(model,
                    rules({{"NoPad", "p = Pad(x, const k{zeros}); y = Relu(p)", "y = Relu(x)"},
                           {"Sixes", "keep a = Sigmoid(*z); y = Tanh(a{d1%3})", "y = Neg(a)"},
                           {"Fours", "keep a = Sigmoid(*z); y = Tanh(a{d1%4})", "y = Abs(a)"}}),
                    types);
  ASSERT_NE(rewritten, nullptr);
  EXPECT_EQ(ops(rewritten->model()),
            (std::vector<std::string>{"Relu", "Pad", "Relu", "Sigmoid", "Neg", "Sum"}));
  EXPECT_EQ(inputs_of(rewritten->model(), 0), (std::vector<std::string>{"X"}));
}

// String attribute tests, `whole` and `eK=V` on a constant's contents, and `ints(s)`: a nearest
// Resize by [1, 1, 2, 2] becomes an Upsample with integer scales; a linear one, or one by
// [1, 1, 1.5, 1.5], stays.
TEST(GraphRewrite, StringTestsAndWholeScalesMakeIntegerAttributes) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", std::int64_t{8}, "H", "W"});
  b.initializer(test::tensor_floats("twice", {1.0F, 1.0F, 2.0F, 2.0F}, {4}));
  b.initializer(test::tensor_floats("half_more", {1.0F, 1.0F, 1.5F, 1.5F}, {4}));
  b.node("Resize", {"X", "", "twice"}, {"a"}, {test::attr("mode", "nearest")});
  b.node("Resize", {"X", "", "twice"}, {"b"}, {test::attr("mode", "linear")});
  b.node("Resize", {"X", "", "half_more"}, {"c"}, {test::attr("mode", "nearest")});
  b.output("a", kFloat);
  b.output("b", kFloat);
  b.output("c", kFloat);
  const Model model = b.build();
  const auto rewritten = rewrite_model(
      model, rules({{"Up", "y = Resize{mode?=\"nearest\"}(x, ?r, const s{whole, e0=1, e1=1})",
                     "y = x.up:Upsample(x) [scales=ints(s)]"}}));
  ASSERT_NE(rewritten, nullptr);
  EXPECT_EQ(ops(rewritten->model()),
            (std::vector<std::string>{"x.up:Upsample", "Resize", "Resize"}));
  const onnx::NodeProto& up = rewritten->model().proto().graph().node(0);
  ASSERT_EQ(up.attribute_size(), 1);
  EXPECT_EQ(std::vector<std::int64_t>(up.attribute(0).ints().begin(), up.attribute(0).ints().end()),
            (std::vector<std::int64_t>{1, 1, 2, 2}));
}

// A replacement marks its node (`@m`, a layout of the runtime's own); later patterns reach it
// only through `@m`, and `~y` keeps a rule off a graph output. X -> Relu -> Sigmoid -> Tanh: the
// Sigmoid is marked (and then no plain `Sigmoid` pattern sees it), the Tanh after it becomes a
// Neg; with the Sigmoid's output a graph output nothing is marked.
TEST(GraphRewrite, MarksAreSeenOnlyThroughTheMark) {
  auto build = [](bool sigmoid_is_output) {
    ModelBuilder b;
    b.input("X", kFloat, {"N"});
    b.node("Relu", {"X"}, {"r"});
    b.node("Sigmoid", {"r"}, {"s"});
    b.node("Tanh", {"s"}, {"Y"});
    b.output("Y", kFloat);
    if (sigmoid_is_output) b.output("s", kFloat);
    return b.build();
  };
  const auto marking =
      rules({{"Mark", "keep x = Relu(*z); ~y = Sigmoid(x)", "y = Sigmoid(x) [y] @m"},
             {"Plain", "y = Sigmoid(x)", "y = HardSigmoid(x)"},
             {"AfterMark", "keep p = Relu|@m(*i); y = Tanh(p)", "y = Neg(p)"}});
  const Model model = build(false);
  const auto rewritten = rewrite_model(model, marking);
  ASSERT_NE(rewritten, nullptr);
  EXPECT_EQ(ops(rewritten->model()), (std::vector<std::string>{"Relu", "Sigmoid", "Neg"}));
  EXPECT_EQ(rewritten->summary().applied,
            (std::vector<std::pair<std::string, std::size_t>>{{"Mark", 1}, {"AfterMark", 1}}));
  const Model output = build(true);
  const auto unmarked = rewrite_model(output, marking);
  ASSERT_NE(unmarked, nullptr);
  EXPECT_EQ(ops(unmarked->model()), (std::vector<std::string>{"Relu", "HardSigmoid", "Tanh"}));
  EXPECT_EQ(error_of("y = Relu(x) @m", "y = x"),
            "rewrite 'R': pattern at character 14: a pattern node tests a mark with '@mark' in "
            "place of an operator");
}

// `same=v` (ONNX Runtime's NCHWc transformer's test): dims equal by derivation through the nodes
// the pattern node accepts (here the `lay` domain), or in the inference. From one Conv of the
// layout c0: a 3x3 Conv padded by 1 and a 1x1 Conv keep its spatial dims (their channels are
// their own, equal in the inference); an unpadded 3x3 Conv does not; two stride-2 windows halve
// them alike. `dim(a, 1)` of a value reads the inference.
TEST(GraphRewrite, SameDimsByDerivationThroughTheLayout) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", std::int64_t{16}, "H", "W"});
  b.initializer(test::tensor_zeros("w3", kFloat, {16, 16, 3, 3}));
  b.initializer(test::tensor_zeros("w1", kFloat, {16, 16, 1, 1}));
  const auto pads = [](std::int64_t p) {
    return test::attr("pads", std::vector<std::int64_t>{p, p, p, p});
  };
  const auto twice = test::attr("strides", std::vector<std::int64_t>{2, 2});
  b.node("Conv", {"X", "w3"}, {"c0"}, {pads(1)});
  b.node("Conv", {"c0", "w3"}, {"c1"}, {pads(1)});
  b.node("Conv", {"c0", "w1"}, {"c2"});
  b.node("Conv", {"c0", "w3"}, {"c3"});
  b.node("Conv", {"c0", "w3"}, {"c4"}, {pads(1), twice});
  b.node("Conv", {"c0", "w1"}, {"c5"}, {twice});
  b.node("Add", {"c1", "c2"}, {"same"});
  b.node("Add", {"c1", "c3"}, {"differ"});
  b.node("Add", {"c4", "c5"}, {"halved"});
  for (const char* y : {"same", "differ", "halved"}) b.output(y, kFloat);
  // The inference: channels known, spatial dims not.
  onnx::TensorShapeProto channels;
  channels.add_dim()->set_dim_param("N");
  channels.add_dim()->set_dim_value(16);
  channels.add_dim();
  channels.add_dim();
  const ValueTypeQuery types{[](std::string_view) { return 1; }, [](std::string_view) { return 4; },
                             [&channels](std::string_view) { return &channels; }};
  const Model model = b.build();
  const auto rewritten = rewrite_model(
      model,
      rules({{"Lay", "y = Conv(x, const w)", "y = lay:Conv(x, w) [y]"},
             {"Same", "keep a = lay:Conv(*za); keep b = lay:Conv(*zb); y = Add(a{same=b}, b)",
              "y = Mul(a, b) [c=dim(a, 1)]"},
             {"Differ", "keep a = lay:Conv(*za); keep b = lay:Conv(*zb); y = Add(a{!same=b}, b)",
              "y = Sub(a, b)"}},
            {0, 1, 1}),
      types);
  ASSERT_NE(rewritten, nullptr);
  const auto& g = rewritten->model().proto().graph();
  std::map<std::string, std::string> op_of;
  for (const onnx::NodeProto& n : g.node()) op_of[n.output(0)] = n.op_type();
  EXPECT_EQ(op_of["same"], "Mul");
  EXPECT_EQ(op_of["differ"], "Sub");
  EXPECT_EQ(op_of["halved"], "Mul");
  for (const onnx::NodeProto& n : g.node()) {
    if (n.output(0) != "same") continue;
    ASSERT_EQ(n.attribute_size(), 1);
    EXPECT_EQ(n.attribute(0).i(), 16);
  }
  EXPECT_EQ(error_of("y = Add(a{same=q}, b)", "y = a"),
            "rewrite 'R': 'a' is compared with 'q', which the pattern does not bind");
}

// `x{type=T}`: the element type as the inference gives it (a constant's own): a float Relu
// matches, an int32 one does not, nor one of a value the query does not know.
TEST(GraphRewrite, ElementTypeTests) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"});
  b.input("Z", test::kInt32, {"N"});
  b.input("U", kFloat, {"N"});
  b.node("Relu", {"X"}, {"x"});
  b.node("Relu", {"Z"}, {"z"});
  b.node("Relu", {"U"}, {"u"});
  for (const char* y : {"x", "z", "u"}) b.output(y, kFloat);
  const ValueTypeQuery types{[](std::string_view name) {
                               return name == "X" ? 1 : name == "Z" ? 6 : 0;
                             },
                             [](std::string_view) { return 1; },
                             {}};
  const Model model = b.build();
  const auto rewritten =
      rewrite_model(model, rules({{"Float", "y = Relu(x{type=1})", "y = Sigmoid(x)"}}), types);
  ASSERT_NE(rewritten, nullptr);
  EXPECT_EQ(ops(rewritten->model()), (std::vector<std::string>{"Sigmoid", "Relu", "Relu"}));
}

// builtin:unique_dequantize_per_reader (ONNX Runtime's EnsureUniqueDQForNodeUnit): a
// DequantizeLinear read by two nodes gets a copy for the second, written next to it; one that is
// also a graph output gets a copy for each reader. `readers=N` counts a value's reads then.
TEST(GraphRewrite, OneDequantizeLinearPerReaderAndReaderCounts) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"});
  b.initializer_floats("s", {0.5F}, {});
  b.initializer(test::tensor_zeros("z", test::kInt8, {}));
  b.node("QuantizeLinear", {"X", "s", "z"}, {"q"});
  b.node("DequantizeLinear", {"q", "s", "z"}, {"d"});
  b.node("Relu", {"d"}, {"a"});
  b.node("Sigmoid", {"d"}, {"e"});
  b.node("DequantizeLinear", {"q", "s", "z"}, {"D"});
  b.node("Tanh", {"D"}, {"t"});
  for (const char* y : {"a", "e", "t", "D"}) b.output(y, kFloat);
  const Model model = b.build();
  const auto rewritten = rewrite_model(
      model, rules({{"Unique", "builtin:unique_dequantize_per_reader", ""},
                    {"OneReader", "y = Relu(x{readers=1})", "y = Neg(x)"},
                    {"TwoReaders", "y = QuantizeLinear(x{readers=2}, *r)", "y = Abs(x)"}},
                   {0, 1, 1}));
  ASSERT_NE(rewritten, nullptr);
  EXPECT_EQ(
      ops(rewritten->model()),
      (std::vector<std::string>{"QuantizeLinear", "DequantizeLinear", "DequantizeLinear", "Neg",
                                "Sigmoid", "DequantizeLinear", "DequantizeLinear", "Tanh"}));
  EXPECT_EQ(inputs_of(rewritten->model(), 4), (std::vector<std::string>{"d/duplicated"}));
  EXPECT_EQ(inputs_of(rewritten->model(), 7), (std::vector<std::string>{"D/duplicated"}));
  EXPECT_EQ(rewritten->summary().applied,
            (std::vector<std::pair<std::string, std::size_t>>{{"Unique", 2}, {"OneReader", 1}}));
  EXPECT_EQ(error_of("y = Relu(const x{readers=1})", "y = x"),
            "rewrite 'R': pattern at character 28: 'like=v', 'same=v' and 'readers=N' check a "
            "value that is not a constant");
}

// `uint8_of(z)` (ONNX Runtime's QDQS8ToU8): an int8 zero point as uint8, 128 more, in a
// replacement Constant that later rules see as a constant.
TEST(GraphRewrite, Uint8ZeroPointsAreConstantsToLaterRules) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"});
  b.initializer_floats("s", {0.5F}, {});
  onnx::TensorProto z;
  z.set_name("z");
  z.set_data_type(onnx::TensorProto::INT8);
  z.set_raw_data(std::string(1, static_cast<char>(-3)));
  b.initializer(z);
  b.node("QuantizeLinear", {"X", "s", "z"}, {"q"});
  b.node("DequantizeLinear", {"q", "s", "z"}, {"Y"});
  b.output("Y", kFloat);
  const Model model = b.build();
  const auto rewritten = rewrite_model(
      model, rules({{"ToU8",
                     "q = QuantizeLinear(a, const s, const z{type=3})\n"
                     "d = DequantizeLinear(q, const s2, ?const z2)",
                     "u = Constant() [value=uint8_of(z)]\n"
                     "q = QuantizeLinear(a, s, u) @u8; d = DequantizeLinear(q, s2, u) @u8"},
                    {"SeesIt", "y = @u8(q, const s, const u{type=2, scalar})", "y = Neg(q)"}},
                   {0, 1}));
  ASSERT_NE(rewritten, nullptr);
  // (Both marked nodes read it.)
  EXPECT_EQ(ops(rewritten->model()), (std::vector<std::string>{"Constant", "Neg", "Neg"}));
  const onnx::TensorProto& u = rewritten->model().proto().graph().node(0).attribute(0).t();
  EXPECT_EQ(u.data_type(), onnx::TensorProto::UINT8);
  EXPECT_EQ(u.dims_size(), 0);
  EXPECT_EQ(u.raw_data(), std::string(1, static_cast<char>(125)));
}

// A replacement may leave an input absent (`_`), set an attribute a copied one had (the named
// one wins) and be empty: the matched nodes go, which only unread ones may. A rule that
// matches its own replacement stops at the rewrite budget.
TEST(GraphRewrite, AbsentInputsNamedAttributesAndEmptyReplacements) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"});
  b.node("LeakyRelu", {"X"}, {"l"}, {attr("alpha", 0.25F)});
  b.node("Add", {"l", "X"}, {"y"});
  b.node("Tanh", {"X"}, {"unread"});
  b.output("y", kFloat);
  const Model model = b.build();
  const auto rewritten =
      rewrite_model(model, rules({{"Alpha", "y = LeakyRelu(x)", "y = Elu(x) [y, alpha=0.5]"},
                                  {"Sum", "y = Add(a, b)", "y = Sum(a, _, b)"},
                                  {"Unread", "_ = Tanh(x)", ""}},
                                 {0, 1, 1}));
  ASSERT_NE(rewritten, nullptr);
  const onnx::GraphProto& g = rewritten->model().proto().graph();
  ASSERT_EQ(g.node_size(), 2);
  ASSERT_EQ(g.node(0).attribute_size(), 1);
  EXPECT_FLOAT_EQ(g.node(0).attribute(0).f(), 0.5F);
  EXPECT_EQ(inputs_of(rewritten->model(), 1), (std::vector<std::string>{"l", "", "X"}));
  const auto looping =
      rewrite_model(model, rules({{"Again", "y = LeakyRelu(x)", "y = LeakyRelu(x) [y]"}}));
  ASSERT_NE(looping, nullptr);
  EXPECT_EQ(looping->model().proto().graph().node_size(), 3);
  EXPECT_EQ(error_of("y = Tanh(x)", ""),
            "rewrite 'R': an empty replacement removes unread nodes only: write the output 'y' "
            "as '_'");
}

// builtin:constant_reshape_shapes (ReshapeFusion): Reshape(X, Concat(X's own dim 0, Cast of a
// constant, one element)) reads the constant [0, 32, -1]; the Concat and the nodes only it read
// go. A Concat of two unknown elements stays.
TEST(GraphRewrite, ConstantReshapeShapesFoldTheConcat) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", std::int64_t{8}, std::int64_t{4}, std::int64_t{2}});
  b.input("E", test::kInt64, {std::int64_t{1}});
  b.initializer(test::tensor_ints("zero", {0}, {}));
  b.initializer(test::tensor_ints("axes", {0}, {1}));
  b.initializer(test::tensor_ints("n32", {32}, {1}, test::kInt32));
  b.node("Shape", {"X"}, {"s"});
  b.node("Gather", {"s", "zero"}, {"g"});
  b.node("Unsqueeze", {"g", "axes"}, {"u"});
  b.node("Cast", {"n32"}, {"c"}, {test::attr("to", std::int64_t{7})});
  b.node("Concat", {"u", "c", "E"}, {"shape"}, {test::attr("axis", std::int64_t{0})});
  b.node("Reshape", {"X", "shape"}, {"Y"});
  b.node("Concat", {"E", "E"}, {"shape2"}, {test::attr("axis", std::int64_t{0})});
  b.node("Reshape", {"X", "shape2"}, {"Z"});
  b.output("Y", kFloat);
  b.output("Z", kFloat);
  onnx::TensorShapeProto one;
  one.add_dim()->set_dim_value(1);
  const ValueTypeQuery types{[](std::string_view) { return 7; }, [](std::string_view) { return 1; },
                             [&one](std::string_view name) -> const onnx::TensorShapeProto* {
                               return name == "E" ? &one : nullptr;
                             }};
  const Model model = b.build();
  const auto rewritten = rewrite_model(
      model, rules({{"ReshapeFusion", "builtin:constant_reshape_shapes", ""}}), types);
  ASSERT_NE(rewritten, nullptr);
  EXPECT_EQ(ops(rewritten->model()),
            (std::vector<std::string>{"Constant", "Reshape", "Concat", "Reshape"}));
  const onnx::TensorProto& t = rewritten->model().proto().graph().node(0).attribute(0).t();
  EXPECT_EQ(std::vector<std::int64_t>(t.int64_data().begin(), t.int64_data().end()),
            (std::vector<std::int64_t>{0, 32, -1}));
  EXPECT_EQ(rewritten->model().proto().graph().node(0).output(0), "shape");
}

// `tensor(t.perm)` makes a Constant of a matched node's list attribute, `{perm}` tests that it is
// there: Shape(Transpose(X)) becomes Gather(Shape(X), perm) (the TransposeOptimizer's Shape
// handler); a Transpose without perm (reversed dims) stays.
TEST(GraphRewrite, TensorsOfAttributesAndPresenceTests) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", "S", std::int64_t{8}});
  b.node("Transpose", {"X"}, {"t"}, {test::attr("perm", std::vector<std::int64_t>{1, 0, 2})});
  b.node("Shape", {"t"}, {"Y"});
  b.node("Transpose", {"X"}, {"r"});
  b.node("Shape", {"r"}, {"Z"});
  b.output("Y", test::kInt64);
  b.output("Z", test::kInt64);
  const Model model = b.build();
  const auto rewritten = rewrite_model(
      model, rules({{"ShapeOfTranspose", "t = Transpose{perm}(x); s = Shape(t)",
                     "d = Shape(x); p = Constant() [value=tensor(t.perm)]; s = Gather(d, p)"}}));
  ASSERT_NE(rewritten, nullptr);
  EXPECT_EQ(ops(rewritten->model()),
            (std::vector<std::string>{"Shape", "Constant", "Gather", "Transpose", "Shape"}));
  const onnx::TensorProto& t = rewritten->model().proto().graph().node(1).attribute(0).t();
  EXPECT_EQ(std::vector<std::int64_t>(t.int64_data().begin(), t.int64_data().end()),
            (std::vector<std::int64_t>{1, 0, 2}));
  EXPECT_EQ(error_of("y = Relu(x)", "y = Constant() [value=tensor(x)]"),
            "rewrite 'R': replacement at character 31: expected 'v.attribute' in 'tensor(...)'");
}

// X -> Conv -> BatchNormalization -> Relu -> Y: folded and fused into one FusedConv, whose
// output keeps the Relu's name; the BatchNormalization's four constants have no reader left.
ModelBuilder conv_bn_relu(bool bn_output_is_graph_output = false) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", std::int64_t{16}, "H", "W"});
  b.initializer(test::tensor_zeros("w", kFloat, {16, 16, 3, 3}));
  for (const char* p : {"s", "t", "m", "v"}) b.initializer(test::tensor_zeros(p, kFloat, {16}));
  b.node("Conv", {"X", "w"}, {"c"}, {test::attr("pads", std::vector<std::int64_t>{1, 1, 1, 1})}, "",
         "conv");
  b.node("BatchNormalization", {"c", "s", "t", "m", "v"}, {"bn"}, {}, "", "bn");
  b.node("Relu", {"bn"}, {"Y"}, {}, "", "relu");
  b.output("Y", kFloat);
  if (bn_output_is_graph_output) b.output("bn", kFloat);
  return b;
}

/// ONNX Runtime's Conv + BatchNormalization fusion (the Conv keeps its place, new weights).
constexpr std::array<const char*, 3> kConvBn = {
    "ConvBN",
    "c = Conv(x, const w, ?const b); y = BatchNormalization(c, const s, const t, const m, const v)",
    "y = Conv(x, w, ?b) [c]"};

TEST(GraphRewrite, FoldsAndFusesAChainAndRecordsWhereTheNodeCameFrom) {
  const Model model = conv_bn_relu().build();
  const auto rewritten = rewrite_model(
      model, rules({kConvBn,
                    {"ConvAct", "c = Conv(x, w, ?b); y = Relu|Clip(c, ?const lo, ?const hi)",
                     "y = com.microsoft:FusedConv(x, w, ?b) [c, activation=@y]"}}));
  ASSERT_NE(rewritten, nullptr);
  EXPECT_EQ(ops(rewritten->model()), (std::vector<std::string>{"com.microsoft:FusedConv"}));
  const onnx::NodeProto& fused = rewritten->model().proto().graph().node(0);
  EXPECT_EQ(fused.name(), "conv");
  EXPECT_EQ(std::vector<std::string>(fused.input().begin(), fused.input().end()),
            (std::vector<std::string>{"X", "w"}));
  EXPECT_EQ(fused.output(0), "Y");
  ASSERT_EQ(fused.attribute_size(), 2);  // the Conv's pads, then the activation
  EXPECT_EQ(fused.attribute(1).s(), "Relu");
  const RewriteOrigin* origin = rewritten->origin(&fused);
  ASSERT_NE(origin, nullptr);
  EXPECT_EQ(origin->rules, (std::vector<std::string>{"ConvBN", "ConvAct"}));
  EXPECT_EQ(origin->nodes, (std::vector<std::string>{"conv", "bn", "relu"}));
  const RewriteSummary& summary = rewritten->summary();
  EXPECT_EQ(summary.nodes_before, 3u);
  EXPECT_EQ(summary.nodes_after, 1u);
  EXPECT_EQ(summary.initializers_dropped, 4u);
  EXPECT_EQ(rewritten->model().proto().graph().initializer_size(), 1);
  // The original is untouched.
  EXPECT_EQ(ops(model), (std::vector<std::string>{"Conv", "BatchNormalization", "Relu"}));
}

// ONNX Runtime's node numbers, which order its execution: a replacement of a removed node's
// operator is that node edited (the folded Conv keeps the Conv's 0); a new operator is numbered
// after every node made before it (the Neg: the fourth made, after the 3 originals).
TEST(GraphRewrite, ReplacementsOfTheSameOperatorKeepTheirNodesNumber) {
  const Model model = conv_bn_relu().build();
  const auto rewritten =
      rewrite_model(model, rules({kConvBn, {"ReluToNeg", "y = Relu(x)", "y = Neg(x)"}}));
  ASSERT_NE(rewritten, nullptr);
  EXPECT_EQ(ops(rewritten->model()), (std::vector<std::string>{"Conv", "Neg"}));
  const std::vector<std::uint32_t> numbers(rewritten->runtime_numbers().begin(),
                                           rewritten->runtime_numbers().end());
  EXPECT_EQ(numbers, (std::vector<std::uint32_t>{0, 4}));
}

// The nodes one pass makes are numbered in the order the graph lists them, as ONNX Runtime's
// transformers add theirs while walking the graph: the Exp the second pass makes from the first
// pass's Abs (listed first) is numbered before the Tanh it made from the model's Sigmoid, though
// the sweep met the Sigmoid first.
TEST(GraphRewrite, EachPassNumbersItsNodesInGraphOrder) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"});
  b.node("Neg", {"X"}, {"a"}).node("Sigmoid", {"X"}, {"s"}).node("Add", {"a", "s"}, {"Y"});
  b.output("Y", kFloat);
  const Model model = b.build();  // the rewritten model borrows from it
  const auto rewritten =
      rewrite_model(model, rules({{"NegToAbs", "y = Neg(x)", "y = Abs(x)"},
                                  {"SigmoidToTanh", "y = Sigmoid(x)", "y = Tanh(x)"},
                                  {"AbsToExp", "y = Abs(x)", "y = Exp(x)"}},
                                 {0, 1, 1}));
  ASSERT_NE(rewritten, nullptr);
  EXPECT_EQ(ops(rewritten->model()), (std::vector<std::string>{"Exp", "Tanh", "Add"}));
  const std::vector<std::uint32_t> numbers(rewritten->runtime_numbers().begin(),
                                           rewritten->runtime_numbers().end());
  EXPECT_EQ(numbers, (std::vector<std::uint32_t>{4, 5, 2}));
}

TEST(GraphRewrite, LeavesAValueSomebodyElseNeeds) {
  // The BatchNormalization's output is a graph output: it must exist, so the Relu is not fused.
  const Model model = conv_bn_relu(true).build();
  const auto rewritten =
      rewrite_model(model, rules({{"ConvBN", "c = Conv(x, const w); y = BatchNormalization(c, *p)",
                                   "y = Conv(x, w) [c]"},
                                  {"ConvAct", "c = Conv(x, w); y = Relu(c)",
                                   "y = com.microsoft:FusedConv(x, w) [c, activation=@y]"}}));
  ASSERT_NE(rewritten, nullptr);
  EXPECT_EQ(ops(rewritten->model()), (std::vector<std::string>{"Conv", "Relu"}));
  EXPECT_EQ(rewrite_model(model, rules({{"ConvAct", "c = Conv(x, w); y = Relu(c)",
                                         "y = com.microsoft:FusedConv(x, w)"}})),
            nullptr);
}

TEST(GraphRewrite, EliminationRenamesTheReadersAndKeepsGraphOutputs) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"});
  b.node("Identity", {"X"}, {"a"});
  b.node("Relu", {"a"}, {"r"});
  b.node("Add", {"r", "a"}, {"s"});
  b.node("Identity", {"s"}, {"Y"});  // a graph output: stays
  b.output("Y", kFloat);
  const Model model = b.build();
  const auto rewritten = rewrite_model(model, rules({{"Id", "y = Identity(x)", "y = x"}}));
  ASSERT_NE(rewritten, nullptr);
  EXPECT_EQ(ops(rewritten->model()), (std::vector<std::string>{"Relu", "Add", "Identity"}));
  const onnx::NodeProto& add = rewritten->model().proto().graph().node(1);
  EXPECT_EQ(add.input(0), "r");
  EXPECT_EQ(add.input(1), "X");
}

TEST(GraphRewrite, MatchesEitherOrderOfACommutativeOperator) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", std::int64_t{8}, std::int64_t{4}, std::int64_t{4}});
  b.initializer(test::tensor_zeros("w", kFloat, {8, 8, 1, 1}));
  b.node("Conv", {"X", "w"}, {"c"});
  b.node("Add", {"X", "c"}, {"Y"});  // the Conv's output second
  b.output("Y", kFloat);
  const Model model = b.build();
  const auto rewritten =
      rewrite_model(model, rules({{"ConvAdd", "c = Conv(x, const w{d0%8}, ?b); y = Add(c, s)",
                                   "y = com.microsoft:FusedConv(x, w, ?b, s) [c]"}}));
  ASSERT_NE(rewritten, nullptr);
  const onnx::NodeProto& fused = rewritten->model().proto().graph().node(0);
  EXPECT_EQ(std::vector<std::string>(fused.input().begin(), fused.input().end()),
            (std::vector<std::string>{"X", "w", "", "X"}));
  // 8 output channels are no multiple of 16: not matched.
  EXPECT_EQ(
      rewrite_model(b.build(), rules({{"ConvAdd", "c = Conv(x, const w{d0%16}, ?b); y = Add(c, s)",
                                       "y = com.microsoft:FusedConv(x, w, ?b, s) [c]"}})),
      nullptr);
}

// A layout change: the readers of a blocked value without a blocked kernel read one copy of it;
// the blocked reader keeps reading the value; the rule does not apply again.
TEST(GraphRewrite, KeptNodesAndReroutesInsertOneCopyForTheOtherReaders) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"});
  b.node("Make", {"X"}, {"p"}, {}, "x.blocked");
  b.node("Use", {"p"}, {"a"}, {}, "x.blocked");
  b.node("Relu", {"p"}, {"r"});
  b.node("Sigmoid", {"p"}, {"s"});
  b.output("a", kFloat);
  b.output("r", kFloat);
  b.output("s", kFloat);
  const Model model = b.build();
  const auto rewritten =
      rewrite_model(model, rules({{"Unblock", "keep p = x.blocked:Make(*i)",
                                   "q = x.blocked:Unblock(p); reroute p -> q for !x.blocked:*"}}));
  ASSERT_NE(rewritten, nullptr);
  const Model& m = rewritten->model();
  EXPECT_EQ(ops(m), (std::vector<std::string>{"x.blocked:Make", "x.blocked:Unblock",
                                              "x.blocked:Use", "Relu", "Sigmoid"}));
  EXPECT_EQ(inputs_of(m, 1), (std::vector<std::string>{"p"}));
  const std::string q = m.proto().graph().node(1).output(0);
  EXPECT_EQ(inputs_of(m, 2), (std::vector<std::string>{"p"}));
  EXPECT_EQ(inputs_of(m, 3), (std::vector<std::string>{q}));
  EXPECT_EQ(inputs_of(m, 4), (std::vector<std::string>{q}));
  EXPECT_EQ(rewritten->summary().applied,
            (std::vector<std::pair<std::string, std::size_t>>{{"Unblock", 1}}));
}

// Two readers that each get the same inserted node share one (ONNX Runtime's common
// subexpressions): the second insertion finds the first.
TEST(GraphRewrite, AnInsertedNodeEqualToALiveOneIsShared) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"});
  b.node("Relu", {"X"}, {"x"});
  b.node("Sigmoid", {"x"}, {"s1"});
  b.node("Sigmoid", {"x"}, {"s2"});
  b.output("s1", kFloat);
  b.output("s2", kFloat);
  const Model model = b.build();
  const auto rewritten =
      rewrite_model(model, rules({{"CopyFirst", "keep x = Relu(a); y = Sigmoid(x)",
                                   "t = x.l:Copy(x); y = x.l:Sigmoid(t) [y]"}}));
  ASSERT_NE(rewritten, nullptr);
  EXPECT_EQ(ops(rewritten->model()),
            (std::vector<std::string>{"Relu", "x.l:Copy", "x.l:Sigmoid", "x.l:Sigmoid"}));
}

TEST(GraphRewrite, AttributeAndDimTestsSelectTheNodes) {
  ModelBuilder b;
  b.input("X", kFloat, {"N", std::int64_t{32}, std::int64_t{4}, std::int64_t{4}});
  b.initializer(test::tensor_zeros("w_one", kFloat, {16, 32, 1, 1}));  // d1 % 16 == 0
  b.initializer(test::tensor_zeros("w_rgb", kFloat, {16, 3, 1, 1}));   // d1 < 16
  b.initializer(test::tensor_zeros("w_odd", kFloat, {16, 24, 1, 1}));  // neither
  b.initializer(test::tensor_zeros("w_dw", kFloat, {32, 1, 1, 1}));
  b.node("Conv", {"X", "w_one"}, {"a"}, {}, "", "one");
  b.node("Slice", {"X"}, {"X3"});
  b.node("Conv", {"X3", "w_rgb"}, {"b"}, {}, "", "rgb");
  b.node("Slice", {"X"}, {"X24"});
  b.node("Conv", {"X24", "w_odd"}, {"c"}, {}, "", "odd");
  b.node("Conv", {"X", "w_dw"}, {"d"}, {test::attr("group", std::int64_t{32})}, "", "dw");
  for (const char* y : {"a", "b", "c", "d"}) b.output(y, kFloat);
  const Model model = b.build();
  const auto rewritten =
      rewrite_model(model, rules({{"OneGroup", "y = Conv{group?=1}(x, const w{d1%16|d1<16, d0=16})",
                                   "y = x.b:Conv(x, w) [y]"}}));
  ASSERT_NE(rewritten, nullptr);
  EXPECT_EQ(ops(rewritten->model()),
            (std::vector<std::string>{"x.b:Conv", "Slice", "x.b:Conv", "Slice", "Conv", "Conv"}));
}

// Passes run in order whatever the order of registration, each to its fixpoint: a chain of
// two Relus is folded by the pass-0 rule before the pass-1 rule reads the result.
TEST(GraphRewrite, PassesRunInOrder) {
  ModelBuilder b;
  b.input("X", kFloat, {"N"});
  b.node("Relu", {"X"}, {"r1"});
  b.node("Relu", {"r1"}, {"r2"});
  b.node("Relu", {"r2"}, {"r3"});
  b.node("Sigmoid", {"r3"}, {"Y"});
  b.output("Y", kFloat);
  const Model model = b.build();
  const auto rewritten =
      rewrite_model(model, rules({{"Late", "r = Relu(x); y = Sigmoid(r)", "y = x.l:ReluSigmoid(x)"},
                                  {"Early", "a = Relu(x); y = Relu(a)", "y = Relu(x)"}},
                                 {1, 0}));
  ASSERT_NE(rewritten, nullptr);
  EXPECT_EQ(ops(rewritten->model()), (std::vector<std::string>{"x.l:ReluSigmoid"}));
  EXPECT_EQ(rewritten->summary().applied,
            (std::vector<std::pair<std::string, std::size_t>>{{"Early", 2}, {"Late", 1}}));
}

// ONNX Runtime has no CPU kernel for HardSwish and inlines its ONNX function at every level
// below all: HardSigmoid (alpha 1/6, a float attribute of the rule text) into a planned
// temporary, then Mul. The temporary is then in the memory pattern's block, as ONNX Runtime's
// MobileNetV3 runs show (its arena took a third region the replay missed: 0.42x before).
TEST(GraphRewrite, HardSwishRunsAsItsFunctionBodyInTheLabSetting) {
  ModelBuilder b(17);
  b.input("X", kFloat, {"N", 8});
  b.node("HardSwish", {"X"}, {"Y"});
  b.output("Y", kFloat);
  const Profile lab = load_profile(Host::profile_path("onnxruntime-cpu-unoptimized-no-arena"));
  const test::Analysis a = test::analyze(b.build(), lab);
  ASSERT_EQ(a.ctx->node_count(), 2u);
  const onnx::NodeProto& sigmoid = *a.ctx->graph().node(0).proto;
  EXPECT_EQ(sigmoid.op_type(), "HardSigmoid");
  ASSERT_EQ(sigmoid.attribute_size(), 2);
  EXPECT_EQ(sigmoid.attribute(0).type(), onnx::AttributeProto::FLOAT);
  EXPECT_FLOAT_EQ(sigmoid.attribute(0).f(), 1.0F / 6.0F);
  EXPECT_FLOAT_EQ(sigmoid.attribute(1).f(), 0.5F);
  EXPECT_EQ(a.ctx->graph().node(1).op_type, "Mul");
  // No kernel scratch any more: the temporary is a value of its own.
  EXPECT_EQ(a.print(a.ctx->node_peak_memory(0)), "0");
  EXPECT_EQ(a.print(a.ctx->node_peak_memory(1)), "0");
}

TEST(RewriteRule, FloatAttributesParseAndBadNumbersAreRefused) {
  const RewriteRule rule =
      parse_rewrite_rule("F", "y = Relu(x)", "y = LeakyRelu(x) [alpha=-2.5e-1]", 0);
  ASSERT_EQ(rule.replacement.size(), 1u);
  ASSERT_EQ(rule.replacement[0].attributes.size(), 1u);
  EXPECT_EQ(rule.replacement[0].attributes[0].kind, RewriteAttr::Kind::kFloat);
  EXPECT_FLOAT_EQ(rule.replacement[0].attributes[0].real, -0.25F);
  EXPECT_NE(error_of("y = Relu(x)", "y = LeakyRelu(x) [alpha=1.2.3]").find("expected a number"),
            std::string::npos);
}

// Through the shipped profile: the graph ONNX Runtime runs at level all is what is planned.
TEST(GraphRewrite, OptimizedProfilePlansTheFusedGraph) {
  const Profile optimized = load_profile(Host::profile_path("onnxruntime-cpu-no-arena"));
  const test::Analysis a = test::analyze(conv_bn_relu().build(), optimized);
  // One NCHWc Conv, and the ReorderOutput that writes the graph output from its blocked result.
  ASSERT_EQ(a.ctx->node_count(), 2u);
  EXPECT_EQ(a.ctx->graph().node(0).domain, "com.microsoft.nchwc");
  EXPECT_EQ(a.ctx->graph().node(0).op_type, "Conv");
  EXPECT_EQ(a.ctx->graph().node(1).op_type, "ReorderOutput");
  const RewriteSummary* summary = a.ctx->rewrite_summary();
  ASSERT_NE(summary, nullptr);
  EXPECT_EQ(summary->applied,
            (std::vector<std::pair<std::string, std::size_t>>{{"ConvBNFusion", 1},
                                                              {"ConvActivationFusion", 1},
                                                              {"NchwcFusedConv", 1},
                                                              {"NchwcReorderGraphOutput", 1}}));
  ASSERT_NE(a.ctx->rewrite_origin(0), nullptr);
  EXPECT_EQ(a.ctx->rewrite_origin(0)->nodes, (std::vector<std::string>{"conv", "bn", "relu"}));
  // Two buffers of N*16*H*W floats (the blocked result, the graph output; then the output and
  // the profile's copy of it) and no im2col buffer (an NCHWc kernel).
  const PeakEvaluation e = a.ctx->evaluate_peak({{"N", 2}, {"H", 5}, {"W", 7}});
  const Profile plain = load_profile(Host::profile_path("onnxruntime-cpu-unoptimized-no-arena"));
  const test::Analysis b = test::analyze(conv_bn_relu().build(), plain);
  EXPECT_EQ(b.ctx->rewrite_summary(), nullptr);
  const PeakEvaluation f = b.ctx->evaluate_peak({{"N", 2}, {"H", 5}, {"W", 7}});
  const std::int64_t buffer = std::int64_t{2} * 16 * 5 * 7 * 4;
  const std::int64_t im2col =
      b.ctx->pool().eval(b.ctx->node_peak_memory(0), {{"N", 2}, {"H", 5}, {"W", 7}});
  EXPECT_GT(im2col, 0);
  EXPECT_EQ(a.print(a.ctx->node_peak_memory(0)), "0");
  // Unoptimised, the run peaks at the Conv (its output and im2col), with the runtime's own
  // bytes after one node; optimised, after the last.
  EXPECT_EQ(f.run_bytes, buffer + im2col + b.run_frame_bytes(plain, 1));
  EXPECT_EQ(e.run_bytes, 2 * buffer + a.run_frame_bytes(optimized, 2));
}

}  // namespace
}  // namespace cctx
