// If, Loop, Scan and SequenceMap through the real plugin: branch selection and merging, loop
// trip counts, carried dims that change, scan axes, bodies that capture outer values
// (expressions.md "Symbolic shape inference rules (ai.onnx plugin)", rows 50-51).
#include <gtest/gtest.h>

#include "model_builder.hpp"

namespace cctx {
namespace {

using test::attr;
using test::Dims;
using test::GraphBuilder;
using test::kBool;
using test::kFloat;
using test::kInt64;
using test::ModelBuilder;

using Ints = std::vector<std::int64_t>;

/// A branch returning Identity(outer) (a capture of an outer value).
onnx::GraphProto identity_branch(const std::string& outer, const std::string& result) {
  GraphBuilder g;
  g.node("Identity", {outer}, {result}).output(result);
  return g.graph();
}

/// An If on a graph input condition, then -> Identity(a), else -> Identity(b).
ModelBuilder if_model(const test::ShapeSpec& a, const test::ShapeSpec& b) {
  ModelBuilder m(16);
  m.input("cond", kBool, {}).input("A", kFloat, a).input("B", kFloat, b);
  m.node("If", {"cond"}, {"Y"},
         {attr("then_branch", identity_branch("A", "t")),
          attr("else_branch", identity_branch("B", "e"))});
  return m;
}

test::Analysis analyze_shapes(const ModelBuilder& m, void (*adjust)(Profile&) = nullptr) {
  return test::analyze(m, adjust);
}

std::size_t count_constraints(const test::Analysis& a, Constraint::Kind kind) {
  std::size_t n = 0;
  for (const Constraint& c : a.ctx->constraints()) n += c.kind == kind ? 1 : 0;
  return n;
}

// ---- If -----------------------------------------------------------------------------------------

TEST(ControlFlow, IfMergesDifferentBranchDimsToTheirMax) {  // row 50
  auto a = analyze_shapes(if_model({"N", 4}, {"M", 4}));
  EXPECT_EQ(a.dims("Y"), (Dims{"max(M,N)", "4"}));
  EXPECT_EQ(a.dtype("Y"), kFloat);
  ASSERT_EQ(count_constraints(a, Constraint::Kind::kOneOf), 1u);
  const Constraint& c = a.ctx->constraints().back();
  EXPECT_EQ(a.print(c.a), "max(M,N)");
}

TEST(ControlFlow, IfKeepsEqualDimsWithoutConstraints) {
  auto a = analyze_shapes(if_model({"N", 4}, {"N", 4}));
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "4"}));
  EXPECT_EQ(count_constraints(a, Constraint::Kind::kOneOf), 0u);
}

TEST(ControlFlow, IfWithBranchesOfDifferentRanksHasUnknownRank) {
  auto a = analyze_shapes(if_model({"N", 4}, {"N"}));
  EXPECT_EQ(a.dims("Y"), (Dims{"<unknown rank>"}));
}

TEST(ControlFlow, IfWithBranchesOfDifferentRanksButEqualCountsKnowsTheBytes) {
  // [N, 4] against [N, 2, 2]: another rank, the same 4*N elements.
  auto a = analyze_shapes(if_model({"N", 4}, {"N", 2, 2}));
  EXPECT_EQ(a.dims("Y"), (Dims{"<unknown rank>"}));
  ASSERT_TRUE(a.shape("Y").element_count.has_value());
  EXPECT_EQ(a.print(*a.shape("Y").element_count), "4*N");
  EXPECT_EQ(a.print(*a.ctx->value_bytes(a.id("Y"))), "16*N");
  EXPECT_TRUE(a.has_warning("its rank depends on which branch runs")) << a.warnings();
  EXPECT_EQ(count_constraints(a, Constraint::Kind::kOneOf), 0u);
}

