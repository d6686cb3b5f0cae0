// The `cctx.analysis/1` JSON report (architecture.md) and the CSV export.
#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

#include "cctx/report.hpp"

namespace cctx {

namespace {

using Json = nlohmann::ordered_json;

const char* value_kind(const ValueEntry& e) {
  if (e.is_initializer()) return "initializer";
  if (e.is_input()) return "input";
  if (e.is_output()) return "output";
  return "intermediate";
}

Json names(const GraphView& g, const std::vector<ValueId>& values) {
  Json out = Json::array();
  for (ValueId v : values) out.push_back(g.value(v).name);
  return out;
}

Json bucket_json(ExprPool& pool, const Bucket& bucket) {
  Json out = Json::object();
  for (const auto& [tag, amount] : bucket) out[tag_name(tag)] = amount_json(pool, amount);
  return out;
}

/// Appends a member whose key is known to be new. ordered_json's operator[] searches the keys
/// linearly, which makes building an object of n values O(n^2); value names are unique.
void append_member(Json& object, const std::string& key, Json value) {
  auto& members = static_cast<Json::object_t::Container&>(object.get_ref<Json::object_t&>());
  members.emplace_back(key, std::move(value));
}

Json assignment_json(const Assignment& a) {
  Json out = Json::object();
  for (const auto& [name, value] : a) out[name] = value;
  return out;
}

const char* constraint_kind(Constraint::Kind k) {
  switch (k) {
    case Constraint::Kind::kEq:
      return "eq";
    case Constraint::Kind::kLe:
      return "le";
    case Constraint::Kind::kNe:
      return "ne";
    case Constraint::Kind::kBroadcast:
      return "bcast";
    case Constraint::Kind::kOneOf:
      return "one_of";
    case Constraint::Kind::kDivides:
      return "divides";
  }
  return "?";
}

}  // namespace

namespace {

Json model_json(const ComputeContext& ctx, const ReportOptions& options) {
  const onnx::ModelProto& model = ctx.graph().model().proto();
  Json opsets = Json::object();
  for (const auto& op : model.opset_import()) opsets[op.domain()] = op.version();
  return {{"path", options.model_path}, {"graph", model.graph().name()}, {"opsets", opsets}};
}

Json value_json(const ComputeContext& ctx, ValueId v) {
  ExprPool& pool = ctx.pool();
  const ValueShape& s = ctx.shape(v);
  Json value;
  value["kind"] = value_kind(ctx.graph().value(v));
  value["dtype"] = dtype_name(s.dtype, &ctx.registry());
  if (s.known_rank) {
    Json shape = Json::array();
    for (Expr d : s.dims) shape.push_back(amount_json(pool, d));
    value["shape"] = shape;
  } else {
    value["shape"] = nullptr;
  }
  if (s.has_value) {
    Json content = Json::array();
    for (Expr x : s.value) content.push_back(amount_json(pool, x));
    value["value"] = content;
  }
  value["tag"] = tag_name(ctx.value_tag(v));
  if (auto bytes = ctx.value_bytes(v)) {
    value["bytes"] = amount_json(pool, *bytes);
  } else {
    value["bytes"] = nullptr;
  }
  return value;
}

Json node_json(const ComputeContext& ctx, NodeId n) {
  ExprPool& pool = ctx.pool();
  const GraphView& g = ctx.graph();
  const NodeEntry& node = g.node(n);
  Json j;
  j["index"] = n;
  j["name"] = node.proto->name();
  j["op_type"] = node.op_type;
  j["domain"] = node.domain;
  Json inputs = Json::array(), outputs = Json::array();
  for (const std::string& s : node.proto->input()) inputs.push_back(s);
  for (const std::string& s : node.proto->output()) outputs.push_back(s);
  j["inputs"] = inputs;
  j["outputs"] = outputs;
  j["tag"] = tag_name(ctx.node_tag(n));
  Json inplace = Json::array();
  for (const InplaceDecision& d : ctx.inplace(n)) {
    inplace.push_back({{"output", d.output},
                       {"input", d.input},
                       {"kind", d.kind == ReuseKind::kEqual ? "equal" : "greater"},
                       {"mode", d.mode == ReuseMode::kAlias ? "alias" : "may_reuse"}});
  }
  j["inplace"] = inplace;
  j["release_after"] = names(g, ctx.release_after(n));
  j["not_used_after"] = names(g, ctx.not_used_after(n));
  j["release_after_shape_tag"] = names(g, ctx.release_after_shape_tag(n));
  const MemoryProfile& p = ctx.memory(n);
  j["memory"] = {{"already_allocated_bytes", amount_json(pool, p.already_allocated)},
                 {"output_allocation_bytes", amount_json(pool, p.output_allocation)},
                 {"inputs", bucket_json(pool, p.inputs)},
                 {"initializers", bucket_json(pool, p.initializers)},
                 {"intermediates", bucket_json(pool, p.intermediates)},
                 {"outputs", bucket_json(pool, p.outputs)},
                 {"total_bytes", amount_json(pool, p.total)}};
  j["peak_scratch_bytes"] = amount_json(pool, ctx.node_peak_memory(n));
  return j;
}

Json peak_json(const ComputeContext& ctx, const ReportOptions& options) {
  Json peak;
  peak["total_bytes"] = amount_json(ctx.pool(), ctx.peak_total_bytes());
  if (auto n = ctx.peak_node()) {
    peak["node"] = *n;
  } else {
    peak["node"] = nullptr;
  }
  Json evaluations = Json::array();
  for (const Assignment& a : options.evaluate) {
    PeakEvaluation e = ctx.evaluate_peak(a);
    evaluations.push_back({{"assignment", assignment_json(a)}, {"bytes", e.bytes}, {"node", e.node}});
  }
  peak["evaluations"] = evaluations;
  return peak;
}

Json symbols_json(const ExprPool& pool) {
  Json symbols = Json::array();
  for (const SymbolInfo& s : pool.symbols()) {
    Json sym{{"name", s.name},
             {"kind", s.kind == SymbolKind::kFresh    ? "fresh"
                      : s.kind == SymbolKind::kOpaque ? "opaque"
                                                      : "declared"},
             {"bounds", {s.bounds.lo == kNegInf ? Json(nullptr) : Json(s.bounds.lo),
                         s.bounds.hi == kPosInf ? Json(nullptr) : Json(s.bounds.hi)}}};
    if (!s.origin.empty()) sym["origin"] = s.origin;
    symbols.push_back(std::move(sym));
  }
  return symbols;
}

Json constraints_json(const ComputeContext& ctx) {
  ExprPool& pool = ctx.pool();
  Json constraints = Json::array();
  for (const Constraint& c : ctx.constraints()) {
    Json args = Json::array({amount_json(pool, c.a), amount_json(pool, c.b)});
    if (c.kind == Constraint::Kind::kOneOf) args.push_back(amount_json(pool, c.c));
    constraints.push_back({{"kind", constraint_kind(c.kind)}, {"args", args}, {"node", c.node}});
  }
  return constraints;
}

Json warnings_json(const ComputeContext& ctx) {
  Json warnings = Json::array();
  for (const Diagnostic& d : ctx.diagnostics()) {
    if (d.severity != Diagnostic::Severity::kNote) warnings.push_back(d.message);
  }
  return warnings;
}

/// Every main-graph value by name, in value order.
Json values_json(const ComputeContext& ctx) {
  const GraphView& g = ctx.graph();
  Json values = Json::object();
  values.get_ref<Json::object_t&>().reserve(g.values().size());
  for (ValueId v = 0; v < g.values().size(); ++v) {
    if (g.value(v).graph == 0) append_member(values, g.value(v).name, value_json(ctx, v));
  }
  return values;
}

/// The members after "nodes", in document order.
std::vector<std::pair<const char*, Json>> trailing_members(const ComputeContext& ctx,
                                                           const ReportOptions& options) {
  std::vector<std::pair<const char*, Json>> out;
  out.emplace_back("peak", peak_json(ctx, options));
  out.emplace_back("symbols", symbols_json(ctx.pool()));
  out.emplace_back("constraints", constraints_json(ctx));
  out.emplace_back("unknown_rank_values", names(ctx.graph(), ctx.unknown_rank_values()));
  out.emplace_back("unsized_values", names(ctx.graph(), ctx.unsized_values()));
  out.emplace_back("warnings", warnings_json(ctx));
  return out;
}

/// `value.dump(2)` as it reads nested `levels` deep in a dump(2) document: every line after the
/// first indented by 2*levels more spaces (strings never hold a raw newline: dump escapes it).
void append_nested(std::string& out, const Json& value, int levels) {
  const std::string text = value.dump(2);
  const std::string pad = "\n" + std::string(static_cast<std::size_t>(2 * levels), ' ');
  std::size_t from = 0;
  for (std::size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', from)) {
    out.append(text, from, nl - from);
    out += pad;
    from = nl + 1;
  }
  out.append(text, from, std::string::npos);
}

}  // namespace

Json json_report(const ComputeContext& ctx, const ReportOptions& options) {
  Json doc;
  doc["format"] = "cctx.analysis/1";
  doc["model"] = model_json(ctx, options);
  doc["values"] = values_json(ctx);
  Json nodes = Json::array();
  for (NodeId n = 0; n < ctx.node_count(); ++n) nodes.push_back(node_json(ctx, n));
  doc["nodes"] = std::move(nodes);
  for (auto& [key, member] : trailing_members(ctx, options)) doc[key] = std::move(member);
  return doc;
}

void append_json_report(std::string& out, const ComputeContext& ctx, const ReportOptions& options) {
  // The document of json_report(...).dump(2), written value by value and node by node: the
  // whole tree of a 100k-node graph is never held, which makes this several times faster.
  const GraphView& g = ctx.graph();
  out += "{\n  \"format\": \"cctx.analysis/1\",\n  \"model\": ";
  append_nested(out, model_json(ctx, options), 1);
  out += ",\n  \"values\": {";
  bool first = true;
  for (ValueId v = 0; v < g.values().size(); ++v) {
    if (g.value(v).graph != 0) continue;
    out += first ? "\n    " : ",\n    ";
    first = false;
    out += Json(g.value(v).name).dump();
    out += ": ";
    append_nested(out, value_json(ctx, v), 2);
  }
  out += first ? "}" : "\n  }";
  out += ",\n  \"nodes\": [";
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    out += n == 0 ? "\n    " : ",\n    ";
    append_nested(out, node_json(ctx, n), 2);
  }
  out += ctx.node_count() == 0 ? "]" : "\n  ]";
  for (auto& [key, member] : trailing_members(ctx, options)) {
    out += ",\n  \"";
    out += key;
    out += "\": ";
    append_nested(out, member, 1);
  }
  out += "\n}";
}

