// The HTML report's embedded table data (see html_table_data.hpp).
#include "report/html_table_data.hpp"

#include <onnx/onnx_pb.h>

#include <nlohmann/json.hpp>
#include <unordered_map>

#include "cctx/report.hpp"
#include "cctx/safe_text.hpp"
#include "report/figure_data.hpp"

namespace cctx::report_detail {

namespace {

using Json = nlohmann::json;

// Past 2^53 a JSON number loses digits in JavaScript: such values travel as text.
constexpr std::int64_t kExactInJavaScript = std::int64_t{1} << 53;

class StringTable {
 public:
  std::size_t operator()(const std::string& text) {
    auto [it, inserted] = index_.try_emplace(text, strings_.size());
    // Shown on the page as text: spelled out as on a terminal (safe_text.hpp).
    if (inserted) strings_.push_back(safe_text::terminal(text));
    return it->second;
  }
  Json json() const { return strings_; }

 private:
  std::unordered_map<std::string, std::size_t> index_;
  std::vector<std::string> strings_;
};

Json column(const std::string& label, const char* kind, int field) {
  return {{"label", safe_text::terminal(label)}, {"kind", kind}, {"field", field}};
}

}  // namespace

std::string html_table_data(const ComputeContext& ctx, const std::vector<Assignment>& evaluate) {
  ExprPool& pool = ctx.pool();
  StringTable strings, ops;
  auto bucket = [&](const Bucket& b) { return strings(bucket_text(pool, b)); };
  std::vector<std::vector<std::int64_t>> totals;
  for (const Assignment& a : evaluate) totals.push_back(evaluated_totals(ctx, a));

  Json rows = Json::array();
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    const NodeEntry& node = ctx.graph().node(n);
    const MemoryProfile& p = ctx.memory(n);
    Json row = {ops(std::string(node.op_type)),
                strings(node.proto->name()),
                strings(pool.print(p.already_allocated)),
                strings(pool.print(p.output_allocation)),
                bucket(p.inputs),
                bucket(p.initializers),
                bucket(p.intermediates),
                bucket(p.outputs),
                strings(pool.print(p.total)),
                strings(pool.print(ctx.node_peak_memory(n)))};
    for (const auto& series : totals) {
      const std::int64_t v = series[n];
      if (v > -kExactInJavaScript && v < kExactInJavaScript) {
        row.push_back(v);
      } else {
        row.push_back(std::to_string(v));
      }
    }
    rows.push_back(std::move(row));
  }
  Json columns = Json::array({column("node", "index", -1), column("op", "op", 0)});
  const char* seed_columns[] = {"already_allocated", "output_allocation", "inputs", "initializers",
                                "intermediates",     "outputs",           "total",  "scratch"};
  int field = 2;
  for (const char* label : seed_columns) columns.push_back(column(label, "text", field++));
  for (const Assignment& a : evaluate) {
    columns.push_back(column("total @ " + assignment_label(a), "number", field++));
  }
  columns.push_back(column("name", "text", 1));

  Json doc = {{"columns", columns},
              {"ops", ops.json()},
              {"strings", strings.json()},
              {"rows", std::move(rows)}};
  if (auto peak = ctx.peak_node()) {
    doc["peak_node"] = *peak;
  } else {
    doc["peak_node"] = nullptr;
  }
  std::string text = safe_text::json(doc);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace cctx::report_detail
