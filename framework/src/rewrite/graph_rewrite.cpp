#include "rewrite/graph_rewrite.hpp"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/borrowed_fields.hpp"
#include "model/model_shell.hpp"
#include "model/onnx_runtime_view.hpp"
#include "model/tensor_data.hpp"
#include "rewrite/dim_origins.hpp"
#include "rewrite/node_attributes.hpp"
#include "rewrite/rewrite_rule.hpp"

namespace cctx {

using detail::borrow;
using detail::borrow_one;

namespace {

/// Sweeps of one pass at most (a pass that keeps changing the graph stops there), and rewrites
/// per node of the graph at most over all passes: rules that undo each other cannot loop.
constexpr int kMaxSweeps = 64;
constexpr std::size_t kMaxRewritesPerNode = 16;
/// Constants of at most this many elements are compared by value by common_subexpressions (the
/// shape and axes constants exporters repeat); larger ones by name, their payload unread.
constexpr std::size_t kCompareByValueElements = 64;

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

/// One node of the main graph while it is rewritten.
struct WorkNode {
  const onnx::NodeProto* proto = nullptr;  ///< the original, or `made`
  std::unique_ptr<onnx::NodeProto> made;   ///< a replacement node's own message
  std::string domain;                      ///< normalised
  std::vector<std::string> inputs, outputs;
  bool alive = true;
  bool inputs_changed = false;   ///< an original whose readers were renamed: written as a copy
  bool outputs_changed = false;  ///< an original that took another value's name (`y <- x`)
  std::string mark;              ///< a replacement's mark (`@blocked`): see RewriteOps
  std::size_t slot = 0;          ///< position: the original's index, a replacement its anchor's
  std::size_t sequence = 0;      ///< order among nodes of one slot
  /// The runtime's number for the node (ONNX Runtime's NodeIndex), which orders its execution
  /// (NodeOrder::kReverseDfs): an original's file position; a new node the next number, as
  /// the runtime appends the nodes its optimiser adds; kNone until add() numbers it.
  std::size_t number = kNone;
  std::optional<RewriteOrigin> origin;
};

/// Variables bound by one attempt to match a pattern.
struct Binding {
  std::map<std::string, std::string, std::less<>> values;  ///< "" for an absent input
  std::map<std::string, std::vector<std::string>, std::less<>> lists;
  std::vector<std::size_t> matched;  ///< per pattern node, the work node
};

bool commutative(const WorkNode& n) {
  return n.domain.empty() && (n.proto->op_type() == "Add" || n.proto->op_type() == "Mul");
}

/// Collects every name read inside the bodies of `g`'s nodes (their own values included: a
/// superset of what they read from outside, which is all that matters here).
void collect_body_reads(const onnx::GraphProto& g, std::unordered_set<std::string>& reads) {
  for (const onnx::NodeProto& n : g.node()) {
    for (const onnx::AttributeProto& a : n.attribute()) {
      auto scan = [&reads](const onnx::GraphProto& body) {
        for (const onnx::NodeProto& m : body.node()) {
          for (const std::string& in : m.input()) reads.insert(in);
        }
        for (const onnx::ValueInfoProto& o : body.output()) reads.insert(o.name());
        collect_body_reads(body, reads);
      };
      if (a.has_g()) scan(a.g());
      for (const onnx::GraphProto& body : a.graphs()) scan(body);
    }
  }
}

class Rewriter {
 public:
  Rewriter(const onnx::GraphProto& g, const ValueTypeQuery& types) : types_(types) {
    for (const onnx::ValueInfoProto& i : g.input()) graph_inputs_.insert(i.name());
    for (const onnx::ValueInfoProto& o : g.output()) {
      outside_.insert(o.name());
      graph_outputs_.insert(o.name());
    }
    collect_body_reads(g, outside_);
    for (const onnx::TensorProto& t : g.initializer()) constants_.emplace(t.name(), &t);
    nodes_.reserve(static_cast<std::size_t>(g.node_size()));
    for (int k = 0; k < g.node_size(); ++k) {
      const onnx::NodeProto& p = g.node(k);
      WorkNode w;
      w.proto = &p;
      w.domain = std::string(normalize_domain(p.domain()));
      w.inputs.assign(p.input().begin(), p.input().end());
      w.outputs.assign(p.output().begin(), p.output().end());
      w.slot = static_cast<std::size_t>(k);
      add(std::move(w));
      note_constant(p);
    }
    // The constants somebody reads now: those a rewrite leaves unread are dropped.
    for (const auto& [name, readers] : readers_) {
      if (constants_.count(name) != 0) read_before_.insert(name);
    }
  }

  /// One sweep of a pass: at each node in graph order (nodes made on the way included), every
  /// rule of the pass whose last pattern node it matches, in order. Returns the rewrites made.
  /// At most `budget` rewrites: a rule whose replacement it matches again would otherwise
  /// follow its own new nodes for ever within one sweep.
  std::size_t sweep(std::span<const RewriteRule* const> rules, std::size_t budget) {
    std::size_t made = 0;
    for (const RewriteRule* rule : rules) {
      if (rule->builtin == kCommonSubexpressions) made += common_subexpressions(*rule);
      if (rule->builtin == kSameTypeCasts) made += same_type_casts(*rule);
      if (rule->builtin == kConstantReshapeShapes) made += constant_reshape_shapes(*rule);
      if (rule->builtin == kUniqueDequantizePerReader) made += unique_dequantize_per_reader(*rule);
    }
    for (std::size_t i = 0; i < nodes_.size() && made < budget; ++i) {
      for (const RewriteRule* rule : rules) {
        if (!nodes_[i].alive || made >= budget) break;
        if (!rule->builtin.empty() || !op_matches(rule->pattern.back(), nodes_[i])) continue;
        // Each commutative node met while matching may take its inputs in either order: the
        // orders are tried in turn (the first 2^4 of them) until one match can be applied. An
        // order that fails early meets fewer of them than another: the most any order met
        // decides how many orders there are.
        std::uint32_t most_seen = 0;
        for (std::uint32_t mask = 0; mask < 16; ++mask) {
          Binding b;
          b.matched.assign(rule->pattern.size(), kNone);
          swap_mask_ = mask;
          commutative_seen_ = 0;
          const bool matched = match(*rule, rule->pattern.size() - 1, i, b);
          if (matched && applicable(*rule, b)) {
            replace(*rule, b);
            ++made;
            break;
          }
          most_seen = std::max(most_seen, commutative_seen_);
          if (mask + 1 >= (1u << std::min<std::uint32_t>(most_seen, 4))) break;
        }
      }
    }
    return made;
  }

  /// The nodes a pass made (ids from `first`, live, with a new number) take their numbers in
  /// the order the graph lists them: ONNX Runtime's transformers add their nodes as they walk
  /// the graph, where cctx's sweeps go by creation (the NCHWc transformer's ReorderOutputs,
  /// added at its end in a hash table's order, cannot be followed).
  void number_in_graph_order(std::size_t first) {
    std::vector<std::size_t> made;
    std::vector<std::size_t> numbers;
    for (std::size_t id = first; id < nodes_.size(); ++id) {
      if (!nodes_[id].alive || nodes_[id].number < first) continue;
      made.push_back(id);
      numbers.push_back(nodes_[id].number);
    }
    std::stable_sort(made.begin(), made.end(),
                     [&](std::size_t a, std::size_t b) { return written_before(a, b); });
    std::sort(numbers.begin(), numbers.end());
    for (std::size_t k = 0; k < made.size(); ++k) nodes_[made[k]].number = numbers[k];
  }
  std::size_t node_count() const { return nodes_.size(); }

  std::vector<WorkNode>& nodes() { return nodes_; }
  /// The live nodes in the order the rewritten graph lists them: by slot (the original's
  /// position, a replacement its anchor's), then by sequence within a slot.
  std::vector<std::size_t> live_in_written_order() const {
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      if (nodes_[i].alive) order.push_back(i);
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return written_before(a, b); });
    return order;
  }
  const std::vector<std::pair<std::string, std::size_t>>& applied() const { return applied_; }
  /// Initializers that lost their last reader to a rewrite.
  bool orphaned(const std::string& name) const {
    return read_before_.count(name) != 0 && live_readers(name) == 0 && outside_.count(name) == 0;
  }

 private:
  /// Node a is written before node b: by slot, then by sequence within a slot.
  bool written_before(std::size_t a, std::size_t b) const {
    if (nodes_[a].slot != nodes_[b].slot) return nodes_[a].slot < nodes_[b].slot;
    return nodes_[a].sequence < nodes_[b].sequence;
  }

