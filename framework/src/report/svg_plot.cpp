// The common frame of the SVG figures (see svg_plot.hpp).
#include "report/svg_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "cctx/safe_text.hpp"

namespace cctx::report_detail {

namespace {

constexpr double kRightMargin = 205;  // room for the legend ("intermediates: ambiguous")
constexpr double kBottomMargin = 72;
constexpr double kRotatedBottomMargin = 104;
constexpr double kCharWidth = 6.4;      // average glyph width of an 11px sans-serif label
constexpr double kMinTickSpacing = 64;  // px between x tick labels

/// The smallest 1, 2 or 5 times a power of ten that is >= raw.
double nice_step(double raw) {
  if (raw <= 0) return 1;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * power >= raw * (1 - 1e-12)) return m * power;
  }
  return 10 * power;
}

}  // namespace

std::string coord(double v) {
  std::string s = fmt::format("{:.2f}", v);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::string tick_label(double bytes) {
  // Decimal units from a thousand up, in both figures: one figure labelled "1.5G" next to
  // another labelled "800000" read as different units.
  constexpr std::array<std::pair<double, const char*>, 4> kScales = {
      {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}}};
  for (const auto& [scale, suffix] : kScales) {
    if (std::abs(bytes) >= scale) {
      std::string s = fmt::format("{:.3f}", bytes / scale);
      while (s.back() == '0') s.pop_back();
      if (s.back() == '.') s.pop_back();
      return s + suffix;
    }
  }
  return fmt::format("{:.0f}", bytes);
}

std::string_view series_colour(std::size_t index) {
  static constexpr std::array<std::string_view, 10> kColours = {
      "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  return kColours[index % kColours.size()];
}

SvgPlot::SvgPlot(std::vector<std::string_view> op_types, std::size_t bucket_size, double y_max)
    : op_types_(std::move(op_types)),
      node_count_(op_types_.size()),
      bucket_(std::max<std::size_t>(1, bucket_size)) {
  slots_ = std::max<std::size_t>(1, (node_count_ + bucket_ - 1) / bucket_);
  y_step_ = nice_step(std::max(y_max, 1.0) / 5);
  y_max_ = std::ceil(std::max(y_max, 1.0) / y_step_) * y_step_;
  plot_width_ = width_ - left_ - kRightMargin;
  const auto max_ticks = static_cast<std::size_t>(plot_width_ / kMinTickSpacing);
  if (node_count_ > max_ticks) {
    x_tick_step_ =
        static_cast<std::size_t>(nice_step(static_cast<double>(node_count_) / max_ticks));
  }
  // Labels "i:Op" are drawn horizontally when they fit between ticks, else at an angle.
  std::size_t longest = 0;
  for (std::size_t node = 0; node < node_count_; node += x_tick_step_) {
    longest = std::max(longest, fmt::formatted_size("{}:{}", node, op_types_[node]));
  }
  const double spacing =
      plot_width_ * static_cast<double>(x_tick_step_) / static_cast<double>(slots_ * bucket_);
  rotate_x_labels_ = static_cast<double>(longest) * kCharWidth > spacing * 0.9;
  plot_height_ = height_ - top_ - (rotate_x_labels_ ? kRotatedBottomMargin : kBottomMargin);
}

double SvgPlot::x_of_node(double node) const {
  return left_ + (node + 0.5) / static_cast<double>(slots_ * bucket_) * plot_width_;
}

double SvgPlot::x_of_slot(std::size_t slot) const {
  return left_ + (static_cast<double>(slot) + 0.5) / static_cast<double>(slots_) * plot_width_;
}

double SvgPlot::y_of(double bytes) const { return top_ + plot_height_ * (1 - bytes / y_max_); }

double SvgPlot::column_width() const { return plot_width_ / static_cast<double>(slots_); }

std::string SvgPlot::y_axis() const {
  std::string out = "<g class=\"y-axis\" font-size=\"11\" text-anchor=\"end\">\n";
  const auto count = static_cast<std::int64_t>(std::llround(y_max_ / y_step_));
  for (std::int64_t k = 0; k <= count; ++k) {
    const double value = static_cast<double>(k) * y_step_;
    const std::string y = coord(y_of(value));
    out += fmt::format(
        "<g class=\"y-tick\" data-value=\"{}\"><line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" "
        "stroke=\"#000\" stroke-opacity=\"0.12\"/><text x=\"{}\" y=\"{}\" dy=\"0.35em\">{}</text>"
        "</g>\n",
        coord(value), coord(left_), coord(left_ + plot_width_), y, y, coord(left_ - 6), y,
        tick_label(value));
  }
  return out + "</g>\n";
}

std::string SvgPlot::x_axis() const {
  std::string out = fmt::format("<g class=\"x-axis\" font-size=\"11\" text-anchor=\"{}\">\n",
                                rotate_x_labels_ ? "end" : "middle");
  const double label_y = plot_bottom() + 16;
  for (std::size_t node = 0; node < node_count_; node += x_tick_step_) {
    const std::string x = coord(x_of_node(static_cast<double>(node)));
    const std::string label = fmt::format("{}:{}", node, op_types_[node]);
    const std::string transform =
        rotate_x_labels_ ? fmt::format(" transform=\"rotate(-35 {} {})\"", x, coord(label_y)) : "";
    out += fmt::format(
        "<g class=\"x-tick\" data-node=\"{}\"><line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" "
        "stroke=\"#000\" stroke-opacity=\"0.12\"/><text x=\"{}\" y=\"{}\"{}>{}</text></g>\n",
        node, x, x, coord(top_), coord(plot_bottom() + 4), x, coord(label_y), transform,
        safe_text::xml(label));
  }
  return out + "</g>\n";
}

std::string SvgPlot::legend_box(const std::vector<LegendEntry>& legend) const {
  if (legend.empty()) return {};
  const double x = left_ + plot_width_ + 14, row = 18;
  std::string out = fmt::format(
      "<g class=\"legend\" font-size=\"11\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
      "fill=\"#fff\" stroke=\"#ccc\" rx=\"3\"/>\n",
      coord(x), coord(top_), coord(kRightMargin - 22), coord(row * legend.size() + 8));
  for (std::size_t k = 0; k < legend.size(); ++k) {
    const LegendEntry& e = legend[k];
    const double y = top_ + 4 + row * (static_cast<double>(k) + 0.5);
    if (e.marker) {
      out += fmt::format(
          "<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"/>"
          "<circle cx=\"{}\" cy=\"{}\" r=\"3.5\" fill=\"{}\"/>",
          coord(x + 6), coord(x + 28), coord(y), coord(y), e.colour, coord(x + 17), coord(y),
          e.colour);
    } else {
      out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"22\" height=\"10\" fill=\"{}\"/>",
                         coord(x + 6), coord(y - 5), e.colour);
    }
    out += fmt::format("<text x=\"{}\" y=\"{}\" dy=\"0.35em\">{}</text>\n", coord(x + 34), coord(y),
                       safe_text::xml(e.label));
  }
  return out + "</g>\n";
}

