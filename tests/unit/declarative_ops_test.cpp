// Declarative custom ops (`ops:` of a profile): the reader and its exact `file:line:column`
// errors, the expression compiler, `extends` merging, and the rules in the real pipeline
// (shapes, dtypes, tags, in-place, scratch, and the failures handled like a plugin rule's).
#include <gtest/gtest.h>

#include <fstream>

#include "cctx/errors.hpp"
#include "cctx/profile.hpp"
#include "declarative/dim_program.hpp"
#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

namespace fs = std::filesystem;

class DeclarativeOps : public ::testing::Test {
 protected:
  fs::path write(const std::string& name, const std::string& text) {
    const fs::path file = dir_ / name;
    std::ofstream(file, std::ios::binary) << text;
    return file;
  }

  /// Writes `text` as p.yaml; the ConfigError's message without the "<dir>/p.yaml:" prefix, or
  /// "(loaded)" when the profile loads.
  std::string error_in(const std::string& text) {
    const fs::path file = write("p.yaml", text);
    try {
      load_profile(file);
    } catch (const ConfigError& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
      const std::string prefix = file.string() + ":";
      if (message.compare(0, prefix.size(), prefix) != 0) return "(no file prefix) " + message;
      return message.substr(prefix.size());
    }
    return "(loaded)";
  }

  /// An op entry of domain `d`, type X, with `body` appended (indented as entry keys).
  std::string error_in_op(const std::string& body) {
    return error_in("ops:\n  - domain: d\n    op_type: X\n" + body);
  }

  test::TempDir dir_;
};

// ---- reading
// -------------------------------------------------------------------------------------

TEST_F(DeclarativeOps, EveryKeyIsRead) {
  const fs::path file = write("p.yaml", R"(ops:
  - domain: com.example
    op_type: Heads
    since_version: 3
    inputs: [1, 2]
    defaults: {heads: 4, to: 10}
    outputs:
      - dtype: in1
        shape:
          - in0[0]
          - in0[-1] // attr.heads
      - {dtype: attr.to, shape: in0}
      - {dtype: int64, shape: []}
    tags: {inputs: {1: weight}, node: shape, inherit: none, backward: input0}
    alias: [[1, 0]]
    may_reuse: [[0, 1]]
    scratch: 4 * rank(in0)
    override: true
  - domain: ai.onnx
    op_type: Plain
    outputs: [{shape: in0}]
)");
  const Profile p = load_profile(file);
  ASSERT_EQ(p.ops.size(), 2u);
  const DeclaredOp& op = p.ops[0];
  EXPECT_EQ(op.domain, "com.example");
  EXPECT_EQ(op.op_type, "Heads");
  EXPECT_EQ(op.since_version, 3);
  EXPECT_EQ(op.min_inputs, 1u);
  EXPECT_EQ(op.max_inputs, 2u);
  EXPECT_EQ(op.defaults, (detail::AttrDefaults{{"heads", 4}, {"to", 10}}));
  ASSERT_EQ(op.outputs.size(), 3u);
  EXPECT_EQ(op.outputs[0].dtype_from, DeclaredOutput::DtypeFrom::kInput);
  EXPECT_EQ(op.outputs[0].dtype_input, 1u);
  ASSERT_EQ(op.outputs[0].dims.size(), 2u);
  EXPECT_EQ(op.outputs[0].dims[1].text, "in0[-1] // attr.heads");
  EXPECT_EQ(op.outputs[0].dims[1].name, "outputs[0].shape[1]");
  EXPECT_EQ(op.outputs[1].dtype_from, DeclaredOutput::DtypeFrom::kAttribute);
  EXPECT_EQ(op.outputs[1].dtype_attribute, "to");
  EXPECT_TRUE(op.outputs[1].shape_from_input);
  EXPECT_EQ(op.outputs[2].dtype_from, DeclaredOutput::DtypeFrom::kFixed);
  EXPECT_EQ(op.outputs[2].dtype, 7);
  EXPECT_TRUE(op.outputs[2].dims.empty());
  EXPECT_FALSE(op.outputs[2].shape_from_input);
  EXPECT_TRUE(op.has_tags);
  EXPECT_EQ(op.node_tag, sdk::Tag::kShape);
  ASSERT_EQ(op.input_tags.size(), 1u);
  EXPECT_EQ(op.input_tags[0].input, 1u);
  EXPECT_EQ(op.input_tags[0].tag, sdk::Tag::kWeight);
  EXPECT_EQ(op.inherit, sdk::TagInherit::kNone);
  EXPECT_EQ(op.backward, sdk::TagBackward::kInput0);
  EXPECT_TRUE(op.has_inplace);
  EXPECT_EQ(op.alias, (std::vector<std::pair<std::uint32_t, std::uint32_t>>{{1, 0}}));
  EXPECT_EQ(op.may_reuse, (std::vector<std::pair<std::uint32_t, std::uint32_t>>{{0, 1}}));
  ASSERT_TRUE(op.scratch.has_value());
  EXPECT_EQ(op.scratch->name, "scratch");
  EXPECT_TRUE(op.override_rules);
  EXPECT_EQ(op.where, file.string() + ":2:5");

  const DeclaredOp& plain = p.ops[1];
  EXPECT_EQ(plain.domain, "");  // ai.onnx is normalized
  EXPECT_EQ(plain.since_version, 1);
  EXPECT_EQ(plain.min_inputs, 0u);
  EXPECT_EQ(plain.max_inputs, DeclaredOp::kAnyInputs);
  EXPECT_EQ(plain.outputs[0].dtype_from, DeclaredOutput::DtypeFrom::kInput);  // in0's by default
  EXPECT_FALSE(plain.has_tags);
  EXPECT_FALSE(plain.has_inplace);
  EXPECT_FALSE(plain.scratch.has_value());
  EXPECT_FALSE(plain.override_rules);
}