/// PyTorch's "squeeze if the size is 1": If(Shape(X)[1] == 1, Squeeze(X, 1), Identity(X)), the
/// Squeeze inside a nested If as torch.onnx exports it.
ModelBuilder squeeze_if_model() {
  GraphBuilder squeeze, keep, inner_else, outer_then;
  squeeze.initializer_ints("axis", {1}, {1}).node("Squeeze", {"X", "axis"}, {"s"}).output("s");
  keep.node("Identity", {"X"}, {"k"}).output("k");
  inner_else.node("Identity", {"X"}, {"k2"}).output("k2");
  outer_then.node("If", {"c"}, {"i"},
                  {attr("then_branch", squeeze.graph()), attr("else_branch", keep.graph())});
  outer_then.output("i");
  ModelBuilder m(16);
  m.input("X", kFloat, {"B", "N", "W"})
      .initializer_ints("one", {1}, {})
      .initializer_ints("ax1", {1}, {});
  m.node("Shape", {"X"}, {"sh"}).node("Gather", {"sh", "ax1"}, {"n"});
  m.node("Equal", {"n", "one"}, {"c"});
  m.node("If", {"c"}, {"Y"},
         {attr("then_branch", outer_then.graph()), attr("else_branch", inner_else.graph())});
  return m;
}

TEST(ControlFlow, IfSqueezeIfSizeOneCountsTheUnsqueezedElements) {
  auto a = analyze_shapes(squeeze_if_model());
  EXPECT_EQ(a.dims("Y"), (Dims{"<unknown rank>"}));
  // max(B*W, B*N*W): Squeeze takes N to be 1, and its branch runs only when it is.
  ASSERT_TRUE(a.shape("Y").element_count.has_value()) << a.warnings();
  EXPECT_EQ(a.print(*a.ctx->value_bytes(a.id("Y"))), "4*B*N*W");
}

TEST(ControlFlow, IfMergeOptionFreshLeavesADifferentCountUnknown) {
  auto a = analyze_shapes(squeeze_if_model(), [](Profile& p) {
    p.tags.enabled = false;
    for (PluginSpec& plugin : p.plugins) {
      if (plugin.name == "onnx") plugin.options["if_merge"] = "fresh";
    }
  });
  EXPECT_FALSE(a.shape("Y").element_count.has_value());
  EXPECT_EQ(a.print(*a.ctx->value_bytes(a.id("Y"))), "bytes_Y");
}

TEST(ControlFlow, IfDecidedConditionSelectsOneBranch) {
  // cond = (Size(A) == 0) is false for A [N, 4] with N >= 1: the else branch alone counts.
  ModelBuilder m(16);
  m.input("A", kFloat, {"N", 4}).input("B", kFloat, {"M", 8}).initializer_ints("zero", {0}, {});
  m.node("Size", {"A"}, {"n"}).node("Equal", {"n", "zero"}, {"cond"});
  m.node("If", {"cond"}, {"Y"},
         {attr("then_branch", identity_branch("A", "t")),
          attr("else_branch", identity_branch("B", "e"))});
  auto a = analyze_shapes(m);
  ASSERT_EQ(a.value("cond"), (Dims{"0"})) << a.warnings();
  EXPECT_EQ(a.dims("Y"), (Dims{"M", "8"}));
  EXPECT_EQ(count_constraints(a, Constraint::Kind::kOneOf), 0u);
}

TEST(ControlFlow, IfOnARankTestThroughNotIsDecided) {
  // PyTorch's `if x.dim() != 3: x = x.unsqueeze(1)` (LSTMCell, silero's VAD): Not(Size(Shape(X))
  // == 3), cast to bool. The rank is known, so the condition is, through Not, And, Or and Xor.
  ModelBuilder m(16);
  m.input("A", kFloat, {"N", 4, 2}).input("B", kFloat, {"M", 8});
  m.initializer_ints("three", {3}, {}).initializer_ints("two", {2}, {});
  m.node("Shape", {"A"}, {"sh"}).node("Size", {"sh"}, {"rank"});
  m.node("Equal", {"rank", "three"}, {"is3"}).node("Equal", {"rank", "two"}, {"is2"});
  m.node("Not", {"is3"}, {"not3"}).node("Cast", {"not3"}, {"cond"}, {attr("to", 9)});
  m.node("And", {"is3", "not3"}, {"and"}).node("Or", {"is2", "is3"}, {"or"});
  m.node("Xor", {"is3", "is2"}, {"xor"});
  m.node("If", {"cond"}, {"Y"},
         {attr("then_branch", identity_branch("A", "t")),
          attr("else_branch", identity_branch("B", "e"))});
  auto a = analyze_shapes(m);
  ASSERT_EQ(a.value("cond"), (Dims{"0"})) << a.warnings();
  EXPECT_EQ(a.value("and"), (Dims{"0"}));
  EXPECT_EQ(a.value("or"), (Dims{"1"}));
  EXPECT_EQ(a.value("xor"), (Dims{"1"}));
  EXPECT_EQ(a.dims("Y"), (Dims{"M", "8"}));
  EXPECT_EQ(count_constraints(a, Constraint::Kind::kOneOf), 0u);
}

