// `cctx analyze --plot` and `--plot-stack` on the seed model: the files are self-contained,
// well-formed SVG, and what they draw maps back to the seed's evaluated totals.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "report_files.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::attribute_values;
using test::between;
using test::count;

/// Parses the file with Python's XML parser (python3 is a build requirement of the project).
bool well_formed_xml(const std::filesystem::path& p) {
  const std::string command =
      "/usr/bin/python3 -c 'import sys, xml.etree.ElementTree as E; "
      "E.parse(sys.argv[1])' " +
      test::quoted(p) + " 2>/dev/null";
  return std::system(command.c_str()) == 0;
}

/// Nothing that would make a viewer fetch anything: no scripts, links, imports or web fonts.
void expect_self_contained(const std::string& svg) {
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u) << svg.substr(0, 80);
  EXPECT_EQ(count(svg, "http"), 1u) << "only the SVG namespace may be a URL";
  EXPECT_EQ(count(svg, "<script"), 0u);
  EXPECT_EQ(count(svg, "href"), 0u);
  EXPECT_EQ(count(svg, "@import"), 0u);
  EXPECT_EQ(count(svg, "@font-face"), 0u);
}

/// The y ticks give the linear map from bytes to the SVG's y coordinate.
struct YAxis {
  double y0 = 0, slope = 0;
  explicit YAxis(const std::string& svg) {
    const std::string axis = between(svg, "class=\"y-axis\"", "class=\"x-axis\"");
    const auto values = attribute_values(axis, "data-value");
    const auto ys = attribute_values(axis, "y1");
    if (values.size() < 2 || ys.size() != values.size()) {
      ADD_FAILURE() << "no y ticks";
      return;
    }
    const double v0 = std::stod(values[0]), v1 = std::stod(values[1]);
    slope = (std::stod(ys[1]) - std::stod(ys[0])) / (v1 - v0);
    y0 = std::stod(ys[0]) - slope * v0;
  }
  double y(double bytes) const { return y0 + slope * bytes; }
};

struct SeedFigures : ::testing::Test {
  test::TempDir dir;
  std::filesystem::path plot = dir / "seed total.svg", stack = dir / "stack.svg";
  test::RunResult run = test::run_cctx("analyze " + test::quoted(test::seed_model()) +
                                       " --eval N=1,8,32,128 --plot " + test::quoted(plot) +
                                       " --plot-stack " + test::quoted(stack));
};

TEST_F(SeedFigures, TotalBytesFigureHasOneLinePerAssignment) {
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("Peak total bytes: 64*N+64 at node 1 (Concat)"), std::string::npos)
      << "the figures come in addition to the table";
  const std::string svg = test::read_file(plot);
  expect_self_contained(svg);
  EXPECT_TRUE(well_formed_xml(plot));
  EXPECT_NE(svg.find(">Evaluated ComputeContext.total_bytes</text>"), std::string::npos);
  EXPECT_NE(svg.find(">node index</text>"), std::string::npos);
  EXPECT_NE(svg.find(">total bytes</text>"), std::string::npos);
  for (const char* tick : {">0:MatMul<", ">1:Concat<", ">2:Shape<", ">3:Abs<", ">4:Reshape<"}) {
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  }
  EXPECT_EQ(svg.find("class=\"subtitle\""), std::string::npos) << "5 nodes are not aggregated";

  // The seed's "Evaluated total_bytes per node" table, line by line.
  const std::map<std::string, std::vector<double>> expected = {
      {"N=1", {96, 128, 128, 128, 128}},
      {"N=8", {320, 576, 464, 464, 464}},
      {"N=32", {1088, 2112, 1616, 1616, 1616}},
      {"N=128", {4160, 8256, 6224, 6224, 6224}}};
  const YAxis axis(svg);
  const auto labels = attribute_values(svg, "data-label");
  std::size_t lines = 0;
  for (auto at = svg.find("<polyline"); at != std::string::npos;
       at = svg.find("<polyline", at + 1)) {
    const std::string line = svg.substr(at, svg.find("/>", at) - at);
    const std::string label = attribute_values(line, "data-label").at(0);
    ASSERT_TRUE(expected.count(label)) << label;
    const std::vector<double> values = test::numbers(attribute_values(line, "data-values").at(0));
    EXPECT_EQ(values, expected.at(label)) << label;
    EXPECT_EQ(test::numbers(attribute_values(line, "data-nodes").at(0)),
              (std::vector<double>{0, 1, 2, 3, 4}));
    // The drawn points sit where the y axis puts those bytes, left to right.
    std::string points = attribute_values(line, "points").at(0);
    for (char& c : points) c = c == ',' ? ' ' : c;
    const std::vector<double> xy = test::numbers(points);
    ASSERT_EQ(xy.size(), 10u);
    for (std::size_t k = 0; k < 5; ++k) {
      EXPECT_NEAR(xy[2 * k + 1], axis.y(values[k]), 0.02) << label << " node " << k;
      if (k > 0) {
        EXPECT_GT(xy[2 * k], xy[2 * k - 2]);
      }
    }
    ++lines;
  }
  EXPECT_EQ(lines, 4u);
  EXPECT_EQ(count(svg, "<circle"), 4u * 5u + 4u) << "a marker per point, one per legend entry";
  const std::string legend = between(svg, "class=\"legend\"", "</g>");
  for (const char* label : {">N=1<", ">N=8<", ">N=32<", ">N=128<"}) {
    EXPECT_NE(legend.find(label), std::string::npos) << label;
  }
  EXPECT_GE(count(svg, "class=\"y-tick\""), 3u) << "grid lines";
}