std::string SvgPlot::render(std::string_view kind, std::string_view title,
                            std::string_view subtitle, std::string_view x_label,
                            std::string_view y_label, const std::string& body,
                            const std::vector<LegendEntry>& legend) const {
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"cctx-figure\" data-kind=\"{}\" "
      "width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" font-family=\"sans-serif\">\n"
      "<rect width=\"{}\" height=\"{}\" fill=\"#fff\"/>\n",
      kind, coord(width_), coord(height_), coord(width_), coord(height_), coord(width_),
      coord(height_));
  const std::string centre = coord(left_ + plot_width_ / 2);
  out += fmt::format(
      "<text class=\"title\" x=\"{}\" y=\"22\" font-size=\"15\" text-anchor=\"middle\">{}</text>\n",
      centre, safe_text::xml(title));
  if (!subtitle.empty()) {
    out += fmt::format(
        "<text class=\"subtitle\" x=\"{}\" y=\"40\" font-size=\"11\" fill=\"#555\" "
        "text-anchor=\"middle\">{}</text>\n",
        centre, safe_text::xml(subtitle));
  }
  out += y_axis() + x_axis() + body;
  out += fmt::format(
      "<rect class=\"frame\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
      "stroke=\"#333\"/>\n",
      coord(left_), coord(top_), coord(plot_width_), coord(plot_height_));
  out += legend_box(legend);
  out += fmt::format(
      "<text class=\"x-label\" x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">{}"
      "</text>\n",
      centre, coord(height_ - 10), safe_text::xml(x_label));
  const std::string y_centre = coord(top_ + plot_height_ / 2);
  out += fmt::format(
      "<text class=\"y-label\" x=\"18\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 18 {})\">{}</text>\n",
      y_centre, y_centre, safe_text::xml(y_label));
  return out + "</svg>\n";
}

}  // namespace cctx::report_detail