TEST_F(DeclarativeOps, EmptyInPlaceListsStillDeclareAPolicy) {
  // `may_reuse: []` says "no reuse": it registers a policy that declares nothing.
  const Profile p = load_profile(write(
      "p.yaml", "ops:\n  - {domain: d, op_type: X, outputs: [{shape: in0}], may_reuse: []}\n"));
  ASSERT_EQ(p.ops.size(), 1u);
  EXPECT_TRUE(p.ops[0].has_inplace);
  EXPECT_TRUE(p.ops[0].may_reuse.empty());
}

TEST_F(DeclarativeOps, ExtendsAddsOpsAndTheChildReplacesTheSameKey) {
  write("base.yaml", R"(ops:
  - {domain: d, op_type: A, outputs: [{shape: in0}]}
  - {domain: d, op_type: B, outputs: [{shape: in0}]}
  - {domain: d, op_type: B, since_version: 2, outputs: [{shape: in0}]}
)");
  const Profile p = load_profile(write("child.yaml", R"(extends: base.yaml
ops:
  - {domain: d, op_type: C, outputs: [{shape: in0}]}
  - {domain: d, op_type: B, outputs: [{dtype: int8, shape: in0}]}
)"));
  ASSERT_EQ(p.ops.size(), 4u);
  EXPECT_EQ(p.ops[0].op_type, "A");
  EXPECT_EQ(p.ops[1].op_type, "B");  // replaced in place: the child's entry
  EXPECT_EQ(p.ops[1].outputs[0].dtype_from, DeclaredOutput::DtypeFrom::kFixed);
  EXPECT_NE(p.ops[1].where.find("child.yaml:4:5"), std::string::npos) << p.ops[1].where;
  EXPECT_EQ(p.ops[2].op_type, "B");  // since_version 2 is another key: kept
  EXPECT_EQ(p.ops[2].since_version, 2);
  EXPECT_EQ(p.ops[3].op_type, "C");
}

// ---- errors: file:line:column and one line
// -------------------------------------------------------

TEST_F(DeclarativeOps, UnknownKeysListTheAllowedOnes) {
  EXPECT_EQ(error_in_op("    outptus: [{shape: in0}]\n"),
            "4:5: unknown key 'outptus' in 'ops[0]'; allowed: domain, op_type, since_version, "
            "inputs, outputs, defaults, tags, may_reuse, alias, scratch, override, write_into, "
            "requires; did you mean 'outputs'?");
  EXPECT_EQ(error_in_op("    outputs: [{shape: in0, dtyp: int8}]\n"),
            "4:28: unknown key 'dtyp' in 'ops[0].outputs[0]'; allowed: dtype, shape; did you mean "
            "'dtype'?");
  EXPECT_EQ(error_in_op("    outputs: [{shape: in0}]\n    tags: {input: {1: weight}}\n"),
            "5:12: unknown key 'input' in 'ops[0].tags'; allowed: inputs, node, inherit, "
            "backward; did you mean 'inputs'?");
}

TEST_F(DeclarativeOps, MissingRequiredKeys) {
  EXPECT_EQ(error_in("ops:\n  - domain: d\n    outputs: [{shape: in0}]\n"),
            "2:5: 'ops[0]' has no 'op_type'");
  EXPECT_EQ(error_in_op("    inputs: 1\n"), "2:5: 'ops[0]' has no 'outputs'");
  EXPECT_EQ(error_in_op("    outputs: [{dtype: int8}]\n"),
            "4:15: 'ops[0].outputs[0]' has no 'shape'");
  EXPECT_EQ(error_in_op("    outputs: []\n"),
            "4:14: 'ops[0].outputs' must list at least one output");
  EXPECT_EQ(error_in_op("    inputs: 0\n    outputs: [{shape: []}]\n"),
            "5:15: 'ops[0].outputs[0]' has no 'dtype', and the op has no input to take it from");
}

TEST_F(DeclarativeOps, WrongTypes) {
  EXPECT_EQ(error_in("ops: {domain: d}\n"), "1:6: 'ops' must be a list of op entries, got a map");
  EXPECT_EQ(error_in("ops:\n  - ScaledAdd\n"),
            "2:5: 'ops[0]' must be a map with 'domain', 'op_type' and 'outputs', got 'ScaledAdd'");
  EXPECT_EQ(error_in_op("    since_version: one\n    outputs: [{shape: in0}]\n"),
            "4:20: 'ops[0].since_version' must be an integer between 1 and 2147483647, got 'one'");
  EXPECT_EQ(error_in("ops:\n  - domain: d\n    op_type: Scaled Add\n    outputs: [{shape: in0}]\n"),
            "3:14: 'ops[0].op_type' must be an operator name ([A-Za-z_][A-Za-z0-9_]*), got "
            "'Scaled Add'");
  EXPECT_EQ(error_in_op("    inputs: [3, 1]\n    outputs: [{shape: in0}]\n"),
            "4:13: 'ops[0].inputs' must be a count or [min, max] with min <= max, got [3, 1]");
  EXPECT_EQ(error_in_op("    defaults: {heads: 1.5}\n    outputs: [{shape: in0}]\n"),
            "4:23: 'ops[0].defaults.heads' must be an integer, got '1.5'");
  EXPECT_EQ(error_in_op("    outputs:\n      - shape: in0[0]\n"),
            "5:16: 'ops[0].outputs[0].shape' must be inK (input K's shape) or a list of dim "
            "expressions, got 'in0[0]'");
  EXPECT_EQ(error_in_op("    outputs: [{shape: in0}]\n    override: yes\n"),
            "5:15: 'ops[0].override' must be a boolean (true/false), got 'yes'");
}

TEST_F(DeclarativeOps, BadElementTypeSuggestsTheClosestName) {
  const std::string e = error_in_op("    outputs: [{shape: in0, dtype: flaot16}]\n");
  const std::string head = "4:35: 'ops[0].outputs[0].dtype' must be inK (input K's type), ";
  const std::string tail = "float, double), got 'flaot16'; did you mean 'float16'?";
  EXPECT_EQ(e.substr(0, head.size()), head) << e;
  EXPECT_NE(e.find("element type (float32, uint8, int8, "), std::string::npos) << e;
  ASSERT_GT(e.size(), tail.size());
  EXPECT_EQ(e.substr(e.size() - tail.size()), tail) << e;
  EXPECT_EQ(error_in_op("    outputs: [{shape: in0, dtype: attr.2x}]\n"),
            "4:35: 'ops[0].outputs[0].dtype': '2x' is not an attribute name "
            "([A-Za-z_][A-Za-z0-9_]*)");
}

TEST_F(DeclarativeOps, ExpressionErrorsPointInsideTheScalar) {
  // Plain scalar in a block list: the column of the problem itself.
  EXPECT_EQ(error_in_op("    outputs:\n      - shape:\n          - in0[0] in0[1]\n"),
            "6:20: 'ops[0].outputs[0].shape[0]': bad expression 'in0[0] in0[1]': unexpected "
            "'in0[1]'");
  // Quoted in a flow list: one past the opening quote.
  EXPECT_EQ(error_in_op("    outputs: [{shape: [\"in0[0]\", \"in0[1] *\"]}]\n"),
            "4:43: 'ops[0].outputs[0].shape[1]': bad expression 'in0[1] *': expected an operand "
            "at end of input");
  EXPECT_EQ(error_in_op("    outputs: [{shape: in0}]\n    scratch: 4 * in0 + 1\n"),
            "5:21: 'ops[0].scratch': bad expression '4 * in0 + 1': expected '[' after 'in0' (write "
            "in0[j] for dim j of input 0)");
  EXPECT_EQ(error_in_op("    outputs: [{shape: in0}]\n    scratch: 4 * attr. + 1\n"),
            "5:23: 'ops[0].scratch': bad expression '4 * attr. + 1': expected an attribute name "
            "after 'attr.'");
  EXPECT_EQ(error_in_op("    outputs: [{shape: in0}]\n    scratch: 4 * foo(in0[1])\n"),
            "5:18: 'ops[0].scratch': bad expression '4 * foo(in0[1])': unknown function 'foo'");
  EXPECT_EQ(error_in_op("    outputs: [{shape: in0}]\n    scratch: 4 * rank(x)\n"),
            "5:23: 'ops[0].scratch': bad expression '4 * rank(x)': rank() takes one input, as in "
            "rank(in0)");
  EXPECT_EQ(error_in_op("    outputs: [{shape: in0}]\n    scratch: in0[1 + 2\n"),
            "5:20: 'ops[0].scratch': bad expression 'in0[1 + 2': expected ']' to close 'in0[' "
            "before '+'");
  // A block scalar is not mapped column by column: its own position.
  EXPECT_EQ(error_in_op("    outputs: [{shape: in0}]\n    scratch: >-\n      4 *\n      (in0[1]\n"),
            "5:14: 'ops[0].scratch': bad expression '4 * (in0[1]': expected ')' at end of input");
}

TEST_F(DeclarativeOps, UnquotedReferenceInAFlowListGetsAHint) {
  EXPECT_EQ(error_in_op("    outputs: [{shape: [in0[0], 4]}]\n"),
            "4:27: YAML syntax error: end of sequence flow not found (inside [ ] or { }, quote "
            "expressions that use [ ], e.g. \"in0[1]\")");
}

TEST_F(DeclarativeOps, ReferencesBeyondTheDeclaredInputs) {
  EXPECT_EQ(
      error_in_op("    inputs: 2\n    outputs:\n      - shape:\n          - in0[0] + in2[1]\n"),
      "7:22: 'ops[0].outputs[0].shape[0]': 'in2[1]' refers to input 2, but the op declares 2 "
      "inputs");
  EXPECT_EQ(error_in_op("    inputs: [1, 2]\n    outputs: [{shape: in2}]\n"),
            "5:23: 'ops[0].outputs[0].shape' refers to input 2, but the op declares at most 2 "
            "inputs");
  EXPECT_EQ(error_in_op("    inputs: 1\n    outputs: [{shape: in0, dtype: in1}]\n"),
            "5:35: 'ops[0].outputs[0].dtype' refers to input 1, but the op declares 1 input");
  EXPECT_EQ(
      error_in_op("    inputs: 1\n    outputs: [{shape: in0}]\n    tags: {inputs: {3: weight}}\n"),
      "6:21: 'ops[0].tags.inputs.3' refers to input 3, but the op declares 1 input");
  EXPECT_EQ(error_in_op("    inputs: 1\n    outputs: [{shape: in0}]\n    scratch: rank(in1)\n"),
            "6:14: 'ops[0].scratch': 'rank(in1)' refers to input 1, but the op declares 1 input");
}

TEST_F(DeclarativeOps, InputRequirementsAreRead) {
  const fs::path file = write("p.yaml", R"(ops:
  - domain: d
    op_type: X
    inputs: [{rank: 2}, {rank: [1, null], optional: true}, {optional: true}]
    outputs: [{shape: in0}]
)");
  const Profile p = load_profile(file);
  const DeclaredOp& op = p.ops.at(0);
  EXPECT_EQ(op.min_inputs, 1u);  // up to the last input that is not optional
  EXPECT_EQ(op.max_inputs, 3u);
  ASSERT_EQ(op.input_specs.size(), 3u);
  EXPECT_TRUE(op.input_specs[0].has_rank);
  EXPECT_FALSE(op.input_specs[0].optional);
  EXPECT_EQ(op.input_specs[0].min_rank, 2);
  EXPECT_EQ(op.input_specs[0].max_rank, 2);
  EXPECT_TRUE(op.input_specs[1].optional);
  EXPECT_EQ(op.input_specs[1].min_rank, 1);
  EXPECT_EQ(op.input_specs[1].max_rank, DeclaredInput::kAnyRank);
  EXPECT_FALSE(op.input_specs[2].has_rank);
}

TEST_F(DeclarativeOps, InputRequirementsAreChecked) {
  const std::string out = "    outputs: [{shape: in0}]\n";
  EXPECT_EQ(error_in_op("    inputs: [{rank: 2}, 3]\n" + out),
            "4:25: 'ops[0].inputs[1]' must be a map of requirements of one input ({rank: R, "
            "optional: true}), got '3'");
  EXPECT_EQ(error_in_op("    inputs: [{rank: [3, 1]}]\n" + out),
            "4:21: 'ops[0].inputs[0].rank' must be a rank or [min, max] with min <= max, got [3, "
            "1]");
  EXPECT_EQ(error_in_op("    inputs: [{rank: 1.5}]\n" + out),
            "4:21: 'ops[0].inputs[0].rank' must be an integer between 0 and 1048576, got '1.5'");
  EXPECT_EQ(error_in_op("    inputs: [{optional: maybe}]\n" + out),
            "4:25: 'ops[0].inputs[0].optional' must be a boolean (true/false), got 'maybe'");
  EXPECT_EQ(error_in_op("    inputs: [{rank: 2}]\n    outputs: [{shape: in1}]\n"),
            "5:23: 'ops[0].outputs[0].shape' refers to input 1, but the op declares 1 input");
  EXPECT_EQ(error_in_op("    inputs: [2]\n" + out),
            "4:13: 'ops[0].inputs' must be a count or [min, max] (max may be null for no limit), "
            "got a list of 1 item; or a list of input requirements, one per input ({rank: R, "
            "optional: true})");
}

TEST_F(DeclarativeOps, InPlacePairsAreChecked) {
  EXPECT_EQ(error_in_op("    outputs: [{shape: in0}]\n    may_reuse: [[1, 0]]\n"),
            "5:18: 'ops[0].may_reuse[0]' names output 1, but the op declares 1 output");
  EXPECT_EQ(error_in_op("    inputs: 2\n    outputs: [{shape: in0}]\n    may_reuse: [[0, 2]]\n"),
            "6:21: 'ops[0].may_reuse[0]' refers to input 2, but the op declares 2 inputs");
  EXPECT_EQ(error_in_op("    outputs: [{shape: in0}]\n    may_reuse: [[0, 0], [0, 0]]\n"),
            "5:25: 'ops[0].may_reuse[1]' repeats [0, 0]");
  EXPECT_EQ(error_in_op("    outputs: [{shape: in0}]\n    may_reuse: [0, 0]\n"),
            "5:17: 'ops[0].may_reuse[0]' must be [output, input], got '0'");
  EXPECT_EQ(error_in_op("    outputs: [{shape: in0}]\n    alias: [[0, 0], [0, 1]]\n"),
            "5:21: 'ops[0].alias[1]': output 0 is already a view of input 0");
  EXPECT_EQ(error_in_op("    outputs: [{shape: in0}, {shape: in0}]\n    alias: [[0, 0], [1, 0]]\n"),
            "5:21: 'ops[0].alias[1]': input 0 already backs output 0");
  EXPECT_EQ(
      error_in_op("    outputs: [{shape: in0}]\n    alias: [[0, 0]]\n    may_reuse: [[0, 1]]\n"),
      "6:17: 'ops[0].may_reuse[0]': output 0 is already a view of input 0 ('alias'), it "
      "allocates nothing to reuse");
}

TEST_F(DeclarativeOps, TagsAreChecked) {
  EXPECT_EQ(error_in_op("    outputs: [{shape: in0}]\n    tags: {inputs: {x: weight}}\n"),
            "5:21: keys of 'ops[0].tags.inputs' must be input positions (integers >= 0), got 'x'");
  EXPECT_EQ(error_in_op("    outputs: [{shape: in0}]\n    tags: {inputs: {1: wieght}}\n"),
            "5:24: 'ops[0].tags.inputs.1' must be one of: weight, shape, axes; got 'wieght'; did "
            "you mean 'weight'?");
  EXPECT_EQ(error_in_op("    outputs: [{shape: in0}]\n    tags: {inherit: control_flow}\n"),
            "5:21: 'ops[0].tags.inherit' must be one of: input0, concat, none; got "
            "'control_flow'");
}

TEST_F(DeclarativeOps, AnOpTwiceInOneFileIsAnError) {
  EXPECT_EQ(error_in("ops:\n  - {domain: d, op_type: X, outputs: [{shape: in0}]}\n"
                     "  - {domain: d, op_type: X, since_version: 1, outputs: [{shape: in0}]}\n"),
            "3:5: 'ops[1]' declares d::X@1 again (first at line 2); an op is declared once per "
            "file");
}

// ---- the expression compiler
// ---------------------------------------------------------------------

TEST(DimProgram, ReferencesAreCompiledInSourceOrder) {
  const detail::DimProgram p =
      detail::compile_dim("in0[-1] // attr.heads + rank(in12) * attr.pads[1] + N + `a b`");
  ASSERT_EQ(p.refs.size(), 4u);
  EXPECT_EQ(p.refs[0].kind, detail::DimRef::Kind::kInputDim);
  EXPECT_EQ(p.refs[0].input, 0u);
  EXPECT_EQ(p.refs[0].index, -1);
  EXPECT_EQ(p.refs[0].text, "in0[-1]");
  EXPECT_EQ(p.refs[1].kind, detail::DimRef::Kind::kAttr);
  EXPECT_EQ(p.refs[1].attribute, "heads");
  EXPECT_EQ(p.refs[1].offset, 11u);
  EXPECT_EQ(p.refs[2].kind, detail::DimRef::Kind::kInputRank);
  EXPECT_EQ(p.refs[2].input, 12u);
  EXPECT_EQ(p.refs[3].kind, detail::DimRef::Kind::kAttrAt);
  EXPECT_EQ(p.refs[3].attribute, "pads");
  EXPECT_EQ(p.refs[3].index, 1);
  EXPECT_EQ(p.symbols, (std::vector<std::string>{"N", "`a b`"}));
}

TEST(DimProgram, InputFunctionsAreReferences) {
  const detail::DimProgram p =
      detail::compile_dim("2 * bytes(in0) + numel( in1 ) * elem_bytes(in2) + bytes + numel");
  ASSERT_EQ(p.refs.size(), 3u);
  EXPECT_EQ(p.refs[0].kind, detail::DimRef::Kind::kInputBytes);
  EXPECT_EQ(p.refs[0].input, 0u);
  EXPECT_EQ(p.refs[0].text, "bytes(in0)");
  EXPECT_EQ(p.refs[1].kind, detail::DimRef::Kind::kInputNumel);
  EXPECT_EQ(p.refs[1].input, 1u);
  EXPECT_EQ(p.refs[1].text, "numel( in1 )");
  EXPECT_EQ(p.refs[2].kind, detail::DimRef::Kind::kInputElemBytes);
  EXPECT_EQ(p.refs[2].input, 2u);
  // Without a call, the names are model symbols, as `rank` is.
  EXPECT_EQ(p.symbols, (std::vector<std::string>{"bytes", "numel"}));
  try {
    detail::compile_dim("4 * bytes(x)");
    FAIL() << "compiled";
  } catch (const detail::DimSyntaxError& e) {
    EXPECT_EQ(e.offset(), 10u);
    EXPECT_EQ(std::string(e.what()), "bytes() takes one input, as in bytes(in0)");
  }
}

TEST(DimProgram, IdentifiersThatOnlyLookLikeReferencesAreSymbols) {
  // `input`, `in_0`, `attribute`, `rank` without a call are ordinary model symbols.
  const detail::DimProgram p = detail::compile_dim("input + in_0 + attribute + rank + `in0[1]`");
  EXPECT_TRUE(p.refs.empty());
  EXPECT_EQ(p.symbols.size(), 5u);
}

TEST(DimProgram, SyntaxErrorsHaveTheOffsetOfTheWrittenText) {
  auto error = [](const std::string& text) -> std::pair<std::size_t, std::string> {
    try {
      detail::compile_dim(text);
    } catch (const detail::DimSyntaxError& e) {
      return {e.offset(), e.what()};
    }
    return {0, "(compiled)"};
  };
  EXPECT_EQ(error("in0[1] in0[2]"),
            (std::pair<std::size_t, std::string>{7, "unexpected 'in0[2]'"}));
  EXPECT_EQ(error("max(in0[1], attr.k"),
            (std::pair<std::size_t, std::string>{18, "expected ')' at end of input"}));
  EXPECT_EQ(error("2in0[1]"), (std::pair<std::size_t, std::string>{1, "unexpected 'i'"}));
  EXPECT_EQ(error("in0[]"), (std::pair<std::size_t, std::string>{
                                4, "expected an axis (an integer) in 'in0[...]'"}));
  EXPECT_EQ(error("in99999999[0]"),
            (std::pair<std::size_t, std::string>{
                0, "input number in 'in99999999' is out of range (at most 1048576)"}));
  EXPECT_EQ(error("a\x01"),
            (std::pair<std::size_t, std::string>{1, "byte 0x01 is not allowed in an expression"}));
  EXPECT_EQ(error(""),
            (std::pair<std::size_t, std::string>{0, "expected an operand at end of input"}));
}

// ---- in the pipeline
// -----------------------------------------------------------------------------

/// The default plugins plus `ops` (YAML text of the list) as a profile named t.yaml.
Profile with_ops(const std::string& ops, const std::string& extra = "") {
  return parse_profile("plugins: [{name: onnx}]\n" + extra + "ops:\n" + ops, "t.yaml",
                       fs::temp_directory_path());
}

const char* const kHeadsOps = R"yaml(  - domain: com.example
    op_type: SplitHeads
    inputs: 1
    outputs:
      - dtype: in0
        shape:
          - in0[0]
          - attr.heads
          - in0[1]
          - in0[-1] // attr.heads
    alias: [[0, 0]]
  - domain: com.example
    op_type: Quant
    inputs: [1, 2]
    defaults: {to: 3, block: 64}
    outputs:
      - {dtype: attr.to, shape: in0}
      - {dtype: float16, shape: ["rank(in0)"]}
    tags: {inputs: {1: shape}}
    may_reuse: [[0, 0]]
    scratch: attr.block * in0[0] + 4 * rank(in0)
)yaml";

