#include "model/inline_functions.hpp"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "cctx/errors.hpp"
#include "cctx/model.hpp"
#include "model/borrowed_fields.hpp"
#include "model/model_shell.hpp"

namespace cctx {

using detail::borrow;
using detail::borrow_one;
using detail::hand_back;

namespace {

// Calls nested deeper than this (a function calling a function ...) are refused.
constexpr int kMaxDepth = 64;

using Key = std::pair<std::string, std::string>;  // (normalised domain, function name)

std::string call_site(const onnx::NodeProto& call, int index) {
  std::string text = "node " + std::to_string(index);
  if (!call.name().empty()) text += " '" + call.name() + "'";
  text += " (";
  if (!normalize_domain(call.domain()).empty()) text += call.domain() + ":";
  return text + call.op_type() + ")";
}

class Inliner {
 public:
  Inliner(const onnx::ModelProto& model, std::string source) : source_(std::move(source)) {
    for (const onnx::FunctionProto& f : model.functions()) {
      functions_.emplace(Key{std::string(normalize_domain(f.domain())), f.name()}, &f);
    }
  }

  /// Expands every call in `g` and in its bodies; `stack` holds the functions being expanded.
  void expand_graph(onnx::GraphProto* g, std::vector<const onnx::FunctionProto*>& stack) {
    google::protobuf::RepeatedPtrField<onnx::NodeProto> expanded;
    for (int k = 0; k < g->node_size(); ++k) {
      onnx::NodeProto* node = g->mutable_node(k);
      expand_bodies(node, stack);
      const onnx::FunctionProto* f = find(*node);
      if (f == nullptr) {
        *expanded.Add() = std::move(*node);
        continue;
      }
      onnx::GraphProto body = expand_call(*node, k, *f, stack);
      for (onnx::NodeProto& n : *body.mutable_node()) *expanded.Add() = std::move(n);
    }
    g->mutable_node()->Swap(&expanded);
  }

  /// Whether a node of `g`, or of a body in it, calls a local function.
  bool calls_in(const onnx::GraphProto& g) const {
    for (const onnx::NodeProto& n : g.node()) {
      if (find(n) != nullptr || bodies_call(n)) return true;
    }
    return false;
  }

  /// Appends the nodes of the main graph `g` to `out` by pointer, each call replaced by its body
  /// (as expand_graph does): a node that neither is a call nor holds one in a body is `g`'s own;
  /// the bodies' nodes and the nodes whose bodies changed are new, kept in `owned`.
  void expand_main(const onnx::GraphProto& g,
                   google::protobuf::RepeatedPtrField<onnx::NodeProto>* out,
                   google::protobuf::RepeatedPtrField<onnx::NodeProto>& owned,
                   std::vector<const onnx::FunctionProto*>& stack) {
    out->Reserve(g.node_size());
    auto keep = [&](onnx::NodeProto&& n) {
      onnx::NodeProto* kept = owned.Add();
      *kept = std::move(n);
      borrow_one(*kept, out);
    };
    for (int k = 0; k < g.node_size(); ++k) {
      const onnx::NodeProto& original = g.node(k);
      const bool bodies = bodies_call(original);
      const onnx::FunctionProto* f = find(original);
      if (!bodies && f == nullptr) {
        borrow_one(original, out);  // ~InlinedModel takes it out of the list again
        continue;
      }
      onnx::NodeProto changed;
      const onnx::NodeProto* node = &original;
      if (bodies) {
        changed = original;
        expand_bodies(&changed, stack);
        node = &changed;
      }
      if (f == nullptr) {
        keep(std::move(changed));
        continue;
      }
      onnx::GraphProto body = expand_call(*node, k, *f, stack);
      for (onnx::NodeProto& n : *body.mutable_node()) keep(std::move(n));
    }
  }

  const std::map<Key, const onnx::FunctionProto*>& functions() const { return functions_; }

