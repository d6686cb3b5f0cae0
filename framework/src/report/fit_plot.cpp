// `cctx fit --plot`: the reserve against the varied symbol, with the budget line and the value
// found; for a frontier, the largest inner value per outer value (fit_report.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cctx/fit_report.hpp"
#include "cctx/report.hpp"
#include "cctx/safe_text.hpp"
#include "report/svg_plot.hpp"

namespace cctx {

namespace {

using report_detail::coord;

constexpr double kWidth = 860, kHeight = 470, kLeft = 90, kRight = 30, kTop = 58, kBottom = 60;

struct Axes {
  double x_lo, x_hi, y_hi;
  double x(double v) const {
    return kLeft + (x_hi > x_lo ? (v - x_lo) / (x_hi - x_lo) : 0.5) * (kWidth - kLeft - kRight);
  }
  double y(double v) const { return kTop + (1 - v / y_hi) * (kHeight - kTop - kBottom); }
};

/// A round step (1, 2 or 5 times a power of ten) giving at most eight ticks over [0, hi].
double step_for(double hi) {
  if (hi <= 0) return 1;
  const double base = std::pow(10.0, std::floor(std::log10(hi / 8)));
  for (const double m : {1.0, 2.0, 5.0}) {
    if (hi / (base * m) <= 8) return base * m;
  }
  return base * 10;
}

std::string frame(const Axes& a, const std::string& title, const std::string& subtitle,
                  const std::string& x_label, const std::string& y_label, bool bytes,
                  const std::vector<std::string>* categories = nullptr) {
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
      "{1}\" font-family=\"sans-serif\" font-size=\"12\" data-kind=\"fit\">\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"24\" font-size=\"16\">{3}</text>\n"
      "<text x=\"{2}\" y=\"42\" fill=\"#555\">{4}</text>\n",
      coord(kWidth), coord(kHeight), coord(kLeft), safe_text::xml(title), safe_text::xml(subtitle));
  const double ys = step_for(a.y_hi);
  for (double v = 0; v <= a.y_hi * 1.0001; v += ys) {
    out += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#e5e5e5\"/>"
        "<text x=\"{3}\" y=\"{4}\" text-anchor=\"end\" class=\"y-tick\" data-value=\"{5}\">{6}"
        "</text>\n",
        coord(kLeft), coord(kWidth - kRight), coord(a.y(v)), coord(kLeft - 6), coord(a.y(v) + 4),
        coord(v), bytes ? report_detail::tick_label(v) : coord(v));
  }
  if (categories != nullptr) {
    // One tick per category (every k-th when there are many), at its index.
    const std::size_t every = std::max<std::size_t>(1, categories->size() / 16);
    for (std::size_t k = 0; k < categories->size(); k += every) {
      out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                         coord(a.x(static_cast<double>(k))), coord(kHeight - kBottom + 18),
                         safe_text::xml((*categories)[k]));
    }
  } else {
    const double xs = std::max(1.0, step_for(a.x_hi - a.x_lo));
    for (double v = a.x_lo - std::fmod(a.x_lo, xs); v <= a.x_hi; v += xs) {
      if (v < a.x_lo) continue;
      out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                         coord(a.x(v)), coord(kHeight - kBottom + 18), coord(v));
    }
  }
  out += fmt::format(
      "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#333\"/>\n"
      "<text x=\"{3}\" y=\"{4}\" text-anchor=\"middle\">{5}</text>\n"
      "<text x=\"18\" y=\"{6}\" transform=\"rotate(-90 18 {6})\" text-anchor=\"middle\">{7}"
      "</text>\n",
      coord(kLeft), coord(kWidth - kRight), coord(kHeight - kBottom),
      coord((kLeft + kWidth - kRight) / 2), coord(kHeight - 18), safe_text::xml(x_label),
      coord((kTop + kHeight - kBottom) / 2), safe_text::xml(y_label));
  return out;
}

std::string polyline(const Axes& a, const std::vector<std::pair<double, double>>& xy,
                     std::string_view cls, std::string_view colour) {
  std::string points, xs, ys;
  for (const auto& [x, y] : xy) {
    points += fmt::format("{}{},{}", points.empty() ? "" : " ", coord(a.x(x)), coord(a.y(y)));
    xs += fmt::format("{}{}", xs.empty() ? "" : " ", coord(x));
    ys += fmt::format("{}{}", ys.empty() ? "" : " ", coord(y));
  }
  return fmt::format(
      "<polyline class=\"{}\" data-x=\"{}\" data-y=\"{}\" points=\"{}\" fill=\"none\" "
      "stroke=\"{}\" stroke-width=\"2\"/>\n",
      cls, xs, ys, points, colour);
}

}  // namespace

