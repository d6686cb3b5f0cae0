#include "model/inline_functions.hpp"

#include <onnx/onnx_pb.h>

#include <map>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cctx/errors.hpp"
#include "cctx/model.hpp"

namespace cctx {

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
      for (onnx::AttributeProto& a : *node->mutable_attribute()) {
        if (a.has_g()) expand_graph(a.mutable_g(), stack);
        for (onnx::GraphProto& sub : *a.mutable_graphs()) expand_graph(&sub, stack);
      }
      const onnx::FunctionProto* f = find(*node);
      if (f == nullptr) {
        *expanded.Add() = std::move(*node);
        continue;
      }
      check_call(*node, k, *f, stack);
      onnx::GraphProto body;
      instantiate(*f, *node, &body);
      stack.push_back(f);
      expand_graph(&body, stack);
      stack.pop_back();
      for (onnx::NodeProto& n : *body.mutable_node()) *expanded.Add() = std::move(n);
      ++calls_;
    }
    g->mutable_node()->Swap(&expanded);
  }

  int calls() const { return calls_; }
  const std::map<Key, const onnx::FunctionProto*>& functions() const { return functions_; }

 private:
  const onnx::FunctionProto* find(const onnx::NodeProto& node) const {
    auto it = functions_.find(Key{std::string(normalize_domain(node.domain())), node.op_type()});
    return it == functions_.end() ? nullptr : it->second;
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
  int calls_ = 0;
};

}  // namespace

std::unique_ptr<onnx::ModelProto> inline_local_functions(const onnx::ModelProto& model,
                                                         const std::string& source) {
  if (model.functions_size() == 0) return nullptr;
  auto copy = std::make_unique<onnx::ModelProto>(model);
  Inliner inliner(*copy, source);
  std::vector<const onnx::FunctionProto*> stack;
  inliner.expand_graph(copy->mutable_graph(), stack);
  if (inliner.calls() == 0) return nullptr;
  // The bodies' nodes now live in the graph: their domains must be imported by the model.
  for (const auto& [key, f] : inliner.functions()) {
    for (const onnx::OperatorSetIdProto& op : f->opset_import()) {
      bool imported = false;
      for (const onnx::OperatorSetIdProto& have : copy->opset_import()) {
        imported = imported || normalize_domain(have.domain()) == normalize_domain(op.domain());
      }
      if (!imported) *copy->add_opset_import() = op;
    }
  }
  copy->clear_functions();
  return copy;
}

}  // namespace cctx