test::ModelBuilder heads_model(std::vector<onnx::AttributeProto> split_attrs,
                               test::ShapeSpec x_shape = {"B", "S", 64}) {
  test::ModelBuilder b(18);
  b.opset("com.example", 1);
  b.input("x", test::kFloat, x_shape);
  b.initializer_floats("w", {1, 2});
  b.node("Relu", {"x"}, {"r"});
  b.node("SplitHeads", {"r"}, {"h"}, std::move(split_attrs), "com.example", "split");
  b.node("Quant", {"h", "w"}, {"q", "scale"}, {test::attr("block", 8)}, "com.example", "quant");
  b.output("q");
  b.output("scale");
  return b;
}

TEST(DeclarativeOpsPipeline, ShapesTypesTagsInplaceAndScratch) {
  test::Analysis a =
      test::analyze(heads_model({test::attr("heads", 4)}).build(), with_ops(kHeadsOps));
  EXPECT_EQ(a.warnings(), "");
  EXPECT_EQ(a.dims("h"), (test::Dims{"B", "4", "S", "16"}));
  EXPECT_EQ(a.dtype("h"), test::kFloat);
  EXPECT_EQ(a.dims("q"), (test::Dims{"B", "4", "S", "16"}));
  EXPECT_EQ(a.dtype("q"), test::kInt8);  // attr.to's default
  EXPECT_EQ(a.dims("scale"), (test::Dims{"4"}));
  EXPECT_EQ(a.dtype("scale"), test::kFloat16);
  EXPECT_EQ(a.scratch(2), "8*B+16");  // the node's block=8 wins over the default 64
  EXPECT_EQ(a.ctx->value_tag(a.id("w")), sdk::Tag::kShape);  // imposed on input 1
  ASSERT_EQ(a.ctx->inplace(1).size(), 1u);
  EXPECT_EQ(a.ctx->inplace(1)[0].mode, ReuseMode::kAlias);
  // q (int8) fits in h's float32 buffer, which dies at Quant: taken over.
  ASSERT_EQ(a.ctx->inplace(2).size(), 1u);
  EXPECT_EQ(a.ctx->inplace(2)[0].mode, ReuseMode::kMayReuse);
  EXPECT_EQ(a.ctx->inplace(2)[0].kind, ReuseKind::kGreater);
}