std::string fit_svg(const FitReport& report, const std::vector<FitPoint>& points) {
  if (report.fits.empty()) return {};
  const FitResult& first = report.fits.front();
  if (!report.outer.empty()) {
    // The frontier: the largest inner value for each outer value, the rows evenly spaced (they
    // are powers of two by default, which a linear axis would crush into its left end).
    std::vector<std::pair<double, double>> xy;
    std::vector<std::string> rows;
    double y_hi = 1;
    for (const FitResult& f : report.fits) {
      rows.push_back(std::to_string(f.fixed.at(report.outer)));
      if (!f.best) continue;
      xy.emplace_back(static_cast<double>(rows.size() - 1), static_cast<double>(f.best->value));
      y_hi = std::max(y_hi, static_cast<double>(f.best->value));
    }
    const Axes a{0, static_cast<double>(std::max<std::size_t>(rows.size(), 2) - 1), y_hi * 1.1};
    std::string out = frame(a,
                            "Largest " + first.vary + " for each " + report.outer + " within " +
                                byte_units(first.budget),
                            report.model + " under " + report.profile, report.outer,
                            "largest " + first.vary, false, &rows);
    out += polyline(a, xy, "frontier", "#1f77b4");
    return out + "</svg>\n";
  }
  // One varied symbol: the reserve at each evaluated value, the budget, the value found.
  std::vector<std::pair<double, double>> xy, with_headroom;
  double x_lo = 0, x_hi = 1, y_hi = static_cast<double>(std::max<std::int64_t>(first.budget, 1));
  bool any = false;
  for (const FitPoint& p : points) {
    if (!p.refused.empty()) continue;
    const auto x = static_cast<double>(p.value);
    xy.emplace_back(x, static_cast<double>(p.figures.reserve_bytes));
    with_headroom.emplace_back(x, static_cast<double>(p.figures.reserve_bytes + p.headroom));
    x_lo = any ? std::min(x_lo, x) : x;
    x_hi = any ? std::max(x_hi, x) : x;
    any = true;
    y_hi = std::max(y_hi, static_cast<double>(p.figures.reserve_bytes + p.headroom));
  }
  const Axes a{x_lo, std::max(x_hi, x_lo + 1), y_hi * 1.08};
  const bool budget = first.budget > 0;
  std::string out =
      frame(a,
            "Reserve against " + first.vary +
                (budget ? ", budget " + byte_units(first.budget) : std::string()),
            report.model + " under " + report.profile +
                (first.fixed.empty() ? std::string() : " at " + assignment_label(first.fixed)),
            first.vary, "bytes", true);
  if (budget) {
    out += fmt::format(
        "<line class=\"budget\" data-value=\"{0}\" x1=\"{1}\" x2=\"{2}\" y1=\"{3}\" y2=\"{3}\" "
        "stroke=\"#d62728\" stroke-dasharray=\"6 4\" stroke-width=\"1.5\"/>"
        "<text x=\"{2}\" y=\"{4}\" text-anchor=\"end\" fill=\"#d62728\">budget {5}</text>\n",
        first.budget, coord(kLeft), coord(kWidth - kRight),
        coord(a.y(static_cast<double>(first.budget))),
        coord(a.y(static_cast<double>(first.budget)) - 6),
        safe_text::xml(byte_units(first.budget)));
  }
  if (first.headroom_bytes > 0 || first.headroom_percent > 0) {
    out += polyline(a, with_headroom, "reserve-with-headroom", "#ff7f0e");
  }
  out += polyline(a, xy, "reserve", "#1f77b4");
  out += fmt::format(
      "<g class=\"legend\"><line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#1f77b4\" "
      "stroke-width=\"2\"/><text x=\"{3}\" y=\"{4}\">reserve</text>",
      coord(kLeft + 10), coord(kLeft + 34), coord(kTop + 12), coord(kLeft + 40), coord(kTop + 16));
  if (first.headroom_bytes > 0 || first.headroom_percent > 0) {
    out += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#ff7f0e\" stroke-width=\"2\"/>"
        "<text x=\"{3}\" y=\"{4}\">reserve + headroom</text>",
        coord(kLeft + 10), coord(kLeft + 34), coord(kTop + 30), coord(kLeft + 40),
        coord(kTop + 34));
  }
  out += "</g>\n";
  if (first.best) {
    const double x = a.x(static_cast<double>(first.best->value));
    out += fmt::format(
        "<line class=\"found\" data-value=\"{0}\" x1=\"{1}\" x2=\"{1}\" y1=\"{2}\" y2=\"{3}\" "
        "stroke=\"#2ca02c\" stroke-width=\"1.5\"/><text x=\"{4}\" y=\"{5}\" fill=\"#2ca02c\">"
        "{6} = {0}</text>\n",
        first.best->value, coord(x), coord(kTop), coord(kHeight - kBottom), coord(x + 4),
        coord(kTop + 14), safe_text::xml(first.vary));
  }
  return out + "</svg>\n";
}

}  // namespace cctx
