// Names from the model in every output, through the real `cctx` binary (docs/robustness.md, "Text
// from the model"): a model whose names, op type, domain and dim_params hold terminal escapes,
// malformed UTF-8, NUL, bidi overrides, C1 controls, newlines, XML specials and spreadsheet
// formulas must give valid JSON, well-formed SVG and HTML, CSV with the right columns and no
// formula, and terminal text with no control byte, on stdout and stderr alike.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "model_builder.hpp"
#include "output_checks.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::quoted;
using test::read_file;
using test::run_cctx;

const std::string kTitle = "\x1b]0;pwned\x07";         // an OSC sequence: retitles the terminal
const std::string kClear = "\x1b[2J";                  // clears the screen (a dim_param here)
const std::string kMalformed = "bad\xff\xfename";      // not UTF-8
const std::string kNul = std::string("nul\0byte", 8);  // a NUL inside a name
const std::string kBidi =
    "abc\xe2\x80\xae"
    "cba";  // U+202E RIGHT-TO-LEFT OVERRIDE
const std::string kC1 =
    "c1\xc2\x9b"
    "31m";  // U+009B, the 8-bit CSI
const std::string kNewline = "two\nlines";
const std::string kFormula = "=cmd|' /C calc'!A0";
const std::string kMarkup = "<b a=\"x\">&amp;'</b>";
const std::string kOpType = "Op\x1b[31m";  // an unknown op whose type has an ESC
const std::string kDomain = "com.evil\x1b";

/// X[N, <clear>] -> Relu -> Abs -> Neg -> <unknown op> -> Sigmoid -> Y, named with every hostile
/// string at once (nodes, values, graph, the unknown op's type and domain). The unknown op's
/// output is declared, so that every size is known and --eval runs.
test::ModelBuilder hostile_model() {
  test::ModelBuilder b(18);
  b.opset(kDomain, 1);
  b.input(kTitle, test::kFloat, {"N", kClear});
  b.node("Relu", {kTitle}, {kMalformed}, {}, "", kFormula);
  b.node("Abs", {kMalformed}, {kNul}, {}, "", kBidi);
  b.node("Neg", {kNul}, {kC1}, {}, "", kMarkup);
  b.node(kOpType, {kC1}, {kNewline}, {}, kDomain, kTitle);
  b.value_info(kNewline, test::kFloat, {"N", kClear});  // the unknown op's declared output
  b.node("Sigmoid", {kNewline}, {"-1+" + kFormula}, {}, "", "@SUM(A1)");
  b.output("-1+" + kFormula);
  return b;
}

class ModelText : public ::testing::Test {
 protected:
  void SetUp() override {
    onnx::ModelProto proto = hostile_model().build().proto();
    proto.mutable_graph()->set_name(kMalformed + kTitle);
    std::ofstream(dir_ / "h.onnx", std::ios::binary) << proto.SerializeAsString();
  }
  std::string model() const { return quoted(dir_ / "h.onnx"); }
  /// Every symbol needs a value for --eval, the hostile one too.
  std::string eval() const { return "--eval N=3 --eval '" + kClear + "=5'"; }

  /// The run succeeded, and its stderr is terminal-safe.
  static void expect_ok(const test::RunResult& r) {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(test::terminal_problem(r.err), "") << r.err;
  }

  test::TempDir dir_;
};

TEST_F(ModelText, JsonIsValidUtf8WithReplacementCharacters) {
  for (const std::string format : {"json"}) {
    auto r = run_cctx("analyze " + model() + " --format " + format + " " + eval());
    expect_ok(r);
    ASSERT_EQ(test::json_problem(r.out), "");
    const auto doc = nlohmann::json::parse(r.out);
    // The malformed bytes became U+FFFD; valid names kept every byte (NUL and ESC escaped by
    // JSON itself, so nothing is lost that JSON can carry).
    EXPECT_TRUE(doc["values"].contains("bad\xef\xbf\xbd\xef\xbf\xbdname")) << r.out.substr(0, 800);
    EXPECT_TRUE(doc["values"].contains(kNul));
    EXPECT_TRUE(doc["values"].contains(kTitle));
    EXPECT_EQ(doc["nodes"][0]["name"], kFormula);
    EXPECT_EQ(doc["model"]["graph"], "bad\xef\xbf\xbd\xef\xbf\xbdname" + kTitle);
  }
  // The shapes report and explain's JSON too.
  auto shapes = run_cctx("shapes " + model() + " --format json");
  expect_ok(shapes);
  EXPECT_EQ(test::json_problem(shapes.out), "");
  auto explain = run_cctx("explain " + model() + " 1 --format json " + eval());
  expect_ok(explain);
  EXPECT_EQ(test::json_problem(explain.out), "");
}