  /// A Constant node's output is a constant to the rules (`const z`), the model's and a
  /// replacement's alike; its tensor when its attribute gives one.
  void note_constant(const onnx::NodeProto& p) {
    if (p.op_type() != "Constant" || !normalize_domain(p.domain()).empty() ||
        p.output_size() == 0) {
      return;
    }
    for (const onnx::AttributeProto& a : p.attribute()) {
      if (a.name() == "value" && a.has_t()) constants_.emplace(p.output(0), &a.t());
    }
    constants_.emplace(p.output(0), nullptr);  // kept when the attribute gave a tensor
  }

  void add(WorkNode w) {
    const std::size_t id = nodes_.size();
    if (w.number == kNone) w.number = id;
    for (const std::string& in : w.inputs) {
      if (!in.empty()) readers_[in].push_back(id);
    }
    for (const std::string& o : w.outputs) {
      if (!o.empty()) producer_[o] = id;
    }
    nodes_.push_back(std::move(w));
  }

  std::size_t live_readers(const std::string& name) const {
    auto it = readers_.find(name);
    if (it == readers_.end()) return 0;
    std::size_t count = 0;
    for (std::size_t r : it->second) {
      if (!nodes_[r].alive) continue;
      count += static_cast<std::size_t>(
          std::count(nodes_[r].inputs.begin(), nodes_[r].inputs.end(), name));
    }
    return count;
  }

  static bool op_matches(const RewriteNode& p, const WorkNode& n) {
    return p.ops.accepts(n.domain, n.proto->op_type(), n.mark) && attr_tests_hold(p, *n.proto);
  }

  bool match(const RewriteRule& rule, std::size_t k, std::size_t id, Binding& b) {
    const RewriteNode& p = rule.pattern[k];
    const WorkNode& n = nodes_[id];
    if (!n.alive || !op_matches(p, n)) return false;
    if (std::find(b.matched.begin(), b.matched.end(), id) != b.matched.end()) return false;
    b.matched[k] = id;
    for (std::size_t i = 0; i < p.outputs.size(); ++i) {
      if (p.outputs[i] == "_") continue;
      const std::string name = i < n.outputs.size() ? n.outputs[i] : std::string();
      if (name.empty()) return false;
      if (i < p.graph_outputs.size() && p.graph_outputs[i] && graph_outputs_.count(name) == 0) {
        return false;
      }
      if (i < p.not_graph_outputs.size() && p.not_graph_outputs[i] &&
          graph_outputs_.count(name) != 0) {
        return false;
      }
      auto [it, fresh] = b.values.emplace(p.outputs[i], name);
      if (!fresh && it->second != name) return false;
    }
    if (commutative(n) && !p.ordered && p.inputs.size() == 2 && n.inputs.size() == 2 &&
        !p.inputs[0].rest && !p.inputs[1].rest) {
      const std::uint32_t decision = commutative_seen_++;
      if (decision < 32 && ((swap_mask_ >> decision) & 1u) != 0) {
        const std::vector<std::string> swapped{n.inputs[1], n.inputs[0]};
        return match_inputs(rule, p, swapped, b);
      }
    }
    return match_inputs(rule, p, n.inputs, b);
  }

  bool match_inputs(const RewriteRule& rule, const RewriteNode& p,
                    const std::vector<std::string>& inputs, Binding& b) {
    std::size_t pos = 0;
    for (const RewriteArg& a : p.inputs) {
      if (a.rest) {
        std::vector<std::string> rest(
            inputs.begin() + static_cast<std::ptrdiff_t>(std::min(pos, inputs.size())),
            inputs.end());
        pos = inputs.size();
        auto [it, fresh] = b.lists.emplace(a.var, rest);
        if (!fresh && it->second != rest) return false;
        continue;
      }
      const std::string name = pos < inputs.size() ? inputs[pos] : std::string();
      ++pos;
      if (name.empty()) {
        if (!a.optional) return false;
        auto [it, fresh] = b.values.emplace(a.var, std::string());
        if (!fresh && !it->second.empty()) return false;
        continue;
      }
      if (!bind(rule, a, name, b)) return false;
    }
    for (; pos < inputs.size(); ++pos) {
      if (!inputs[pos].empty()) return false;  // an input the pattern does not mention
    }
    return true;
  }

  bool bind(const RewriteRule& rule, const RewriteArg& a, const std::string& name, Binding& b) {
    auto [it, fresh] = b.values.emplace(a.var, name);
    if (!fresh) return it->second == name;
    if (!a.constant) {
      // `x{rank=3, d1%16}`: the value's rank and dims as the runtime resolves it, whoever makes
      // it (a pattern node too).
      for (const auto& clause : a.dim_tests) {
        bool holds = false;
        for (const RewriteArg::DimTest& test : clause) {
          // `like` compares with another variable, bound by then or not: applicable() checks it.
          holds = holds || test.op == RewriteArg::DimTest::Op::kLike ||
                  test.op == RewriteArg::DimTest::Op::kSame || value_test_holds(name, test);
        }
        if (!holds) return false;
      }
    }
    auto made = rule.produced_by.find(a.var);
    if (made != rule.produced_by.end() && rule.pattern[made->second].absent) {
      // A condition: no node the `not` node's operators accept makes the value.
      auto p = producer_.find(name);
      return p == producer_.end() || !nodes_[p->second].alive ||
             !op_matches(rule.pattern[made->second], nodes_[p->second]);
    }
    if (made != rule.produced_by.end()) {
      auto p = producer_.find(name);
      if (p == producer_.end() || !nodes_[p->second].alive) return false;
      return match(rule, made->second, p->second, b);
    }
    if (!a.constant) return true;
    auto c = constants_.find(name);
    if (c == constants_.end() || producer_is_live_nonconstant(name)) return false;
    if (!a.dim_tests.empty()) {
      const onnx::TensorProto* t = c->second;
      if (t == nullptr) return false;
      for (const auto& clause : a.dim_tests) {
        bool holds = false;
        for (const RewriteArg::DimTest& test : clause) holds = holds || dim_test_holds(*t, test);
        if (!holds) return false;
      }
    }
    return true;
  }

  static bool dim_test_holds(const onnx::TensorProto& t, const RewriteArg::DimTest& test) {
    using Op = RewriteArg::DimTest::Op;
    if (test.op == Op::kScalar) {
      return std::all_of(t.dims().begin(), t.dims().end(), [](std::int64_t d) { return d == 1; });
    }
    if (test.op == Op::kRank) return t.dims_size() == test.value;
    if (test.op == Op::kType) return t.data_type() == test.value;
    if (test.op == Op::kWhole || test.op == Op::kElement) {
      std::vector<double> values;
      if (!constant_values(t, &values)) return false;
      if (test.op == Op::kElement) {
        return test.dim >= 0 && static_cast<std::size_t>(test.dim) < values.size() &&
               values[static_cast<std::size_t>(test.dim)] == static_cast<double>(test.value);
      }
      return std::all_of(values.begin(), values.end(),
                         [](double v) { return v >= 1.0 && whole_number(v); });
    }
    if (test.op == Op::kZeros) {
      std::vector<double> values;
      return constant_values(t, &values) &&
             std::all_of(values.begin(), values.end(), [](double v) { return v == 0.0; });
    }
    if (test.op == Op::kValue) {
      std::vector<double> values;
      return tensor_element_count(t) == 1 && constant_values(t, &values) && values.size() == 1 &&
             values[0] == static_cast<double>(test.value);
    }
    return test.dim < t.dims_size() && dim_holds(t.dims(test.dim), test);
  }

  /// `dK%M`, `dK<M`, `dK>M`, `dK=M` on dim K's value, a constant's or a value's.
  static bool dim_holds(std::int64_t d, const RewriteArg::DimTest& test) {
    using Op = RewriteArg::DimTest::Op;
    switch (test.op) {
      case Op::kMultipleOf:
        return d % test.value == 0;
      case Op::kBelow:
        return d < test.value;
      case Op::kAbove:
        return d > test.value;
      case Op::kEquals:
        return d == test.value;
      case Op::kScalar:
      case Op::kRank:
      case Op::kValue:
      case Op::kLike:
      case Op::kSame:
      case Op::kType:
      case Op::kReaders:
      case Op::kZeros:
      case Op::kWhole:
      case Op::kElement:
        break;
    }
    return false;
  }

