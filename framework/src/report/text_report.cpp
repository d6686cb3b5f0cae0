// Text reports in the seed's layout.
#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <nlohmann/json.hpp>

#include "cctx/kv_cache.hpp"
#include "cctx/report.hpp"
#include "cctx/safe_text.hpp"
#include "report/attribute_text.hpp"

namespace cctx {

std::string amount_text(ExprPool& pool, Expr e) { return pool.print(e); }

nlohmann::ordered_json amount_json(ExprPool& pool, Expr e) {
  if (auto v = pool.as_int(e)) return *v;
  return pool.print(e);
}

std::string bucket_text(ExprPool& pool, const Bucket& bucket) {
  if (bucket.empty()) return "-";
  std::string out;
  for (const auto& [tag, amount] : bucket) {
    if (!out.empty()) out += ", ";
    out += tag == Tag::kNone ? "untagged" : tag_name(tag);
    out += '=';
    out += pool.print(amount);
  }
  return out;
}

std::string assignment_label(const Assignment& a) {
  if (a.empty()) return "(no symbols)";  // --worst-case of a model without data-dependent sizes
  std::string out;
  for (const auto& [name, value] : a) {
    if (!out.empty()) out += ',';
    out += name + "=" + std::to_string(value);
  }
  return out;
}

namespace {

/// Left-aligned columns separated by two spaces, indented by two, with dashed rules above and
/// below the header and at the end (the seed's table layout).
std::string render_columns(const std::vector<std::string>& headers,
                           std::vector<std::vector<std::string>> rows) {
  // Cells hold model text (names, symbols in formulas): spelled out before they are measured.
  for (auto& row : rows) {
    for (std::string& cell : row) cell = safe_text::terminal(cell);
  }
  std::vector<std::size_t> widths;
  widths.reserve(headers.size());
  for (const std::string& h : headers) widths.push_back(h.size());
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = "  ";
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (i > 0) out += "  ";
      out += cells[i];
      out.append(widths[i] - cells[i].size(), ' ');
    }
    return out + "\n";
  };
  std::vector<std::string> dashes;
  dashes.reserve(widths.size());
  for (std::size_t w : widths) dashes.emplace_back(w, '-');
  std::string separator = line(dashes);
  std::string out = separator + line(headers) + separator;
  for (const auto& row : rows) out += line(row);
  return out + separator;
}

}  // namespace

std::string FormulaFolder::fold(const std::string& text) {
  if (!enabled_ || text.size() <= longest_) return text;
  auto it = index_.find(text);
  if (it == index_.end()) {
    texts_.push_back(text);
    it = index_.emplace(text, texts_.size()).first;
  }
  return "F" + std::to_string(it->second);
}

std::string FormulaFolder::footer() const {
  if (texts_.empty()) return {};
  std::string out = "Formulas (cctx analyze --wide prints them in place):\n";
  for (std::size_t k = 0; k < texts_.size(); ++k) {
    out += "  F" + std::to_string(k + 1) + " = " + safe_text::terminal(texts_[k]) + "\n";
  }
  return out;
}

std::string memory_table(const ComputeContext& ctx, FormulaFolder* folder) {
  ExprPool& pool = ctx.pool();
  const GraphView& g = ctx.graph();
  FormulaFolder none(false);
  FormulaFolder& f = folder != nullptr ? *folder : none;
  std::vector<std::vector<std::string>> rows;
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    const MemoryProfile& p = ctx.memory(n);
    rows.push_back(
        {std::to_string(n), std::string(g.node(n).op_type), f.fold(pool.print(p.already_allocated)),
         f.fold(pool.print(p.output_allocation)), f.fold(bucket_text(pool, p.inputs)),
         f.fold(bucket_text(pool, p.initializers)), f.fold(bucket_text(pool, p.intermediates)),
         f.fold(bucket_text(pool, p.outputs)), f.fold(pool.print(p.total))});
  }
  return render_columns({"node", "op", "already_allocated", "output_allocation", "inputs",
                         "initializers", "intermediates", "outputs", "total"},
                        rows);
}