TEST_F(ModelText, WriteModelAlongsideJsonWritesBoth) {
  auto r =
      run_cctx("analyze " + model() + " --format json --write-model " + quoted(dir_ / "out.onnx"));
  expect_ok(r);
  EXPECT_EQ(test::json_problem(r.out), "");
  EXPECT_TRUE(std::filesystem::exists(dir_ / "out.onnx"));
}

TEST_F(ModelText, FiguresAndPageParse) {
  auto r = run_cctx("analyze " + model() + " --format html " + eval() + " --plot " +
                    quoted(dir_ / "total.svg") + " --plot-stack " + quoted(dir_ / "stack.svg"));
  expect_ok(r);
  EXPECT_EQ(test::html_problem(r.out), "");
  for (const char* svg : {"total.svg", "stack.svg"}) {
    const std::string text = read_file(dir_ / svg);
    EXPECT_EQ(test::xml_problem(text), "") << svg;
    // The op type's ESC is shown, not dropped: the reader sees what the bytes were.
    EXPECT_NE(text.find("Op\\x1b[31m"), std::string::npos) << svg;
  }
  EXPECT_NE(r.out.find("\\x1b]0;pwned\\x07"), std::string::npos);
}

TEST_F(ModelText, CsvHasItsColumnsAndNoFormula) {
  auto r = run_cctx("analyze " + model() + " --format csv " + eval());
  expect_ok(r);
  // 12 fixed columns and two per assignment (its totals and its reserve).
  EXPECT_EQ(test::csv_problem(r.out, 14), "") << r.out;
  EXPECT_NE(r.out.find("'=cmd|' /C calc'!A0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("'@SUM(A1)"), std::string::npos) << r.out;
}

TEST_F(ModelText, TerminalOutputsShowControlsEscaped) {
  const std::string runs[] = {
      "analyze " + model() + " " + eval(),
      "shapes " + model(),
      "print " + model(),
      "explain " + model() + " 3 " + eval(),
      "diff " + model() + " " + model() + " " + eval(),
  };
  for (const std::string& args : runs) {
    auto r = run_cctx(args);
    expect_ok(r);
    EXPECT_EQ(test::terminal_problem(r.out), "") << args << "\n" << r.out;
    EXPECT_EQ(r.out.find('\0'), std::string::npos) << args;
  }
  auto print = run_cctx("print " + model());
  EXPECT_NE(print.out.find("\\x1b]0;pwned\\x07"), std::string::npos) << print.out;
  EXPECT_NE(print.out.find("nul\\x00byte"), std::string::npos) << print.out;
  EXPECT_NE(print.out.find("c1\\u009b31m"), std::string::npos) << print.out;
  EXPECT_NE(print.out.find("two\\x0alines"), std::string::npos) << print.out;
  EXPECT_NE(print.out.find("bad\\xff\\xfename"), std::string::npos) << print.out;
  auto explain = run_cctx("explain " + model() + " 1 " + eval());  // node 1 has the bidi name
  EXPECT_NE(explain.out.find("abc\\u202ecba"), std::string::npos) << explain.out;
  // The unknown op's fallback warning names it on stderr, escaped.
  auto table = run_cctx("analyze " + model() + " " + eval());
  EXPECT_NE(table.err.find("Op\\x1b[31m"), std::string::npos) << table.err;
}

TEST_F(ModelText, ErrorMessagesAreOneEscapedLine) {
  // A value that no node defines: its name is in the one-line error.
  test::ModelBuilder b(18);
  b.input("X", test::kFloat, {"N"});
  b.node("Relu", {kTitle + kNewline}, {"Y"});
  b.output("Y");
  std::ofstream(dir_ / "broken.onnx", std::ios::binary) << b.build().proto().SerializeAsString();
  auto r = run_cctx("analyze " + quoted(dir_ / "broken.onnx"));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_EQ(test::terminal_problem(r.err), "") << r.err;
  EXPECT_NE(r.err.find("\\x1b]0;pwned\\x07two\\x0alines"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace cctx
