// The HTML report in a real browser: headless Chromium renders the page of the seed model (and
// of a large generated model), and the screenshot, the DOM after the scripts ran and the console
// say that it works. Skipped only when Chromium is not installed (`make test` installs it).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <set>

#include "chain_model.hpp"
#include "model_builder.hpp"
#include "png_image.hpp"
#include "report_files.hpp"
#include "test_env.hpp"

namespace cctx {
namespace {

using test::between;
using test::count;

const std::filesystem::path kChromium = "/usr/bin/chromium";

struct Browser {
  std::string dom;      ///< --dump-dom output
  std::string console;  ///< the console messages Chromium logged
  int exit_code = -1;
};

/// One headless Chromium run with a fresh profile folder; `mode` is --dump-dom or --screenshot.
int run_chromium(const test::TempDir& dir, const std::filesystem::path& page,
                 const std::string& mode, const std::filesystem::path& out,
                 const std::filesystem::path& err) {
  const std::string command =
      "timeout 180 " + kChromium.string() +
      " --headless --no-sandbox --disable-gpu --disable-background-networking --no-first-run"
      " --user-data-dir=" +
      test::quoted(dir / ("profile" + std::to_string(std::rand()))) +
      " --enable-logging=stderr --v=0 --window-size=1280,1600 " + mode + " " +
      test::quoted("file://" + page.string()) + " >" + test::quoted(out) + " 2>" +
      test::quoted(err);
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Browser load(const test::TempDir& dir, const std::filesystem::path& page) {
  Browser b;
  b.exit_code = run_chromium(dir, page, "--dump-dom", dir / "dom.html", dir / "dom.err");
  b.dom = test::read_file(dir / "dom.html");
  const std::string log = test::read_file(dir / "dom.err");
  // Chromium logs console messages as "...:INFO:CONSOLE:<line>] "<message>", source: ...".
  std::size_t at = 0;
  while ((at = log.find(":CONSOLE", at)) != std::string::npos) {
    const std::size_t end = log.find('\n', at);
    b.console += log.substr(at, end - at) + "\n";
    at = end;
  }
  return b;
}

std::filesystem::path write_report(const test::TempDir& dir, const std::filesystem::path& model,
                                   const std::string& eval) {
  const auto r = test::run_cctx("analyze " + test::quoted(model) + " --format html " + eval);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto page = dir / "report.html";
  test::write_file(page, r.out);
  return page;
}

void expect_no_script_error(const Browser& b) {
  EXPECT_NE(b.dom.find("<div id=\"errors\" role=\"alert\"></div>"), std::string::npos)
      << "the page caught a script error: " << between(b.dom, "<div id=\"errors\"", "</div>");
  EXPECT_EQ(b.console.find("Uncaught"), std::string::npos) << b.console;
  EXPECT_TRUE(b.console.empty()) << "the page logs nothing: " << b.console;
  EXPECT_NE(b.dom.find("data-table-ready=\"true\""), std::string::npos)
      << "the table script finished";
}

class ReportBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kChromium)) {
      // In CI a missing dependency is a failure: ctest counts a skip as a pass.
      if (std::getenv("CI") != nullptr) FAIL() << kChromium << " is not installed (CI=true)";
      GTEST_SKIP() << kChromium << " is not installed (make test installs Debian's chromium)";
    }
  }
  test::TempDir dir;
};

TEST_F(ReportBrowser, SeedPageRendersItsTableAndPeak) {
  const auto page = write_report(dir, test::seed_model(), "--eval N=1,8,32,128");
  const Browser b = load(dir, page);
  ASSERT_EQ(b.exit_code, 0);
  expect_no_script_error(b);
  const std::string rows = between(b.dom, "<table id=\"node-table\">", "</table>");
  const std::string body = between(rows, "<tbody>", "</tbody>");
  EXPECT_EQ(count(body, "<tr"), 5u) << rows;
  EXPECT_EQ(count(body, "<tr class=\"peak\">"), 1u) << "the peak node's row is marked";
  EXPECT_NE(body.find("<td>Concat</td>"), std::string::npos);
  EXPECT_NE(body.find("<td>64*N+64</td>"), std::string::npos);
  EXPECT_NE(body.find("<td class=\"num\">8256</td>"), std::string::npos);
  EXPECT_NE(rows.find("<th title=\"sort by intermediates\""), std::string::npos)
      << rows.substr(0, 600);
  EXPECT_NE(b.dom.find("id=\"peak-formula\">64*N+64</span>"), std::string::npos);
  EXPECT_NE(b.dom.find("page 1 of 1 (5 of 5 nodes)"), std::string::npos);
  EXPECT_NE(b.dom.find(">Reshape (1)</option>"), std::string::npos) << "the op type filter";
}

