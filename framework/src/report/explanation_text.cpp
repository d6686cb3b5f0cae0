// The text form of `cctx explain` (see report.hpp, explain_text).
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

std::string joined(const Json& list, const char* separator = ", ") {
  std::string out;
  for (const Json& item : list) out += (out.empty() ? "" : separator) + scalar(item);
  return out.empty() ? "-" : out;
}

/// The formula, then its value under each assignment ("48*N+80 (N=8: 464)").
std::string amount_line(const Json& amount, const Json& assignments) {
  std::string out = scalar(amount["formula"]);
  std::string values;
  for (std::size_t k = 0; k < assignments.size(); ++k) {
    values += fmt::format("{}{}: {}", k ? ", " : "", scalar(assignments[k]),
                          scalar(amount["evaluated"][k]));
  }
  return values.empty() ? out : out + " (" + values + ")";
}

/// The amount's formula followed by one cell per assignment.
void amount_cells(std::vector<std::string>& row, const Json& amount) {
  row.push_back(scalar(amount["formula"]));
  for (const Json& v : amount["evaluated"]) row.push_back(scalar(v));
}

std::string live_buffers_text(const Json& doc) {
  const Json& assignments = doc["assignments"];
  std::vector<std::string> headers = {"buffer", "values", "source", "tag", "bytes"};
  for (const Json& a : assignments) headers.push_back(scalar(a));
  for (const char* h : {"read here", "created", "last read", "freed"}) headers.emplace_back(h);
  std::vector<std::vector<std::string>> rows;
  for (const Json& b : doc["live_buffers"]) {
    std::vector<std::string> row = {scalar(b["buffer"]), joined(b["values"]), scalar(b["source"]),
                                    b["tag"].get<std::string>().empty() ? "-" : scalar(b["tag"])};
    amount_cells(row, b["bytes"]);
    std::string read;
    for (const Json& k : b["read_by_inputs"])
      read += (read.empty() ? "input " : ", ") + safe_text::json(k);
    row.push_back(read.empty() ? "-" : read);
    row.push_back(scalar(b["created"]));
    std::string last;  // per value of the buffer: the last node reading it
    for (const auto& [value, node] : b["last_read"].items()) {
      last += fmt::format("{}{}: {}", last.empty() ? "" : ", ", safe_text::terminal(value),
                          node.is_null() ? "none" : "node " + safe_text::json(node));
    }
    row.push_back(last.empty() ? "-" : last);
    row.push_back(scalar(b["freed"]));
    rows.push_back(std::move(row));
  }
  std::string out =
      fmt::format("Live buffers at entry: {}, together {}\n", doc["live_buffers"].size(),
                  amount_line(doc["already_allocated_bytes"], assignments));
  if (!doc["live_buffers_match_memory_profile"].get<bool>()) {
    out += "  note: these buffers do not add up to the memory profile's already_allocated_bytes\n";
  }
  return out + (rows.empty() ? "" : report_detail::text_columns(headers, rows));
}

std::string outputs_text(const Json& doc) {
  std::vector<std::string> headers = {"output", "value", "dtype", "shape", "tag", "bytes"};
  for (const Json& a : doc["assignments"]) headers.push_back(scalar(a));
  headers.emplace_back("allocation");
  std::vector<std::vector<std::string>> rows;
  for (const Json& o : doc["outputs"]) {
    std::vector<std::string> row = {
        scalar(o["index"]), scalar(o["name"]), scalar(o["dtype"]),
        o["shape"].is_null() ? "?" : "[" + joined(o["shape"], ",") + "]",
        o["tag"].get<std::string>().empty() ? "-" : scalar(o["tag"])};
    if (o["bytes"].is_null()) {
      row.emplace_back("unsized");
      for (std::size_t k = 0; k < doc["assignments"].size(); ++k) row.emplace_back("-");
    } else {
      amount_cells(row, o["bytes"]);
    }
    if (o.contains("joins")) {
      const Json& j = o["joins"];
      row.push_back(fmt::format("none: joins {}'s buffer ({}, {})", scalar(j["value"]),
                                scalar(j["mode"]), scalar(j["kind"])));
    } else {
      row.emplace_back(o["allocated"].get<bool>() ? "new buffer" : "none (unsized)");
    }
    rows.push_back(std::move(row));
  }
  return "Outputs, allocating " + amount_line(doc["output_allocation_bytes"], doc["assignments"]) +
         ":\n" + (rows.empty() ? "" : report_detail::text_columns(headers, rows));
}

