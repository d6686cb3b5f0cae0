// Hostile input at the edges of what cctx checks, through the real `cctx` binary: a plugin that
// hands back expression handles naming nothing, `eval` of a division by zero, sizes right at the
// int64 ceiling, streams beyond limits.file_bytes, and integer overflow inside a node's shapes.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <sys/resource.h>

#include <fstream>

#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::contains;
using test::expect_error;
using test::quoted;
using test::run_cctx;
using test::write_file;

void save(const test::ModelBuilder& b, const std::filesystem::path& path) {
  write_file(path, b.build().proto().SerializeAsString());
}

class HostileInput : public ::testing::Test {
 protected:
  std::filesystem::path path(const std::string& name) const { return dir_ / name; }
  /// A profile file holding `yaml`, as the option that selects it.
  std::string profile(const std::string& yaml, const std::string& name = "p.yaml") const {
    write_file(dir_ / name, yaml);
    return " --profile " + quoted(dir_ / name);
  }
  test::RunResult analyze(const std::string& model, const std::string& extra = "") const {
    return run_cctx("analyze " + quoted(path(model)) + extra);
  }
  test::TempDir dir_;
};

// ---- handles from plugins ----------------------------------------------------------------------

/// X:float[N,4] -> com.test::<op> 'suspect' -> Y, for the bad_handles fixture's rules.
void save_suspect(const std::string& op, const std::filesystem::path& path) {
  test::ModelBuilder b(18);
  b.opset("com.test", 1);
  b.input("X", test::kFloat, {"N", 4});
  b.node(op, {"X"}, {"Y"}, {}, "com.test", "suspect");
  b.output("Y");
  save(b, path);
}

class BadHandles : public HostileInput {
 protected:
  std::string plugin_profile(bool strict) const {
    return profile(std::string("plugins:\n  - name: onnx\n  - path: '") + FIXTURE_BAD_HANDLES +
                       "'\n" + (strict ? "shapes: {strict: true}\n" : ""),
                   strict ? "strict.yaml" : "p.yaml");
  }
  /// The warning (or strict error) names the node, the plugin and the rule kind.
  static void expect_named(const std::string& err, const std::string& op, const std::string& where,
                           const std::string& kind) {
    EXPECT_TRUE(contains(err, "node 0 'suspect' (com.test:" + op + ")")) << err;
    EXPECT_TRUE(contains(err, "returned an invalid expression handle 3000000000 through " + where))
        << err;
    EXPECT_TRUE(contains(err, kind + " rule bad_handles 0.1 (" + FIXTURE_BAD_HANDLES + ")")) << err;
    EXPECT_FALSE(contains(err, "fatal signal")) << err;
  }
};

TEST_F(BadHandles, ShapeDimThatNamesNoExpressionIsTheRulesError) {
  save_suspect("BadDim", path("m.onnx"));
  auto r = analyze("m.onnx", plugin_profile(false));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_named(r.err, "BadDim", "IShapeSink::set_output", "shape");
  EXPECT_TRUE(contains(r.err, "using the fallbacks")) << r.err;
  EXPECT_TRUE(contains(r.out, "Peak total bytes")) << r.out;

  auto strict = analyze("m.onnx", plugin_profile(true));
  expect_error(strict, 4, {"[domain 'com.test', opset 1]"});
  expect_named(strict.err, "BadDim", "IShapeSink::set_output", "shape");
}

TEST_F(BadHandles, ExprApiArgumentThatNamesNoExpressionIsTheRulesError) {
  save_suspect("BadArg", path("m.onnx"));
  auto r = analyze("m.onnx", plugin_profile(false));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_named(r.err, "BadArg", "ExprApi::binary", "shape");
  // The harmless handle the rule got back went nowhere: Y comes from the fallbacks.
  EXPECT_TRUE(contains(r.err, "'Y' get an unknown rank")) << r.err;

  auto strict = analyze("m.onnx", plugin_profile(true));
  expect_error(strict, 4, {"[domain 'com.test', opset 1]"});
  expect_named(strict.err, "BadArg", "ExprApi::binary", "shape");
}