TEST(ControlFlow, AnIfBranchThatRefusesItsInputsIsNotTheOneThatRuns) {
  // The condition is data (a bool input): undecided. The then branch doubles X into a [N, 8]
  // intermediate and squeezes axis 1, of size 8: Squeeze refuses, the runtime would fail there,
  // so the else branch runs, and the then branch's working memory is not counted.
  GraphBuilder refuses, keeps;
  refuses.initializer_ints("axis", {1}, {1});
  refuses.node("Concat", {"X", "X"}, {"xx"}, {attr("axis", 1)});
  refuses.node("Squeeze", {"xx", "axis"}, {"s"}).output("s");
  keeps.node("Identity", {"X"}, {"k"}).output("k");
  ModelBuilder m(16);
  m.input("cond", kBool, {}).input("X", kFloat, {"N", 4});
  m.node("If", {"cond"}, {"Y"},
         {attr("then_branch", refuses.graph()), attr("else_branch", keeps.graph())});
  auto a = analyze_shapes(m);
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "4"})) << a.warnings();
  EXPECT_TRUE(
      a.has_warning("the then branch cannot run here (1 node(s) refusing their inputs): "
                    "the else branch is the one that runs"))
      << a.warnings();
  EXPECT_EQ(a.scratch(0), "0");
}

TEST(ControlFlow, ADecidedIfCountsOnlyTheWorkingMemoryOfTheBranchThatRuns) {
  // cond = (Size(A) == 0) is false: the then branch, with its [N, 8] intermediate, never runs.
  GraphBuilder big, small;
  big.node("Concat", {"A", "A"}, {"aa"}, {attr("axis", 1)});
  big.node("ReduceSum", {"aa"}, {"t"}, {attr("keepdims", 0)}).output("t");
  small.node("Neg", {"A"}, {"na"}).node("ReduceSum", {"na"}, {"e"}, {attr("keepdims", 0)});
  small.output("e");
  ModelBuilder m(11);
  m.input("A", kFloat, {"N", 4}).initializer_ints("zero", {0}, {});
  m.node("Size", {"A"}, {"n"}).node("Equal", {"n", "zero"}, {"cond"});
  m.node("If", {"cond"}, {"Y"},
         {attr("then_branch", big.graph()), attr("else_branch", small.graph())});
  auto a = analyze_shapes(m);
  ASSERT_EQ(a.value("cond"), (Dims{"0"})) << a.warnings();
  // The else branch's Neg output, 16*N bytes, not the then branch's 32*N.
  EXPECT_EQ(a.scratch(2), "16*N") << a.warnings();
}

TEST(ControlFlow, IfMergeOptionFreshUsesAFreshSymbol) {
  auto a = analyze_shapes(if_model({"N", 4}, {"M", 4}), [](Profile& p) {
    p.tags.enabled = false;
    // The onnx plugin's option: the other plugins of the profile do not accept it.
    for (PluginSpec& plugin : p.plugins) {
      if (plugin.name == "onnx") plugin.options["if_merge"] = "fresh";
    }
  });
  EXPECT_EQ(a.dims("Y"), (Dims{"If_0_o0_d0", "4"})) << a.warnings();
  EXPECT_EQ(count_constraints(a, Constraint::Kind::kOneOf), 1u);
}

TEST(ControlFlow, IfBranchValuesSurviveWhenEqual) {
  // Both branches return Shape(A): the value [N, 4] is known whichever runs.
  GraphBuilder then_g, else_g;
  then_g.node("Shape", {"A"}, {"s1"}).output("s1");
  else_g.node("Shape", {"A"}, {"s2"}).output("s2");
  ModelBuilder m(16);
  m.input("cond", kBool, {}).input("A", kFloat, {"N", 4});
  m.node("If", {"cond"}, {"S"},
         {attr("then_branch", then_g.graph()), attr("else_branch", else_g.graph())});
  m.node("Reshape", {"A", "S"}, {"Y"});
  auto a = analyze_shapes(m);
  EXPECT_EQ(a.value("S"), (Dims{"N", "4"}));
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "4"}));
}

