// The self-contained HTML report (see report.hpp, html_report).
#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <numeric>

#include "cctx/fit_report.hpp"
#include "cctx/report.hpp"
#include "cctx/safe_text.hpp"
#include "report/figure_data.hpp"
#include "report/html_assets.hpp"
#include "report/html_table_data.hpp"
#include "report/svg_plot.hpp"

namespace cctx {

namespace {

// Lists of warnings, symbols or values are cut here; the JSON report has them all.
constexpr std::size_t kListLimit = 200;
constexpr std::size_t kTopNodes = 10;

std::string key_value_rows(const std::vector<std::pair<std::string, std::string>>& rows) {
  std::string out = "<table class=\"kv\">\n";
  for (const auto& [key, value] : rows) {
    out += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", safe_text::xml(key), value);
  }
  return out + "</table>\n";
}

/// A list of already-escaped items, cut at kListLimit.
std::string item_list(const std::vector<std::string>& items) {
  std::string out = "<ul class=\"compact\">\n";
  for (std::size_t k = 0; k < items.size() && k < kListLimit; ++k)
    out += "<li>" + items[k] + "</li>\n";
  if (items.size() > kListLimit) {
    out += fmt::format("<li class=\"muted\">and {} more (see <code>--format json</code>)</li>\n",
                       items.size() - kListLimit);
  }
  return out + "</ul>\n";
}

std::string node_name(const ComputeContext& ctx, std::int64_t node) {
  if (node < 0) return "-";
  const NodeEntry& e = ctx.graph().node(static_cast<NodeId>(node));
  return fmt::format("{} ({})", node, safe_text::xml(e.op_type));
}

std::string summary_section(const ComputeContext& ctx, const HtmlReportOptions& options) {
  const GraphView& g = ctx.graph();
  const onnx::ModelProto& model = g.model().proto();
  std::string opsets;
  for (const auto& op : model.opset_import()) {
    opsets +=
        fmt::format("{}{} {}", opsets.empty() ? "" : ", ",
                    safe_text::xml(op.domain().empty() ? "ai.onnx" : op.domain()), op.version());
  }
  std::size_t inputs = 0, initializers = 0, outputs = 0, intermediates = 0;
  for (const ValueEntry& v : g.values()) {
    if (v.graph != 0) continue;
    if (v.is_initializer()) {
      ++initializers;
    } else if (v.is_input()) {
      ++inputs;
    } else if (v.is_output()) {
      ++outputs;
    } else {
      ++intermediates;
    }
  }
  std::string symbols;
  for (const SymbolInfo& s : ctx.pool().symbols()) {
    if (s.kind == SymbolKind::kFresh) continue;
    symbols += (symbols.empty() ? "" : ", ") + safe_text::xml(s.name);
  }
  return "<section id=\"summary\"><h2>Model</h2>\n" +
         key_value_rows({{"path", "<code>" + safe_text::xml(options.report.model_path) + "</code>"},
                         {"graph", safe_text::xml(model.graph().name())},
                         {"opsets", opsets},
                         {"nodes", std::to_string(ctx.node_count())},
                         {"values", fmt::format("{} inputs, {} initializers, {} intermediates, {} "
                                                "outputs (main graph)",
                                                inputs, initializers, intermediates, outputs)},
                         {"symbols", symbols.empty() ? "-" : symbols}}) +
         "</section>\n";
}

std::string peak_section(const ComputeContext& ctx, const std::vector<Assignment>& evaluate) {
  std::string out = fmt::format(
      "<section id=\"peak\"><h2>Peak</h2>\n<p>Peak total bytes: <span class=\"formula\" "
      "id=\"peak-formula\">{}</span>",
      safe_text::xml(ctx.pool().print(ctx.peak_total_bytes())));
  if (auto n = ctx.peak_node()) {
    out += " at node " + node_name(ctx, *n);
  } else {
    out +=
        " <span class=\"muted\">(no single node dominates for every value of the symbols)</span>";
  }
  out += "</p>\n";
  if (evaluate.empty()) return out + "</section>\n";
  out +=
      "<table id=\"peak-table\"><tr><th>assignment</th><th>bytes</th><th>node</th>"
      "<th title=\"allocated during one run on top of what is held before it\">run bytes</th>"
      "<th title=\"held before a run: initializers and the session's own\">session bytes</th>"
      "<th title=\"the graph inputs the caller creates and holds during the run\">input "
      "bytes</th>"
      "<th title=\"what the process must have: session + inputs + run\">reserve</th>"
      "</tr>\n";
  for (const Assignment& a : evaluate) {
    const PeakEvaluation e = ctx.evaluate_peak(a);
    out += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\" title=\"{} bytes\">{}</td></tr>\n",
        safe_text::xml(assignment_label(a)), e.bytes, node_name(ctx, e.node), e.run_bytes,
        e.session_bytes, e.input_bytes, e.reserve_bytes, byte_units(e.reserve_bytes));
  }
  return out + "</table>\n</section>\n";
}

std::string top_nodes_section(const ComputeContext& ctx, const std::vector<Assignment>& evaluate) {
  std::string out = "<section id=\"top-nodes\"><h2>Top nodes by memory</h2>\n";
  if (evaluate.empty()) {
    return out +
           "<p class=\"muted\">Give <code>--eval SYM=V</code> to rank the nodes.</p></section>\n";
  }
  ExprPool& pool = ctx.pool();
  report_detail::AmountEvaluator first(pool, evaluate.front());
  std::vector<std::int64_t> terms;
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    terms.push_back(first(ctx.memory(n).total) + first(ctx.node_peak_memory(n)));
  }
  std::vector<NodeId> order(ctx.node_count());
  std::iota(order.begin(), order.end(), 0);
  const std::size_t shown = std::min(kTopNodes, order.size());
  std::partial_sort(
      order.begin(), order.begin() + static_cast<std::ptrdiff_t>(shown), order.end(),
      [&](NodeId a, NodeId b) { return terms[a] != terms[b] ? terms[a] > terms[b] : a < b; });
  out += fmt::format("<p class=\"muted\">Ranked by total + scratch at {}.</p>\n",
                     safe_text::xml(assignment_label(evaluate.front())));
  out +=
      "<table id=\"top-table\"><tr><th>node</th><th>op</th><th>name</th><th>total</th>"
      "<th>scratch</th>";
  for (const Assignment& a : evaluate)
    out += "<th>total + scratch @ " + safe_text::xml(assignment_label(a)) + "</th>";
  out += "</tr>\n";
  std::vector<report_detail::AmountEvaluator> evaluators;
  for (const Assignment& a : evaluate) evaluators.emplace_back(pool, a);
  for (std::size_t k = 0; k < shown; ++k) {
    const NodeId n = order[k];
    const NodeEntry& node = ctx.graph().node(n);
    out += fmt::format(
        "<tr><td class=\"num\">{}</td><td>{}</td><td>{}</td><td><code>{}</code></td>"
        "<td><code>{}</code></td>",
        n, safe_text::xml(node.op_type), safe_text::xml(node.proto->name()),
        safe_text::xml(pool.print(ctx.memory(n).total)),
        safe_text::xml(pool.print(ctx.node_peak_memory(n))));
    for (auto& eval : evaluators) {
      out += fmt::format("<td class=\"num\">{}</td>",
                         eval(ctx.memory(n).total) + eval(ctx.node_peak_memory(n)));
    }
    out += "</tr>\n";
  }
  return out + "</table>\n</section>\n";
}

