// The frame shared by cctx's SVG figures: size and margins, title and subtitle, light grid, axis
// ticks and labels, legend. Figures are self-contained: no scripts, no external fonts (generic
// families only), so they render the same in a browser, an image viewer and inline in HTML.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cctx::report_detail {

/// A coordinate with two decimals and no trailing zeros ("12.5", "3").
std::string coord(double v);
/// A byte count for an axis tick: plain below a thousand, else "800k", "2.5M", "1G", "3T".
std::string tick_label(double bytes);

/// One entry of the legend: a filled swatch (`marker` false) or a line with a circle marker.
struct LegendEntry {
  std::string label;
  std::string colour;
  bool marker = false;
};

/// A plot area of `slots` columns along x (one per node, or per bucket of consecutive nodes) and
/// [0, y_max] bytes along y. Everything the figures draw goes through x_of/y_of, so the tests can
/// map the polylines back to bytes with the y ticks (`data-value`).
class SvgPlot {
 public:
  /// `op_types[i]` labels node i's tick as "i:Op"; the figure has one column per `bucket_size`
  /// consecutive nodes.
  SvgPlot(std::vector<std::string_view> op_types, std::size_t bucket_size, double y_max);

  std::size_t slots() const { return slots_; }
  /// Centre of the column holding node `node` (fractional nodes allowed).
  double x_of_node(double node) const;
  /// Centre of column `slot`.
  double x_of_slot(std::size_t slot) const;
  double y_of(double bytes) const;
  double column_width() const;
  double plot_top() const { return top_; }
  double plot_bottom() const { return top_ + plot_height_; }

  /// The complete document: frame, grid and ticks under `body`, legend over it. `kind` goes
  /// into the root's data-kind.
  std::string render(std::string_view kind, std::string_view title, std::string_view subtitle,
                     std::string_view x_label, std::string_view y_label, const std::string& body,
                     const std::vector<LegendEntry>& legend) const;

 private:
  std::string y_axis() const;
  std::string x_axis() const;
  std::string legend_box(const std::vector<LegendEntry>& legend) const;

  std::vector<std::string_view> op_types_;
  std::size_t node_count_;
  std::size_t bucket_;
  std::size_t slots_;
  double y_max_;
  double y_step_;
  double width_ = 860, height_ = 470;
  double left_ = 78, top_ = 58, plot_width_ = 0, plot_height_ = 0;
  std::size_t x_tick_step_ = 1;  ///< nodes between labelled ticks
  bool rotate_x_labels_ = false;
};

/// Series colours (matplotlib's default cycle), by series index.
std::string_view series_colour(std::size_t index);

}  // namespace cctx::report_detail
