// `cctx fit`'s text, JSON and CSV (fit_report.hpp).
#include "cctx/fit_report.hpp"

#include <fmt/format.h>

#include "cctx/report.hpp"
#include "cctx/safe_text.hpp"
#include "report/html_assets.hpp"

namespace cctx {

namespace {

using Json = nlohmann::ordered_json;

std::string figures_text(const FitPoint& p) {
  const PeakEvaluation& e = p.figures;
  return fmt::format("reserve {} bytes ({}) = session {} + inputs {} + run {}", e.reserve_bytes,
                     byte_units(e.reserve_bytes), e.session_bytes, e.input_bytes, e.run_bytes);
}

std::string point_line(const FitPoint& p) {
  std::string line = "  " + safe_text::terminal(assignment_label(p.assignment)) + ": ";
  if (!p.refused.empty()) {
    return line + "cannot be evaluated: " + safe_text::terminal(p.refused) + "\n";
  }
  line += figures_text(p);
  if (p.headroom > 0) line += fmt::format(" (+ headroom {})", p.headroom);
  if (!p.fits) line += ", over the budget";
  if (!p.peak_node.empty()) line += "; the run peaks at " + safe_text::terminal(p.peak_node);
  return line + "\n";
}

std::string budget_text(const FitResult& f) {
  std::string text = fmt::format("{} ({} bytes)", byte_units(f.budget), f.budget);
  if (f.headroom_bytes == 0 && f.headroom_percent == 0) return text;
  text += " keeping ";
  if (f.headroom_bytes > 0) text += byte_units(f.headroom_bytes);
  if (f.headroom_bytes > 0 && f.headroom_percent > 0) text += " + ";
  if (f.headroom_percent > 0) text += fmt::format("{}% of the reserve", f.headroom_percent);
  return text + " free";
}

std::string fixed_text(const Assignment& fixed) {
  return fixed.empty() ? std::string() : " at " + safe_text::terminal(assignment_label(fixed));
}

Json point_json(const FitPoint& p) {
  Json j;
  j["value"] = p.value;
  Json a = Json::object();
  for (const auto& [name, value] : p.assignment) a[name] = value;
  j["assignment"] = std::move(a);
  if (!p.refused.empty()) {
    j["refused"] = p.refused;
    return j;
  }
  j["fits"] = p.fits;
  j["headroom_bytes"] = p.headroom;
  j["reserve_bytes"] = p.figures.reserve_bytes;
  j["session_bytes"] = p.figures.session_bytes;
  j["input_bytes"] = p.figures.input_bytes;
  j["run_bytes"] = p.figures.run_bytes;
  j["run_node"] = p.figures.run_node;
  j["peak_bytes"] = p.figures.bytes;
  return j;
}

/// A frontier as one table: a row per value of the outer symbol.
std::string frontier_text(const FitReport& report) {
  const FitResult& first = report.fits.front();
  std::string out =
      fmt::format("Frontier within {} under {}: for each {}, the largest {}{}\n",
                  budget_text(first), safe_text::terminal(report.profile),
                  safe_text::terminal(report.outer), safe_text::terminal(first.vary),
                  first.fixed.size() > 1 ? " (" + safe_text::terminal(assignment_label([&] {
                                             Assignment others = first.fixed;
                                             others.erase(report.outer);
                                             return others;
                                           }())) +
                                               ")"
                                         : std::string());
  out += fmt::format("{:>14} {:>14} {:>16} {:>10}  {}\n", report.outer, "largest " + first.vary,
                     "reserve bytes", "reserve", "limited by");
  bool all_proved = true;
  int evaluations = 0;
  for (const FitResult& f : report.fits) {
    const std::int64_t outer_value = f.fixed.at(report.outer);
    all_proved = all_proved && f.proved_monotone;
    evaluations += f.evaluations;
    if (f.best) {
      out += fmt::format("{:>14} {:>14} {:>16} {:>10}  {}\n", outer_value, f.best->value,
                         f.best->figures.reserve_bytes, byte_units(f.best->figures.reserve_bytes),
                         safe_text::terminal(f.limited_by));
    } else {
      out += fmt::format("{:>14} {:>14} {:>16} {:>10}  {}\n", outer_value, "none", "", "",
                         safe_text::terminal(f.limited_by));
    }
  }
  out += fmt::format("  search: {} evaluations; {}\n", evaluations,
                     all_proved ? safe_text::terminal(first.method)
                                : std::string("not proved monotone at every row: the search "
                                              "bisects and checks the values it returns"));
  return out;
}

}  // namespace

std::string fit_text(const FitReport& report) {
  if (!report.outer.empty() && !report.fits.empty()) return frontier_text(report);
  std::string out;
  for (const FitResult& f : report.fits) {
    const std::string budget = budget_text(f);
    if (f.best) {
      out +=
          fmt::format("Largest {} within {} under {}{}: {}\n", safe_text::terminal(f.vary), budget,
                      safe_text::terminal(report.profile), fixed_text(f.fixed), f.best->value);
      out += point_line(*f.best);
    } else {
      out += fmt::format("No value of {} fits {} under {}{}\n", safe_text::terminal(f.vary), budget,
                         safe_text::terminal(report.profile), fixed_text(f.fixed));
    }
    if (f.next) out += point_line(*f.next);
    if (!f.limited_by.empty()) out += "  limited by: " + safe_text::terminal(f.limited_by) + "\n";
    out +=
        fmt::format("  search: {} evaluations; {}\n", f.evaluations, safe_text::terminal(f.method));
  }
  for (const std::string& s : report.suggestions) out += "  " + safe_text::terminal(s) + "\n";
  return out;
}

Json fit_json(const FitReport& report) {
  Json doc;
  doc["format"] = "cctx.fit/1";
  doc["model"] = report.model;
  doc["profile"] = report.profile;
  if (!report.outer.empty()) doc["outer"] = report.outer;
  Json fits = Json::array();
  for (const FitResult& f : report.fits) {
    Json j;
    j["vary"] = f.vary;
    j["budget_bytes"] = f.budget;
    j["headroom"] = {{"bytes", f.headroom_bytes}, {"percent", f.headroom_percent}};
    Json fixed = Json::object();
    for (const auto& [name, value] : f.fixed) fixed[name] = value;
    j["fixed"] = std::move(fixed);
    j["bounds"] = {f.domain.lo, f.domain.hi == kPosInf ? Json(nullptr) : Json(f.domain.hi)};
    j["value"] = f.best ? Json(f.best->value) : Json(nullptr);
    j["at"] = f.best ? point_json(*f.best) : Json(nullptr);
    j["next"] = f.next ? point_json(*f.next) : Json(nullptr);
    j["limited_by"] = f.limited_by.empty() ? Json(nullptr) : Json(f.limited_by);
    j["unbounded"] = f.unbounded;
    j["proved_monotone"] = f.proved_monotone;
    j["method"] = f.method;
    j["evaluations"] = f.evaluations;
    fits.push_back(std::move(j));
  }
  doc["fits"] = std::move(fits);
  doc["suggestions"] = report.suggestions;
  return doc;
}

std::string fit_html(const FitReport& report, const std::vector<FitPoint>& points) {
  using safe_text::xml;
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>cctx fit: {0}</title>\n<script>{1}</script>\n<style>{2}</style>\n</head>\n<body>\n"
      "<div id=\"errors\" role=\"alert\"></div>\n<h1>cctx fit: {0}</h1>\n"
      "<p class=\"muted\">Profile <code>{3}</code>; the reserve is session + inputs + run.</p>\n",
      xml(report.model), report_detail::kHtmlErrorCapture, report_detail::kHtmlStyle,
      xml(report.profile));
  out += "<section id=\"fit\">\n<table id=\"fit-table\"><tr>";
  if (!report.outer.empty()) out += "<th>" + xml(report.outer) + "</th>";
  out +=
      "<th>budget</th><th>largest value</th><th>reserve there</th><th>next value</th>"
      "<th>reserve there</th><th>limited by</th></tr>\n";
  for (const FitResult& f : report.fits) {
    out += "<tr>";
    if (!report.outer.empty()) {
      out += fmt::format("<td class=\"num\">{}</td>", f.fixed.at(report.outer));
    }
    out += "<td>" + xml(budget_text(f)) + "</td>";
    auto cell = [&](const std::optional<FitPoint>& p) {
      if (!p) return std::string("<td></td><td></td>");
      const std::string reserve = p->refused.empty()
                                      ? fmt::format("{} ({})", p->figures.reserve_bytes,
                                                    byte_units(p->figures.reserve_bytes))
                                      : "cannot run: " + p->refused;
      return fmt::format("<td class=\"num\">{}={}</td><td>{}</td>", xml(f.vary), p->value,
                         xml(reserve));
    };
    out += f.best ? cell(f.best) : std::string("<td>none</td><td></td>");
    out += cell(f.next);
    out += "<td>" + xml(f.limited_by) + "</td></tr>\n";
  }
  out += "</table>\n";
  for (const std::string& s : report.suggestions) out += "<p>" + xml(s) + "</p>\n";
  out += "<p class=\"muted\">" + xml(report.fits.empty() ? "" : report.fits.front().method) +
         "</p>\n</section>\n";
  out += "<figure>\n" + fit_svg(report, points) + "</figure>\n</body>\n</html>\n";
  return out;
}

std::string fit_csv(const FitReport& report) {
  std::string out =
      "vary,fixed,budget_bytes,value,reserve_bytes,session_bytes,input_bytes,run_bytes,"
      "next_value,next_reserve_bytes,limited_by,proved_monotone\n";
  for (const FitResult& f : report.fits) {
    std::string row = safe_text::csv(f.vary) + "," + safe_text::csv(assignment_label(f.fixed)) +
                      "," + std::to_string(f.budget) + ",";
    if (f.best) {
      const PeakEvaluation& e = f.best->figures;
      row += fmt::format("{},{},{},{},{},", f.best->value, e.reserve_bytes, e.session_bytes,
                         e.input_bytes, e.run_bytes);
    } else {
      row += ",,,,,";
    }
    if (f.next) {
      row += std::to_string(f.next->value) + "," +
             (f.next->refused.empty() ? std::to_string(f.next->figures.reserve_bytes) : "") + ",";
    } else {
      row += ",,";
    }
    row += safe_text::csv(f.limited_by) + "," + (f.proved_monotone ? "true" : "false");
    out += row + "\n";
  }
  return out;
}

}  // namespace cctx
