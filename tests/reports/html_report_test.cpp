// `cctx analyze --format html`: one self-contained page with the summary, the peak, the top
// nodes, both figures, the per-node table's data, the warnings and the profile.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model_builder.hpp"
#include "report_files.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::between;
using test::count;

/// The JSON the page's table script renders.
nlohmann::json table_data(const std::string& html) {
  return nlohmann::json::parse(
      between(html, "<script type=\"application/json\" id=\"cctx-data\">", "</script>"));
}

TEST(ReportHtml, SeedPageHasEverySection) {
  const auto r = test::run_cctx("analyze " + test::quoted(test::seed_model()) +
                                " --format html --eval N=1,8,32,128");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string& html = r.out;
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("</html>\n"), std::string::npos);
  // Self-contained: nothing is fetched (the SVG namespace is a name, not a request).
  EXPECT_EQ(count(html, "src="), 0u);
  EXPECT_EQ(count(html, "href="), 0u);
  EXPECT_EQ(count(html, "@import"), 0u);
  EXPECT_EQ(count(html, "http"), count(html, "http://www.w3.org/2000/svg"));

  EXPECT_NE(html.find("<td>compute_context_memory_demo</td>"), std::string::npos)
      << "model summary";
  EXPECT_NE(html.find("<tr><th>nodes</th><td>5</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("id=\"peak-formula\">64*N+64</span> at node 1 (Concat)"), std::string::npos);
  // One peak row per assignment: value and node.
  for (const char* row : {"<td>N=1</td><td class=\"num\">128</td><td>1 (Concat)</td>",
                          "<td>N=8</td><td class=\"num\">576</td><td>1 (Concat)</td>",
                          "<td>N=128</td><td class=\"num\">8256</td><td>1 (Concat)</td>"}) {
    EXPECT_NE(html.find(row), std::string::npos) << row;
  }
  const std::string top = between(html, "id=\"top-table\"", "</table>");
  EXPECT_EQ(count(top, "<tr>"), 6u) << "a header and the 5 nodes";
  EXPECT_LT(top.find("<td>Concat</td>"), top.find("<td>MatMul</td>")) << "largest first";
  // The totals, a stacked figure per assignment (4), the reserve against N.
  EXPECT_EQ(count(html, "<svg xmlns"), 6u);
  EXPECT_NE(html.find("data-kind=\"total-bytes\""), std::string::npos);
  EXPECT_EQ(count(html, "data-kind=\"memory-stack\""), 4u);
  const std::string reserve = between(html, "<section id=\"reserve\">", "</section>");
  EXPECT_EQ(count(reserve, "data-kind=\"fit\""), 1u);
  EXPECT_NE(reserve.find("<polyline class=\"reserve\""), std::string::npos);
  EXPECT_NE(reserve.find("class=\"found\" data-value=\"1\""), std::string::npos)
      << "the first assignment's N marked";
  EXPECT_NE(html.find("<section id=\"warnings\">"), std::string::npos);
  EXPECT_NE(html.find("<b>onnx</b>"), std::string::npos) << "the plugins used";
  EXPECT_NE(html.find("<tr><th>profile</th><td>default</td></tr>"), std::string::npos);

  // The table's data: the seed's columns, one row per node.
  const nlohmann::json data = table_data(html);
  std::vector<std::string> labels;
  for (const auto& c : data["columns"]) labels.push_back(c["label"]);
  EXPECT_EQ(labels, (std::vector<std::string>{
                        "node", "op", "already_allocated", "output_allocation", "inputs",
                        "initializers", "intermediates", "outputs", "total", "scratch",
                        "total @ N=1", "total @ N=8", "total @ N=32", "total @ N=128", "name"}));
  ASSERT_EQ(data["rows"].size(), 5u);
  const auto cell = [&](std::size_t node, std::size_t column) -> nlohmann::json {
    const auto& col = data["columns"][column];
    const auto& raw = data["rows"][node][col["field"].get<int>()];
    if (col["kind"] == "op") return data["ops"][raw.get<std::size_t>()];
    if (col["kind"] == "text") return data["strings"][raw.get<std::size_t>()];
    return raw;
  };
  EXPECT_EQ(cell(1, 1), "Concat");
  EXPECT_EQ(cell(3, 6), "shape=16, weight=32*N");  // intermediates of Abs
  EXPECT_EQ(cell(1, 8), "64*N+64");
  EXPECT_EQ(cell(1, 11), 576);
  EXPECT_EQ(cell(4, 13), 6224);
  EXPECT_EQ(data["peak_node"], 1);
}

TEST(ReportHtml, WarningsListFreshSymbolsAndFallbacks) {
  const auto model = test::source_dir() / "tests/cli/nonzero.onnx";
  const auto r = test::run_cctx("analyze " + test::quoted(model) + " --format html");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string warnings = between(r.out, "<section id=\"warnings\">", "</section>");
  EXPECT_NE(warnings.find("Fresh symbols and their origins"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("<code>NonZero_"), std::string::npos) << warnings;
  EXPECT_NE(r.out.find("Give <code>--eval SYM=V</code> to draw the figures"), std::string::npos);
}

// Names come from the model file: none of them may close the data script or inject markup.
TEST(ReportHtml, NamesFromTheModelCannotInjectMarkup) {
  test::TempDir dir;
  test::ModelBuilder b(18);
  b.input("X", test::kFloat, {"N", 4});
  b.node("Relu", {"X"}, {"Y"}, {}, "", "</script><script>alert(1)</script>");
  b.output("Y");
  b.build().save(dir / "evil.onnx");
  const auto r =
      test::run_cctx("analyze " + test::quoted(dir / "evil.onnx") + " --format html --eval N=2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count(r.out, "<script>alert"), 0u);
  EXPECT_EQ(count(r.out, "</script>"), 3u) << "the error capture, the data and the table script";
  const nlohmann::json data = table_data(r.out);
  EXPECT_EQ(data["strings"][data["rows"][0][1].get<std::size_t>()],
            "</script><script>alert(1)</script>");
}

TEST(ReportHtml, WritesNothingElseOnBadFormat) {
  const auto r = test::run_cctx("analyze " + test::quoted(test::seed_model()) + " --format pdf");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("html"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

}  // namespace
}  // namespace cctx