TEST_F(SeedFigures, StackFigureSplitsEachNodeBySourceAndTagAndMarksThePeak) {
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string svg = test::read_file(stack);
  expect_self_contained(svg);
  EXPECT_TRUE(well_formed_xml(stack));
  EXPECT_NE(svg.find("data-kind=\"memory-stack\""), std::string::npos);
  EXPECT_NE(svg.find("(N=1)</text>"), std::string::npos) << "drawn for the first assignment";
  // N=1: totals 96 128 128 128 128; the peak is the first node reaching 128.
  const std::vector<std::string> totals = {"96", "128", "128", "128", "128"};
  for (std::size_t n = 0; n < totals.size(); ++n) {
    const std::string open = "<g class=\"column\" data-node=\"" + std::to_string(n) + "\"";
    const std::string column = between(svg, open, "</g>");
    ASSERT_FALSE(column.empty()) << "node " << n;
    EXPECT_EQ(attribute_values(open + column, "data-total").at(0), totals[n]);
    double sum = 0;
    for (const std::string& b : attribute_values(column, "data-bytes")) sum += std::stod(b);
    EXPECT_EQ(sum, std::stod(totals[n])) << "the layers of node " << n << " add up to its total";
  }
  // Node 1 (Concat): W 64 initializer, X 16 input, M 16 intermediate, C 32 output; all weight.
  const std::string concat = between(svg, "data-node=\"1\" data-total", "</g>");
  EXPECT_NE(concat.find("data-layer=\"initializers: weight\" data-bytes=\"64\""), std::string::npos)
      << concat;
  EXPECT_NE(concat.find("data-layer=\"inputs: weight\" data-bytes=\"16\""), std::string::npos);
  EXPECT_NE(concat.find("data-layer=\"intermediates: weight\" data-bytes=\"16\""),
            std::string::npos);
  EXPECT_NE(concat.find("data-layer=\"outputs: weight\" data-bytes=\"32\""), std::string::npos);
  // Node 2 (Shape) outputs the 16-byte shape tensor, tagged shape.
  const std::string shape = between(svg, "data-node=\"2\" data-total", "</g>");
  EXPECT_NE(shape.find("data-layer=\"outputs: shape\" data-bytes=\"16\""), std::string::npos)
      << shape;
  EXPECT_NE(svg.find("<g class=\"peak-marker\" data-node=\"1\" data-bytes=\"128\">"),
            std::string::npos);
  EXPECT_NE(svg.find(">peak 128 bytes at node 1 (Concat)</text>"), std::string::npos);
  const std::string legend = between(svg, "class=\"legend\"", "</g>");
  for (const char* layer : {">initializers: weight<", ">inputs: weight<", ">intermediates: weight<",
                            ">intermediates: shape<", ">outputs: weight<", ">outputs: shape<"}) {
    EXPECT_NE(legend.find(layer), std::string::npos) << layer;
  }
}

TEST(ReportFigures, PlotWithoutAssignmentIsAUsageError) {
  test::TempDir dir;
  const auto r = test::run_cctx("analyze " + test::quoted(test::seed_model()) + " --plot " +
                                test::quoted(dir / "p.svg"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--eval"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "p.svg"));
}

TEST(ReportFigures, UnwritableTargetIsReportedAndLeavesNothing) {
  test::TempDir dir;
  const auto target = dir / "missing-folder" / "p.svg";
  const auto r = test::run_cctx("analyze " + test::quoted(test::seed_model()) +
                                " --eval N=2 --plot " + test::quoted(target));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find(target.string()), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(target));
}

}  // namespace
}  // namespace cctx

namespace cctx {
namespace {

/// The texts of the y tick labels of one figure.
std::vector<std::string> y_tick_labels(const std::string& svg) {
  std::vector<std::string> out;
  const std::string axis = test::between(svg, "class=\"y-axis\"", "class=\"x-axis\"");
  for (std::size_t at = axis.find("dy=\"0.35em\">"); at != std::string::npos;
       at = axis.find("dy=\"0.35em\">", at + 1)) {
    const std::size_t start = at + 12;
    out.push_back(axis.substr(start, axis.find('<', start) - start));
  }
  return out;
}

// Both figures label bytes in the same decimal units: at N=20000 the totals reach 1.28 MB and the
// first assignment's stack 1.28 MB too, so neither may print a bare "800000" next to "1.2M".
TEST(FigureUnits, BothFiguresUseTheSameByteUnits) {
  test::TempDir dir;
  auto r =
      test::run_cctx("analyze " + test::quoted(test::seed_model()) + " --eval N=20000 --plot " +
                     test::quoted(dir / "p.svg") + " --plot-stack " + test::quoted(dir / "s.svg"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* file : {"p.svg", "s.svg"}) {
    const auto labels = y_tick_labels(test::read_file(dir / file));
    ASSERT_GE(labels.size(), 3u) << file;
    for (const std::string& label : labels) {
      const bool suffixed = !label.empty() && (label.back() == 'k' || label.back() == 'M');
      EXPECT_TRUE(label == "0" || suffixed) << file << ": tick '" << label << "'";
    }
  }
}

}  // namespace
}  // namespace cctx