namespace {
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_bucket(ExprPool& pool, const Bucket& bucket) {
  std::string out;
  for (const auto& [tag, amount] : bucket) {
    if (!out.empty()) out += ';';
    out += std::string(tag_name(tag)) + "=" + pool.print(amount);
  }
  return out;
}
}  // namespace

std::string csv_report(const ComputeContext& ctx, const ReportOptions& options) {
  ExprPool& pool = ctx.pool();
  std::string out =
      "node,name,op_type,domain,already_allocated_bytes,output_allocation_bytes,inputs,initializers,"
      "intermediates,outputs,total_bytes,peak_scratch_bytes";
  for (const Assignment& a : options.evaluate) out += "," + csv_field("total_bytes@" + assignment_label(a));
  out += '\n';
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    const NodeEntry& node = ctx.graph().node(n);
    const MemoryProfile& p = ctx.memory(n);
    const std::string cells[] = {std::to_string(n), node.proto->name(), std::string(node.op_type),
                                 std::string(node.domain), pool.print(p.already_allocated),
                                 pool.print(p.output_allocation), csv_bucket(pool, p.inputs),
                                 csv_bucket(pool, p.initializers), csv_bucket(pool, p.intermediates),
                                 csv_bucket(pool, p.outputs), pool.print(p.total),
                                 pool.print(ctx.node_peak_memory(n))};
    std::string row;
    for (const std::string& c : cells) row += (row.empty() ? "" : ",") + csv_field(c);
    for (const Assignment& a : options.evaluate) row += "," + std::to_string(pool.eval(p.total, a));
    out += row + "\n";
  }
  return out;
}

Json shapes_json(const ComputeContext& ctx, const ReportOptions& options) {
  // Built from the same pieces as the analysis report, without its per-node array.
  Json doc;
  doc["format"] = "cctx.shapes/1";
  doc["model"] = model_json(ctx, options);
  doc["values"] = values_json(ctx);
  doc["symbols"] = symbols_json(ctx.pool());
  doc["constraints"] = constraints_json(ctx);
  doc["warnings"] = warnings_json(ctx);
  return doc;
}

}  // namespace cctx