std::string figures_section(const ComputeContext& ctx, const std::vector<Assignment>& evaluate) {
  std::string out = "<section id=\"figures\"><h2>Figures</h2>\n";
  if (evaluate.empty()) {
    return out +
           "<p class=\"muted\">Give <code>--eval SYM=V</code> to draw the figures.</p></section>\n";
  }
  out += "<figure>\n" + total_bytes_svg(ctx, evaluate) + "</figure>\n";
  // The stacked figure per assignment (the first few): what fills memory changes with the sizes.
  constexpr std::size_t kStacks = 4;
  for (std::size_t k = 0; k < evaluate.size() && k < kStacks; ++k) {
    out += "<figure>\n" + memory_stack_svg(ctx, evaluate[k]) + "</figure>\n";
  }
  return out + "</section>\n";
}

/// The reserve against each symbol the first assignment gives (the others fixed there), with the
/// budget line when `--budget` gives one: how far a batch or a context can go.
std::string reserve_section(const ComputeContext& ctx, const HtmlReportOptions& options) {
  const std::vector<Assignment>& evaluate = options.report.evaluate;
  if (evaluate.empty()) return {};
  const Assignment& base = evaluate.front();
  std::string out =
      "<section id=\"reserve\"><h2>Reserve against each symbol</h2>\n<p class=\"muted\">"
      "session + inputs + run, one symbol varied, the others at " +
      safe_text::xml(assignment_label(base)) + ".</p>\n";
  constexpr std::size_t kSymbols = 4;
  constexpr std::int64_t kPoints = 32;
  std::size_t drawn = 0;
  for (const auto& [name, value] : base) {
    const SymbolInfo* info = ctx.pool().find_symbol(name);
    if (info == nullptr || info->kind != SymbolKind::kDeclared || drawn == kSymbols) continue;
    const std::int64_t lo = std::max<std::int64_t>(info->bounds.lo, 0);
    std::int64_t hi = value > (INT64_MAX - 8) / 2 ? value : std::max(value * 2, value + 8);
    if (info->bounds.hi != kPosInf) hi = std::min(hi, info->bounds.hi);
    if (hi <= lo) continue;
    FitResult series;
    series.vary = name;
    series.budget = options.report.budget;
    series.fixed = base;
    series.fixed.erase(name);
    std::vector<FitPoint> points;
    for (std::int64_t k = 0; k <= kPoints; ++k) {
      FitPoint p;
      const std::int64_t span = hi - lo;
      p.value = lo + span / kPoints * k + span % kPoints * k / kPoints;
      if (!points.empty() && points.back().value == p.value) continue;
      p.assignment = base;
      p.assignment[name] = p.value;
      try {
        if (ctx.failed_requirement(p.assignment)) continue;
        p.figures = ctx.evaluate_peak(p.assignment);
      } catch (const ExprError&) {
        continue;  // outside the bounds, an overflow: no point there
      }
      p.fits = series.budget == 0 || p.figures.reserve_bytes <= series.budget;
      points.push_back(std::move(p));
    }
    for (const FitPoint& p : points) {
      if (p.value == value) series.best = p;
    }
    if (points.size() < 2) continue;
    ++drawn;
    FitReport report{options.report.model_path, ctx.options().name, "", {series}};
    out += "<figure>\n" + fit_svg(report, points) + "</figure>\n";
  }
  return drawn == 0 ? std::string() : out + "</section>\n";
}

