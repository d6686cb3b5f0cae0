// The text form of `cctx diff` (see report.hpp, diff_text).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cctx/report.hpp"
#include "cctx/safe_text.hpp"
#include "report/text_columns.hpp"

namespace cctx {

namespace {

using Json = nlohmann::ordered_json;

/// A field as terminal text: a string from the model (a name, a formula) spelled out, else JSON.
std::string scalar(const Json& j) {
  if (j.is_string()) return safe_text::terminal(j.get<std::string>());
  if (j.is_null()) return "-";
  return safe_text::json(j);
}

/// A change with its sign: "+32*N", "-16", "0".
std::string signed_text(const Json& change) {
  const std::string text = scalar(change);
  if (text == "0" || text.front() == '-') return text;
  return "+" + text;
}

std::string assignment_text(const Json& assignment) {
  std::string out;
  for (const auto& [name, value] : assignment.items()) {
    out += fmt::format("{}{}={}", out.empty() ? "" : ",", safe_text::terminal(name),
                       safe_text::json(value));
  }
  return out;
}

/// " at node 1 (Concat)" for an entry with "node" and "op_type"; "" without a node.
std::string node_text(const Json& entry) {
  if (entry["node"].is_null()) return "";
  return fmt::format(" at node {} ({})", scalar(entry["node"]), scalar(entry["op_type"]));
}

std::string peak_text(const Json& doc) {
  const Json& peak = doc["peak"];
  std::string out =
      fmt::format("Peak total bytes: {}{} -> {}{} ({})\n", scalar(peak["before"]["total_bytes"]),
                  node_text(peak["before"]), scalar(peak["after"]["total_bytes"]),
                  node_text(peak["after"]), signed_text(peak["change"]["formula"]));
  for (std::size_t k = 0; k < doc["assignments"].size(); ++k) {
    const Json& b = peak["before"]["evaluations"][k];
    const Json& a = peak["after"]["evaluations"][k];
    out += fmt::format("  {}: {}{} -> {}{} ({})\n", assignment_text(doc["assignments"][k]),
                       scalar(b["bytes"]), node_text(b), scalar(a["bytes"]), node_text(a),
                       signed_text(peak["change"]["evaluated"][k]["change"]));
  }
  return out;
}

std::string node_label(const Json& entry) {
  const std::string b = scalar(entry["before_index"]), a = scalar(entry["after_index"]);
  return b == a ? b : b + "->" + a;
}

std::string nodes_text(const Json& doc) {
  std::string out = fmt::format("Nodes whose total_bytes changed: {} of {} (matched by {})\n",
                                scalar(doc["changed_nodes"]), scalar(doc["matched_nodes"]),
                                scalar(doc["matched_by"]));
  if (doc["nodes"].empty()) return out;
  std::vector<std::string> headers = {"node", "op", "before", "after", "change"};
  for (const Json& a : doc["assignments"]) headers.push_back(assignment_text(a));
  std::vector<std::vector<std::string>> rows;
  for (const Json& n : doc["nodes"]) {
    std::vector<std::string> row = {node_label(n), scalar(n["op_type"]), scalar(n["before"]),
                                    scalar(n["after"]), signed_text(n["change"]["formula"])};
    for (const Json& e : n["change"]["evaluated"]) {
      row.push_back(fmt::format("{} -> {} ({})", scalar(e["before"]), scalar(e["after"]),
                                signed_text(e["change"])));
    }
    rows.push_back(std::move(row));
  }
  return out + report_detail::text_columns(headers, rows);
}

std::string decisions_text(const Json& list) {
  std::string out;
  for (const Json& d : list) out += (out.empty() ? "" : " ") + scalar(d);
  return out.empty() ? "-" : out;
}

std::string inplace_text(const Json& doc) {
  std::string out =
      fmt::format("Nodes whose in-place decisions changed: {}\n", doc["inplace_changes"].size());
  if (doc["inplace_changes"].empty()) return out;
  std::vector<std::vector<std::string>> rows;
  for (const Json& n : doc["inplace_changes"]) {
    rows.push_back({node_label(n), scalar(n["op_type"]), decisions_text(n["before"]),
                    decisions_text(n["after"])});
  }
  return out +
         report_detail::text_columns({"node", "op", "before (out:in:kind:mode)", "after"}, rows);
}

std::string unmatched_text(const Json& list, const std::string& side) {
  if (list.empty()) return {};
  std::string out = fmt::format("Only in {}: {} nodes\n", side, list.size());
  for (const Json& n : list) {
    out += fmt::format("  {} {} {}\n", scalar(n["index"]), scalar(n["op_type"]), scalar(n["name"]));
  }
  return out;
}

}  // namespace

std::string diff_text(const nlohmann::ordered_json& doc) {
  std::string out = fmt::format("Diff: {} -> {}\n", scalar(doc["before"]["label"]),
                                scalar(doc["after"]["label"]));
  out += peak_text(doc) + "\n" + nodes_text(doc) + "\n" + inplace_text(doc);
  out += unmatched_text(doc["only_before"], scalar(doc["before"]["label"]));
  out += unmatched_text(doc["only_after"], scalar(doc["after"]["label"]));
  return out;
}

}  // namespace cctx