TEST_F(BadHandles, ScratchBytesGivenAsANumberAreTheEstimatorsError) {
  save_suspect("BadScratch", path("m.onnx"));
  auto r = analyze("m.onnx", plugin_profile(false));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_named(r.err, "BadScratch", "IScratchSink::set_bytes", "scratch");
  // The usual fallback of an estimate that cannot be computed: a named unknown, never 0.
  auto json = analyze("m.onnx", plugin_profile(false) + " --format json");
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_TRUE(contains(json.out, "\"peak_scratch_bytes\": \"scratch_BadScratch_0\"")) << json.out;
}

// ---- eval: a divisor of zero -------------------------------------------------------------------

/// `cctx eval ARGS` fails with exactly `message` on stderr, exit 3, nothing on stdout.
void expect_eval_error(const std::string& args, const std::string& message) {
  auto r = run_cctx("eval " + args);
  EXPECT_EQ(r.exit_code, 3) << args << ": " << r.err;
  EXPECT_EQ(r.err, "cctx: " + message + "\n") << args;
  EXPECT_TRUE(r.out.empty()) << args << ": " << r.out;
}

TEST(EvalDivisionByZero, ALiteralZeroDivisorIsAnError) {
  expect_eval_error("'5//0'", "division by zero in '5//0'");
  expect_eval_error("'N%0'", "modulo by zero in 'N%0'");
  expect_eval_error("'CeilToInt(N,0)'", "division by zero in 'CeilToInt(N,0)'");
  expect_eval_error("'7/:0'", "division by zero in '7/:0'");
  expect_eval_error("'N//0'", "division by zero in 'N//0'");
  expect_eval_error("'N//0' N=4", "division by zero in 'N//0'");
  // A divisor that simplifies to 0 is as much a zero.
  expect_eval_error("'N%(N-N)'", "modulo by zero in 'N%(N-N)'");
}

TEST(EvalDivisionByZero, ADivisorThatTheValuesMakeZeroIsAnError) {
  expect_eval_error("'N//(M-1)' M=1", "division by zero in 'N//0' (after substituting M=1)");
  expect_eval_error("'N%(M-1)' M=1 N=3", "modulo by zero in '3%0' (after substituting M=1 N=3)");
  auto fine = run_cctx("eval 'N//(M-1)' M=2");
  EXPECT_EQ(fine.exit_code, 0) << fine.err;
  EXPECT_EQ(fine.out, "N\n");
}

// A model's dim_param is a name to ONNX: one that divides by zero is kept whole as an opaque
// symbol, as one that overflows is, with a note; the analysis goes on.
TEST_F(HostileInput, DimParamThatDividesByZeroIsAnOpaqueSymbol) {
  test::ModelBuilder b(18);
  b.input("X", test::kFloat, {"N//0", 4});
  b.node("Relu", {"X"}, {"Y"});
  b.output("Y");
  save(b, path("m.onnx"));
  auto r = analyze("m.onnx");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "dim_param 'N//0' kept as an opaque symbol (division by zero"))
      << r.err;
  EXPECT_TRUE(contains(r.out, "Peak total bytes: 32*`N//0`")) << r.out;
}

// ---- byte sizes at the int64 ceiling ----------------------------------------------------------

constexpr int kInt4 = 22;

/// X:<dtype>[dims] -> <op> -> Y.
void save_single(int dtype, test::ShapeSpec dims, const std::string& op,
                 const std::filesystem::path& path) {
  test::ModelBuilder b(18);
  b.input("X", dtype, std::move(dims));
  b.node(op, {"X"}, {"Y"});
  b.output("Y");
  save(b, path);
}