std::string table_section(const ComputeContext& ctx, const std::vector<Assignment>& evaluate) {
  return "<section id=\"nodes\"><h2>Per-node memory</h2>\n"
         "<div class=\"controls\">"
         "<label>op type <select id=\"op-filter\"><option "
         "value=\"-1\">all</option></select></label>"
         "<label>find <input id=\"text-filter\" type=\"search\" placeholder=\"index, op or name\">"
         "</label>"
         "<label>rows per page <select id=\"page-size\"><option>50</option>"
         "<option selected>100</option><option>500</option></select></label>"
         "<button id=\"page-prev\" type=\"button\">previous</button>"
         "<button id=\"page-next\" type=\"button\">next</button>"
         "<span id=\"page-info\" class=\"muted\"></span></div>\n"
         "<div class=\"table-wrap\"><table id=\"node-table\"><thead><tr></tr></thead><tbody>"
         "</tbody></table></div>\n"
         "<noscript><p>The table needs JavaScript; <code>cctx analyze --format csv</code> gives "
         "the same data.</p></noscript>\n"
         "<script type=\"application/json\" id=\"cctx-data\">" +
         report_detail::html_table_data(ctx, evaluate) + "</script>\n</section>\n";
}

std::string warnings_section(const ComputeContext& ctx) {
  const GraphView& g = ctx.graph();
  std::vector<std::string> warnings, notes, fresh, unknown_rank, unsized;
  for (const Diagnostic& d : ctx.diagnostics()) {
    (d.severity == Diagnostic::Severity::kNote ? notes : warnings)
        .push_back(safe_text::xml(d.message));
  }
  for (const SymbolInfo& s : ctx.pool().symbols()) {
    if (s.kind != SymbolKind::kFresh) continue;
    fresh.push_back("<code>" + safe_text::xml(s.name) + "</code>: " + safe_text::xml(s.origin));
  }
  for (ValueId v : ctx.unknown_rank_values())
    unknown_rank.push_back("<code>" + safe_text::xml(g.value(v).name) + "</code>");
  for (ValueId v : ctx.unsized_values())
    unsized.push_back("<code>" + safe_text::xml(g.value(v).name) + "</code>");
  std::string out = "<section id=\"warnings\"><h2>Warnings</h2>\n";
  const std::pair<const char*, const std::vector<std::string>*> groups[] = {
      {"Warnings (fallbacks, rule errors)", &warnings},
      {"Notes", &notes},
      {"Fresh symbols and their origins", &fresh},
      {"Values of unknown rank", &unknown_rank},
      {"Unsized values (not counted)", &unsized}};
  bool any = false;
  for (const auto& [title, items] : groups) {
    if (items->empty()) continue;
    any = true;
    out += fmt::format("<h3>{} ({})</h3>\n", title, items->size()) + item_list(*items);
  }
  if (!any) out += "<p class=\"muted\">None.</p>\n";
  return out + "</section>\n";
}