TEST(DeclarativeOpsPipeline, MissingAttributeIsARuleFailureWithTheFallbacks) {
  test::Analysis a = test::analyze(heads_model({}).build(), with_ops(kHeadsOps));
  EXPECT_TRUE(a.has_warning(
      "node 1 'split' (com.example:SplitHeads): outputs[0].shape[1]: 'attr.heads': the node has "
      "no attribute 'heads' and the op declares no default (shape rule profile t.yaml:3:5); "
      "using the fallbacks"))
      << a.warnings();
  EXPECT_EQ(a.dims("h"), (test::Dims{"<unknown rank>"}));
}

TEST(DeclarativeOpsPipeline, AttributeOfAnotherTypeIsARuleFailure) {
  test::Analysis a =
      test::analyze(heads_model({test::attr("heads", 4.0f)}).build(), with_ops(kHeadsOps));
  EXPECT_TRUE(a.has_warning("'attr.heads': attribute 'heads' is FLOAT, not INT")) << a.warnings();
}

TEST(DeclarativeOpsPipeline, TooFewDimsIsARuleFailure) {
  test::Analysis a =
      test::analyze(heads_model({test::attr("heads", 4)}, {"B"}).build(), with_ops(kHeadsOps));
  EXPECT_TRUE(a.has_warning("outputs[0].shape[2]: 'in0[1]': input 0 has rank 1 (shape rule "))
      << a.warnings();
}