  /// How many nodes `g` has once every call in it (and in its bodies) is expanded, counted before
  /// anything is copied: functions that each call the next twice double the count per level, so
  /// a few kilobytes of model can stand for 2^40 nodes. Each function is counted once (memoised);
  /// a count stops growing past `cap`, and a recursive call counts 1 (expansion refuses it).
  std::int64_t expanded_nodes(const onnx::GraphProto& g, std::int64_t cap) {
    std::int64_t total = 0;
    for (const onnx::NodeProto& n : g.node()) {
      total = capped_add(total, node_weight(n, cap), cap);
      if (total >= cap) break;
    }
    return total;
  }

  /// a + b, or `cap` when that is larger (both in [0, cap]: no overflow even at INT64_MAX).
  static std::int64_t capped_add(std::int64_t a, std::int64_t b, std::int64_t cap) {
    return b > cap - a ? cap : a + b;
  }

 private:
  std::int64_t node_weight(const onnx::NodeProto& n, std::int64_t cap) {
    std::int64_t weight = 1;
    if (const onnx::FunctionProto* f = find(n)) {
      auto [it, first] = function_nodes_.try_emplace(f, 1);  // 1 while being counted
      if (first) {
        std::int64_t body = 0;
        for (const onnx::NodeProto& m : f->node()) {
          body = capped_add(body, node_weight(m, cap), cap);
          if (body >= cap) break;
        }
        function_nodes_[f] = body;
        return body;
      }
      return it->second;
    }
    for (const onnx::AttributeProto& a : n.attribute()) {
      if (a.has_g()) weight = capped_add(weight, expanded_nodes(a.g(), cap), cap);
      for (const onnx::GraphProto& sub : a.graphs()) {
        weight = capped_add(weight, expanded_nodes(sub, cap), cap);
      }
    }
    return weight;
  }

  const onnx::FunctionProto* find(const onnx::NodeProto& node) const {
    auto it = functions_.find(Key{std::string(normalize_domain(node.domain())), node.op_type()});
    return it == functions_.end() ? nullptr : it->second;
  }

  /// Expands the calls in the bodies (If/Loop/Scan graphs) of `node`.
  void expand_bodies(onnx::NodeProto* node, std::vector<const onnx::FunctionProto*>& stack) {
    for (onnx::AttributeProto& a : *node->mutable_attribute()) {
      if (a.has_g()) expand_graph(a.mutable_g(), stack);
      for (onnx::GraphProto& sub : *a.mutable_graphs()) expand_graph(&sub, stack);
    }
  }

  /// The body of `f` instantiated for `call` (node `index`), its own calls expanded.
  onnx::GraphProto expand_call(const onnx::NodeProto& call, int index, const onnx::FunctionProto& f,
                               std::vector<const onnx::FunctionProto*>& stack) {
    check_call(call, index, f, stack);
    onnx::GraphProto body;
    instantiate(f, call, &body);
    stack.push_back(&f);
    expand_graph(&body, stack);
    stack.pop_back();
    return body;
  }

  bool bodies_call(const onnx::NodeProto& n) const {
    for (const onnx::AttributeProto& a : n.attribute()) {
      if (a.has_g() && calls_in(a.g())) return true;
      for (const onnx::GraphProto& sub : a.graphs()) {
        if (calls_in(sub)) return true;
      }
    }
    return false;
  }

  void check_call(const onnx::NodeProto& call, int index, const onnx::FunctionProto& f,
                  const std::vector<const onnx::FunctionProto*>& stack) const {
    auto fail = [&](const std::string& why) {
      throw ModelError(source_ + ": " + call_site(call, index) + " calls local function '" +
                       f.name() + "' " + why);
    };
    for (const onnx::FunctionProto* open : stack) {
      if (open == &f) fail("recursively (a function may not call itself)");
    }
    if (static_cast<int>(stack.size()) >= kMaxDepth) {
      fail("through more than " + std::to_string(kMaxDepth) + " nested function calls");
    }
    if (call.input_size() > f.input_size()) {
      fail("with " + std::to_string(call.input_size()) + " inputs, but the function declares " +
           std::to_string(f.input_size()));
    }
    if (call.output_size() > f.output_size()) {
      fail("with " + std::to_string(call.output_size()) + " outputs, but the function declares " +
           std::to_string(f.output_size()));
    }
  }