  /// A finite whole number an int64 holds exactly (checked before any conversion: a float
  /// constant may hold anything).
  static bool whole_number(double v) {
    constexpr double kExact = 9007199254740992.0;  // 2^53
    return std::isfinite(v) && v >= -kExact && v <= kExact && v == std::floor(v);
  }

  /// A small constant's contents as doubles (integers or floats), at most 64 elements.
  static bool constant_values(const onnx::TensorProto& t, std::vector<double>* out) {
    std::vector<std::int64_t> ints;
    if (tensor_int_values(t, kCompareByValueElements, &ints)) {
      out->assign(ints.begin(), ints.end());
      return true;
    }
    return tensor_float_values(t, kCompareByValueElements, out);
  }

  static bool attr_tests_hold(const RewriteNode& p, const onnx::NodeProto& n) {
    for (const AttrTest& test : p.attr_tests) {
      const onnx::AttributeProto* found = nullptr;
      for (const onnx::AttributeProto& a : n.attribute()) {
        if (a.name() == test.name) found = &a;
      }
      switch (test.op) {
        case AttrTest::Op::kAbsent:
          if (found != nullptr) return false;
          break;
        case AttrTest::Op::kPresent:
          if (found == nullptr) return false;
          break;
        case AttrTest::Op::kEquals:
          if (found == nullptr) return false;
          if (test.is_string ? found->s() != test.text
              : test.is_list ? !std::equal(found->ints().begin(), found->ints().end(),
                                           test.values.begin(), test.values.end())
                             : found->i() != test.value) {
            return false;
          }
          break;
        case AttrTest::Op::kEqualsOrAbsent:
          if (found != nullptr &&
              (test.is_string ? found->s() != test.text : found->i() != test.value)) {
            return false;
          }
          break;
        case AttrTest::Op::kDiffers:
          if (found != nullptr && found->i() == test.value) return false;
          break;
      }
    }
    return true;
  }

  /// A constant's name made again by a live node that is not the Constant (never in a valid
  /// model, but a rewrite must not trust it).
  bool producer_is_live_nonconstant(const std::string& name) const {
    auto p = producer_.find(name);
    if (p == producer_.end()) return false;
    const WorkNode& n = nodes_[p->second];
    return n.alive && n.proto->op_type() != "Constant";
  }

  /// The matched nodes the replacement removes (not the `keep` ones).
  static std::vector<std::size_t> removed(const RewriteRule& rule, const Binding& b) {
    std::vector<std::size_t> out;
    for (std::size_t k = 0; k < rule.pattern.size(); ++k) {
      if (!rule.pattern[k].keep && !rule.pattern[k].absent) out.push_back(b.matched[k]);
    }
    return out;
  }

  /// Every value the match removes is read by removed nodes alone and is no graph output nor
  /// read inside a body; a renamed value (`y = x`) may have other readers but no outside one.
  /// A reroute must move at least one reader.
  bool applicable(const RewriteRule& rule, const Binding& b) const {
    if (!like_tests_hold(rule, b)) return false;
    std::unordered_set<std::string> kept, renamed;
    for (const RewriteNode& r : rule.replacement) {
      for (const std::string& o : r.outputs) {
        auto it = b.values.find(o);
        if (it == b.values.end()) continue;
        (r.is_rename() ? renamed : kept).insert(it->second);
      }
    }
    const std::vector<std::size_t> gone = removed(rule, b);
    const std::unordered_set<std::size_t> removed_set(gone.begin(), gone.end());
    for (std::size_t id : gone) {
      for (const std::string& o : nodes_[id].outputs) {
        if (o.empty() || kept.count(o) != 0) continue;
        if (outside_.count(o) != 0) return false;
        if (renamed.count(o) != 0) continue;
        auto it = readers_.find(o);
        if (it == readers_.end()) continue;
        for (std::size_t r : it->second) {
          if (nodes_[r].alive && removed_set.count(r) == 0) return false;
        }
      }
    }
    for (const RewriteNode& r : rule.replacement) {
      if (r.kind == RewriteNode::Kind::kReroute &&
          rerouted_readers(r, b.values.at(r.inputs[0].var), removed_set).empty()) {
        return false;
      }
      if (r.kind == RewriteNode::Kind::kTakeName) {
        // x keeps nothing of its own: a live producer outside the match, no outside reader.
        const std::string& x = b.values.at(r.inputs[0].var);
        auto p = producer_.find(x);
        if (x.empty() || p == producer_.end() || !nodes_[p->second].alive ||
            removed_set.count(p->second) != 0 || outside_.count(x) != 0) {
          return false;
        }
      }
    }
    return true;
  }

  /// The live readers of `value` a reroute moves: those its operator set accepts, but none the
  /// match removes.
  std::vector<std::size_t> rerouted_readers(const RewriteNode& r, const std::string& value,
                                            const std::unordered_set<std::size_t>& removed) const {
    std::vector<std::size_t> out;
    auto it = readers_.find(value);
    if (it == readers_.end()) return out;
    for (std::size_t id : it->second) {
      const WorkNode& n = nodes_[id];
      if (!n.alive || removed.count(id) != 0 ||
          !r.ops.accepts(n.domain, n.proto->op_type(), n.mark)) {
        continue;
      }
      if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
    }
    return out;
  }

  static std::string node_label(const WorkNode& n) {
    if (!n.proto->name().empty()) return n.proto->name();
    return "#" + std::to_string(n.slot);
  }

  static void add_origin(RewriteOrigin& origin, const WorkNode& n) {
    if (n.origin) {
      for (const std::string& r : n.origin->rules) {
        if (std::find(origin.rules.begin(), origin.rules.end(), r) == origin.rules.end()) {
          origin.rules.push_back(r);
        }
      }
      origin.nodes.insert(origin.nodes.end(), n.origin->nodes.begin(), n.origin->nodes.end());
    } else {
      origin.nodes.push_back(node_label(n));
    }
  }

  /// A live node equal to `w` (operator, inputs, attributes) whose outputs can stand for w's:
  /// ONNX Runtime shares such nodes (common subexpressions), so a rewrite inserting the same
  /// reorder for two readers makes one.
  std::size_t twin(const WorkNode& w) const {
    if (w.inputs.empty() || w.inputs.front().empty()) return kNone;
    auto it = readers_.find(w.inputs.front());
    if (it == readers_.end()) return kNone;
    const std::string attributes = attribute_text(*w.made);
    for (std::size_t id : it->second) {
      const WorkNode& n = nodes_[id];
      if (!n.alive || n.domain != w.domain || n.proto->op_type() != w.made->op_type() ||
          n.inputs != w.inputs || n.outputs.size() != w.outputs.size() ||
          attribute_text(*n.proto) != attributes) {
        continue;
      }
      return id;
    }
    return kNone;
  }

  static std::string attribute_text(const onnx::NodeProto& n) {
    std::string text;
    for (const onnx::AttributeProto& a : n.attribute()) text += a.SerializeAsString();
    return text;
  }