TEST(ControlFlow, TagStageTerminatesOnBodies) {
  // Every outer tag pass re-runs the bodies' fixpoint; resetting their node tags must not count
  // as a change, or the outer fixpoint never ends.
  auto a = test::analyze(if_model({"N", 4}, {"M", 4}));
  EXPECT_EQ(a.dims("Y"), (Dims{"max(M,N)", "4"}));
}

// ---- Loop ---------------------------------------------------------------------------------------

/// Loop body: (i, cond_in, carried...) -> (cond_in, carried updates..., scan outputs...), built by
/// the caller from the names "i", "c", inputs and nodes.
GraphBuilder loop_body(const std::vector<std::pair<std::string, test::ShapeSpec>>& carried) {
  GraphBuilder g;
  g.input("i", kInt64, {}).input("c", kBool, {});
  for (const auto& [name, shape] : carried) g.input(name, kFloat, shape);
  g.node("Identity", {"c"}, {"c_out"}).output("c_out");
  return g;
}

TEST(ControlFlow, LoopScanOutputStacksTripCountTimes) {  // row 51
  // M = ReduceSum(Shape(T)) has the value T; no cond input: the loop runs exactly T times. The
  // body captures the outer W.
  ModelBuilder m(16);
  m.input("X", kFloat, {"T"}).input("W", kFloat, {4});
  m.node("Shape", {"X"}, {"S"}).node("ReduceSum", {"S"}, {"M"}, {attr("keepdims", 0)});
  GraphBuilder body = loop_body({});
  body.node("Identity", {"W"}, {"w"}).output("w");
  m.node("Loop", {"M", ""}, {"stacked"}, {attr("body", body.graph())});
  auto a = analyze_shapes(m);
  EXPECT_EQ(a.dims("stacked"), (Dims{"T", "4"})) << a.warnings();
  EXPECT_EQ(a.dtype("stacked"), kFloat);
}

TEST(ControlFlow, LoopCarriedDimThatChangesBecomesLoopVariant) {
  // x doubles every iteration: the final x and the stacked per-iteration x have fresh dims.
  ModelBuilder m(16);
  m.input("X", kFloat, {"N"}).initializer_ints("M", {3}, {});
  GraphBuilder body = loop_body({{"x", {"N"}}});
  body.node("Concat", {"x", "x"}, {"x2"}, {attr("axis", 0)}).output("x2");
  body.node("Identity", {"x"}, {"seen"}).output("seen");
  m.node("Loop", {"M", "", "X"}, {"x_final", "all"}, {attr("body", body.graph())});
  auto a = analyze_shapes(m);
  EXPECT_EQ(a.dims("x_final"), (Dims{"Loop_0_o0_d0"})) << a.warnings();
  EXPECT_EQ(a.dims("all"), (Dims{"3", "Loop_0_o1_d1"}));
}

TEST(ControlFlow, LoopCarriedDimThatStaysKeepsItsSymbol) {
  // y = x + x keeps [N, 4]; a counter's value changes, so only its shape survives.
  ModelBuilder m(16);
  m.input("X", kFloat, {"N", 4}).input("T", kInt64, {}).initializer_ints("k0", {0}, {});
  GraphBuilder body;
  body.input("i", kInt64, {})
      .input("c", kBool, {})
      .input("x", kFloat, {"N", 4})
      .input("k", kInt64, {});
  body.initializer_ints("one", {1}, {});
  body.node("Identity", {"c"}, {"c_out"}).output("c_out");
  body.node("Add", {"x", "x"}, {"x2"}).output("x2");
  body.node("Add", {"k", "one"}, {"k2"}).output("k2");
  body.node("Identity", {"x"}, {"seen"}).output("seen");
  m.node("Loop", {"T", "", "X", "k0"}, {"x_final", "k_final", "all"}, {attr("body", body.graph())});
  auto a = analyze_shapes(m);
  EXPECT_EQ(a.dims("x_final"), (Dims{"N", "4"})) << a.warnings();
  EXPECT_EQ(a.dims("k_final"), Dims{});
  EXPECT_EQ(a.value("k_final"), Dims{});
  // T has no value: the trip count is fresh.
  EXPECT_EQ(a.dims("all"), (Dims{"Loop_0_o2_d0", "N", "4"}));
}