// The check counts bytes, not bits: 2^61 one-byte elements are 2^61 bytes, well inside int64.
TEST_F(HostileInput, ByteSizesUpTo2To63MinusOneAreAnalysed) {
  save_single(test::kUint8, {std::int64_t{1} << 61}, "Identity", path("u8.onnx"));
  auto r = analyze("u8.onnx");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "Peak total bytes: 2305843009213693952 at node 0")) << r.out;
  // Sub-byte elements: 2^63 - 1 int4 elements are 2^62 bytes (rounded up), read by Shape.
  save_single(kInt4, {std::int64_t{0x7fffffffffffffff}}, "Shape", path("i4.onnx"));
  r = analyze("i4.onnx");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "Peak total bytes: 4611686018427387912 at node 0")) << r.out;
}

TEST_F(HostileInput, ByteSizesAbove2To63MinusOneAreRefused) {
  save_single(test::kFloat, {std::int64_t{1} << 61}, "Identity", path("f32.onnx"));
  expect_error(analyze("f32.onnx"), 3,
               {"f32.onnx: value 'X' has more bytes than a 64-bit size can hold "
                "(2305843009213693952 elements of 32 bits, more than 2^63 - 1 bytes)"});
  save_single(test::kUint8, {std::int64_t{1} << 62, 2}, "Identity", path("u8.onnx"));
  expect_error(analyze("u8.onnx"), 3,
               {"u8.onnx: value 'X' has more bytes than a 64-bit size can hold (its dims "
                "multiply past 2^63)"});
}

// ---- streams above limits.file_bytes -----------------------------------------------------------

/// Peak RSS in bytes of the largest child process waited for so far (ru_maxrss is in KiB). Each
/// TEST runs in a process of its own under ctest, so it is the child of that test.
[[maybe_unused]] std::int64_t largest_child_rss() {  // unused under ASan
  struct rusage usage {};
  ::getrusage(RUSAGE_CHILDREN, &usage);
  return std::int64_t{usage.ru_maxrss} * 1024;
}

// A device has no size: it is read in pieces up to one byte past the limit and refused, holding
// no more than the limit (a buffer that doubled held up to three times the limit).
TEST_F(HostileInput, DeviceAboveTheLimitIsRefusedHoldingAboutTheLimit) {
  constexpr std::int64_t kLimit = 200'000'000;
  auto r = run_cctx("analyze /dev/zero" +
                    profile("limits: {file_bytes: " + std::to_string(kLimit) + "}\n"));
  expect_error(r, 3, {"/dev/zero: 200000001 bytes or more, above 200000000 (limits.file_bytes)"});
#ifndef __SANITIZE_ADDRESS__  // ASan's allocator and shadow memory have other sizes
  EXPECT_LT(largest_child_rss(), kLimit + (std::int64_t{64} << 20));
#endif
}

TEST_F(HostileInput, PipeIsReadUpToTheLimit) {
  const std::string seed = quoted(test::seed_model());
  auto piped = run_cctx("analyze /dev/stdin --format json", "cat " + seed + " |");
  auto direct = run_cctx("analyze " + seed + " --format json");
  EXPECT_EQ(piped.exit_code, 0) << piped.err;
  // The same analysis; only the model's path differs.
  std::string expected = direct.out;
  const std::string path = test::seed_model().string();
  ASSERT_NE(expected.find(path), std::string::npos);
  expected.replace(expected.find(path), path.size(), "/dev/stdin");
  EXPECT_EQ(piped.out, expected);
  expect_error(run_cctx("analyze /dev/stdin" + profile("limits: {file_bytes: 1000000}\n"),
                        "head -c 3000000 /dev/zero |"),
               3, {"/dev/stdin: 1000001 bytes or more, above 1000000 (limits.file_bytes)"});
}

// ---- integer overflow in a node's shapes -------------------------------------------------------

constexpr std::int64_t k2To40 = std::int64_t{1} << 40;
const std::string kHugeDims = "dims [1099511627776, 1099511627776, 1099511627776]";