  /// A prefix unique to this call site for the body's own values and nodes.
  std::string prefix_for(const onnx::NodeProto& call, const onnx::FunctionProto& f) {
    const std::string base = (call.name().empty() ? f.name() : call.name()) + "/";
    std::string prefix = base;
    for (int k = 2; !prefixes_.insert(prefix).second; ++k) {
      prefix = base.substr(0, base.size() - 1) + "_" + std::to_string(k) + "/";
    }
    return prefix;
  }

  /// Writes the body of `f` for `call` into `out`: value names mapped, attributes resolved.
  void instantiate(const onnx::FunctionProto& f, const onnx::NodeProto& call,
                   onnx::GraphProto* out) {
    Renaming r;
    r.prefix = prefix_for(call, f);
    for (int i = 0; i < f.input_size(); ++i) {
      r.names[f.input(i)] = i < call.input_size() ? call.input(i) : std::string();
    }
    for (int i = 0; i < f.output_size(); ++i) {
      // An output the call does not take stays a body-local value.
      if (i < call.output_size() && !call.output(i).empty()) r.names[f.output(i)] = call.output(i);
    }
    for (const onnx::AttributeProto& a : call.attribute()) r.attributes[a.name()] = &a;
    for (const onnx::NodeProto& n : f.node()) {
      onnx::NodeProto* copy = out->add_node();
      *copy = n;
      rename_node(r, copy);
    }
  }

  struct Renaming {
    std::string prefix;
    std::unordered_map<std::string, std::string> names;
    std::unordered_map<std::string, const onnx::AttributeProto*> attributes;

    std::string operator()(const std::string& name) const {
      if (name.empty()) return name;
      auto it = names.find(name);
      return it != names.end() ? it->second : prefix + name;
    }
  };

  static void rename_node(const Renaming& r, onnx::NodeProto* n) {
    for (std::string& in : *n->mutable_input()) in = r(in);
    for (std::string& o : *n->mutable_output()) o = r(o);
    n->set_name(r.prefix + n->name());
    google::protobuf::RepeatedPtrField<onnx::AttributeProto> kept;
    for (onnx::AttributeProto& a : *n->mutable_attribute()) {
      if (a.has_ref_attr_name()) {
        auto it = r.attributes.find(a.ref_attr_name());
        if (it == r.attributes.end()) continue;  // not given by the call: the op's default applies
        onnx::AttributeProto resolved = *it->second;
        resolved.set_name(a.name());
        *kept.Add() = std::move(resolved);
        continue;
      }
      if (a.has_g()) rename_graph(r, a.mutable_g());
      for (onnx::GraphProto& sub : *a.mutable_graphs()) rename_graph(r, &sub);
      *kept.Add() = std::move(a);
    }
    n->mutable_attribute()->Swap(&kept);
  }

  /// A body inside a function sees only the function's values, so every name in it is renamed.
  static void rename_graph(const Renaming& r, onnx::GraphProto* g) {
    for (onnx::ValueInfoProto& vi : *g->mutable_input()) vi.set_name(r(vi.name()));
    for (onnx::ValueInfoProto& vi : *g->mutable_output()) vi.set_name(r(vi.name()));
    for (onnx::ValueInfoProto& vi : *g->mutable_value_info()) vi.set_name(r(vi.name()));
    for (onnx::TensorProto& t : *g->mutable_initializer()) t.set_name(r(t.name()));
    for (onnx::NodeProto& n : *g->mutable_node()) rename_node(r, &n);
  }