TEST(ControlFlow, LoopWithConditionHasBoundedFreshTripCount) {
  ModelBuilder m(16);
  m.input("cond", kBool, {}).initializer_ints("M", {5}, {});
  GraphBuilder body = loop_body({});
  body.node("Identity", {"i"}, {"iter"}).output("iter");
  m.node("Loop", {"M", "cond"}, {"iters"}, {attr("body", body.graph())});
  auto a = analyze_shapes(m);
  ASSERT_EQ(a.dims("iters"), (Dims{"Loop_0_o0_d0"}));
  Interval bounds = a.ctx->pool().interval(a.shape("iters").dims[0]);
  EXPECT_EQ(bounds.lo, 0);
  EXPECT_EQ(bounds.hi, 5);
}

TEST(ControlFlow, LoopWhoseConditionStaysTrueRunsMTimes) {
  // cond = true and the body passes it through unchanged: no early exit, trip = M.
  ModelBuilder m(16);
  m.initializer(test::tensor_ints("cond", {1}, {}, kBool)).initializer_ints("M", {5}, {});
  GraphBuilder body = loop_body({});
  body.node("Identity", {"i"}, {"iter"}).output("iter");
  m.node("Loop", {"M", "cond"}, {"iters"}, {attr("body", body.graph())});
  EXPECT_EQ(analyze_shapes(m).dims("iters"), (Dims{"5"}));
}

/// A loop body that appends `inserts` copies of the outer W to its carried sequence "s".
onnx::GraphProto appending_body(int inserts) {
  GraphBuilder body = loop_body({});
  std::string last = "s";
  for (int k = 0; k < inserts; ++k) {
    const std::string next = "s" + std::to_string(k + 1);
    body.node("SequenceInsert", {last, "W"}, {next});
    last = next;
  }
  body.output(last);
  onnx::GraphProto g = body.graph();
  // The carried input is a sequence of float tensors of unknown shape, as exporters declare it.
  onnx::ValueInfoProto* s = g.add_input();
  s->set_name("s");
  s->mutable_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_tensor_type()
      ->set_elem_type(kFloat);
  return g;
}

TEST(ControlFlow, LoopGrowsACarriedSequenceByItsTripCount) {
  // SequenceEmpty, then T iterations that each append W [4] (twice in the second loop): the
  // final sequences hold T and 2*T elements of [4], so their lengths and concatenations are
  // known (the element shape comes from the first iteration, the empty sequence has none).
  ModelBuilder m(16);
  m.input("X", kFloat, {"T"}).input("W", kFloat, {4});
  m.node("Shape", {"X"}, {"S"}).node("ReduceSum", {"S"}, {"M"}, {attr("keepdims", 0)});
  m.node("SequenceEmpty", {}, {"empty"});
  m.node("Loop", {"M", "", "empty"}, {"once"}, {attr("body", appending_body(1))});
  m.node("Loop", {"M", "", "empty"}, {"twice"}, {attr("body", appending_body(2))});
  m.node("SequenceLength", {"once"}, {"n1"}).node("SequenceLength", {"twice"}, {"n2"});
  m.node("ConcatFromSequence", {"once"}, {"stacked"}, {attr("axis", 0), attr("new_axis", 1)});
  m.node("ConcatFromSequence", {"twice"}, {"joined"}, {attr("axis", 0)});
  auto a = analyze_shapes(m);
  EXPECT_EQ(a.dims("once"), (Dims{"4"})) << a.warnings();
  EXPECT_EQ(a.value("n1"), (Dims{"T"}));
  EXPECT_EQ(a.value("n2"), (Dims{"2*T"}));
  EXPECT_EQ(a.dims("stacked"), (Dims{"T", "4"}));
  EXPECT_EQ(a.dims("joined"), (Dims{"8*T"}));
}

TEST(ControlFlow, LoopSequenceWhoseElementsChangeHasNoLength) {
  // Each iteration appends a tensor of another shape than the elements before it: the elements
  // are not uniform, so the length stays unknown and the concatenation is fresh.
  ModelBuilder m(16);
  m.input("X", kFloat, {"T"}).input("W", kFloat, {4});
  m.node("Shape", {"X"}, {"S"}).node("ReduceSum", {"S"}, {"M"}, {attr("keepdims", 0)});
  m.node("SequenceConstruct", {"X"}, {"start"});
  m.node("Loop", {"M", "", "start"}, {"grown"}, {attr("body", appending_body(1))});
  m.node("SequenceLength", {"grown"}, {"n"});
  auto a = analyze_shapes(m);
  EXPECT_EQ(a.value("n"), Dims{}) << a.warnings();
}

