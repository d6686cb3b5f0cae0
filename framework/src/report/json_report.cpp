// The `cctx.analysis/1` JSON report (architecture.md) and the CSV export.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "cctx/kv_cache.hpp"
#include "cctx/report.hpp"
#include "cctx/safe_text.hpp"

namespace cctx {

namespace {

using Json = nlohmann::ordered_json;

const char* value_kind(const ValueEntry& e) {
  if (e.is_initializer()) return "initializer";
  if (e.is_input()) return "input";
  if (e.is_output()) return "output";
  return "intermediate";
}

Json names(const GraphView& g, ValueIds values) {
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
void append_member(Json& object, std::string_view key, Json value) {
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
    // The rank depends on which branch of an If runs, the number of elements does not.
    if (s.element_count) value["elements"] = amount_json(pool, *s.element_count);
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

Json rewrite_origin_json(const RewriteOrigin& origin) {
  Json j;
  j["rules"] = origin.rules;
  j["nodes"] = origin.nodes;
  return j;
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
                       {"kind", reuse_kind_name(d.kind)},
                       {"mode", reuse_mode_name(d.mode)}});
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
  // Only where the profile folds nodes at load: every other report stays as it was.
  if (ctx.folded_at_load(n)) j["folded_at_load"] = true;
  if (const RewriteOrigin* origin = ctx.rewrite_origin(n)) {
    j["rewritten_from"] = rewrite_origin_json(*origin);
  }
  return j;
}

Json kv_cache_json(const ComputeContext& ctx, const KvCache& kv) {
  Json j;
  Json pairs = Json::array();
  for (const KvCachePair& p : kv.pairs) {
    pairs.push_back({{"past", std::string(ctx.graph().value(p.past).name)},
                     {"present", std::string(ctx.graph().value(p.present).name)},
                     {"found_by", p.found_by}});
  }
  j["pairs"] = std::move(pairs);
  auto amount = [&](const std::optional<Expr>& e) {
    return e ? amount_json(ctx.pool(), *e) : Json(nullptr);
  };
  j["past_bytes"] = amount(kv.past_bytes);
  j["present_bytes"] = amount(kv.present_bytes);
  j["bytes_per_token"] = amount(kv.bytes_per_token);
  return j;
}

Json peak_json(const ComputeContext& ctx, const ReportOptions& options) {
  Json peak;
  const KvCache kv = find_kv_cache(ctx);
  peak["total_bytes"] = amount_json(ctx.pool(), ctx.peak_total_bytes());
  if (auto n = ctx.peak_node()) {
    peak["node"] = *n;
  } else {
    peak["node"] = nullptr;
  }
  Json evaluations = Json::array();
  for (std::size_t k = 0; k < options.evaluate.size(); ++k) {
    const Assignment& a = options.evaluate[k];
    PeakEvaluation e = ctx.evaluate_peak(a);
    const bool fixed = !options.fixed_sizes.empty();
    evaluations.push_back({{"assignment", assignment_json(a)},
                           {"bytes", e.bytes},
                           {"node", e.node},
                           {"run_bytes", e.run_bytes},
                           {"session_bytes", e.session_bytes},
                           {"input_bytes", e.input_bytes},
                           {"reserve_bytes", e.reserve_bytes},
                           {"weight_bytes", e.weight_bytes},
                           {"run_scratch_bytes", e.run_scratch_bytes}});
    if (e.threads > 0) evaluations.back()["threads"] = e.threads;
    if (k < options.names.size()) evaluations.back()["scenario"] = options.names[k];
    if (options.budget > 0) evaluations.back()["within_budget"] = e.reserve_bytes <= options.budget;
    if (const std::optional<KvFigures> f = evaluate_kv_cache(ctx.pool(), kv, a)) {
      evaluations.back()["kv_past_bytes"] = f->past;
      evaluations.back()["kv_present_bytes"] = f->present;
    }
    if (fixed) {
      evaluations.back()["at_fixed_sizes"] = true;
      evaluations.back()["fixed_because"] = options.fixed_because;
    }
    // Only when some data-dependent size was taken at its bound (the assignment holds it too).
    if (k < options.at_upper_bound.size() && !options.at_upper_bound[k].empty()) {
      Json bounds = Json::array();
      for (const BoundedSymbol& b : options.at_upper_bound[k]) {
        bounds.push_back({{"symbol", b.symbol},
                          {"bound", amount_json(ctx.pool(), b.upper)},
                          {"value", b.value}});
      }
      evaluations.back()["at_upper_bound"] = std::move(bounds);
    }
  }
  peak["evaluations"] = evaluations;
  if (!kv.empty()) peak["kv_cache"] = kv_cache_json(ctx, kv);
  // A peak without symbols has its runtime figures without an assignment, when every node's
  // total has none either: a peak that dominates totals with data-dependent sizes (a model with
  // fixed inputs and a NonZero) leaves them to an --eval, which takes those sizes at their bound.
  if (ctx.pool().as_int(ctx.peak_total_bytes())) {
    try {
      const PeakEvaluation e = ctx.evaluate_peak({});
      peak["run_bytes"] = e.run_bytes;
      peak["session_bytes"] = e.session_bytes;
      peak["input_bytes"] = e.input_bytes;
      peak["reserve_bytes"] = e.reserve_bytes;
    } catch (const ExprError& e) {
      if (e.kind() != ExprError::Kind::kUnknownSymbol) throw;
    }
  }
  return peak;
}

Json symbols_json(const ComputeContext& ctx) {
  ExprPool& pool = ctx.pool();
  // A data-dependent size's worst case, by symbol (few: one per data-dependent producer).
  std::unordered_map<std::string, Expr> upper;
  for (const DimBound& b : ctx.dim_bounds()) upper.emplace(pool.print(b.symbol), b.upper);
  Json symbols = Json::array();
  for (const SymbolInfo& s : pool.symbols()) {
    Json sym{{"name", s.name},
             {"kind", s.kind == SymbolKind::kFresh    ? "fresh"
                      : s.kind == SymbolKind::kOpaque ? "opaque"
                                                      : "declared"},
             {"bounds",
              {s.bounds.lo == kNegInf ? Json(nullptr) : Json(s.bounds.lo),
               s.bounds.hi == kPosInf ? Json(nullptr) : Json(s.bounds.hi)}}};
    if (!s.origin.empty()) sym["origin"] = s.origin;
    if (!s.narrowed_by.empty()) sym["narrowed_by"] = safe_text::utf8(s.narrowed_by);
    if (const auto it = upper.find(s.name); it != upper.end()) {
      sym["upper_bound"] = amount_json(pool, it->second);
    }
    // A size cap's symbol carries the expression it stands for, a floating-point size the
    // computation it is read from (expressions.md 4.5): evaluation expands either.
    if (const auto definition = pool.definition_text(s.name)) {
      sym["definition"] = safe_text::utf8(*definition);
      if (pool.is_float_size(s.name)) sym["floating_point"] = true;
    }
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
    Json entry{{"kind", constraint_kind(c.kind)}, {"args", args}, {"node", c.node}};
    if (c.required) entry["required"] = true;
    constraints.push_back(std::move(entry));
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

/// The rules that failed, with the node each failed at (its index in the graph view; body nodes
/// come after the main graph's).
Json rule_failures_json(const ComputeContext& ctx) {
  Json failures = Json::array();
  for (const RuleFailure& f : ctx.rule_failures()) {
    failures.push_back({{"node", f.node},
                        {"node_description", describe_node(ctx.graph(), f.node)},
                        {"kind", rule_kind_name(f.kind)},
                        {"rule", f.rule},
                        {"message", f.message}});
  }
  return failures;
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
  out.emplace_back("symbols", symbols_json(ctx));
  out.emplace_back("constraints", constraints_json(ctx));
  out.emplace_back("unknown_rank_values", names(ctx.graph(), ctx.unknown_rank_values()));
  out.emplace_back("unsized_values", names(ctx.graph(), ctx.unsized_values()));
  out.emplace_back("warnings", warnings_json(ctx));
  out.emplace_back("rule_failures", rule_failures_json(ctx));
  if (const RewriteSummary* summary = ctx.rewrite_summary()) {
    // Only when the profile's runtime rewrote the graph: other reports stay as they were.
    Json applied = Json::array();
    for (const auto& [rule, times] : summary->applied) {
      applied.push_back(Json{{"rule", rule}, {"times", times}});
    }
    Json r;
    r["nodes_before"] = summary->nodes_before;
    r["nodes_after"] = summary->nodes_after;
    r["initializers_dropped"] = summary->initializers_dropped;
    r["applied"] = std::move(applied);
    out.emplace_back("rewrites", std::move(r));
  }
  return out;
}

/// A JSON string as nlohmann's dump() writes it. Printable ASCII without quote or backslash is
/// copied as is; anything else goes through nlohmann's escaping (control characters, and
/// invalid UTF-8 replaced by U+FFFD: safe_text::json), so both agree byte for byte.
/// True when `s` can be written between quotes as it is (printable ASCII, no quote, no backslash).
/// Eight bytes at a time: names and keys are most of a report's strings.
bool plain_json(std::string_view s) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  const auto has_zero = [](std::uint64_t x) { return (x - kOnes) & ~x & kHigh; };
  std::size_t k = 0;
  // A byte below 0x20, with its high bit set, 0x7f, '"' or '\\' (exact: a borrow between bytes
  // starts only at a byte below 0x20 or at a zero, which is found anyway).
  const auto is_special = [&](std::uint64_t x) {
    return ((((x - 0x20 * kOnes) | x) & kHigh) | has_zero(x ^ (0x7f * kOnes)) |
            has_zero(x ^ (0x22 * kOnes)) | has_zero(x ^ (0x5c * kOnes))) != 0;
  };
  const auto word = [&](std::size_t at) {
    std::uint64_t x;
    std::memcpy(&x, s.data() + at, 8);
    return x;
  };
  for (; k + 8 <= s.size(); k += 8) {
    if (is_special(word(k))) return false;
  }
  if (k == s.size()) return true;
  // The tail: as the last eight bytes, which overlap the ones checked (a copy of its own length
  // was a call to memcpy per string).
  if (s.size() >= 8) return !is_special(word(s.size() - 8));
  std::uint64_t x = 0x61 * kOnes;  // a short string, after it 'a's
  std::memcpy(&x, s.data(), s.size());
  return !is_special(x);
}

/// The report's text as it is written, handed to the sink in pieces: each append is one bounds
/// check and one copy (std::string's appends, each with its own checks, length and terminator,
/// were most of the time of writing a report). The appends are always inlined: GCC at -O2 kept
/// them out of line, a call per piece, which was a tenth of the writer's instructions (67M ->
/// 60M on a 10k-node report).
class TextBuffer {
 public:
  explicit TextBuffer(std::size_t capacity)
      : data_(std::make_unique_for_overwrite<char[]>(capacity)),
        at_(data_.get()),
        end_(data_.get() + capacity) {}

  [[gnu::always_inline]] void put(char c) {
    room(1);
    *at_++ = c;
  }
  [[gnu::always_inline]] void put(std::string_view s) {
    room(s.size());
    std::memcpy(at_, s.data(), s.size());
    at_ += s.size();
  }
  /// A literal: its length is known where it is written.
  template <std::size_t N>
  [[gnu::always_inline]] void put(const char (&s)[N]) {
    room(N - 1);
    std::memcpy(at_, s, N - 1);
    at_ += N - 1;
  }
  /// A line break (after a comma when `comma`) and `indent` spaces.
  [[gnu::always_inline]] void line(bool comma, std::size_t indent) {
    // Half a million lines in a 10k-node report: one fixed-size copy of ",\n" and spaces, past
    // the indent into room that the next piece overwrites (a loop of eight spaces at a time cost
    // a fifth of the writer's instructions).
    if (indent > kBreakIndent) return deep_line(comma, indent);
    room(sizeof kBreak);
    std::memcpy(at_, kBreak + (comma ? 0 : 1), sizeof kBreak - 1);
    at_ += (comma ? 2 : 1) + indent;
  }
  /// `s` as a JSON string: between quotes when `plain`, else escaped as nlohmann's dump does.
  [[gnu::always_inline]] void quoted(std::string_view s, bool plain) {
    if (!plain) {
      put(safe_text::json(Json(std::string(s))));
      return;
    }
    room(s.size() + 2);
    *at_++ = '"';
    std::memcpy(at_, s.data(), s.size());
    at_ += s.size();
    *at_++ = '"';
  }
  void json_string(std::string_view s) { quoted(s, plain_json(s)); }
  std::size_t size() const { return static_cast<std::size_t>(at_ - data_.get()); }
  std::string_view text() const { return {data_.get(), size()}; }
  void clear() { at_ = data_.get(); }

 private:
  /// ",\n" and the deepest indent line() copies in one piece: the writer's documents nest at
  /// most 7 levels (the rest goes through append_nested).
  static constexpr std::size_t kBreakIndent = 14;
  static constexpr char kBreak[] = ",\n              ";
  static_assert(sizeof kBreak == kBreakIndent + 3);
  void deep_line(bool comma, std::size_t indent) {
    room(indent + 2);
    *at_ = ',';
    at_ += comma ? 1 : 0;
    *at_++ = '\n';
    std::memset(at_, ' ', indent);
    at_ += indent;
  }
  [[gnu::always_inline]] void room(std::size_t n) {
    if (static_cast<std::size_t>(end_ - at_) < n) grow(n);
  }
  // Out of line and cold, so that room() is inlined into every put (it was a call per piece).
  [[gnu::noinline, gnu::cold]] void grow(std::size_t n) {
    const std::size_t used = size();
    const std::size_t capacity =
        std::max(2 * static_cast<std::size_t>(end_ - data_.get()), used + n);
    auto bigger = std::make_unique_for_overwrite<char[]>(capacity);
    std::memcpy(bigger.get(), data_.get(), used);
    data_ = std::move(bigger);
    at_ = data_.get() + used;
    end_ = data_.get() + capacity;
  }
  std::unique_ptr<char[]> data_;
  char* at_;
  char* end_;
};

/// Writes the values inside a report's values and nodes (amounts, names, dtypes), each where the
/// text before it leaves off; write_value and write_node put the fixed text between them.
/// Together they lay the report out exactly as nlohmann's dump(2) lays out the same tree, which
/// is never built: the values and nodes of a large graph are most of a report, and making and
/// freeing their trees took most of the time of writing it. JsonReport tests hold the two to the
/// same bytes.
class ValueWriter {
 public:
  explicit ValueWriter(TextBuffer& out) : out_(out) {}

  TextBuffer& text() { return out_; }

  /// Whether value `v`'s name needs no escaping: decided once per value, whose name a report
  /// repeats up to six times (its key, the nodes that read it, the release lists).
  bool plain_name(const GraphView& g, ValueId v) {
    if (plain_names_.empty()) plain_names_.resize(g.values().size(), kUnknown);
    std::uint8_t& plain = plain_names_[v];
    if (plain == kUnknown) plain = plain_json(g.value(v).name) ? kPlain : kEscaped;
    return plain == kPlain;
  }
  void integer(std::int64_t v) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
    out_.put(std::string_view(digits, static_cast<std::size_t>(end - digits)));
  }
  /// An amount (semantics.md): an integer when concrete, else its canonical expression.
  void amount(ExprPool& pool, Expr e) {
    if (auto v = pool.as_int(e)) return integer(*v);
    // Reports repeat the same expressions many times (a node's total is often the next node's
    // already-allocated amount): each expression's text (stable for the pool's life) is looked
    // up, and whether it needs escaping decided, once.
    if (e.id >= texts_.size()) texts_.resize(std::max<std::size_t>(2 * e.id + 1, 1024));
    ExprText& t = texts_[e.id];
    if (t.text == nullptr) t = {&pool.print(e), plain_json(pool.print(e))};
    out_.quoted(*t.text, t.plain);
  }
  /// A node's operator and domain, as JSON strings: whether they need escaping is decided once
  /// per kind of node (NodeEntry::kind), which a graph of 10k nodes has a few dozen of.
  void op_type_and_domain(const GraphView& g, const NodeEntry& node, std::string_view between) {
    if (kinds_.empty()) kinds_.resize(g.op_kind_count(), kUnknown);
    std::uint8_t& plain = kinds_[node.kind];
    if (plain == kUnknown) {
      plain = plain_json(node.op_type) && plain_json(node.domain) ? kPlain : kEscaped;
    }
    out_.quoted(node.op_type, plain == kPlain);
    out_.put(between);
    out_.quoted(node.domain, plain == kPlain);
  }
  /// The name of a dtype, as a JSON string: looked up once per dtype.
  void dtype(std::int32_t code, const RuleRegistry& registry) {
    auto [it, added] = dtypes_.try_emplace(code);
    if (added) {
      it->second.first = dtype_name(code, &registry);
      it->second.second = plain_json(it->second.first);
    }
    out_.quoted(it->second.first, it->second.second);
  }
  /// The name of value `v`.
  void name(const GraphView& g, ValueId v) { out_.quoted(g.value(v).name, plain_name(g, v)); }
  /// `text`, a node's input or output, which names value `v` (kNoValue: none, or omitted).
  void name(const GraphView& g, ValueId v, std::string_view text) {
    if (v == kNoValue || g.value(v).name != text) return out_.json_string(text);
    out_.quoted(text, plain_name(g, v));
  }

 private:
  TextBuffer& out_;
  struct ExprText {
    const std::string* text = nullptr;  ///< null until first written
    bool plain = false;
  };
  std::vector<ExprText> texts_;  ///< per expression handle
  enum : std::uint8_t { kUnknown, kPlain, kEscaped };
  std::vector<std::uint8_t> plain_names_;  ///< per value
  std::vector<std::uint8_t> kinds_;        ///< per kind of node: op_type and domain plain
  std::unordered_map<std::int32_t, std::pair<std::string, bool>> dtypes_;  ///< name, plain
};

// The layout of the report's values and nodes: each is a member or item of the document's
// "values" or "nodes" (its brackets at indent 4, its members at 6, theirs at 8 and 10), so the
// line breaks, indents and keys between its values are fixed text, each copied in one piece.
// A general writer's bookkeeping of brackets, commas and indents, a call per line, was most of
// the instructions of writing a report (60M -> 40M on a 10k-node GPT export).

/// After `head` (a key and its opening bracket), `count` items, item `k` written by `item(k)`
/// where its line begins at `indent`, and the closing bracket `close` two spaces less indented.
template <std::size_t N, class Item>
void write_items(TextBuffer& out, const char (&head)[N], std::size_t count, Item&& item,
                 std::size_t indent, char close) {
  out.put(head);
  for (std::size_t k = 0; k < count; ++k) {
    out.line(k != 0, indent);
    item(k);
  }
  if (count != 0) out.line(false, indent - 2);
  out.put(close);
}

/// An array of a value or a node: its items at indent 8.
template <std::size_t N, class Item>
void write_array(TextBuffer& out, const char (&head)[N], std::size_t count, Item&& item) {
  write_items(out, head, count, std::forward<Item>(item), 8, ']');
}

/// Amounts as an array at indent 6, after `head`: a shape or a value.
template <std::size_t N>
void write_amounts(ValueWriter& w, const char (&head)[N], ExprPool& pool,
                   std::span<const Expr> amounts) {
  write_array(w.text(), head, amounts.size(), [&](std::size_t k) { w.amount(pool, amounts[k]); });
}

/// value_json(ctx, v), written.
void write_value(ValueWriter& w, const ComputeContext& ctx, ValueId v) {
  ExprPool& pool = ctx.pool();
  const ValueShape& s = ctx.shape(v);
  TextBuffer& out = w.text();
  out.put("{\n      \"kind\": \"");
  out.put(std::string_view(value_kind(ctx.graph().value(v))));
  out.put("\",\n      \"dtype\": ");
  w.dtype(s.dtype, ctx.registry());
  if (s.known_rank) {
    write_amounts(w, ",\n      \"shape\": [", pool, s.dims);
  } else {
    out.put(",\n      \"shape\": null");
    if (s.element_count) {
      out.put(",\n      \"elements\": ");
      w.amount(pool, *s.element_count);
    }
  }
  if (s.has_value) write_amounts(w, ",\n      \"value\": [", pool, s.value);
  out.put(",\n      \"tag\": \"");
  out.put(std::string_view(tag_name(ctx.value_tag(v))));
  out.put("\",\n      \"bytes\": ");
  if (auto bytes = ctx.value_bytes(v)) {
    w.amount(pool, *bytes);
  } else {
    out.put("null");
  }
  out.put("\n    }");
}

/// The names of `values` as an array at indent 6, after `head`.
template <std::size_t N>
void write_names(ValueWriter& w, const char (&head)[N], const GraphView& g, ValueIds values) {
  write_array(w.text(), head, values.size(), [&](std::size_t k) { w.name(g, values[k]); });
}

/// A node's input or output names (`texts`, the names the node gives; `values`, what they name).
template <std::size_t N, class Texts>
void write_io(ValueWriter& w, const char (&head)[N], const GraphView& g, const Texts& texts,
              std::span<const ValueId> values) {
  write_array(w.text(), head, static_cast<std::size_t>(texts.size()), [&](std::size_t k) {
    w.name(g, k < values.size() ? values[k] : kNoValue, texts.Get(static_cast<int>(k)));
  });
}

/// A bucket of tag -> amount: an object of a node's "memory", its members at indent 10.
template <std::size_t N>
void write_bucket(ValueWriter& w, const char (&head)[N], ExprPool& pool, const Bucket& bucket) {
  TextBuffer& out = w.text();
  const auto member = [&](std::size_t k) {
    const auto [tag, amount] = bucket[k];
    out.put('"');
    out.put(std::string_view(tag_name(tag)));
    out.put("\": ");
    w.amount(pool, amount);
  };
  write_items(out, head, bucket.size(), member, 10, '}');
}

void append_nested(TextBuffer& out, const Json& value, int levels);

/// node_json(ctx, n), written.
void write_node(ValueWriter& w, const ComputeContext& ctx, NodeId n) {
  ExprPool& pool = ctx.pool();
  const GraphView& g = ctx.graph();
  const NodeEntry& node = g.node(n);
  TextBuffer& out = w.text();
  out.put("{\n      \"index\": ");
  w.integer(n);
  out.put(",\n      \"name\": ");
  out.json_string(node.proto->name());
  out.put(",\n      \"op_type\": ");
  w.op_type_and_domain(g, node, ",\n      \"domain\": ");
  write_io(w, ",\n      \"inputs\": [", g, node.proto->input(), node.inputs);
  write_io(w, ",\n      \"outputs\": [", g, node.proto->output(), node.outputs);
  out.put(",\n      \"tag\": \"");
  out.put(std::string_view(tag_name(ctx.node_tag(n))));
  const auto inplace = ctx.inplace(n);
  write_array(out, "\",\n      \"inplace\": [", inplace.size(), [&](std::size_t k) {
    const InplaceDecision& d = inplace[k];
    out.put("{\n          \"output\": ");
    w.integer(d.output);
    out.put(",\n          \"input\": ");
    w.integer(d.input);
    out.put(",\n          \"kind\": \"");
    out.put(std::string_view(reuse_kind_name(d.kind)));
    out.put("\",\n          \"mode\": \"");
    out.put(std::string_view(reuse_mode_name(d.mode)));
    out.put("\"\n        }");
  });
  write_names(w, ",\n      \"release_after\": [", g, ctx.release_after(n));
  write_names(w, ",\n      \"not_used_after\": [", g, ctx.not_used_after(n));
  write_names(w, ",\n      \"release_after_shape_tag\": [", g, ctx.release_after_shape_tag(n));
  const MemoryProfile& p = ctx.memory(n);
  out.put(",\n      \"memory\": {\n        \"already_allocated_bytes\": ");
  w.amount(pool, p.already_allocated);
  out.put(",\n        \"output_allocation_bytes\": ");
  w.amount(pool, p.output_allocation);
  write_bucket(w, ",\n        \"inputs\": {", pool, p.inputs);
  write_bucket(w, ",\n        \"initializers\": {", pool, p.initializers);
  write_bucket(w, ",\n        \"intermediates\": {", pool, p.intermediates);
  write_bucket(w, ",\n        \"outputs\": {", pool, p.outputs);
  out.put(",\n        \"total_bytes\": ");
  w.amount(pool, p.total);
  out.put("\n      },\n      \"peak_scratch_bytes\": ");
  w.amount(pool, ctx.node_peak_memory(n));
  if (ctx.folded_at_load(n)) out.put(",\n      \"folded_at_load\": true");
  if (const RewriteOrigin* origin = ctx.rewrite_origin(n)) {
    out.put(",\n      \"rewritten_from\": ");
    append_nested(out, rewrite_origin_json(*origin), 3);
  }
  out.put("\n    }");
}

/// `value.dump(2)` as it reads nested `levels` deep in a dump(2) document: every line after the
/// first indented by 2*levels more spaces (strings never hold a raw newline: dump escapes it).
void append_nested(TextBuffer& out, const Json& value, int levels) {
  const std::string text = safe_text::json(value, 2);
  const std::string_view view = text;
  const auto pad = 2 * static_cast<std::size_t>(levels);
  std::size_t from = 0;
  for (std::size_t nl = view.find('\n'); nl != std::string::npos; nl = view.find('\n', from)) {
    out.put(view.substr(from, nl - from));
    out.line(false, pad);
    from = nl + 1;
  }
  out.put(view.substr(from));
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

namespace {
/// The shapes document's members after "values".
std::vector<std::pair<const char*, Json>> shapes_trailing_members(const ComputeContext& ctx) {
  std::vector<std::pair<const char*, Json>> out;
  out.emplace_back("symbols", symbols_json(ctx));
  out.emplace_back("constraints", constraints_json(ctx));
  out.emplace_back("warnings", warnings_json(ctx));
  out.emplace_back("rule_failures", rule_failures_json(ctx));
  return out;
}
}  // namespace

JsonReportWriter::JsonReportWriter(const ComputeContext& ctx, const ReportOptions& options,
                                   Document document)
    : ctx_(ctx),
      document_(document),
      model_(model_json(ctx, options)),
      trailing_(document == Document::kShapes ? shapes_trailing_members(ctx)
                                              : trailing_members(ctx, options)) {}

void JsonReportWriter::write(const std::function<void(std::string_view)>& sink) const {
  // The document of json_report(...).dump(2), written value by value and node by node into one
  // buffer that goes to `sink` whenever it passes kPieceBytes: neither the tree nor the whole
  // text of a 100k-node graph (161 MB) is ever held. Holding the text cost more than writing it:
  // its first touch of fresh pages took 0.5 s of a 0.86 s report at 100k nodes.
  const GraphView& g = ctx_.graph();
  TextBuffer out(kPieceBytes + kPieceBytes / 4);
  const auto hand_over_if_full = [&] {
    if (out.size() < kPieceBytes) return;
    sink(out.text());
    out.clear();
  };
  out.put(document_ == Document::kShapes ? "{\n  \"format\": \"cctx.shapes/1\",\n  \"model\": "
                                         : "{\n  \"format\": \"cctx.analysis/1\",\n  \"model\": ");
  append_nested(out, model_, 1);
  out.put(",\n  \"values\": {");
  // One writer for every value and node: each is a complete value, after which the writer is
  // back at its starting state, and its per-expression cache carries over.
  ValueWriter w(out);
  bool first = true;
  for (ValueId v = 0; v < g.values().size(); ++v) {
    if (g.value(v).graph != 0) continue;
    out.line(!first, 4);
    first = false;
    out.quoted(g.value(v).name, w.plain_name(g, v));
    out.put(": ");
    write_value(w, ctx_, v);
    hand_over_if_full();
  }
  if (first) {
    out.put('}');
  } else {
    out.put("\n  }");
  }
  if (document_ == Document::kAnalysis) {
    out.put(",\n  \"nodes\": [");
    for (NodeId n = 0; n < ctx_.node_count(); ++n) {
      out.line(n != 0, 4);
      write_node(w, ctx_, n);
      hand_over_if_full();
    }
    if (ctx_.node_count() == 0) {
      out.put(']');
    } else {
      out.put("\n  ]");
    }
  }
  for (const auto& [key, member] : trailing_) {
    out.put(",\n  \"");
    out.put(key);
    out.put("\": ");
    append_nested(out, member, 1);
  }
  out.put("\n}");
  sink(out.text());
}

void append_json_report(std::string& out, const ComputeContext& ctx, const ReportOptions& options) {
  JsonReportWriter(ctx, options).write([&out](std::string_view piece) { out += piece; });
}

namespace {
std::string csv_bucket(ExprPool& pool, const Bucket& bucket) {
  std::string out;
  for (const auto& [tag, amount] : bucket) {
    if (!out.empty()) out += ';';
    // As in the text table: a bare "=32" would be a formula to a spreadsheet.
    out += std::string(tag == Tag::kNone ? "untagged" : tag_name(tag)) + "=" + pool.print(amount);
  }
  return out;
}
}  // namespace

std::string csv_report(const ComputeContext& ctx, const ReportOptions& options) {
  ExprPool& pool = ctx.pool();
  std::string out =
      "node,name,op_type,domain,already_allocated_bytes,output_allocation_bytes,inputs,"
      "initializers,"
      "intermediates,outputs,total_bytes,peak_scratch_bytes";
  for (const Assignment& a : options.evaluate)
    out += "," + safe_text::csv("total_bytes@" + assignment_label(a));
  // The reserve is one figure per assignment: the same on every row, so a spreadsheet finds it
  // beside the node totals it comes from.
  std::vector<std::string> reserves;
  for (const Assignment& a : options.evaluate) {
    out += "," + safe_text::csv("reserve_bytes@" + assignment_label(a));
    reserves.push_back(std::to_string(ctx.evaluate_peak(a).reserve_bytes));
  }
  out += '\n';
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    const NodeEntry& node = ctx.graph().node(n);
    const MemoryProfile& p = ctx.memory(n);
    const std::string cells[] = {std::to_string(n),
                                 node.proto->name(),
                                 std::string(node.op_type),
                                 std::string(node.domain),
                                 pool.print(p.already_allocated),
                                 pool.print(p.output_allocation),
                                 csv_bucket(pool, p.inputs),
                                 csv_bucket(pool, p.initializers),
                                 csv_bucket(pool, p.intermediates),
                                 csv_bucket(pool, p.outputs),
                                 pool.print(p.total),
                                 pool.print(ctx.node_peak_memory(n))};
    std::string row;
    for (const std::string& c : cells) row += (row.empty() ? "" : ",") + safe_text::csv(c);
    for (const Assignment& a : options.evaluate) row += "," + std::to_string(pool.eval(p.total, a));
    for (const std::string& r : reserves) row += "," + r;
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
  for (auto& [key, member] : shapes_trailing_members(ctx)) doc[key] = std::move(member);
  return doc;
}

}  // namespace cctx
