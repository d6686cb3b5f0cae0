// `cctx plan`'s text, JSON, SVG and HTML (plan_report.hpp).
#include "cctx/plan_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cctx/report.hpp"
#include "cctx/safe_text.hpp"
#include "report/figure_data.hpp"
#include "report/html_assets.hpp"
#include "report/svg_plot.hpp"
#include "report/text_columns.hpp"

namespace cctx {

namespace {

using Json = nlohmann::ordered_json;

const char* kind_name(PlannedBuffer::Kind k) {
  return k == PlannedBuffer::Kind::kScratch ? "scratch" : "tensor";
}

/// What the text and the JSON say of a list of ratios: computed once, sorted once.
struct RatioSummary {
  std::size_t count = 0;
  double median = 0, p90 = 0, worst = 0;
  double within_1_10 = 0, within_1_05 = 0;  ///< percent of the ratios
};

RatioSummary summarize(std::vector<double> v) {
  RatioSummary r;
  r.count = v.size();
  if (v.empty()) return r;
  std::sort(v.begin(), v.end());
  // Nearest rank.
  auto quantile = [&](double q) {
    const auto k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(k, v.size() - 1)];
  };
  auto within = [&](double limit) {
    const auto n = std::upper_bound(v.begin(), v.end(), limit + 1e-12) - v.begin();
    return 100.0 * static_cast<double>(n) / static_cast<double>(v.size());
  };
  r.median = quantile(0.5);
  r.p90 = quantile(0.9);
  r.worst = v.back();
  r.within_1_10 = within(1.10);
  r.within_1_05 = within(1.05);
  return r;
}

std::string ratio_summary(const std::vector<double>& v) {
  const RatioSummary r = summarize(v);
  return fmt::format(
      "median {:.3f}, 90th percentile {:.3f}, worst {:.3f}; within 1.10 at {:.1f}%, "
      "within 1.05 at {:.1f}%",
      r.median, r.p90, r.worst, r.within_1_10, r.within_1_05);
}

std::string values_text(const ComputeContext& ctx, const PlannedBuffer& b) {
  if (b.kind == PlannedBuffer::Kind::kScratch) {
    return fmt::format("scratch of node {} ({})", b.first,
                       safe_text::terminal(ctx.graph().node(b.first).op_type));
  }
  std::string out;
  for (const ValueId v : b.values) {
    if (!out.empty()) out += ", ";
    out += safe_text::terminal(ctx.graph().value(v).name);
  }
  return out;
}

std::string evaluation_line(const PlanValues& e) {
  std::string line = fmt::format(
      "at {}: arena {} bytes ({}), live-bytes floor {} ({:.3f}x)",
      safe_text::terminal(assignment_label(e.assignment)), e.arena, byte_units(e.arena), e.floor,
      e.floor > 0 ? static_cast<double>(e.arena) / static_cast<double>(e.floor) : 1.0);
  if (e.best_fit) {
    line += fmt::format(
        ", best fit for these sizes {} ({:.3f}x)", *e.best_fit,
        e.floor > 0 ? static_cast<double>(*e.best_fit) / static_cast<double>(e.floor) : 1.0);
  }
  return line + fmt::format(", no reuse {}\n", e.no_reuse);
}

/// A closed form when the plan has one, else "max(e3,e7)": the ends of the buffers below.
std::string offset_text(ExprPool& pool, const std::optional<Expr>& closed,
                        const std::vector<std::uint32_t>& below) {
  if (closed) return pool.print(*closed);
  if (below.empty()) return "0";
  std::string out = below.size() > 1 ? "max(" : "";
  for (std::size_t k = 0; k < below.size(); ++k)
    out += fmt::format("{}e{}", k ? "," : "", below[k]);
  return out + (below.size() > 1 ? ")" : "");
}

Json symbols_json(ExprPool& pool, const MemoryPlan& plan) {
  Json out = Json::array();
  for (const std::string& s : plan.symbols) {
    const SymbolInfo* info = pool.find_symbol(s);
    const Interval b = info != nullptr ? info->bounds : kDimBounds;
    Json j;
    j["name"] = s;
    j["lower"] = b.lo == kNegInf ? Json(nullptr) : Json(b.lo);
    j["upper"] = b.hi == kPosInf ? Json(nullptr) : Json(b.hi);
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace

std::string plan_check_text(const PlanCheck& c) {
  std::string out = fmt::format(
      "check: {} assignments checked ({} corners or the whole box, {} where two sizes cross, the "
      "rest random), {} skipped where the model cannot run\n",
      c.checked, c.corners, c.crossings, c.skipped);
  std::string ranges;
  for (const auto& [name, r] : c.sampled) {
    if (!ranges.empty()) ranges += ", ";
    ranges += fmt::format("{} {}..{}", safe_text::terminal(name), r.lo, r.hi);
  }
  if (!ranges.empty()) out += "  sampled: " + ranges + "\n";
  out += fmt::format("  overlaps: {}, buffers outside the arena: {}\n", c.overlaps, c.outside);
  for (const std::string& f : c.failures) out += "  FAIL " + safe_text::terminal(f) + "\n";
  out += "  arena / live-bytes floor: " + ratio_summary(c.arena_ratio) + "\n";
  if (!c.best_fit_ratio.empty()) {
    out += fmt::format("  best fit for each assignment / floor (first {}): {}\n",
                       c.best_fit_ratio.size(), ratio_summary(c.best_fit_ratio));
  }
  if (c.worst) out += "  worst " + evaluation_line(*c.worst);
  out += fmt::format("  arena above the sum of all buffers (no reuse) at {} assignments\n",
                     c.over_no_reuse);
  return out;
}

std::string plan_text(const ComputeContext& ctx, const PlanReport& report, bool wide) {
  const MemoryPlan& plan = *report.plan;
  ExprPool& pool = ctx.pool();
  FormulaFolder folder(!wide, 40);
  std::string out = fmt::format(
      "Memory plan of {} (profile {}): {} buffers, sizes aligned to {} bytes{}\n",
      safe_text::terminal(report.model), safe_text::terminal(report.profile), plan.buffers.size(),
      plan.options.alignment, plan.options.scratch ? ", scratch included" : "");
  if (!plan.example.empty()) {
    out += "which buffer lies below which: the best-fit layout at " +
           safe_text::terminal(assignment_label(plan.example)) + "\n";
  }
  out += "offset of a buffer: the largest end eN (offset + size of buffer N) of those below it\n";
  out +=
      "arena: " + safe_text::terminal(folder.fold(offset_text(pool, plan.arena, plan.tops))) + "\n";
  for (const PlanValues& e : report.evaluations) out += evaluation_line(e);
  out += "\n";
  std::vector<std::vector<std::string>> rows;
  for (std::size_t b = 0; b < plan.buffers.size(); ++b) {
    const PlannedBuffer& buffer = plan.buffers[b];
    std::vector<std::string> row = {
        std::to_string(b), fmt::format("{}..{}", buffer.first, buffer.last),
        safe_text::terminal(folder.fold(pool.print(buffer.size))),
        safe_text::terminal(folder.fold(offset_text(pool, buffer.offset, buffer.below)))};
    for (const PlanValues& e : report.evaluations) {
      row.push_back(fmt::format("{}+{}", e.offsets[b], e.sizes[b]));
    }
    row.push_back(values_text(ctx, buffer));
    rows.push_back(std::move(row));
  }
  std::vector<std::string> header = {"buffer", "nodes", "size", "offset"};
  for (const PlanValues& e : report.evaluations) {
    header.push_back("offset+size @" + safe_text::terminal(assignment_label(e.assignment)));
  }
  header.push_back("values");
  out += report_detail::text_columns(header, std::move(rows));
  out += folder.footer();
  if (report.check) out += "\n" + plan_check_text(*report.check);
  return out;
}

nlohmann::ordered_json plan_json(const ComputeContext& ctx, const PlanReport& report) {
  const MemoryPlan& plan = *report.plan;
  ExprPool& pool = ctx.pool();
  Json j;
  j["format"] = "cctx.memory_plan";
  j["version"] = 1;
  j["model"] = report.model;
  j["profile"] = report.profile;
  j["alignment"] = plan.options.alignment;
  j["scratch"] = plan.options.scratch;
  j["node_count"] = plan.node_count;
  j["symbols"] = symbols_json(pool, plan);
  j["offset_rule"] = "offset = max(0, offset[j] + size[j] for j in below)";
  j["example"] = plan.example;
  j["arena"] = plan.arena ? amount_json(pool, *plan.arena) : Json(nullptr);
  j["tops"] = plan.tops;
  j["order"] = plan.order;
  Json buffers = Json::array();
  for (std::size_t b = 0; b < plan.buffers.size(); ++b) {
    const PlannedBuffer& buffer = plan.buffers[b];
    Json jb;
    jb["id"] = b;
    jb["kind"] = kind_name(buffer.kind);
    if (buffer.kind == PlannedBuffer::Kind::kScratch) {
      jb["node"] = buffer.first;
    } else {
      Json values = Json::array();
      for (const ValueId v : buffer.values)
        values.push_back(std::string(ctx.graph().value(v).name));
      jb["values"] = std::move(values);
    }
    jb["first"] = buffer.first;
    jb["last"] = buffer.last;
    jb["bytes"] = amount_json(pool, buffer.bytes);
    jb["size"] = amount_json(pool, buffer.size);
    jb["below"] = buffer.below;
    jb["offset"] = buffer.offset ? amount_json(pool, *buffer.offset) : Json(nullptr);
    buffers.push_back(std::move(jb));
  }
  j["buffers"] = std::move(buffers);
  Json evaluations = Json::array();
  for (const PlanValues& e : report.evaluations) {
    Json je;
    je["assignment"] = e.assignment;
    je["arena"] = e.arena;
    je["floor"] = e.floor;
    je["best_fit"] = e.best_fit ? Json(*e.best_fit) : Json(nullptr);
    je["no_reuse"] = e.no_reuse;
    je["offsets"] = e.offsets;
    je["sizes"] = e.sizes;
    evaluations.push_back(std::move(je));
  }
  j["evaluations"] = std::move(evaluations);
  if (report.check) {
    const PlanCheck& c = *report.check;
    Json jc;
    jc["checked"] = c.checked;
    jc["corners"] = c.corners;
    jc["crossings"] = c.crossings;
    jc["skipped"] = c.skipped;
    jc["overlaps"] = c.overlaps;
    jc["outside"] = c.outside;
    jc["failures"] = c.failures;
    Json sampled = Json::object();
    for (const auto& [name, r] : c.sampled) sampled[name] = {r.lo, r.hi};
    jc["sampled"] = std::move(sampled);
    auto ratios = [](const std::vector<double>& v) {
      const RatioSummary s = summarize(v);
      return Json{
          {"count", s.count}, {"median", s.median},           {"p90", s.p90},
          {"worst", s.worst}, {"within_1_10", s.within_1_10}, {"within_1_05", s.within_1_05}};
    };
    jc["arena_over_floor"] = ratios(c.arena_ratio);
    jc["best_fit_over_floor"] = ratios(c.best_fit_ratio);
    jc["over_no_reuse"] = c.over_no_reuse;
    if (c.worst) {
      jc["worst"] = {{"assignment", c.worst->assignment},
                     {"arena", c.worst->arena},
                     {"floor", c.worst->floor},
                     {"best_fit", c.worst->best_fit ? Json(*c.worst->best_fit) : Json(nullptr)}};
    }
    j["check"] = std::move(jc);
  }
  return j;
}

std::string plan_svg(const ComputeContext& ctx, const MemoryPlan& plan, const PlanValues& at) {
  using report_detail::coord;
  const std::size_t bucket =
      report_detail::bucket_size_for(std::max<std::size_t>(plan.node_count, 1));
  const double top = static_cast<double>(std::max<std::int64_t>(at.arena, 1));
  report_detail::SvgPlot svg(report_detail::node_op_types(ctx), bucket, top);
  std::string body;
  const double half = svg.column_width() / 2;
  for (std::size_t b = 0; b < plan.buffers.size(); ++b) {
    const PlannedBuffer& buffer = plan.buffers[b];
    if (at.sizes[b] == 0) continue;
    const double x0 = svg.x_of_node(static_cast<double>(buffer.first)) - half;
    const double x1 = svg.x_of_node(static_cast<double>(buffer.last)) + half;
    const double y0 = svg.y_of(static_cast<double>(at.offsets[b] + at.sizes[b]));
    const double y1 = svg.y_of(static_cast<double>(at.offsets[b]));
    const bool scratch = buffer.kind == PlannedBuffer::Kind::kScratch;
    body += fmt::format(
        "<rect class=\"buffer\" data-buffer=\"{}\" data-first=\"{}\" "
        "data-last=\"{}\" data-offset=\"{}\" data-size=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" "
        "height=\"{}\" fill=\"{}\" fill-opacity=\"0.75\" stroke=\"#333\" stroke-width=\"0.4\">"
        "<title>buffer {}: {} bytes at offset {}, nodes {}..{}: {}</title></rect>\n",
        b, buffer.first, buffer.last, at.offsets[b], at.sizes[b], coord(x0), coord(y0),
        coord(std::max(0.5, x1 - x0)), coord(std::max(0.5, y1 - y0)),
        scratch ? std::string("#bbbbbb") : std::string(report_detail::series_colour(b)), b,
        at.sizes[b], at.offsets[b], buffer.first, buffer.last,
        safe_text::xml(values_text(ctx, buffer)));
  }
  const double floor_y = svg.y_of(static_cast<double>(at.floor));
  body += fmt::format(
      "<line class=\"floor\" data-bytes=\"{}\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" "
      "stroke=\"#d62728\" stroke-dasharray=\"6 4\" stroke-width=\"1.5\"/>\n",
      at.floor, coord(svg.x_of_node(0) - half),
      coord(svg.x_of_node(static_cast<double>(plan.node_count == 0 ? 0 : plan.node_count - 1)) +
            half),
      coord(floor_y), coord(floor_y));
  const std::string subtitle = fmt::format(
      "arena {} ({}), live-bytes floor {} ({:.3f}x); {} buffers", at.arena, byte_units(at.arena),
      at.floor, at.floor > 0 ? static_cast<double>(at.arena) / static_cast<double>(at.floor) : 1.0,
      plan.buffers.size());
  return svg.render("memory-plan",
                    "Memory plan at " + safe_text::xml(assignment_label(at.assignment)),
                    safe_text::xml(subtitle), "node", "address (bytes)", body,
                    {{"tensor", std::string(report_detail::series_colour(0)), false},
                     {"scratch", "#bbbbbb", false},
                     {"live-bytes floor", "#d62728", true}});
}

std::string plan_html(const ComputeContext& ctx, const PlanReport& report) {
  using safe_text::xml;
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>cctx plan: {0}</title>\n<script>{1}</script>\n<style>{2}</style>\n</head>\n<body>\n"
      "<div id=\"errors\" role=\"alert\"></div>\n<h1>cctx plan: {0}</h1>\n"
      "<p class=\"muted\">Profile <code>{3}</code>; {4} buffers, sizes aligned to {5} bytes. "
      "Arena: <code>{6}</code></p>\n",
      xml(report.model), report_detail::kHtmlErrorCapture, report_detail::kHtmlStyle,
      xml(report.profile), report.plan->buffers.size(), report.plan->options.alignment,
      xml(offset_text(ctx.pool(), report.plan->arena, report.plan->tops)));
  for (const PlanValues& e : report.evaluations) {
    std::string line = evaluation_line(e);
    line.pop_back();  // its newline
    out += "<section class=\"plan\">\n<p>" + xml(line) + "</p>\n<figure>\n" +
           plan_svg(ctx, *report.plan, e) + "</figure>\n</section>\n";
  }
  if (report.check) out += "<pre id=\"check\">" + xml(plan_check_text(*report.check)) + "</pre>\n";
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace cctx
