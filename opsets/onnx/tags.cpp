// Tag traits of the ai.onnx operators (semantics.md "Tags: Per-node rule"): explicit tags,
// positional input tags, inheritance and backward propagation. Ops not listed inherit input 0's
// tag.
#include "families.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

constexpr PositionalTag kShapeAt1[] = {{1, Tag::kShape}};
constexpr PositionalTag kAxesAt1[] = {{1, Tag::kAxes}};
constexpr PositionalTag kSlicePositions[] = {
    {1, Tag::kShape}, {2, Tag::kShape}, {3, Tag::kAxes}, {4, Tag::kShape}};

struct TagEntry {
  const char* op;
  TagTraits traits;
};

TagTraits explicit_tag(Tag t) {
  TagTraits traits;
  traits.explicit_tag = t;
  return traits;
}
template <std::size_t N>
TagTraits positional(const PositionalTag (&p)[N], TagBackward backward) {
  TagTraits traits;
  traits.positional = Span<PositionalTag>{p, N};
  traits.backward = backward;
  return traits;
}
TagTraits backward(TagBackward b) {
  TagTraits traits;
  traits.backward = b;
  return traits;
}

}  // namespace

void register_tags(Registration& reg) {
  TagTraits constant;
  constant.constant_like = true;
  TagTraits concat;
  concat.inherit = TagInherit::kConcat;
  concat.backward = TagBackward::kAllInputs;
  TagTraits control_flow;
  control_flow.inherit = TagInherit::kControlFlow;

  const TagEntry entries[] = {
      {"Shape", explicit_tag(Tag::kShape)},
      {"Size", explicit_tag(Tag::kShape)},
      {"Constant", constant},
      {"Reshape", positional(kShapeAt1, TagBackward::kInput0)},
      {"Expand", positional(kShapeAt1, TagBackward::kNone)},
      {"Slice", positional(kSlicePositions, TagBackward::kInput0)},
      {"Squeeze", positional(kAxesAt1, TagBackward::kInput0)},
      {"Unsqueeze", positional(kAxesAt1, TagBackward::kInput0)},
      {"ReduceSum", positional(kAxesAt1, TagBackward::kNone)},
      {"ReduceMean", positional(kAxesAt1, TagBackward::kNone)},
      {"ReduceMax", positional(kAxesAt1, TagBackward::kNone)},
      {"ReduceMin", positional(kAxesAt1, TagBackward::kNone)},
      // Not in semantics.md's table, but these take axes as input 1 from opset 18 as well.
      {"ReduceProd", positional(kAxesAt1, TagBackward::kNone)},
      {"ReduceL1", positional(kAxesAt1, TagBackward::kNone)},
      {"ReduceL2", positional(kAxesAt1, TagBackward::kNone)},
      {"ReduceLogSum", positional(kAxesAt1, TagBackward::kNone)},
      {"ReduceLogSumExp", positional(kAxesAt1, TagBackward::kNone)},
      {"ReduceSumSquare", positional(kAxesAt1, TagBackward::kNone)},
      {"Concat", concat},
      {"If", control_flow},
      {"Loop", control_flow},
      {"Scan", control_flow},
      {"Identity", backward(TagBackward::kInput0)},
      {"Cast", backward(TagBackward::kInput0)},
      {"Gather", backward(TagBackward::kInput0)},
  };
  for (const TagEntry& e : entries) reg.tags(e.op, e.traits);
  // Binary arithmetic, comparison and logic: a weight result makes both operands weight.
  const char* const binary_weight_back[] = {
      "Add",   "And",     "BitwiseAnd",     "BitwiseOr", "BitShift",    "BitwiseXor", "Div",
      "Equal", "Greater", "GreaterOrEqual", "Less",      "LessOrEqual", "Mod",        "Mul",
      "Or",    "Pow",     "PRelu",          "Sub",       "Xor"};
  for (const char* op : binary_weight_back)
    reg.tags(op, backward(TagBackward::kInputs01WeightOnly));
}

}  // namespace cctx::opsets::onnx