  void replace(const RewriteRule& rule, const Binding& b) {
    const std::size_t anchor = b.matched.back();
    const std::size_t slot = nodes_[anchor].slot;
    const std::vector<std::size_t> gone = removed(rule, b);
    const std::unordered_set<std::size_t> removed_set(gone.begin(), gone.end());
    // Reroutes pick their readers before any node changes.
    std::vector<std::vector<std::size_t>> reroutes;
    for (const RewriteNode& r : rule.replacement) {
      if (r.kind == RewriteNode::Kind::kReroute) {
        reroutes.push_back(rerouted_readers(r, b.values.at(r.inputs[0].var), removed_set));
      }
    }
    RewriteOrigin origin;
    for (std::size_t id : gone) {
      WorkNode& n = nodes_[id];
      n.alive = false;
      add_origin(origin, n);
      for (const std::string& o : n.outputs) {
        auto p = producer_.find(o);
        if (p != producer_.end() && p->second == id) producer_.erase(p);
      }
    }
    if (gone.empty()) {
      // Only kept nodes matched (an insertion): the new nodes stand for what they serve.
      for (std::size_t id : b.matched) {
        if (id != kNone) add_origin(origin, nodes_[id]);
      }
    }
    origin.rules.push_back(rule.name);
    const WorkNode& head = nodes_[*std::find_if(b.matched.begin(), b.matched.end(),
                                                [](std::size_t id) { return id != kNone; })];
    const std::string head_name = head.proto->name();
    const bool head_stays = head.alive;
    // Values only the replacement makes, by variable.
    std::map<std::string, std::string, std::less<>> fresh;
    auto value_of = [&](const std::string& var) -> std::string {
      auto it = b.values.find(var);
      if (it != b.values.end()) return it->second;
      auto f = fresh.find(var);
      if (f != fresh.end()) return f->second;
      return fresh.emplace(var, fresh_name(head_name, var)).first->second;
    };
    // A replacement of the operator of a node it removes is that node edited in place (ONNX
    // Runtime's fusions that keep a node change its inputs and attributes): it keeps its number.
    std::vector<std::size_t> unclaimed = gone;
    std::size_t made = 0;
    for (const RewriteNode& r : rule.replacement) {
      if (!r.is_node()) continue;
      WorkNode w;
      w.made = std::make_unique<onnx::NodeProto>();
      onnx::NodeProto& p = *w.made;
      p.set_op_type(r.op_type());
      if (!r.ops.domain.empty()) p.set_domain(r.ops.domain);
      if (!head_name.empty()) {
        p.set_name(made == 0 && !head_stays ? head_name : head_name + "/" + r.op_type());
      }
      for (const RewriteArg& a : r.inputs) {
        if (a.rest) {
          auto it = b.lists.find(a.var);
          if (it != b.lists.end()) {
            w.inputs.insert(w.inputs.end(), it->second.begin(), it->second.end());
          }
          continue;
        }
        w.inputs.push_back(a.var == "_" ? std::string() : value_of(a.var));
      }
      while (!w.inputs.empty() && w.inputs.back().empty()) w.inputs.pop_back();
      bool all_fresh = true;
      for (const std::string& o : r.outputs) {
        all_fresh = all_fresh && b.values.find(o) == b.values.end();
        w.outputs.push_back(value_of(o));
      }
      for (const RewriteAttr& a : r.attributes) add_attribute(rule, a, b, p);
      w.domain = r.ops.domain;
      if (all_fresh) {
        if (const std::size_t same = twin(w); same != kNone) {
          for (std::size_t k = 0; k < r.outputs.size(); ++k) {
            fresh[r.outputs[k]] = nodes_[same].outputs[k];
          }
          continue;
        }
      }
      for (const std::string& in : w.inputs) p.add_input(in);
      for (const std::string& o : w.outputs) p.add_output(o);
      w.proto = w.made.get();
      w.domain = r.ops.domain;
      w.mark = r.mark;
      w.slot = slot;
      w.sequence = ++sequence_;
      w.origin = origin;
      w.number = claim_number(unclaimed, w.domain, r.op_type());
      ++made;
      note_constant(p);
      add(std::move(w));
    }
    std::size_t k = 0;
    for (const RewriteNode& r : rule.replacement) {
      if (r.is_rename()) {
        rename(b.values.at(r.outputs.front()), b.values.at(r.inputs.front().var));
      } else if (r.kind == RewriteNode::Kind::kReroute) {
        const std::string from = b.values.at(r.inputs[0].var);
        const std::string to = value_of(r.inputs[1].var);
        for (std::size_t id : reroutes[k]) reroute(id, from, to);
        ++k;
      } else if (r.kind == RewriteNode::Kind::kTakeName) {
        take_name(b.values.at(r.inputs[0].var), b.values.at(r.outputs[0]));
      }
    }
    note_applied(rule.name);
  }

  /// The number of the first node of `unclaimed` running `domain`:`op_type`, taken from the
  /// list; kNone (a new number) when there is none.
  std::size_t claim_number(std::vector<std::size_t>& unclaimed, const std::string& domain,
                           const std::string& op_type) const {
    auto it = std::find_if(unclaimed.begin(), unclaimed.end(), [&](std::size_t id) {
      return nodes_[id].domain == domain && nodes_[id].proto->op_type() == op_type;
    });
    if (it == unclaimed.end()) return kNone;
    const std::size_t number = nodes_[*it].number;
    unclaimed.erase(it);
    return number;
  }

  void note_applied(const std::string& rule) {
    auto it = std::find_if(applied_.begin(), applied_.end(),
                           [&](const auto& a) { return a.first == rule; });
    if (it == applied_.end()) {
      applied_.emplace_back(rule, 1);
    } else {
      ++it->second;
    }
  }

  /// builtin:common_subexpressions, once over the live nodes in the order they will be
  /// written: a node equal to an earlier one goes and its readers read the earlier node's
  /// outputs. Renames apply at once, so equal chains collapse in one sweep. Returns the nodes
  /// removed.
  std::size_t common_subexpressions(const RewriteRule& rule) {
    std::unordered_map<std::string, std::size_t> first_of;
    std::unordered_map<std::size_t, bool> folds;
    std::size_t removed = 0;
    for (std::size_t id : live_in_written_order()) {
      WorkNode& n = nodes_[id];
      // A node with a tensor attribute (ConstantOfShape's value) is compared too when the
      // runtime folds it as it loads the graph: its output is then a constant, compared by
      // value (a PyTorch export's ConstantOfShape per layer of one static shape is one).
      if (!shareable(n) || (!plain_attributes(n) && !folds_at_load(id, folds, 0))) continue;
      std::string key = n.domain + '\n' + n.proto->op_type() + '\n' +
                        std::to_string(n.outputs.size()) + '\n' + attribute_text(*n.proto);
      for (const std::string& in : n.inputs) key += '\n' + value_key(in);
      auto [it, fresh] = first_of.emplace(std::move(key), id);
      if (fresh) continue;
      const WorkNode& first = nodes_[it->second];
      bool can = true;
      for (std::size_t k = 0; k < n.outputs.size(); ++k) {
        const std::string& o = n.outputs[k];
        if (o.empty()) continue;
        if (outside_.count(o) != 0 || first.outputs[k].empty()) can = false;
      }
      if (!can) continue;
      n.alive = false;
      for (std::size_t k = 0; k < n.outputs.size(); ++k) {
        const std::string& o = n.outputs[k];
        if (o.empty()) continue;
        auto p = producer_.find(o);
        if (p != producer_.end() && p->second == id) producer_.erase(p);
        rename(o, first.outputs[k]);
      }
      note_applied(rule.name);
      ++removed;
    }
    return removed;
  }

  /// How common_subexpressions compares an input: a small constant by its element type, dims
  /// and contents (ONNX Runtime compares constant initializers by value, and holds Constant
  /// nodes as initializers: an exporter's many equal axes and shape constants are one), any
  /// other value by its name. A constant a graph input may override is compared by name.
  std::string value_key(const std::string& name) const {
    auto c = constants_.find(name);
    if (c == constants_.end() || c->second == nullptr || graph_inputs_.count(name) != 0 ||
        producer_is_live_nonconstant(name)) {
      return name;
    }
    const onnx::TensorProto& t = *c->second;
    std::string key = "\x01" + std::to_string(t.data_type()) + ':';
    for (const std::int64_t d : t.dims()) key += std::to_string(d) + ',';
    key += ':';
    std::vector<std::int64_t> ints;
    std::vector<double> reals;
    if (tensor_int_values(t, kCompareByValueElements, &ints)) {
      for (const std::int64_t v : ints) key += std::to_string(v) + ',';
    } else if (tensor_float_values(t, kCompareByValueElements, &reals)) {
      for (const double v : reals) key += fmt_exact(v) + ',';
    } else {
      return name;
    }
    return key;
  }

  static std::string fmt_exact(double v) {
    char text[40];
    std::snprintf(text, sizeof text, "%a", v);
    return text;
  }

  /// The constant `name` is (its tensor, null when not given as one), or nullopt when it is no
  /// constant.
  std::optional<const onnx::TensorProto*> constant(const std::string& name) const {
    auto c = constants_.find(name);
    if (c == constants_.end() || producer_is_live_nonconstant(name)) return std::nullopt;
    return c->second;
  }

  /// A constant's element type or rank, from its tensor; another value's from `types_`.
  std::int32_t elem_type_of(const std::string& name) const {
    if (const auto t = constant(name)) return *t != nullptr ? (*t)->data_type() : 0;
    return types_.elem_type ? types_.elem_type(name) : 0;
  }
  std::int32_t rank_of(const std::string& name) const {
    if (const auto t = constant(name)) return *t != nullptr ? (*t)->dims_size() : -1;
    return types_.rank ? types_.rank(name) : -1;
  }