std::string scratch_listing(const ComputeContext& ctx, FormulaFolder* folder) {
  FormulaFolder none(false);
  FormulaFolder& f = folder != nullptr ? *folder : none;
  std::string out = "Per-node peak scratch memory (bytes):\n";
  // Node numbers and op names padded to the widest of the graph, so the formulas line up
  // whatever the names' lengths (8 at least: the layout of the seed's listing).
  std::vector<std::string> ops;
  std::size_t op_width = 8;
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    ops.push_back(safe_text::terminal(ctx.graph().node(n).op_type));
    op_width = std::max(op_width, ops.back().size());
  }
  const std::size_t index_width =
      std::to_string(ctx.node_count() ? ctx.node_count() - 1 : 0).size();
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    out += fmt::format("  node{:<{}} {:>{}}: {}\n", n, index_width, ops[n], op_width,
                       safe_text::terminal(f.fold(ctx.pool().print(ctx.node_peak_memory(n)))));
  }
  return out;
}

std::string evaluated_totals_table(const ComputeContext& ctx,
                                   const std::vector<Assignment>& evaluate) {
  if (evaluate.empty()) return {};
  // With one symbol the seed's layout: the symbol's name heads the first column.
  const bool single = evaluate.front().size() == 1;
  std::string label_head =
      single ? safe_text::terminal(evaluate.front().begin()->first) : "assignment";
  std::size_t width = std::max<std::size_t>(6, label_head.size());
  std::vector<std::string> labels;
  for (const Assignment& a : evaluate) {
    labels.push_back(single && a.size() == 1 ? std::to_string(a.begin()->second)
                                             : safe_text::terminal(assignment_label(a)));
    width = std::max(width, labels.back().size());
  }
  // Every value is evaluated first: a node's column is as wide as its header ("node 0", 6
  // characters, the seed's layout) or its widest value, so wide values keep the columns aligned.
  const std::size_t nodes = ctx.node_count();
  std::vector<std::vector<std::string>> cells(evaluate.size(), std::vector<std::string>(nodes));
  std::vector<std::string> heads(nodes);
  std::vector<std::size_t> widths(nodes);
  for (NodeId n = 0; n < nodes; ++n) {
    heads[n] = fmt::format("node{:>2}", n);
    widths[n] = heads[n].size();
    for (std::size_t k = 0; k < evaluate.size(); ++k) {
      cells[k][n] = std::to_string(ctx.pool().eval(ctx.memory(n).total, evaluate[k]));
      widths[n] = std::max(widths[n], cells[k][n].size());
    }
  }
  std::string out = "Evaluated total_bytes per node:\n";
  out += fmt::format("  {:>{}} ", label_head, width);
  for (NodeId n = 0; n < nodes; ++n)
    out += fmt::format("{}{:>{}}", n ? " " : "", heads[n], widths[n]);
  out += '\n';
  for (std::size_t k = 0; k < evaluate.size(); ++k) {
    out += fmt::format("  {:>{}} ", labels[k], width);
    for (NodeId n = 0; n < nodes; ++n) {
      out += fmt::format("{}{:>{}}", n ? " " : "", cells[k][n], widths[n]);
    }
    out += '\n';
  }
  return out;
}

std::string evaluated_totals_by_node(const ComputeContext& ctx,
                                     const std::vector<Assignment>& evaluate) {
  if (evaluate.empty()) return {};
  std::vector<std::vector<std::string>> rows;
  std::vector<std::vector<std::int64_t>> totals;
  for (const Assignment& a : evaluate) {
    std::vector<std::int64_t> t;
    for (NodeId n = 0; n < ctx.node_count(); ++n)
      t.push_back(ctx.pool().eval(ctx.memory(n).total, a));
    totals.push_back(std::move(t));
  }
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    std::vector<std::string> row{std::to_string(n), std::string(ctx.graph().node(n).op_type)};
    for (const std::vector<std::int64_t>& t : totals) row.push_back(std::to_string(t[n]));
    rows.push_back(std::move(row));
  }
  std::vector<std::string> headers{"node", "op"};
  for (const Assignment& a : evaluate) headers.push_back(assignment_label(a));
  return "Evaluated total_bytes per node:\n" + render_columns(headers, std::move(rows));
}