std::string inplace_text(const Json& doc) {
  const Json& in = doc["inplace"];
  const Json& node = doc["node"];
  std::string out = "In-place reuse";
  if (!in["enabled"].get<bool>()) out += " (disabled by the profile)";
  out +=
      ":\n  policy: " + (in["policy"].is_null() ? "none registered for " + scalar(node["op_type"])
                                                : scalar(in["policy"]));
  out += fmt::format(" (fallback {}, allow_input_overwrite {})\n", scalar(in["fallback"]),
                     scalar(in["allow_input_overwrite"]));
  if (in["decision_log"].is_null()) {
    out += "  decision log: off (profile decision_log: false)\n";
  } else if (in["decision_log"].empty()) {
    out += "  decision log: no event at this node\n";
  } else {
    for (const Json& e : in["decision_log"]) {
      if (e["label"] == "inplace") {
        out += fmt::format("  decision log: inplace, output {} takes input {}'s buffer ({}, {})\n",
                           scalar(e["output"]), scalar(e["input"]), scalar(e["kind"]),
                           scalar(e["mode"]));
      } else {
        out += fmt::format("  decision log: {} {}\n", scalar(e["label"]), scalar(e["value"]));
      }
    }
  }
  for (const Json& r : in["refused"]) {
    std::string who = fmt::format("output {}", scalar(r["output"]));
    if (!r["input"].is_null())
      who += fmt::format(" over input {} ({})", scalar(r["input"]), scalar(r["value"]));
    out += "  no reuse for " + who + ": " + scalar(r["reason"]) + "\n";
  }
  return out;
}

}  // namespace

std::string explain_text(const nlohmann::ordered_json& doc) {
  const Json& node = doc["node"];
  std::string name =
      node["name"].get<std::string>().empty() ? "" : " '" + scalar(node["name"]) + "'";
  std::string out = fmt::format(
      "Node {}{} ({}), tag {}: {} = {}({})\n", scalar(node["index"]), name, scalar(node["op_type"]),
      node["tag"].get<std::string>().empty() ? "-" : scalar(node["tag"]), joined(node["outputs"]),
      scalar(node["op_type"]), joined(node["inputs"]));
  if (node.contains("rewritten_from")) {
    const Json& r = node["rewritten_from"];
    out += "  the runtime's rewrite of the model's nodes " + joined(r["nodes"]) + " (" +
           joined(r["rules"]) + ")\n";
  }
  for (const Json& f : doc["rule_failures"]) {
    out += "  failed: the " + scalar(f["kind"]) + " rule of " + scalar(f["rule"]) + ": " +
           scalar(f["message"]) + "\n";
  }
  const Json& a = doc["assignments"];
  out += "  total_bytes " + amount_line(doc["total_bytes"], a) + "\n";
  out += "  = already_allocated " + amount_line(doc["already_allocated_bytes"], a) + "\n";
  out += "  + output_allocation " + amount_line(doc["output_allocation_bytes"], a) + "\n\n";
  out += live_buffers_text(doc) + "\n" + outputs_text(doc) + "\n" + inplace_text(doc) + "\n";
  out += "Released after this node: " + joined(doc["release_after"]) + "\n";
  out += "Last read of graph inputs and initializers: " + joined(doc["not_used_after"]) + "\n";
  const Json& scratch = doc["scratch"];
  out += "Scratch: " + amount_line(scratch["bytes"], a) + " (estimator: " +
         (scratch["estimator"].is_null() ? std::string("none") : scalar(scratch["estimator"])) +
         ")\n";
  const Json& peak = doc["peak"];
  out += "Peak: this node's total + scratch is " + amount_line(peak["this_node"], a) +
         "; whole graph " + amount_line(peak["whole_graph"], a) +
         (peak["is_peak_node"].get<bool>() ? " (this is the peak node)" : "") + "\n";
  return out;
}

}  // namespace cctx