  /// A dim or rank test on a value that is not a constant, through the runtime's shapes.
  bool value_test_holds(const std::string& name, const RewriteArg::DimTest& test) const {
    using Op = RewriteArg::DimTest::Op;
    if (test.op == Op::kRank) return rank_of(name) == test.value;
    if (test.op == Op::kType) return elem_type_of(name) == test.value;
    if (test.op == Op::kReaders) {
      const std::size_t reads = live_readers(name) + (outside_.count(name) != 0 ? 1 : 0);
      return reads == static_cast<std::size_t>(test.value);
    }
    const onnx::TensorShapeProto* shape = types_.shape ? types_.shape(name) : nullptr;
    if (shape == nullptr || test.dim >= shape->dim_size() ||
        !shape->dim(test.dim).has_dim_value()) {
      return false;
    }
    return dim_holds(shape->dim(test.dim).dim_value(), test);
  }

  /// Every `x{like=v}` of the pattern: x and v have the same dims as the runtime's inference
  /// gives them, each the same integer or the same name.
  /// Every `x{like=v}` and `x{same=v}` (`!same=v`) of the pattern holds.
  bool like_tests_hold(const RewriteRule& rule, const Binding& b) const {
    using Op = RewriteArg::DimTest::Op;
    for (const RewriteNode& p : rule.pattern) {
      for (const RewriteArg& a : p.inputs) {
        for (const auto& clause : a.dim_tests) {
          for (const RewriteArg::DimTest& test : clause) {
            if (test.op != Op::kLike && test.op != Op::kSame) continue;
            auto x = b.values.find(a.var);
            auto v = b.values.find(test.other);
            if (x == b.values.end() || v == b.values.end()) return false;
            if (test.op == Op::kLike) {
              if (!same_dims(x->second, v->second)) return false;
              continue;
            }
            // The derivation follows the nodes the pattern node that makes x accepts.
            auto maker = rule.produced_by.find(a.var);
            const RewriteOps* layout =
                maker == rule.produced_by.end() ? nullptr : &rule.pattern[maker->second].ops;
            if (derived_same(x->second, v->second, layout) == test.negated) return false;
          }
        }
      }
    }
    return true;
  }

  bool same_dims(const std::string& x, const std::string& v) const {
    if (!types_.shape || x.empty() || v.empty()) return false;
    const onnx::TensorShapeProto* a = types_.shape(x);
    const onnx::TensorShapeProto* c = types_.shape(v);
    if (a == nullptr || c == nullptr || a->dim_size() != c->dim_size()) return false;
    for (int i = 0; i < a->dim_size(); ++i) {
      if (!detail::runtime_same_dim(a->dim(i), c->dim(i))) return false;
    }
    return true;
  }