namespace {

// The symbols that stand for a definition, with it (the first few, shortened; the JSON report
// lists them all in full): size caps (expressions.md 4.4) under "Size-capped expressions", and
// sizes computed in floating point (4.5), for a reader of a formula in `Floor_88_o0_v0` must see
// what that is and that it is evaluated exactly.
std::string defined_symbols(ExprPool& pool, bool floating) {
  constexpr std::size_t kShown = 20;
  const std::size_t chars = floating ? 200 : 160;
  std::string out;
  std::size_t count = 0;
  for (const SymbolInfo& s : pool.symbols()) {
    if (pool.is_float_size(s.name) != floating) continue;
    std::optional<std::string> text = pool.definition_text(s.name);
    if (!text || pool.parameter_default(s.name)) continue;  // a runtime parameter: no size
    if (count++ == 0) {
      out += floating ? "Sizes computed in floating point (evaluated as the runtime rounds them):\n"
                      : "Size-capped expressions (evaluated in full):\n";
    }
    if (count > kShown) continue;
    if (text->size() > chars) *text = text->substr(0, chars) + "...";
    out += "  " + safe_text::terminal(s.name) + " = " + safe_text::terminal(*text) + "\n";
  }
  if (count > kShown) {
    out +=
        fmt::format("  ... and {} more (the JSON report's symbols[].definition)\n", count - kShown);
  }
  return out;
}

// The bounds the model's requirements narrowed (semantics.md "Bounds derived from the model"):
// evaluation refuses values outside them, so the reader must see where they come from.
std::string derived_bounds_text(const ComputeContext& ctx) {
  ExprPool& pool = ctx.pool();
  std::string out;
  for (const DerivedBound& d : ctx.derived_bounds()) {
    if (out.empty()) out += "Bounds the model requires (derived from its constraints):\n";
    const std::string lo = d.after.lo == kNegInf ? "-inf" : std::to_string(d.after.lo);
    const std::string hi = d.after.hi == kPosInf ? "+inf" : std::to_string(d.after.hi);
    out += "  " + safe_text::terminal(pool.print(d.symbol)) + " in [" + lo + ", " + hi +
           "]: " + safe_text::terminal(d.reason) + "\n";
  }
  return out;
}

// The KV cache's formulas: what the caller holds, what the run writes, what a token costs.
// On lines of their own, so never folded.
std::string kv_cache_text(const ComputeContext& ctx, const KvCache& kv) {
  if (kv.empty()) return {};
  ExprPool& pool = ctx.pool();
  std::string out = fmt::format("KV cache: {} past -> present pairs ({}{})\n", kv.pairs.size(),
                                safe_text::terminal(kv.pairs.front().found_by),
                                kv.pairs.size() > 1 ? ", ..." : "");
  auto line = [&](const char* what, const std::optional<Expr>& e) {
    if (e) out += std::string("  ") + what + ": " + safe_text::terminal(pool.print(*e)) + "\n";
  };
  line("past, held by the caller", kv.past_bytes);
  line(kv.presents_in_past ? "present, written into the past's buffer (it has room)"
                           : "present, written by the run",
       kv.present_bytes);
  line("per token of context", kv.bytes_per_token);
  return out;
}

// Named assignments side by side: the figures a deployer compares (prefill against decode).
std::string scenario_table(const ComputeContext& ctx, const std::vector<PeakEvaluation>& figures,
                           const std::vector<std::string>& names) {
  std::string out = "Scenarios side by side (reserve = session + inputs + run):\n";
  std::size_t width = 8;
  for (const std::string& n : names) width = std::max(width, n.size());
  out += fmt::format("  {:<{}} {:>16} {:>10} {:>14} {:>14} {:>14}  {}\n", "scenario", width,
                     "reserve bytes", "reserve", "session", "inputs", "run", "run peaks at");
  for (std::size_t k = 0; k < figures.size() && k < names.size(); ++k) {
    const PeakEvaluation& e = figures[k];
    const std::string where =
        e.run_node >= 0 ? describe_node(ctx.graph(), static_cast<NodeId>(e.run_node)) : "-";
    out += fmt::format("  {:<{}} {:>16} {:>10} {:>14} {:>14} {:>14}  {}\n",
                       safe_text::terminal(names[k]), width, e.reserve_bytes,
                       byte_units(e.reserve_bytes), e.session_bytes, e.input_bytes, e.run_bytes,
                       safe_text::terminal(where));
  }
  return out;
}

/// The lines under one evaluation's peak: the reserve, its roles (docs/deployers.md, "Which figure
/// to reserve"), the budget's verdict, the KV cache's bytes.
std::string reserve_lines(const PeakEvaluation& e, const KvCache& kv,
                          const std::optional<KvFigures>& cache, std::int64_t budget) {
  std::string out = fmt::format(
      "    reserve {} bytes ({}) = session {} + inputs {} + run {}{}\n", e.reserve_bytes,
      byte_units(e.reserve_bytes), e.session_bytes, e.input_bytes, e.run_bytes,
      e.threads > 0 ? fmt::format(", at {} thread{}", e.threads, e.threads == 1 ? "" : "s")
                    : std::string());
  out += fmt::format("    of which: weights {}, runtime {}; ", e.weight_bytes,
                     e.session_bytes - e.weight_bytes);
  out += cache ? fmt::format("inputs {} (KV cache {}); ", e.input_bytes, cache->past)
               : fmt::format("inputs {}; ", e.input_bytes);
  out += fmt::format("activations and outputs {}, scratch {}\n",
                     std::max<std::int64_t>(0, e.run_bytes - e.run_scratch_bytes),
                     e.run_scratch_bytes);
  if (budget > 0) {
    out += e.reserve_bytes <= budget
               ? fmt::format("    within the budget of {}: {} free\n", byte_units(budget),
                             byte_units(budget - e.reserve_bytes))
               : fmt::format("    over the budget of {} by {}\n", byte_units(budget),
                             byte_units(e.reserve_bytes - budget));
  }
  if (cache) {
    out += fmt::format("    KV cache: past {} bytes (of the inputs), present {} bytes ({})\n",
                       cache->past, cache->present,
                       kv.presents_in_past ? "in the past's buffer" : "of the run");
  }
  return out;
}

}  // namespace