TEST(DeclarativeOpsPipeline, UnknownRankIsARuleFailureButShapeInKFollowsIt) {
  test::ModelBuilder b(18);
  b.opset("com.example", 1);
  b.input("x", test::kFloat, test::ShapeSpec::unknown());
  b.node("Same", {"x"}, {"y"}, {}, "com.example");
  b.node("Dims", {"x"}, {"z"}, {}, "com.example");
  b.output("y");
  b.output("z");
  const Profile p = with_ops(R"(  - {domain: com.example, op_type: Same, outputs: [{shape: in0}]}
  - {domain: com.example, op_type: Dims, outputs: [{shape: ["in0[0]"]}], scratch: "in0[0]"}
)");
  test::Analysis a = test::analyze(b.build(), p);
  EXPECT_EQ(a.dims("y"), (test::Dims{"<unknown rank>"}));
  EXPECT_FALSE(a.has_warning("(com.example:Same)")) << a.warnings();
  EXPECT_TRUE(a.has_warning("outputs[0].shape[0]: 'in0[0]': input 0 has an unknown rank"))
      << a.warnings();
  // The scratch estimate fails the same way: a named unknown, never a silent 0.
  EXPECT_EQ(a.scratch(1), "scratch_Dims_1");
  EXPECT_TRUE(
      a.has_warning("scratch estimate unavailable (scratch: 'in0[0]': input 0 has an "
                    "unknown rank); reported as scratch_Dims_1"))
      << a.warnings();
}