// ---- Scan ---------------------------------------------------------------------------------------

TEST(ControlFlow, ScanAxesRemoveAndInsertTheSequenceAxis) {
  // Scan input [N, T, 4] scanned on axis 1; state [N, 4] accumulates; the per-step output is
  // stacked on axis 1 and a second one on axis -1 (the last).
  GraphBuilder body;
  body.input("s", kFloat, {"N", 4}).input("x", kFloat, {"N", 4});
  body.node("Add", {"s", "x"}, {"s2"}).output("s2");
  body.node("Identity", {"x"}, {"y"}).output("y");
  body.node("Identity", {"x"}, {"z"}).output("z");
  ModelBuilder m(16);
  m.input("S0", kFloat, {"N", 4}).input("X", kFloat, {"N", "T", 4});
  m.node("Scan", {"S0", "X"}, {"S", "Y", "Z"},
         {attr("body", body.graph()), attr("num_scan_inputs", 1), attr("scan_input_axes", Ints{1}),
          attr("scan_output_axes", Ints{1, -1})});
  auto a = analyze_shapes(m);
  EXPECT_EQ(a.dims("S"), (Dims{"N", "4"})) << a.warnings();
  EXPECT_EQ(a.dims("Y"), (Dims{"N", "T", "4"}));
  EXPECT_EQ(a.dims("Z"), (Dims{"N", "4", "T"}));
}

TEST(ControlFlow, ScanUnifiesTheSequenceLengthOfItsInputs) {
  GraphBuilder body;
  body.input("a", kFloat, {4}).input("b", kFloat, {4});
  body.node("Add", {"a", "b"}, {"y"}).output("y");
  ModelBuilder m(16);
  m.input("A", kFloat, {"T", 4}).input("B", kFloat, {"U", 4});
  m.node("Scan", {"A", "B"}, {"Y"}, {attr("body", body.graph()), attr("num_scan_inputs", 2)});
  auto a = analyze_shapes(m);
  EXPECT_EQ(a.dims("Y"), (Dims{"T", "4"}));
  ASSERT_EQ(count_constraints(a, Constraint::Kind::kEq), 1u);
}

TEST(ControlFlow, ScanOpset8HasBatchAndSequenceAxes) {
  GraphBuilder body;
  body.input("s", kFloat, {4}).input("x", kFloat, {4});
  body.node("Add", {"s", "x"}, {"s2"}).output("s2");
  body.node("Identity", {"x"}, {"y"}).output("y");
  ModelBuilder m(8);
  m.input("S0", kFloat, {"B", 4}).input("X", kFloat, {"B", "T", 4});
  m.node("Scan", {"", "S0", "X"}, {"S", "Y"},
         {attr("body", body.graph()), attr("num_scan_inputs", 1)});
  auto a = analyze_shapes(m);
  EXPECT_EQ(a.dims("S"), (Dims{"B", "4"})) << a.warnings();
  EXPECT_EQ(a.dims("Y"), (Dims{"B", "T", "4"}));
}

// ---- SequenceMap --------------------------------------------------------------------------------

TEST(ControlFlow, SequenceMapAppliesTheBodyToEachElement) {
  GraphBuilder body;
  body.input("x", kFloat, {"N", 4}).input("w", kFloat, {4, 8});
  body.node("MatMul", {"x", "w"}, {"y"}).output("y");
  ModelBuilder m(17);
  m.input("A", kFloat, {"N", 4}).input("B", kFloat, {"N", 4}).input("W", kFloat, {4, 8});
  m.node("SequenceConstruct", {"A", "B"}, {"seq"});
  m.node("SequenceMap", {"seq", "W"}, {"mapped"}, {attr("body", body.graph())});
  m.node("SequenceAt", {"mapped", "zero"}, {"first"}).initializer_ints("zero", {0}, {});
  auto a = analyze_shapes(m);
  EXPECT_EQ(a.shape("mapped").kind, ValueKind::kSequence) << a.warnings();
  EXPECT_EQ(a.dims("mapped"), (Dims{"N", "8"}));
  EXPECT_EQ(a.dims("first"), (Dims{"N", "8"}));
}

}  // namespace
}  // namespace cctx