std::string peak_summary(const ComputeContext& ctx, const std::vector<Assignment>& evaluate,
                         const std::vector<std::vector<BoundedSymbol>>& at_upper_bound,
                         const std::vector<std::string>& names, FormulaFolder* folder,
                         std::int64_t budget) {
  ExprPool& pool = ctx.pool();
  FormulaFolder none(false);
  FormulaFolder& f = folder != nullptr ? *folder : none;
  const KvCache kv = find_kv_cache(ctx);
  std::string out =
      "Peak total bytes: " + safe_text::terminal(f.fold(pool.print(ctx.peak_total_bytes())));
  if (auto n = ctx.peak_node()) {
    out += fmt::format(" at node {} ({})", *n, safe_text::terminal(ctx.graph().node(*n).op_type));
  }
  out += '\n';
  std::vector<PeakEvaluation> figures;  // each evaluated once, for its lines and the scenarios
  figures.reserve(evaluate.size());
  for (std::size_t k = 0; k < evaluate.size(); ++k) {
    const Assignment& a = evaluate[k];
    const PeakEvaluation& e = figures.emplace_back(ctx.evaluate_peak(a));
    const std::string label =
        k < names.size() ? names[k] + " (" + assignment_label(a) + ")" : assignment_label(a);
    out += fmt::format("  {}: {} bytes at node {}", safe_text::terminal(label), e.bytes, e.node);
    if (e.node >= 0) {
      out += fmt::format(
          " ({})", safe_text::terminal(ctx.graph().node(static_cast<NodeId>(e.node)).op_type));
    }
    out += fmt::format("; run {} bytes, session {} bytes\n", e.run_bytes, e.session_bytes);
    out += reserve_lines(e, kv, evaluate_kv_cache(pool, kv, a), budget);
    if (k < at_upper_bound.size() && !at_upper_bound[k].empty()) {
      out += "    worst case, data-dependent sizes at their upper bound: " +
             safe_text::terminal(upper_bounds_text(pool, at_upper_bound[k])) + "\n";
    }
  }
  if (!names.empty()) out += scenario_table(ctx, figures, names);
  out += kv_cache_text(ctx, kv);
  out += defined_symbols(pool, false);
  out += defined_symbols(pool, true);
  out += derived_bounds_text(ctx);
  return out;
}

std::string rewrites_text(const ComputeContext& ctx) {
  const RewriteSummary* summary = ctx.rewrite_summary();
  if (summary == nullptr) return "";
  std::string applied;
  for (const auto& [rule, times] : summary->applied) {
    applied += (applied.empty() ? "" : ", ") + rule + " x" + std::to_string(times);
  }
  return "Graph as the runtime rewrites it before planning: " +
         std::to_string(summary->nodes_before) + " nodes -> " +
         std::to_string(summary->nodes_after) + " (" + applied + ")\n\n";
}