std::string profile_section(const ComputeContext& ctx, const HtmlReportOptions& options) {
  const Profile& p = ctx.options();
  std::string bounds;
  for (const auto& [name, i] : p.symbols) {
    bounds += fmt::format("{}{} in [{}, {}]", bounds.empty() ? "" : ", ", safe_text::xml(name),
                          i.lo, i.hi == kPosInf ? std::string("inf") : std::to_string(i.hi));
  }
  std::string fallbacks;
  for (const std::string& f : p.shapes.fallback)
    fallbacks += (fallbacks.empty() ? "" : ", ") + safe_text::xml(f);
  std::string out =
      "<section id=\"profile\"><h2>Profile and plugins</h2>\n" +
      key_value_rows(
          {{"profile", safe_text::xml(p.name)},
           {"file", p.source.empty() ? "built-in defaults"
                                     : "<code>" + safe_text::xml(p.source.string()) + "</code>"},
           {"symbol bounds", bounds.empty() ? "default [1, inf)" : bounds},
           {"shapes", fmt::format("strict {}, fallback {}", p.shapes.strict, fallbacks)},
           {"in-place",
            fmt::format(
                "enabled {}, allow_input_overwrite {}, fallback {}", p.inplace.enabled,
                p.inplace.allow_input_overwrite,
                p.inplace.fallback == InplaceFallback::kStructural ? "structural" : "none")},
           {"stages", fmt::format("tags {}, memory {}, scratch {}", p.tags.enabled,
                                  p.memory.enabled, p.scratch.enabled)}});
  std::vector<std::string> plugins;
  for (const PluginInfo& info : options.plugins) {
    if (info.declared_ops > 0) {
      plugins.push_back(fmt::format("<b>{}</b> ({} declarative op{}) <code>{}</code>",
                                    safe_text::xml(info.name), info.declared_ops,
                                    info.declared_ops == 1 ? "" : "s",
                                    safe_text::xml(info.path.string())));
      continue;
    }
    plugins.push_back(
        fmt::format("<b>{}</b> {} (ABI {}.{}{}) <code>{}</code>", safe_text::xml(info.name),
                    safe_text::xml(info.version), info.abi_major, info.abi_minor,
                    info.override_rules ? ", override" : "", safe_text::xml(info.path.string())));
  }
  out += plugins.empty() ? "<p>No plugins loaded.</p>\n" : item_list(plugins);
  return out + "</section>\n";
}

}  // namespace

std::string html_report(const ComputeContext& ctx, const HtmlReportOptions& options) {
  const std::vector<Assignment>& evaluate = options.report.evaluate;
  const std::string graph = ctx.graph().model().proto().graph().name();
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>cctx report: {}</title>\n<script>{}</script>\n<style>{}</style>\n</head>\n<body>\n"
      "<div id=\"errors\" role=\"alert\"></div>\n"
      "<h1>cctx memory report: {}</h1>\n<p class=\"muted\">Per-node memory of "
      "<code>{}</code> as formulas in the model's symbolic dimensions (cctx {}).</p>\n",
      safe_text::xml(graph), report_detail::kHtmlErrorCapture, report_detail::kHtmlStyle,
      safe_text::xml(graph), safe_text::xml(options.report.model_path), CCTX_VERSION);
  out += summary_section(ctx, options) + peak_section(ctx, evaluate) +
         top_nodes_section(ctx, evaluate) + figures_section(ctx, evaluate) +
         reserve_section(ctx, options) + table_section(ctx, evaluate) + warnings_section(ctx) +
         profile_section(ctx, options);
  out += fmt::format("<script>{}</script>\n</body>\n</html>\n", report_detail::kHtmlTableScript);
  return out;
}

}  // namespace cctx
