// The streamed JSON report (JsonReportWriter) against the document it streams
// (json_report(...).dump(2)), byte for byte.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "cctx/report.hpp"
#include "stage_test_support.hpp"

namespace cctx {
namespace {

using namespace stage_test;

/// The CLI streams the report (append_json_report); it must be the DOM's dump(2), byte for byte.
void expect_streamed_report_matches(const test::Analysis& a) {
  const ReportOptions options{"model.onnx", {Assignment{{"N", 3}, {"NonZero_1_o0_d1", 5}}}, {}};
  std::string streamed;
  append_json_report(streamed, *a.ctx, options);
  EXPECT_EQ(streamed, json_report(*a.ctx, options).dump(2));
  // `cctx shapes --format json` streams its document the same way.
  std::string shapes;
  const ReportOptions plain{"model.onnx", {}, {}};
  JsonReportWriter(*a.ctx, plain, JsonReportWriter::Document::kShapes)
      .write([&](std::string_view piece) { shapes += piece; });
  EXPECT_EQ(shapes, shapes_json(*a.ctx, plain).dump(2));
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

TEST(JsonReport, StreamedEscapesACharacterAtAnyPositionOfAName) {
  // The check for characters to escape reads names eight bytes at a time, the tail as the last
  // eight (overlapping) bytes, and is remembered per value and per expression: a name of 1 to 17
  // bytes with a quote, a control character or a non-ASCII byte first, last or in between (and
  // the same names without one), each a value that later nodes read and release.
  ModelBuilder b(17);
  b.input("X", kFloat, {"N", 4});
  std::string previous = "X";
  std::set<std::string> made;
  int k = 0;
  for (std::size_t size : {1, 2, 7, 8, 9, 15, 16, 17}) {
    for (std::size_t at : {std::size_t{0}, size / 2, size - 1, size}) {  // size: none to escape
      for (const std::string odd : {"\"", "\x01", "\xc3\xa9"}) {         // é: valid UTF-8
        // Each of a size's twelve names has its own letter; one-byte names repeat, once each.
        std::string name(size, static_cast<char>('a' + k++ % 26));
        if (at < size) name.replace(at, 1, odd);
        if (!made.insert(name).second) continue;
        b.node("Relu", {previous}, {name}, {}, "", name);
        previous = name;
      }
    }
  }
  b.output(previous, kFloat, {"N", 4});
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
  const ReportOptions options{"chain.onnx", {Assignment{{"N", 2}}}, {}};
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