std::string diagnostics_text(const ComputeContext& ctx) {
  std::string out;
  for (const Diagnostic& d : ctx.diagnostics()) {
    out += d.severity == Diagnostic::Severity::kNote ? "note: " : "warning: ";
    out += safe_text::terminal(d.message) + "\n";
  }
  return out;
}

std::string model_listing(const Model& model, ListingStyle style) {
  const bool full = style == ListingStyle::kFull;
  const onnx::ModelProto& m = model.proto();
  constexpr auto shown = [](std::string_view text) { return safe_text::terminal(text); };
  auto type_text = [&](const onnx::TypeProto& t) {
    if (!t.has_tensor_type()) return std::string("?");
    std::string name = onnx::TensorProto::DataType_Name(
        static_cast<onnx::TensorProto::DataType>(t.tensor_type().elem_type()));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    // `float[]` is a scalar; a tensor of unknown rank (no shape) is `float?`.
    if (full && !t.tensor_type().has_shape()) return name + "?";
    std::string dims;
    for (const auto& d : t.tensor_type().shape().dim()) {
      if (!dims.empty()) dims += ',';
      dims += d.has_dim_value()   ? std::to_string(d.dim_value())
              : d.has_dim_param() ? shown(d.dim_param())
                                  : "?";
    }
    return name + "[" + dims + "]";
  };
  std::string out;
  for (const auto& op : m.opset_import()) {
    out += fmt::format("opset: domain='{}' version={}\n", shown(op.domain()), op.version());
  }
  const onnx::GraphProto& g = m.graph();
  out += fmt::format("graph: name='{}'\n", shown(g.name()));
  for (const auto& in : g.input()) {
    out += "input: " + type_text(in.type()) + " " + shown(in.name()) + "\n";
  }
  for (const auto& t : g.initializer()) {
    std::string name =
        onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(t.data_type()));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string dims;
    for (std::int64_t d : t.dims()) dims += (dims.empty() ? "" : ",") + std::to_string(d);
    out += "init: " + name + "[" + dims + "] " + shown(t.name()) + "\n";
  }
  for (int k = 0; k < g.node_size(); ++k) {
    const onnx::NodeProto& n = g.node(k);
    std::string inputs, outputs;
    for (const std::string& s : n.input()) inputs += (inputs.empty() ? "" : ", ") + shown(s);
    for (const std::string& s : n.output()) outputs += (outputs.empty() ? "" : ", ") + shown(s);
    std::string op =
        shown(n.domain().empty() || n.domain() == "ai.onnx" ? n.op_type()
                                                            : n.domain() + ":" + n.op_type());
    std::string attributes;  // ONNX's printer: `Concat <axis = 0> (M, X)`
    for (int a = 0; full && a < n.attribute_size(); ++a)
      attributes += (attributes.empty() ? " <" : ", ") + attribute_text(n.attribute(a));
    if (!attributes.empty()) attributes += "> ";
    out += fmt::format("{}: {}{}({}) -> {}\n", k, op, attributes, inputs, outputs);
  }
  for (const auto& o : g.output()) {
    out += "output: " + type_text(o.type()) + " " + shown(o.name()) + "\n";
  }
  return out;
}

std::string shapes_table(const ComputeContext& ctx) {
  ExprPool& pool = ctx.pool();
  const GraphView& g = ctx.graph();
  std::vector<std::vector<std::string>> rows;
  for (ValueId v = 0; v < g.values().size(); ++v) {
    if (g.value(v).graph != 0) continue;
    const ValueShape& s = ctx.shape(v);
    std::string shape = "?";
    if (s.known_rank) {
      shape = "[";
      for (std::size_t k = 0; k < s.dims.size(); ++k)
        shape += (k ? "," : "") + pool.print(s.dims[k]);
      shape += "]";
    }
    std::string value = "-";
    if (s.has_value) {
      value = "[";
      for (std::size_t k = 0; k < s.value.size(); ++k)
        value += (k ? "," : "") + pool.print(s.value[k]);
      value += "]";
    }
    const char* tag = tag_name(ctx.value_tag(v));
    rows.push_back({std::string(g.value(v).name), dtype_name(s.dtype, &ctx.registry()), shape,
                    value, *tag ? tag : "-"});
  }
  return render_columns({"value", "dtype", "shape", "value", "tag"}, rows);
}

}  // namespace cctx