  /// `same=v`: each of the four dims of two NCHW values the same by derivation or, failing
  /// that, in the runtime's inference (ONNX Runtime's NCHWc transformer, which cannot see that
  /// symbolic dims match through shape inference alone).
  bool derived_same(const std::string& x, const std::string& v, const RewriteOps* layout) const {
    if (x.empty() || v.empty()) return false;
    const detail::DimOrigins a = dim_origins(x, layout);
    const detail::DimOrigins c = dim_origins(v, layout);
    const onnx::TensorShapeProto* sa = types_.shape ? types_.shape(x) : nullptr;
    const onnx::TensorShapeProto* sc = types_.shape ? types_.shape(v) : nullptr;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i] == c[i]) continue;
      const int k = static_cast<int>(i);
      if (sa == nullptr || sc == nullptr || sa->dim_size() <= k || sc->dim_size() <= k ||
          !detail::runtime_same_dim(sa->dim(k), sc->dim(k))) {
        return false;
      }
    }
    return true;
  }

  /// The origins of a value's dims through the nodes `layout` accepts (dim_origins.hpp).
  detail::DimOrigins dim_origins(const std::string& value, const RewriteOps* layout) const {
    detail::DerivationGraph g;
    g.layout_producer = [&](const std::string& name) -> detail::DerivationNode {
      const std::size_t id = layout_producer(name, layout);
      if (id == kNone) return {};
      const WorkNode& n = nodes_[id];
      return {n.proto, &n.inputs, &n.outputs};
    };
    g.constant = [&](const std::string& name) -> const onnx::TensorProto* {
      return constant(name).value_or(nullptr);
    };
    g.node_count = nodes_.size();
    return detail::dim_origins(g, value);
  }

  /// The live producer of `name` when `layout` accepts it; kNone otherwise.
  std::size_t layout_producer(const std::string& name, const RewriteOps* layout) const {
    const std::size_t id = layout == nullptr ? kNone : live_producer(name);
    if (id == kNone) return kNone;
    const WorkNode& n = nodes_[id];
    return layout->accepts(n.domain, n.proto->op_type(), n.mark) ? id : kNone;
  }

  /// builtin:same_type_casts: a Cast to the element type its input already has goes, its
  /// readers read the input (ONNX Runtime's CastElimination). Kept when its output is a graph
  /// output or read inside a body, or when the input's type is unknown (a value a rewrite made,
  /// or one ONNX's inference could not type). Returns the nodes removed.
  std::size_t same_type_casts(const RewriteRule& rule) {
    std::size_t removed = 0;
    for (std::size_t id = 0; id < nodes_.size(); ++id) {
      WorkNode& n = nodes_[id];
      if (!n.alive || !n.domain.empty() || n.proto->op_type() != "Cast" || n.inputs.empty() ||
          n.inputs[0].empty() || n.outputs.size() != 1 || n.outputs[0].empty() ||
          outside_.count(n.outputs[0]) != 0) {
        continue;
      }
      std::int64_t to = 0;
      bool has_to = false;
      for (const onnx::AttributeProto& a : n.proto->attribute()) {
        if (a.name() == "to" && a.has_i()) {
          to = a.i();
          has_to = true;
        }
      }
      const std::int32_t from = elem_type_of(n.inputs[0]);
      if (!has_to || from <= 0 || from != to) continue;
      n.alive = false;
      auto p = producer_.find(n.outputs[0]);
      if (p != producer_.end() && p->second == id) producer_.erase(p);
      rename(n.outputs[0], n.inputs[0]);
      note_applied(rule.name);
      ++removed;
    }
    return removed;
  }

  /// builtin:unique_dequantize_per_reader (rewrite_rule.hpp). Returns the copies made.
  std::size_t unique_dequantize_per_reader(const RewriteRule& rule) {
    std::size_t made = 0;
    const std::size_t count = nodes_.size();
    for (std::size_t id = 0; id < count; ++id) {
      if (!nodes_[id].alive || !nodes_[id].domain.empty() ||
          nodes_[id].proto->op_type() != "DequantizeLinear" || nodes_[id].outputs.size() != 1 ||
          nodes_[id].outputs[0].empty()) {
        continue;
      }
      const std::string value = nodes_[id].outputs[0];
      // Every read, one per input slot, readers in the order the graph lists them.
      std::vector<std::pair<std::size_t, std::size_t>> reads;
      auto it = readers_.find(value);
      if (it != readers_.end()) {
        std::vector<std::size_t> readers;
        for (std::size_t r : it->second) {
          if (nodes_[r].alive && std::find(readers.begin(), readers.end(), r) == readers.end())
            readers.push_back(r);
        }
        std::stable_sort(readers.begin(), readers.end(),
                         [&](std::size_t a, std::size_t b) { return written_before(a, b); });
        for (std::size_t r : readers) {
          for (std::size_t k = 0; k < nodes_[r].inputs.size(); ++k) {
            if (nodes_[r].inputs[k] == value) reads.emplace_back(r, k);
          }
        }
      }
      // The original keeps its first reader unless a graph output or a body reads it too.
      const bool outside = outside_.count(value) != 0;
      if (reads.empty() || (reads.size() == 1 && !outside)) continue;
      for (std::size_t k = outside ? 0 : 1; k < reads.size(); ++k) {
        const auto [reader, slot_index] = reads[k];
        const WorkNode& original = nodes_[id];
        WorkNode w;
        w.made = std::make_unique<onnx::NodeProto>(*original.proto);
        onnx::NodeProto& p = *w.made;
        const std::string name = fresh_name(value, "duplicated");
        if (!original.proto->name().empty()) p.set_name(original.proto->name() + "/duplicated");
        p.clear_input();
        for (const std::string& in : original.inputs) p.add_input(in);
        p.clear_output();
        p.add_output(name);
        w.proto = w.made.get();
        w.domain = original.domain;
        w.inputs = original.inputs;
        w.outputs = {name};
        w.slot = original.slot;
        w.sequence = ++sequence_;
        RewriteOrigin origin;
        add_origin(origin, original);
        origin.rules.push_back(rule.name);
        w.origin = std::move(origin);
        add(std::move(w));
        // This reader's slot alone reads the copy.
        WorkNode& r = nodes_[reader];
        r.inputs[slot_index] = name;
        r.inputs_changed = true;
        readers_[name].push_back(reader);
        if (std::find(r.inputs.begin(), r.inputs.end(), value) == r.inputs.end())
          std::erase(readers_[value], reader);
        note_applied(rule.name);
        ++made;
      }
    }
    return made;
  }

  /// builtin:constant_reshape_shapes (rewrite_rule.hpp). Returns the Reshapes changed.
  std::size_t constant_reshape_shapes(const RewriteRule& rule) {
    std::size_t changed = 0;
    for (std::size_t id = 0; id < nodes_.size(); ++id) {
      const WorkNode& n = nodes_[id];
      if (!n.alive || !n.domain.empty() || n.proto->op_type() != "Reshape" || n.inputs.size() < 2 ||
          n.inputs[0].empty() || n.inputs[1].empty()) {
        continue;
      }
      const std::string data = n.inputs[0];
      const std::string shape_name = n.inputs[1];
      const std::size_t concat = live_producer(shape_name);
      if (concat == kNone || !nodes_[concat].domain.empty() ||
          nodes_[concat].proto->op_type() != "Concat" || nodes_[concat].inputs.empty() ||
          live_readers(shape_name) != 1 || outside_.count(shape_name) != 0 ||
          constants_.count(shape_name) != 0) {
        continue;
      }
      std::vector<std::int64_t> shape;
      bool fused = true;
      for (const std::string& part : nodes_[concat].inputs) {
        if (std::vector<std::int64_t> values; integer_constant(part, &values)) {
          shape.insert(shape.end(), values.begin(), values.end());
        } else if (is_own_dim(part, data, shape.size())) {
          shape.push_back(0);
        } else if (one_element(part)) {
          shape.push_back(-1);
        } else {
          fused = false;
          break;
        }
      }
      if (!fused || std::count(shape.begin(), shape.end(), -1) > 1) continue;
      RewriteOrigin origin;
      remove_unread_upwards(concat, origin);
      origin.rules.push_back(rule.name);
      WorkNode w;
      w.made = std::make_unique<onnx::NodeProto>();
      w.made->set_op_type("Constant");
      w.made->set_name(nodes_[concat].proto->name());
      w.made->add_output(shape_name);
      onnx::AttributeProto* value = w.made->add_attribute();
      value->set_name("value");
      value->set_type(onnx::AttributeProto::TENSOR);
      onnx::TensorProto* t = value->mutable_t();
      t->set_data_type(onnx::TensorProto::INT64);
      t->add_dims(static_cast<std::int64_t>(shape.size()));
      for (const std::int64_t d : shape) t->add_int64_data(d);
      w.proto = w.made.get();
      w.outputs = {shape_name};
      w.slot = nodes_[concat].slot;
      w.sequence = ++sequence_;
      w.origin = std::move(origin);
      constants_[shape_name] = t;
      add(std::move(w));
      note_applied(rule.name);
      ++changed;
    }
    return changed;
  }

  std::size_t live_producer(const std::string& name) const {
    auto p = producer_.find(name);
    return p == producer_.end() || !nodes_[p->second].alive ? kNone : p->second;
  }

  /// The integers of a constant of at most 64 elements, or of a Cast of one (which the runtime
  /// folds first).
  bool integer_constant(const std::string& name, std::vector<std::int64_t>* out) const {
    std::string at = name;
    if (const std::size_t cast = live_producer(name);
        cast != kNone && nodes_[cast].domain.empty() && nodes_[cast].proto->op_type() == "Cast" &&
        !nodes_[cast].inputs.empty()) {
      at = nodes_[cast].inputs[0];
    }
    const onnx::TensorProto* t = constant(at).value_or(nullptr);
    std::vector<double> values;
    if (t == nullptr || !constant_values(*t, &values) ||
        !std::all_of(values.begin(), values.end(), whole_number)) {
      return false;
    }
    out->assign(values.begin(), values.end());
    return true;
  }

  /// `part` is Unsqueeze(Gather(Shape(data), k), axes 0): data's own dim k.
  bool is_own_dim(const std::string& part, const std::string& data, std::size_t k) const {
    const std::size_t unsqueeze = live_producer(part);
    if (unsqueeze == kNone || nodes_[unsqueeze].proto->op_type() != "Unsqueeze" ||
        !nodes_[unsqueeze].domain.empty() || nodes_[unsqueeze].inputs.empty()) {
      return false;
    }
    std::vector<std::int64_t> axes = detail::ints_attribute(*nodes_[unsqueeze].proto, "axes");
    if (nodes_[unsqueeze].inputs.size() > 1 &&
        !integer_constant(nodes_[unsqueeze].inputs[1], &axes)) {
      return false;
    }
    const std::size_t gather = live_producer(nodes_[unsqueeze].inputs[0]);
    if (axes != std::vector<std::int64_t>{0} || gather == kNone ||
        nodes_[gather].proto->op_type() != "Gather" || !nodes_[gather].domain.empty() ||
        nodes_[gather].inputs.size() < 2) {
      return false;
    }
    std::vector<std::int64_t> index;
    const std::size_t shape = live_producer(nodes_[gather].inputs[0]);
    return integer_constant(nodes_[gather].inputs[1], &index) && index.size() == 1 &&
           index[0] == static_cast<std::int64_t>(k) && shape != kNone &&
           nodes_[shape].proto->op_type() == "Shape" && nodes_[shape].domain.empty() &&
           nodes_[shape].proto->attribute_size() == 0 && !nodes_[shape].inputs.empty() &&
           nodes_[shape].inputs[0] == data;
  }

  /// The runtime's inference gives `name` exactly one element.
  bool one_element(const std::string& name) const {
    const onnx::TensorShapeProto* shape = types_.shape ? types_.shape(name) : nullptr;
    if (shape == nullptr) return false;
    for (const auto& d : shape->dim()) {
      if (!d.has_dim_value() || d.dim_value() != 1) return false;
    }
    return true;
  }

  /// Removes node `id`, then every node that only it read, and so on up (ONNX Runtime removes
  /// a fused subgraph's nodes bottom-up while each has no other reader).
  void remove_unread_upwards(std::size_t id, RewriteOrigin& origin) {
    std::vector<std::size_t> work{id};
    while (!work.empty()) {
      const std::size_t at = work.back();
      work.pop_back();
      WorkNode& n = nodes_[at];
      if (!n.alive) continue;
      n.alive = false;
      add_origin(origin, n);
      for (const std::string& o : n.outputs) {
        auto p = producer_.find(o);
        if (p != producer_.end() && p->second == at) producer_.erase(p);
      }
      for (const std::string& in : n.inputs) {
        const std::size_t q = live_producer(in);
        if (q == kNone || nodes_[q].proto->op_type() == "Constant") continue;
        const bool unread = std::all_of(
            nodes_[q].outputs.begin(), nodes_[q].outputs.end(), [&](const std::string& o) {
              return o.empty() || (live_readers(o) == 0 && outside_.count(o) == 0);
            });
        if (unread) work.push_back(q);
      }
    }
  }

  /// A node that common_subexpressions may merge: deterministic, without a body, not a Constant
  /// (an initializer to the runtime, compared by name), no tensor attribute (ONNX Runtime
  /// compares attributes of plain types only: ConstantOfShape's value makes each one distinct).
  static bool shareable(const WorkNode& n) {
    if (n.outputs.empty() || random_or_constant(n)) return false;
    return std::none_of(
        n.proto->attribute().begin(), n.proto->attribute().end(),
        [](const onnx::AttributeProto& a) { return a.has_g() || a.graphs_size() > 0; });
  }

  static bool random_or_constant(const WorkNode& n) {
    const std::string& op = n.proto->op_type();
    return n.domain.empty() && (op == "Constant" || detail::random_operator(op));
  }

  /// No tensor attribute: ONNX Runtime compares attributes of plain types only.
  static bool plain_attributes(const WorkNode& n) {
    return std::none_of(n.proto->attribute().begin(), n.proto->attribute().end(),
                        [](const onnx::AttributeProto& a) {
                          return a.has_t() || a.tensors_size() > 0 || a.has_sparse_tensor() ||
                                 a.sparse_tensors_size() > 0;
                        });
  }

  /// The runtime folds node `id` as it loads the graph (its ConstantFolding, as the profiles'
  /// `memory.fold_shape_constants` models it, free_list_planner.cpp): no body, not an operator
  /// it never folds (onnx_runtime_view.hpp), every input a constant or a value such a node
  /// makes; a Shape of a value whose dims the runtime's inference knows. `depth` bounds the walk
  /// (a longer chain is taken as not folded: nothing merged).
  bool folds_at_load(std::size_t id, std::unordered_map<std::size_t, bool>& memo, int depth) const {
    if (auto it = memo.find(id); it != memo.end()) return it->second;
    const WorkNode& n = nodes_[id];
    const std::string& op = n.proto->op_type();
    bool folds = depth < 64 && n.alive && !detail::never_folded(op) && shareable(n);
    if (folds && op == "Shape" && !n.inputs.empty()) {
      const onnx::TensorShapeProto* shape = types_.shape ? types_.shape(n.inputs[0]) : nullptr;
      folds = shape != nullptr && detail::runtime_static_dims(*shape);
    } else if (folds) {
      for (const std::string& in : n.inputs) {
        if (in.empty() || constant(in)) continue;
        const std::size_t p = live_producer(in);
        if (p == kNone || !folds_at_load(p, memo, depth + 1)) {
          folds = false;
          break;
        }
      }
    }
    memo[id] = folds;
    return folds;
  }

  /// The producer of `from` writes `to` instead, and `from`'s readers read `to`.
  void take_name(const std::string& from, const std::string& to) {
    const std::size_t id = producer_.at(from);
    WorkNode& n = nodes_[id];
    for (std::string& o : n.outputs) {
      if (o != from) continue;
      o = to;
      n.outputs_changed = true;
    }
    if (n.made) {  // a node made by a rewrite writes its message directly
      for (std::string& o : *n.made->mutable_output()) {
        if (o == from) o = to;
      }
    }
    producer_.erase(from);
    producer_[to] = id;
    rename(from, to);
  }

  /// Node `id` reads `to` where it read `from`.
  void reroute(std::size_t id, const std::string& from, const std::string& to) {
    WorkNode& n = nodes_[id];
    for (std::string& in : n.inputs) {
      if (in != from) continue;
      in = to;
      n.inputs_changed = true;
    }
    readers_[to].push_back(id);
    auto it = readers_.find(from);
    if (it != readers_.end()) {
      std::erase(it->second, id);
    }
  }

  /// Readers of `from` read `to` instead.
  void rename(const std::string& from, const std::string& to) {
    auto it = readers_.find(from);
    if (it == readers_.end()) return;
    std::vector<std::size_t> readers = std::move(it->second);
    readers_.erase(it);
    for (std::size_t r : readers) {
      WorkNode& n = nodes_[r];
      if (!n.alive) continue;
      for (std::string& in : n.inputs) {
        if (in != from) continue;
        in = to;
        n.inputs_changed = true;
      }
      readers_[to].push_back(r);
    }
  }

  std::string fresh_name(const std::string& head, const std::string& var) {
    std::string base = (head.empty() ? std::string("rewrite") : head) + "/" + var;
    std::string name = base;
    for (int k = 1; producer_.count(name) != 0 || constants_.count(name) != 0; ++k) {
      name = base + "_" + std::to_string(k);
    }
    return name;
  }

  /// The tensor of the constant variable `var` is bound to; nullptr when it has none.
  const onnx::TensorProto* bound_constant(const Binding& b, const std::string& var) const {
    auto v = b.values.find(var);
    return v == b.values.end() ? nullptr : constant(v->second).value_or(nullptr);
  }

  void add_attribute(const RewriteRule& rule, const RewriteAttr& a, const Binding& b,
                     onnx::NodeProto& p) const {
    auto source = [&]() -> const onnx::NodeProto* {
      auto k = rule.produced_by.find(a.from);
      if (k == rule.produced_by.end()) return nullptr;
      return nodes_[b.matched[k->second]].proto;
    };
    if (a.kind != RewriteAttr::Kind::kCopyFrom) {
      // A named attribute replaces one copied before it (`[y, channels_last=1]`).
      auto* attrs = p.mutable_attribute();
      for (int k = attrs->size() - 1; k >= 0; --k) {
        if (attrs->Get(k).name() == a.name) attrs->DeleteSubrange(k, 1);
      }
    }
    switch (a.kind) {
      case RewriteAttr::Kind::kCopyFrom: {
        const onnx::NodeProto* from = source();
        if (from == nullptr) return;
        for (const onnx::AttributeProto& attr : from->attribute()) {
          bool present = false;
          for (const onnx::AttributeProto& have : p.attribute())
            present |= have.name() == attr.name();
          if (!present) *p.add_attribute() = attr;
        }
        return;
      }
      case RewriteAttr::Kind::kString:
      case RewriteAttr::Kind::kOpTypeOf: {
        onnx::AttributeProto* attr = p.add_attribute();
        attr->set_name(a.name);
        attr->set_type(onnx::AttributeProto::STRING);
        if (a.kind == RewriteAttr::Kind::kString) {
          attr->set_s(a.text);
        } else if (const onnx::NodeProto* from = source()) {
          attr->set_s(from->op_type());
        }
        return;
      }
      case RewriteAttr::Kind::kDimOf: {
        // A constant's dim, or a value's as the runtime's inference gives it.
        auto v = b.values.find(a.from);
        auto c = v == b.values.end() ? constants_.end() : constants_.find(v->second);
        const int k = static_cast<int>(a.integer);
        std::optional<std::int64_t> dim;
        if (c != constants_.end()) {
          if (c->second != nullptr && k < c->second->dims_size()) dim = c->second->dims(k);
        } else if (v != b.values.end() && !v->second.empty() && types_.shape) {
          const onnx::TensorShapeProto* shape = types_.shape(v->second);
          if (shape != nullptr && k < shape->dim_size() && shape->dim(k).has_dim_value() &&
              shape->dim(k).dim_value() > 0) {
            dim = shape->dim(k).dim_value();
          }
        }
        if (!dim) return;  // no such dim known: no attribute
        onnx::AttributeProto* attr = p.add_attribute();
        attr->set_name(a.name);
        attr->set_type(onnx::AttributeProto::INT);
        attr->set_i(*dim);
        return;
      }
      case RewriteAttr::Kind::kUint8Of: {
        const onnx::TensorProto* c = bound_constant(b, a.from);
        std::vector<double> values;
        if (c == nullptr || c->data_type() != onnx::TensorProto::INT8 ||
            !constant_values(*c, &values)) {
          return;  // not a small int8 constant: no attribute
        }
        onnx::AttributeProto* attr = p.add_attribute();
        attr->set_name(a.name);
        attr->set_type(onnx::AttributeProto::TENSOR);
        onnx::TensorProto* t = attr->mutable_t();
        t->set_data_type(onnx::TensorProto::UINT8);
        for (const std::int64_t d : c->dims()) t->add_dims(d);
        std::string bytes;
        for (const double x : values) bytes.push_back(static_cast<char>(static_cast<int>(x) + 128));
        t->set_raw_data(bytes);
        return;
      }
      case RewriteAttr::Kind::kIntsOf: {
        const onnx::TensorProto* c = bound_constant(b, a.from);
        std::vector<double> values;
        if (c == nullptr || !constant_values(*c, &values) ||
            !std::all_of(values.begin(), values.end(), whole_number)) {
          return;  // not a small constant of whole numbers: no attribute
        }
        onnx::AttributeProto* attr = p.add_attribute();
        attr->set_name(a.name);
        attr->set_type(onnx::AttributeProto::INTS);
        for (const double x : values) attr->add_ints(static_cast<std::int64_t>(x));
        return;
      }
      case RewriteAttr::Kind::kInts: {
        onnx::AttributeProto* attr = p.add_attribute();
        attr->set_name(a.name);
        attr->set_type(onnx::AttributeProto::INTS);
        for (const std::int64_t x : a.integers) attr->add_ints(x);
        return;
      }
      case RewriteAttr::Kind::kTensor:
      case RewriteAttr::Kind::kTensorOfAttr: {
        std::vector<std::int64_t> values = a.integers;
        if (a.kind == RewriteAttr::Kind::kTensorOfAttr) {
          const onnx::NodeProto* from = source();
          if (from == nullptr) return;
          values = detail::ints_attribute(*from, a.text);
        }
        onnx::AttributeProto* attr = p.add_attribute();
        attr->set_name(a.name);
        attr->set_type(onnx::AttributeProto::TENSOR);
        onnx::TensorProto* t = attr->mutable_t();
        t->set_data_type(onnx::TensorProto::INT64);
        t->add_dims(static_cast<std::int64_t>(values.size()));
        for (const std::int64_t x : values) t->add_int64_data(x);
        return;
      }
      case RewriteAttr::Kind::kInt: {
        onnx::AttributeProto* attr = p.add_attribute();
        attr->set_name(a.name);
        attr->set_type(onnx::AttributeProto::INT);
        attr->set_i(a.integer);
        return;
      }
      case RewriteAttr::Kind::kFloat: {
        onnx::AttributeProto* attr = p.add_attribute();
        attr->set_name(a.name);
        attr->set_type(onnx::AttributeProto::FLOAT);
        attr->set_f(a.real);
        return;
      }
    }
  }

 private:
  std::vector<WorkNode> nodes_;
  std::unordered_map<std::string, std::vector<std::size_t>> readers_;
  std::unordered_map<std::string, std::size_t> producer_;
  std::unordered_set<std::string> outside_;  ///< graph outputs and names read inside bodies
  std::unordered_set<std::string> graph_outputs_;
  std::unordered_set<std::string> graph_inputs_;  ///< an initializer among them may be fed
  const ValueTypeQuery& types_;
  /// Initializers and Constant nodes' outputs, with their tensor (null: not a tensor value).
  std::unordered_map<std::string, const onnx::TensorProto*> constants_;
  std::unordered_set<std::string> read_before_;
  std::vector<std::pair<std::string, std::size_t>> applied_;
  std::size_t sequence_ = 0;
  /// The input orders of the commutative nodes of the match being tried (bit k: the k-th met
  /// takes its inputs swapped), and how many were met.
  std::uint32_t swap_mask_ = 0;
  std::uint32_t commutative_seen_ = 0;
};

}  // namespace

