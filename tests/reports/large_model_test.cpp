// Reports of a generated chain of a few thousand nodes: the figures aggregate
// consecutive nodes and say so, and the HTML page carries every node in its compact table data
// (rendered by pages) at a size linear in the graph.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "chain_model.hpp"
#include "report_files.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::between;
using test::count;

constexpr std::size_t kNodes = 5000;

struct LargeModel : ::testing::Test {
  test::TempDir dir;
  std::filesystem::path model = dir / "chain.onnx";
  std::size_t nodes = kNodes;
  void SetUp() override { test::write_chain_model(model, kNodes); }
  static constexpr const char* kEval = " --eval batch=1,64";
};

TEST_F(LargeModel, FiguresAggregateAndSaySo) {
  const auto plot = dir / "total.svg", stack = dir / "stack.svg";
  const auto r =
      test::run_cctx("analyze " + test::quoted(model) + kEval + " --plot " + test::quoted(plot) +
                     " --plot-stack " + test::quoted(stack) + " --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string svg = test::read_file(plot);
  const std::string subtitle = between(svg, "class=\"subtitle\"", "</text>");
  EXPECT_NE(subtitle.find(std::to_string(nodes) + " nodes: each point shows the largest of"),
            std::string::npos)
      << subtitle;
  EXPECT_EQ(count(svg, "<polyline"), 2u);
  for (const std::string& values : test::attribute_values(svg, "data-values")) {
    const std::size_t points = test::numbers(values).size();
    EXPECT_GT(points, 100u);
    EXPECT_LE(points, 400u) << "at most one point per column";
  }
  EXPECT_LE(count(svg, "class=\"x-tick\""), 20u) << "tick labels stay readable";
  EXPECT_LT(svg.size(), 200'000u);

  const std::string bars = test::read_file(stack);
  EXPECT_NE(bars.find("each bar shows the largest of"), std::string::npos);
  EXPECT_LE(count(bars, "<g class=\"column\""), 400u);
  EXPECT_EQ(count(bars, "class=\"peak-marker\""), 1u);
  // The aggregated maxima still contain the peak: the tallest column is the peak's bytes.
  const std::string peak_bytes =
      test::attribute_values(between(bars, "class=\"peak-marker\"", ">"), "data-bytes").at(0);
  double tallest = 0;
  for (const std::string& t : test::attribute_values(bars, "data-total"))
    tallest = std::max(tallest, std::stod(t));
  EXPECT_EQ(tallest, std::stod(peak_bytes));
}

TEST_F(LargeModel, HtmlCarriesEveryNodeCompactly) {
  const auto r = test::run_cctx("analyze " + test::quoted(model) + kEval + " --format html");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto data = nlohmann::json::parse(
      between(r.out, "<script type=\"application/json\" id=\"cctx-data\">", "</script>"));
  EXPECT_EQ(data["rows"].size(), nodes);
  EXPECT_LT(data["ops"].size(), 40u) << "op types are stored once";
  EXPECT_LT(r.out.size(), nodes * 400) << "a few hundred bytes per node at most";
  EXPECT_EQ(count(between(r.out, "<section id=\"nodes\">", "</section>"), "<tr"), 1u)
      << "no node row is written as HTML, only the header: the script renders rows by pages";
}

}  // namespace
}  // namespace cctx
