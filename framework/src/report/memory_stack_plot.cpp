// For one assignment, the memory at each node stacked by source (initializers, inputs,
// intermediates, outputs, then scratch) and tag, with the peak node marked.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "cctx/report.hpp"
#include "cctx/safe_text.hpp"
#include "report/figure_data.hpp"
#include "report/svg_plot.hpp"

namespace cctx {

using report_detail::coord;

namespace {

enum class Source : std::uint8_t { kInitializers, kInputs, kIntermediates, kOutputs, kScratch };
constexpr std::size_t kSourceCount = 5;
constexpr std::array<const char*, kSourceCount> kSourceNames = {
    "initializers", "inputs", "intermediates", "outputs", "scratch"};
// Tags in bucket order: untagged, ambiguous, axes, shape, weight.
constexpr std::array<Tag, 5> kTags = {Tag::kNone, Tag::kAmbiguous, Tag::kAxes, Tag::kShape,
                                      Tag::kWeight};
constexpr std::size_t kTagCount = kTags.size();
// One hue per source, one shade per tag (weight, the bulk of most graphs, the darkest).
constexpr std::array<std::array<const char*, kTagCount>, kSourceCount> kColours = {{
    {"#a1d99b", "#74c476", "#c7e9c0", "#98df8a", "#2ca02c"},
    {"#9ecae1", "#6baed6", "#c6dbef", "#aec7e8", "#1f77b4"},
    {"#fdae6b", "#fd8d3c", "#fdd0a2", "#ffbb78", "#ff7f0e"},
    {"#bcbddc", "#807dba", "#dadaeb", "#c5b0d5", "#9467bd"},
    {"#7f7f7f", "#7f7f7f", "#7f7f7f", "#7f7f7f", "#7f7f7f"},
}};

std::size_t tag_column(Tag t) {
  return static_cast<std::size_t>(std::find(kTags.begin(), kTags.end(), t) - kTags.begin());
}

/// Bytes of one node per (source, tag) layer.
using Layers = std::array<std::array<std::int64_t, kTagCount>, kSourceCount>;

Layers node_layers(const ComputeContext& ctx, NodeId n, report_detail::AmountEvaluator& eval) {
  Layers out{};
  const MemoryProfile& p = ctx.memory(n);
  const std::array<const Bucket*, 4> buckets = {&p.initializers, &p.inputs, &p.intermediates,
                                                &p.outputs};
  for (std::size_t s = 0; s < buckets.size(); ++s) {
    for (const auto& [tag, amount] : *buckets[s]) out[s][tag_column(tag)] += eval(amount);
  }
  out[static_cast<std::size_t>(Source::kScratch)][0] = eval(ctx.node_peak_memory(n));
  return out;
}

std::string layer_label(std::size_t source, std::size_t tag) {
  if (source == static_cast<std::size_t>(Source::kScratch)) return "scratch";
  const char* name = tag_name(kTags[tag]);
  return fmt::format("{}: {}", kSourceNames[source], *name ? name : "untagged");
}

std::string peak_marker(const report_detail::SvgPlot& plot, const ComputeContext& ctx,
                        const PeakEvaluation& peak, std::size_t slot) {
  if (peak.node < 0) return {};
  const auto node = static_cast<NodeId>(peak.node);
  const double x = plot.x_of_slot(slot), top = plot.y_of(static_cast<double>(peak.bytes));
  const bool right_half = x > (plot.x_of_slot(0) + plot.x_of_slot(plot.slots() - 1)) / 2;
  return fmt::format(
      "<g class=\"peak-marker\" data-node=\"{}\" data-bytes=\"{}\">"
      "<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#d62728\" stroke-dasharray=\"4 3\"/>"
      "<path d=\"M {} {} l -5 -8 h 10 z\" fill=\"#d62728\"/>"
      "<text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#d62728\" text-anchor=\"{}\">peak {} bytes "
      "at node {} ({})</text></g>\n",
      node, peak.bytes, coord(x), coord(x), coord(plot.plot_top()), coord(top), coord(x),
      coord(top - 2), coord(right_half ? x - 8 : x + 8), coord(plot.plot_top() + 14),
      right_half ? "end" : "start", peak.bytes, node,
      safe_text::xml(ctx.graph().node(node).op_type));
}

}  // namespace

std::string memory_stack_svg(const ComputeContext& ctx, const Assignment& assignment) {
  report_detail::AmountEvaluator eval(ctx.pool(), assignment);
  std::vector<Layers> layers;
  std::vector<std::int64_t> heights;  // total + scratch: what the peak compares
  layers.reserve(ctx.node_count());
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    layers.push_back(node_layers(ctx, n, eval));
    std::int64_t sum = 0;
    for (const auto& row : layers.back()) {
      for (std::int64_t v : row) sum += v;
    }
    heights.push_back(sum);
  }
  const std::size_t bucket = report_detail::bucket_size_for(ctx.node_count());
  const std::vector<std::size_t> shown = report_detail::bucket_maxima(heights, bucket);
  std::int64_t y_max = 0;
  std::array<std::array<bool, kTagCount>, kSourceCount> used{};
  for (std::size_t node : shown) {
    y_max = std::max(y_max, heights[node]);
    for (std::size_t s = 0; s < kSourceCount; ++s) {
      for (std::size_t t = 0; t < kTagCount; ++t) used[s][t] = used[s][t] || layers[node][s][t] > 0;
    }
  }
  report_detail::SvgPlot plot(report_detail::node_op_types(ctx), bucket,
                              static_cast<double>(y_max));
  const double width = std::max(0.5, plot.column_width() * 0.8);
  std::string body = "<g class=\"data\">\n";
  for (std::size_t slot = 0; slot < shown.size(); ++slot) {
    const std::size_t node = shown[slot];
    body +=
        fmt::format("<g class=\"column\" data-node=\"{}\" data-total=\"{}\">", node, heights[node]);
    std::int64_t below = 0;
    for (std::size_t s = 0; s < kSourceCount; ++s) {
      for (std::size_t t = 0; t < kTagCount; ++t) {
        const std::int64_t v = layers[node][s][t];
        if (v <= 0) continue;
        const double y0 = plot.y_of(static_cast<double>(below));
        const double y1 = plot.y_of(static_cast<double>(below + v));
        body += fmt::format(
            "<rect data-layer=\"{}\" data-bytes=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" "
            "height=\"{}\" fill=\"{}\"/>",
            layer_label(s, t), v, coord(plot.x_of_slot(slot) - width / 2), coord(y1), coord(width),
            coord(y0 - y1), kColours[s][t]);
        below += v;
      }
    }
    body += "</g>\n";
  }
  const PeakEvaluation peak = ctx.evaluate_peak(assignment);
  body += "</g>\n";
  if (peak.node >= 0)
    body += peak_marker(plot, ctx, peak, static_cast<std::size_t>(peak.node) / bucket);
  std::vector<report_detail::LegendEntry> legend;
  for (std::size_t s = kSourceCount; s-- > 0;) {  // top of the stack first, as drawn
    for (std::size_t t = kTagCount; t-- > 0;) {
      if (used[s][t]) legend.push_back({layer_label(s, t), kColours[s][t], false});
    }
  }
  std::string subtitle = report_detail::aggregation_note(ctx.node_count(), bucket, "bar");
  return plot.render(
      "memory-stack",
      fmt::format("Memory at each node by source and tag ({})", assignment_label(assignment)),
      subtitle, "node index", "bytes", body, legend);
}

}  // namespace cctx