TEST(DeclarativeOpsPipeline, InputAndOutputCountsAreChecked) {
  test::ModelBuilder b(18);
  b.opset("com.example", 1);
  b.input("x", test::kFloat, {"N"});
  b.node("One", {"x", "x"}, {"y"}, {}, "com.example");
  b.node("One", {"x"}, {"z", "extra"}, {}, "com.example");
  b.output("y");
  b.output("z");
  b.output("extra");
  test::Analysis a = test::analyze(
      b.build(),
      with_ops("  - {domain: com.example, op_type: One, inputs: 1, outputs: [{shape: in0}]}\n"));
  EXPECT_TRUE(a.has_warning("node 0 (com.example:One): the node has 2 inputs; the op declares 1"))
      << a.warnings();
  EXPECT_TRUE(a.has_warning("the node has 2 outputs; the op declares 1")) << a.warnings();
}

TEST(DeclarativeOpsPipeline, StrictModeMakesARuleFailureAnAnalysisError) {
  const Profile p = with_ops(kHeadsOps, "shapes: {strict: true}\n");
  try {
    test::analyze(heads_model({}).build(), p);
    FAIL() << "no error";
  } catch (const AnalysisError& e) {
    EXPECT_EQ(std::string(e.what()),
              "node 1 'split' (com.example:SplitHeads) [domain 'com.example', opset 1]: "
              "outputs[0].shape[1]: 'attr.heads': the node has no attribute 'heads' and the op "
              "declares no default");
    EXPECT_EQ(e.exit_code(), ExitCode::kAnalysis);
  }
}