RewrittenModel::RewrittenModel(Model model)
    : owned_(std::make_unique<onnx::GraphProto>()), model_(std::move(model)) {}

RewrittenModel::~RewrittenModel() {
  // Every element of these lists is borrowed: the original's, or one of owned_'s nodes.
  detail::hand_back_graph(*model_.proto().mutable_graph());
}

const RewriteOrigin* RewrittenModel::origin(const onnx::NodeProto* node) const {
  auto it = origins_.find(node);
  return it == origins_.end() ? nullptr : &it->second;
}

namespace {

/// The main graph has a cycle (a node reads, directly or not, its own output). Such a model is
/// refused when its graph is built; it is not rewritten first, so that the error names the
/// model's own nodes.
bool has_cycle(const onnx::GraphProto& g) {
  std::unordered_map<std::string, int> producer;
  for (int k = 0; k < g.node_size(); ++k) {
    for (const std::string& o : g.node(k).output()) {
      if (!o.empty()) producer.emplace(o, k);
    }
  }
  std::vector<int> pending(static_cast<std::size_t>(g.node_size()), 0);
  std::vector<std::vector<int>> users(static_cast<std::size_t>(g.node_size()));
  for (int k = 0; k < g.node_size(); ++k) {
    for (const std::string& in : g.node(k).input()) {
      auto p = producer.find(in);
      if (p == producer.end()) continue;
      ++pending[static_cast<std::size_t>(k)];
      users[static_cast<std::size_t>(p->second)].push_back(k);
    }
  }
  std::vector<int> ready;
  for (int k = 0; k < g.node_size(); ++k) {
    if (pending[static_cast<std::size_t>(k)] == 0) ready.push_back(k);
  }
  int done = 0;
  while (!ready.empty()) {
    const int k = ready.back();
    ready.pop_back();
    ++done;
    for (const int u : users[static_cast<std::size_t>(k)]) {
      if (--pending[static_cast<std::size_t>(u)] == 0) ready.push_back(u);
    }
  }
  return done != g.node_size();
}

}  // namespace