// Shapes the rules compute right (2^40 three times) but whose byte size no int64 holds: the
// error names the node by index and name, its op, the value, its type and its dims.
TEST_F(HostileInput, ByteSizeOverflowNamesTheNodeAndTheValue) {
  struct Case {
    std::string op;
    std::vector<std::string> inputs;
    test::ShapeSpec x;
  };
  const std::vector<Case> cases = {{"Expand", {"X", "s"}, {1}},
                                   {"Tile", {"X", "s"}, {1, 1, 1}},
                                   {"Reshape", {"X", "s"}, {1}},
                                   {"ConstantOfShape", {"s"}, test::ShapeSpec::unknown()}};
  for (const Case& c : cases) {
    test::ModelBuilder b(18);
    if (c.inputs.size() > 1) b.input("X", test::kFloat, c.x);
    b.initializer_ints("s", {k2To40, k2To40, k2To40});
    b.node(c.op, c.inputs, {"Y"}, {}, "", "big");
    b.output("Y");
    save(b, path(c.op + ".onnx"));
    expect_error(
        analyze(c.op + ".onnx"), 3,
        {c.op + ".onnx: node 0 'big' (" + c.op +
         "): integer overflow computing the byte size of 'Y' (float32, " + kHugeDims + ")"});
  }
}

// A Loop that runs 2^62 times stacks its scan output 2^62 deep.
TEST_F(HostileInput, LoopScanOutputOverflowNamesTheLoop) {
  test::GraphBuilder body;
  body.input("i", test::kInt64, {}).input("c", test::kBool, {});
  body.node("Identity", {"c"}, {"c_out"}).output("c_out");
  body.node("Identity", {"W"}, {"w"}).output("w");
  test::ModelBuilder b(18);
  b.input("W", test::kFloat, {16});
  b.initializer_ints("M", {std::int64_t{1} << 62}, {});
  b.node("Loop", {"M", ""}, {"Y"}, {test::attr("body", body.graph())}, "", "loop");
  b.output("Y");
  save(b, path("loop.onnx"));
  expect_error(analyze("loop.onnx"), 3,
               {"loop.onnx: node 0 'loop' (Loop): integer overflow computing the byte size of 'Y' "
                "(float32, dims [4611686018427387904, 16])"});
}

// Two values of 2^62 bytes each fit int64 apart, not together: the node where they are both
// live is named.
TEST_F(HostileInput, LiveBytesOverflowNamesTheNode) {
  test::ModelBuilder b(18);
  b.initializer_ints("s", {std::int64_t{1} << 60});
  b.node("ConstantOfShape", {"s"}, {"A"}, {}, "", "a");
  b.node("ConstantOfShape", {"s"}, {"B"}, {}, "", "b");
  b.node("Add", {"A", "B"}, {"Y"}, {}, "", "add");
  b.output("Y");
  save(b, path("sum.onnx"));
  expect_error(analyze("sum.onnx"), 3,
               {"sum.onnx: node 1 'b' (ConstantOfShape): integer overflow: the bytes live at this "
                "node add up to more than 2^63 - 1"});
}

// Overflow inside a rule (Tile: 2^31 * 2^40) is the engine's error during the rule: a warning
// against the node that says which product, and the analysis goes on (ExprApi never fails).
TEST_F(HostileInput, OverflowInsideARuleNamesTheNodeAndTheProduct) {
  test::ModelBuilder b(18);
  b.input("X", test::kFloat, {std::int64_t{1} << 31});
  b.initializer_ints("r", {k2To40});
  b.node("Tile", {"X", "r"}, {"Y"}, {}, "", "big");
  b.output("Y");
  save(b, path("tile.onnx"));
  auto r = analyze("tile.onnx");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err,
                       "node 0 'big' (Tile): expression error: integer overflow in "
                       "'1099511627776*2147483648'"))
      << r.err;
}

}  // namespace
}  // namespace cctx