TEST(DeclarativeOpsPipeline, RulesAreRegisteredAsThePseudoPluginOfTheProfile) {
  auto host = test::make_host(with_ops(kHeadsOps));
  ASSERT_EQ(host->plugins().size(), 2u);
  const PluginInfo& info = host->plugins()[1];
  EXPECT_EQ(info.name, "profile:t.yaml");
  EXPECT_EQ(info.declared_ops, 2u);
  const RuleEntry* shape = host->registry()->find(RuleKind::kShape, "com.example", "Quant", 1);
  ASSERT_NE(shape, nullptr);
  EXPECT_EQ(shape->origin, "profile t.yaml:14:5");
  EXPECT_EQ(shape->owner.get(), info.owner);
  EXPECT_NE(host->registry()->find(RuleKind::kTagTraits, "com.example", "Quant", 1), nullptr);
  EXPECT_NE(host->registry()->find(RuleKind::kScratch, "com.example", "Quant", 1), nullptr);
  EXPECT_EQ(host->registry()->find(RuleKind::kScratch, "com.example", "SplitHeads", 1), nullptr);
  ASSERT_EQ(host->registry()->domains().size(), 3u);  // ai.onnx, preview.training, com.example
  const DomainRange& d = host->registry()->domains().back();
  EXPECT_EQ(d.domain, "com.example");
  EXPECT_EQ(d.origin, info.origin);
}

}  // namespace
}  // namespace cctx