  std::string source_;
  std::map<Key, const onnx::FunctionProto*> functions_;
  std::set<std::string> prefixes_;
  std::unordered_map<const onnx::FunctionProto*, std::int64_t> function_nodes_;
};

}  // namespace

InlinedModel::InlinedModel(Model model)
    : owned_(std::make_unique<onnx::GraphProto>()), model_(std::move(model)) {}

InlinedModel::~InlinedModel() {
  // Every element of these lists is borrowed: the original's, or one of owned_'s nodes.
  detail::hand_back_graph(*model_.proto().mutable_graph());
}

void InlinedModel::write_into(onnx::ModelProto& target) {
  const onnx::ModelProto& self = model_.proto();
  if (&target != from_) {
    target = self;
    return;
  }
  // All but the node list, the opsets and the functions are target's own messages already.
  google::protobuf::RepeatedPtrField<onnx::NodeProto>* nodes =
      target.mutable_graph()->mutable_node();
  std::vector<onnx::NodeProto*> before(static_cast<std::size_t>(nodes->size()));
  nodes->UnsafeArenaExtractSubrange(0, nodes->size(), before.data());
  const std::unordered_set<const onnx::NodeProto*> originals(before.begin(), before.end());
  std::unordered_set<const onnx::NodeProto*> kept;
  for (const onnx::NodeProto& n : self.graph().node()) {
    auto* p = const_cast<onnx::NodeProto*>(&n);
    if (originals.count(p) != 0) {
      nodes->UnsafeArenaAddAllocated(p);  // back where it was, owned as before
      kept.insert(p);
    } else {
      nodes->AddAllocated(p);  // one of owned_'s, heap-allocated: target (or its arena) owns it
    }
  }
  // owned_ gives its nodes up without deleting them; the calls' nodes are deleted.
  hand_back(owned_->mutable_node());
  if (target.GetArena() == nullptr) {
    for (onnx::NodeProto* p : before) {
      if (kept.count(p) == 0) delete p;
    }
  }
  *target.mutable_opset_import() = self.opset_import();
  target.clear_functions();
}

std::unique_ptr<InlinedModel> inline_local_functions(const Model& model, std::int64_t max_nodes) {
  const onnx::ModelProto& from = model.proto();
  if (from.functions_size() == 0) return nullptr;
  Inliner inliner(from, model.source());
  const onnx::GraphProto& graph = from.graph();
  if (!inliner.calls_in(graph)) return nullptr;
  const std::int64_t cap =
      max_nodes < std::numeric_limits<std::int64_t>::max() ? max_nodes + 1 : max_nodes;
  if (inliner.expanded_nodes(graph, cap) > max_nodes) {
    throw ModelError(model.source() + ": more than " + std::to_string(max_nodes) +
                     " nodes once its local functions are inlined (limits.nodes)");
  }

  // Everything of the model but its graph and functions is small: copied.
  auto proto = detail::model_shell(from);
  onnx::GraphProto* g = proto->mutable_graph();
  auto inlined = std::make_unique<InlinedModel>(Model::adopt(std::move(proto), model.source()));
  inlined->from_ = &from;
  // From here on the graph holds borrowed messages only: ~InlinedModel hands them back, also
  // when an expansion below throws.
  g = inlined->model_.proto().mutable_graph();
  borrow(graph.initializer(), g->mutable_initializer());
  borrow(graph.sparse_initializer(), g->mutable_sparse_initializer());
  borrow(graph.input(), g->mutable_input());
  borrow(graph.output(), g->mutable_output());
  borrow(graph.value_info(), g->mutable_value_info());
  borrow(graph.quantization_annotation(), g->mutable_quantization_annotation());
  std::vector<const onnx::FunctionProto*> stack;
  inliner.expand_main(graph, g->mutable_node(), *inlined->owned_->mutable_node(), stack);

  // The bodies' nodes now live in the graph: their domains must be imported by the model.
  onnx::ModelProto& out = inlined->model_.proto();
  for (const auto& [key, f] : inliner.functions()) {
    for (const onnx::OperatorSetIdProto& op : f->opset_import()) {
      bool imported = false;
      for (const onnx::OperatorSetIdProto& have : out.opset_import()) {
        imported = imported || normalize_domain(have.domain()) == normalize_domain(op.domain());
      }
      if (!imported) *out.add_opset_import() = op;
    }
  }
  return inlined;
}

}  // namespace cctx