TEST_F(ReportBrowser, SeedPageScreenshotIsNotBlank) {
  const auto page = write_report(dir, test::seed_model(), "--eval N=1,8,32,128");
  const auto shot = dir / "shot.png";
  ASSERT_EQ(run_chromium(dir, page, "--screenshot=" + test::quoted(shot), dir / "shot.out",
                         dir / "shot.err"),
            0)
      << test::read_file(dir / "shot.err");
  const test::RgbImage image = test::read_png(shot);
  ASSERT_GT(image.width, 0u);
  std::size_t ink = 0, blue = 0;
  std::set<std::uint32_t> colours;
  for (std::size_t i = 0; i + 2 < image.rgb.size(); i += 3) {
    const int r = image.rgb[i], g = image.rgb[i + 1], b = image.rgb[i + 2];
    colours.insert(static_cast<std::uint32_t>(r << 16 | g << 8 | b));
    if (r + g + b < 600) ++ink;
    // The first series of the total_bytes figure is drawn in #1f77b4.
    if (std::abs(r - 0x1f) < 24 && std::abs(g - 0x77) < 24 && std::abs(b - 0xb4) < 24) ++blue;
  }
  const std::size_t pixels = image.rgb.size() / 3;
  EXPECT_GT(ink, pixels / 100) << "text and figures cover more than 1% of the page";
  EXPECT_GT(colours.size(), 50u);
  EXPECT_GT(blue, 100u) << "the figure's lines are drawn";
}

TEST_F(ReportBrowser, LargeModelPageShowsOnePage) {
  test::write_chain_model(dir / "chain.onnx", 5000);
  const std::string nodes = "5000";
  const auto page = write_report(dir, dir / "chain.onnx", "--eval batch=1,64");
  const Browser b = load(dir, page);
  ASSERT_EQ(b.exit_code, 0);
  expect_no_script_error(b);
  const std::string body =
      between(between(b.dom, "<table id=\"node-table\">", "</table>"), "<tbody>", "</tbody>");
  EXPECT_EQ(count(body, "<tr"), 100u) << "one page of rows, not " << nodes;
  EXPECT_NE(b.dom.find("(" + nodes + " of " + nodes + " nodes)"), std::string::npos);
}

// Names from the model are data on the page, whatever bytes they hold: a markup name stays
// text (no element, no script run), terminal escapes and bidi overrides are spelled out, and the
// table script still renders every row (docs/robustness.md, "Text from the model").
TEST_F(ReportBrowser, HostileNamesStayText) {
  const std::string markup = "<img src=x onerror=\"document.title='owned'\">";
  test::ModelBuilder b(18);
  b.input("X\x1b]0;t\x07", test::kFloat, {"N", 4});
  b.node("Relu", {"X\x1b]0;t\x07"}, {markup}, {}, "",
         "abc\xe2\x80\xae"
         "cba");
  b.node("Abs", {markup}, {"bad\xff"}, {}, "", markup);
  b.output("bad\xff", test::kFloat, {"N", 4});
  test::write_file(dir / "hostile.onnx", b.build().proto().SerializeAsString());
  const auto page = write_report(dir, dir / "hostile.onnx", "--eval N=3");
  const Browser browser = load(dir, page);
  ASSERT_EQ(browser.exit_code, 0);
  expect_no_script_error(browser);
  EXPECT_EQ(browser.dom.find("<img"), std::string::npos) << "a name became an element";
  EXPECT_EQ(browser.dom.find("<title>owned</title>"), std::string::npos) << "a name ran a script";
  EXPECT_NE(browser.dom.find("<title>cctx report: "), std::string::npos);
  const std::string body =
      between(between(browser.dom, "<table id=\"node-table\">", "</table>"), "<tbody>", "</tbody>");
  EXPECT_EQ(count(body, "<tr"), 2u) << body;
  EXPECT_NE(body.find("&lt;img src=x"), std::string::npos) << body;
  EXPECT_NE(body.find("abc\\u202ecba"), std::string::npos) << body;
}

}  // namespace
}  // namespace cctx