std::unique_ptr<RewrittenModel> rewrite_model(
    const Model& model, std::span<const std::shared_ptr<const RewriteRule>> rules,
    const ValueTypeQuery& types) {
  if (rules.empty() || has_cycle(model.proto().graph())) return nullptr;
  const onnx::ModelProto& from = model.proto();
  const onnx::GraphProto& graph = from.graph();
  Rewriter rewriter(graph, types);
  std::vector<const RewriteRule*> ordered;
  for (const auto& rule : rules) ordered.push_back(rule.get());
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const RewriteRule* a, const RewriteRule* b) { return a->pass < b->pass; });
  const std::size_t budget =
      kMaxRewritesPerNode * (static_cast<std::size_t>(graph.node_size()) + 64);
  std::size_t total = 0;
  for (std::size_t first = 0; first < ordered.size();) {
    std::size_t last = first;
    while (last < ordered.size() && ordered[last]->pass == ordered[first]->pass) ++last;
    const std::span<const RewriteRule* const> pass(ordered.data() + first, last - first);
    const std::size_t first_made = rewriter.node_count();
    for (int sweep = 0; sweep < kMaxSweeps && total < budget; ++sweep) {
      const std::size_t made = rewriter.sweep(pass, budget - total);
      total += made;
      if (made == 0) break;
    }
    rewriter.number_in_graph_order(first_made);
    first = last;
  }
  const bool any = total > 0;
  if (!any) return nullptr;

  auto proto = detail::model_shell(from);
  *proto->mutable_functions() = from.functions();
  onnx::GraphProto* g = proto->mutable_graph();
  auto out = std::make_unique<RewrittenModel>(Model::adopt(std::move(proto), model.source()));
  g = out->model_.proto().mutable_graph();
  std::size_t dropped = 0;
  g->mutable_initializer()->Reserve(graph.initializer_size());
  for (const onnx::TensorProto& t : graph.initializer()) {
    if (rewriter.orphaned(t.name())) {
      ++dropped;
      continue;
    }
    borrow_one(t, g->mutable_initializer());
  }
  borrow(graph.sparse_initializer(), g->mutable_sparse_initializer());
  borrow(graph.input(), g->mutable_input());
  borrow(graph.output(), g->mutable_output());
  borrow(graph.value_info(), g->mutable_value_info());
  borrow(graph.quantization_annotation(), g->mutable_quantization_annotation());

  std::vector<WorkNode>& nodes = rewriter.nodes();
  std::vector<std::size_t> order = rewriter.live_in_written_order();
  // A Constant whose every reader went with a rewrite goes too (ONNX Runtime holds Constant
  // nodes as initializers, and drops unread ones).
  std::erase_if(order, [&](std::size_t i) {
    const WorkNode& n = nodes[i];
    const bool unread = n.proto->op_type() == "Constant" && n.domain.empty() &&
                        n.outputs.size() == 1 && rewriter.orphaned(n.outputs[0]);
    dropped += unread ? 1 : 0;
    return unread;
  });
  g->mutable_node()->Reserve(static_cast<int>(order.size()));
  for (std::size_t i : order) {
    WorkNode& n = nodes[i];
    const onnx::NodeProto* p = n.proto;
    if (n.made) {
      onnx::NodeProto* owned = n.made.release();
      out->owned_->mutable_node()->AddAllocated(owned);
      if (n.inputs_changed) {
        owned->clear_input();
        for (const std::string& in : n.inputs) owned->add_input(in);
      }
      p = owned;
    } else if (n.inputs_changed || n.outputs_changed) {
      onnx::NodeProto* copy = out->owned_->add_node();
      *copy = *n.proto;
      copy->clear_input();
      for (const std::string& in : n.inputs) copy->add_input(in);
      copy->clear_output();
      for (const std::string& o : n.outputs) copy->add_output(o);
      p = copy;
    }
    borrow_one(*p, g->mutable_node());
    out->numbers_.push_back(static_cast<std::uint32_t>(n.number));
    if (n.origin) out->origins_.emplace(p, std::move(*n.origin));
  }
  out->summary_.nodes_before = static_cast<std::size_t>(graph.node_size());
  out->summary_.nodes_after = order.size();
  out->summary_.applied = rewriter.applied();
  out->summary_.initializers_dropped = dropped;
  return out;
}

}  // namespace cctx
