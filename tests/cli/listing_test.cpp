// `cctx print` (attributes as ONNX's printer shows them, unknown rank as `?`) and the alignment
// of `cctx analyze`'s evaluated-totals table and scratch lines, through the real binary.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <vector>

#include "model_builder.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::quoted;
using test::run_cctx;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(CliPrintListing, AttributesOfEveryKindAndUnknownRank) {
  test::TempDir dir;
  test::ModelBuilder b(17);
  b.input("X", test::kFloat, {"N", 4});
  b.input("S", test::kFloat, {});  // a scalar: float[]
  b.node("LeakyRelu", {"X"}, {"A"}, {test::attr("alpha", 0.25f)});
  b.node("Transpose", {"A"}, {"T"}, {test::attr("perm", std::vector<std::int64_t>{1, 0})});
  b.node("Constant", {}, {"C"},
         {test::attr("value", test::tensor_zeros("c", test::kFloat, {2, 3}))});
  b.node("Pad", {"T"}, {"P"}, {test::attr("mode", "reflect")});
  b.node("Foo", {"P"}, {"Q"},
         {test::attr("many", std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}),
          test::attr("names", std::vector<std::string>{"a", "b\"c"}),
          test::attr("scales", std::vector<float>{0.5f, 2.0f})},
         "com.acme");
  b.opset("com.acme", 1);
  b.output("Q", test::kFloat);  // no shape: unknown rank
  b.build().save(dir / "m.onnx");
  auto r = run_cctx("print " + quoted(dir / "m.onnx"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string expected[] = {
      "input: float[N,4] X",
      "input: float[] S",
      "0: LeakyRelu <alpha = 0.25> (X) -> A",
      "1: Transpose <perm = [1, 0]> (A) -> T",
      "2: Constant <value = float[2,3]> () -> C",
      "3: Pad <mode = \"reflect\"> (T) -> P",
      "4: com.acme:Foo <many = [1, 2, 3, 4, 5, 6, 7, 8, ... (10 items)], names = [\"a\", "
      "\"b\\\"c\"], scales = [0.5, 2]> (P) -> Q",
      "output: float? Q",
  };
  const auto got = lines(r.out);
  for (const std::string& line : expected) {
    EXPECT_NE(std::find(got.begin(), got.end(), line), got.end()) << line << "\n" << r.out;
  }
}

/// The offset of each right-aligned cell's last character ("N", the digit of "node 3", a
/// number): aligned columns end at the same offsets in every line.
std::vector<std::size_t> column_ends(const std::string& line) {
  std::vector<std::size_t> ends;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const bool cell_end = line[i] != ' ' && (i + 1 == line.size() || line[i + 1] == ' ');
    if (cell_end && (std::isdigit(static_cast<unsigned char>(line[i])) || line[i] == 'N'))
      ends.push_back(i);
  }
  return ends;
}

TEST(CliAnalyzeLayout, EvaluatedTotalsStayAlignedWithWideValues) {
  // N=100000 makes totals of 7 digits, wider than the seed's 6-character columns.
  auto r = run_cctx("analyze " + quoted(test::seed_model()) + " --eval N=1,100000,1000000000");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto all = lines(r.out);
  auto head = std::find(all.begin(), all.end(), "Evaluated total_bytes per node:");
  ASSERT_NE(head, all.end()) << r.out;
  const auto reference = column_ends(*(head + 1));
  ASSERT_EQ(reference.size(), 6u) << *(head + 1);  // N, node 0 ... node 4
  for (int k = 2; k <= 4; ++k) EXPECT_EQ(column_ends(*(head + k)), reference) << r.out;
  EXPECT_NE(r.out.find("64000000064"), std::string::npos) << r.out;  // node 1 at N=10^9
}

TEST(CliAnalyzeLayout, ScratchLinesAlignWhateverTheOpNameLength) {
  // Softmax on an inner axis has scratch under the ONNX Runtime profile; the long op name must
  // not shift the formulas.
  test::TempDir dir;
  test::ModelBuilder b(17);
  b.input("X", test::kFloat, {"N", 8});
  b.node("Softmax", {"X"}, {"A"}, {test::attr("axis", std::int64_t{0})});
  b.node("LayerNormalization", {"A", "g"}, {"B"});
  b.initializer_floats("g", {1, 1, 1, 1, 1, 1, 1, 1}, {8});
  b.node("Softmax", {"B"}, {"Y"}, {test::attr("axis", std::int64_t{0})});
  b.output("Y");
  b.build().save(dir / "m.onnx");
  auto r = run_cctx("analyze " + quoted(dir / "m.onnx") +
                    " --profile onnxruntime-cpu-unoptimized-no-arena");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto all = lines(r.out);
  auto head = std::find(all.begin(), all.end(), "Per-node peak scratch memory (bytes):");
  ASSERT_NE(head, all.end()) << r.out;
  const std::size_t colon = (head + 1)->find(": ");
  ASSERT_NE(colon, std::string::npos);
  for (int k = 1; k <= 3; ++k) EXPECT_EQ((head + k)->find(": "), colon) << r.out;
  EXPECT_NE((head + 2)->find("LayerNormalization: "), std::string::npos) << r.out;
}

}  // namespace
}  // namespace cctx
