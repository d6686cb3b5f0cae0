// The seed's figure: evaluated total_bytes per node, one line with circle markers per assignment.
#include <fmt/format.h>

#include <algorithm>

#include "cctx/errors.hpp"
#include "cctx/report.hpp"
#include "cctx/safe_text.hpp"
#include "report/figure_data.hpp"
#include "report/svg_plot.hpp"

namespace cctx {

using report_detail::coord;

namespace {

struct Series {
  std::string label;
  std::vector<std::size_t> nodes;    // per column: the node whose total is shown
  std::vector<std::int64_t> values;  // per column
};

double marker_radius(std::size_t columns) {
  if (columns <= 60) return 4;
  return columns <= 200 ? 2.5 : 1.5;
}

std::string series_svg(const report_detail::SvgPlot& plot, const Series& s,
                       std::string_view colour) {
  std::string points, nodes, values, markers;
  for (std::size_t k = 0; k < s.values.size(); ++k) {
    const std::string x = coord(plot.x_of_slot(k));
    const std::string y = coord(plot.y_of(static_cast<double>(s.values[k])));
    const char* sep = k == 0 ? "" : " ";
    points += fmt::format("{}{},{}", sep, x, y);
    nodes += fmt::format("{}{}", sep, s.nodes[k]);
    values += fmt::format("{}{}", sep, s.values[k]);
    markers += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\"/>", x, y,
                           coord(marker_radius(s.values.size())));
  }
  return fmt::format(
      "<g class=\"series\" data-label=\"{0}\">\n"
      "<polyline class=\"series-line\" data-label=\"{0}\" data-nodes=\"{1}\" data-values=\"{2}\" "
      "points=\"{3}\" fill=\"none\" stroke=\"{4}\" stroke-width=\"2\" stroke-linejoin=\"round\"/>\n"
      "<g class=\"markers\" fill=\"{4}\">{5}</g>\n</g>\n",
      safe_text::xml(s.label), nodes, values, points, colour, markers);
}

}  // namespace

std::string total_bytes_svg(const ComputeContext& ctx, const std::vector<Assignment>& evaluate) {
  if (evaluate.empty()) throw Error("the total_bytes figure needs an assignment", ExitCode::kUsage);
  const std::size_t bucket = report_detail::bucket_size_for(ctx.node_count());
  std::vector<Series> series;
  std::int64_t y_max = 0;
  for (const Assignment& a : evaluate) {
    const std::vector<std::int64_t> totals = report_detail::evaluated_totals(ctx, a);
    Series s{assignment_label(a), report_detail::bucket_maxima(totals, bucket), {}};
    for (std::size_t node : s.nodes) s.values.push_back(totals[node]);
    if (!s.values.empty())
      y_max = std::max(y_max, *std::max_element(s.values.begin(), s.values.end()));
    series.push_back(std::move(s));
  }
  report_detail::SvgPlot plot(report_detail::node_op_types(ctx), bucket,
                              static_cast<double>(y_max));
  std::string body = "<g class=\"data\">\n";
  std::vector<report_detail::LegendEntry> legend;
  for (std::size_t k = 0; k < series.size(); ++k) {
    const std::string_view colour = report_detail::series_colour(k);
    body += series_svg(plot, series[k], colour);
    legend.push_back({series[k].label, std::string(colour), true});
  }
  body += "</g>\n";
  return plot.render("total-bytes", "Evaluated ComputeContext.total_bytes",
                     report_detail::aggregation_note(ctx.node_count(), bucket, "point"),
                     "node index", "total bytes", body, legend);
}

}  // namespace cctx
