#include "cctx/graph.hpp"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <queue>
#include <unordered_set>

#include "cctx/errors.hpp"
#include "cctx/limits.hpp"
#include "cctx/model.hpp"
#include "model/body_checks.hpp"
#include "model/graph_index.hpp"

namespace cctx {

namespace {
// build_graph recurses once per nesting level; Model::load already refused anything deeper than
// the profile's limits.subgraph_depth, this ceiling only protects models built in memory.
constexpr int kMaxNesting = static_cast<int>(kMaxSubgraphDepth);

/// A GRAPH or GRAPHS attribute (a body of If, Loop, Scan or a custom op).
bool holds_graphs(const onnx::AttributeProto& a) {
  return a.type() == onnx::AttributeProto::GRAPH || a.has_g() || a.graphs_size() > 0;
}

AttributeKey key_of(const onnx::AttributeProto& a, std::vector<std::int64_t>& ints) {
  AttributeKey key;
  key.proto = &a;
  const std::string& name = a.name();
  key.name_size = static_cast<std::uint32_t>(name.size());
  name.copy(key.prefix, AttributeKey::kPrefix);
  key.type = attribute_type_number(a);
  if (key.type == AttributeKey::kInt) key.int_value = a.i();
  if (key.type == AttributeKey::kInts &&
      static_cast<std::size_t>(a.ints_size()) <= AttributeKey::kInlineInts) {
    key.ints_inline = true;
    key.ints_at = static_cast<std::uint32_t>(ints.size());
    key.ints_count = static_cast<std::uint16_t>(a.ints_size());
    ints.insert(ints.end(), a.ints().begin(), a.ints().end());
  }
  return key;
}

// NodeOrder::kReverseDfs, called on an acyclic graph (sort_graph has checked it). Iterative, so a
// long chain does not recurse: a stack of (file position, leaving) entries, as ONNX Runtime walks
// it. `nodes`: one graph's nodes; `position`: each one's file position; `deps(n, fn)` calls fn with
// each producer n reads (kInvalidId for a value no node of the graph makes).
template <class Deps>
std::vector<NodeId> reverse_dfs_order(const std::vector<NodeId>& nodes,
                                      const std::vector<std::uint32_t>& position, Deps&& deps) {
  const std::size_t count = nodes.size();
  std::vector<NodeId> by_file(count);
  for (NodeId n : nodes) by_file[position[n]] = n;
  // Each node's producers in this graph by file position, and whether any node reads it.
  std::vector<std::uint32_t> producer_begin(count + 1, 0);
  std::vector<std::uint32_t> producers;
  std::vector<bool> read(count, false);
  for (std::uint32_t k = 0; k < count; ++k) {
    producer_begin[k] = static_cast<std::uint32_t>(producers.size());
    deps(by_file[k], [&](NodeId p) {
      if (p == kInvalidId) return;
      producers.push_back(position[p]);
      read[position[p]] = true;
    });
    std::sort(producers.begin() + producer_begin[k], producers.end());
  }
  producer_begin[count] = static_cast<std::uint32_t>(producers.size());
  std::vector<std::pair<std::uint32_t, bool>> stack;
  for (std::uint32_t k = 0; k < count; ++k) {
    if (!read[k]) stack.emplace_back(k, false);
  }
  std::vector<bool> visited(count, false);
  std::vector<NodeId> order;
  order.reserve(count);
  while (!stack.empty()) {
    const auto [k, leaving] = stack.back();
    stack.pop_back();
    if (leaving) {
      order.push_back(by_file[k]);
      continue;
    }
    if (visited[k]) continue;
    visited[k] = true;
    stack.emplace_back(k, true);
    for (std::uint32_t i = producer_begin[k]; i < producer_begin[k + 1]; ++i) {
      if (!visited[producers[i]]) stack.emplace_back(producers[i], false);
    }
  }
  return order;
}

}  // namespace

std::uint8_t attribute_type_number(const onnx::AttributeProto& a) {
  using A = onnx::AttributeProto;
  if (a.type() != A::UNDEFINED) return static_cast<std::uint8_t>(a.type());
  if (a.has_f()) return A::FLOAT;
  if (a.has_i()) return A::INT;
  if (a.has_s()) return A::STRING;
  if (a.has_t()) return A::TENSOR;
  if (a.has_g()) return A::GRAPH;
  if (a.floats_size() > 0) return A::FLOATS;
  if (a.ints_size() > 0) return A::INTS;
  if (a.strings_size() > 0) return A::STRINGS;
  if (a.tensors_size() > 0) return A::TENSORS;
  if (a.graphs_size() > 0) return A::GRAPHS;
  return A::UNDEFINED;
}

bool AttributeKey::named(std::string_view name) const {
  if (name.size() != name_size) return false;
  if (name_size <= kPrefix) return name.compare(0, name_size, prefix, name_size) == 0;
  return name.compare(0, kPrefix, prefix, kPrefix) == 0 && proto->name() == name;
}

struct GraphView::Scope {
  NameTable names;
  Scope* outer = nullptr;

  ValueId lookup(std::string_view name) const {
    const std::uint64_t h = NameTable::hash(name);
    for (const Scope* s = this; s != nullptr; s = s->outer) {
      const ValueId id = s->names.find(name, h);
      if (id != kNoValue) return id;
    }
    return kNoValue;
  }
};
static_assert(kNoValue == NameTable::kAbsent);
/// An input the first pass of build_graph left for the second (never in a finished view).
constexpr ValueId kUnbound = kNoValue - 1;

GraphView::GraphView(const Model& model, NodeOrder order,
                     std::span<const std::uint32_t> runtime_numbers)
    : model_(&model),
      order_(order),
      runtime_numbers_(runtime_numbers.begin(), runtime_numbers.end()),
      index_(std::make_unique<Index>()) {
  const onnx::GraphProto& g = model.proto().graph();
  // The value arrays and the main scope's table are sized by build_graph's first look at the
  // nodes; these only need the node count.
  nodes_.reserve(static_cast<std::size_t>(g.node_size()));
  index_->attribute_range.reserve(static_cast<std::size_t>(g.node_size()));
  index_->attribute_keys.reserve(static_cast<std::size_t>(g.node_size()));
  Scope main;
  build_graph(g, kInvalidId, kInvalidId, "", &main, 0, "");
  index_->main_scope = std::move(main.names);
  std::vector<std::uint32_t> position(nodes_.size(), 0xffffffffU);
  for (GraphId gid = 0; gid < graphs_.size(); ++gid) sort_graph(gid, position);
  main_by_number_ = graphs_[0].nodes;
  std::sort(main_by_number_.begin(), main_by_number_.end(),
            [&](NodeId a, NodeId b) { return runtime_number(a) < runtime_number(b); });
  for (NodeId n = 0; n < nodes_.size(); ++n) {
    if (!nodes_[n].bodies.empty()) collect_captures(n);
  }
  // Symbol prefixes use topological positions, known only now.
  for (GraphId gid = 1; gid < graphs_.size(); ++gid) {
    GraphEntry& ge = graphs_[gid];
    const NodeEntry& owner = nodes_[ge.owner];
    std::string_view attr;
    for (const BodyRef& b : owner.bodies) {
      if (b.graph == gid) attr = b.attribute;
    }
    ge.symbol_prefix = graphs_[ge.parent].symbol_prefix + std::string(owner.op_type) + "_" +
                       std::to_string(owner.index) + "_" + std::string(attr) + "_";
  }
}

GraphView::~GraphView() = default;

ValueId GraphView::find(std::string_view name) const { return index_->main_scope.find(name); }

std::size_t GraphView::op_kind_count() const { return index_->op_kinds.size(); }

std::uint32_t GraphView::op_kind(std::string_view domain, std::string_view op_type,
                                 std::int64_t opset) {
  const std::uint64_t h = NameTable::hash(op_type);
  const std::uint32_t first = index_->kinds_by_op_type.find(op_type, h);
  for (std::uint32_t k = first; k != kInvalidId; k = index_->op_kinds[k].next) {
    if (index_->op_kinds[k].opset == opset && index_->op_kinds[k].domain == domain) return k;
  }
  const auto id = static_cast<std::uint32_t>(index_->op_kinds.size());
  if (first == kInvalidId) {
    index_->kinds_by_op_type.try_emplace(op_type, h, id);
    index_->op_kinds.push_back(Index::OpKind{domain, op_type, opset, kInvalidId});
  } else {  // linked in after the op_type's first kind, which the table points at
    index_->op_kinds.push_back(Index::OpKind{domain, op_type, opset, index_->op_kinds[first].next});
    index_->op_kinds[first].next = id;
  }
  return id;
}

GraphId GraphView::build_graph(const onnx::GraphProto& g, GraphId parent, NodeId owner,
                               std::string symbol_prefix, Scope* scope, int depth,
                               const std::string& where) {
  if (depth > kMaxNesting) {
    throw ModelError(model_->source() + ": subgraphs nested deeper than " +
                     std::to_string(kMaxNesting) + " levels");
  }
  const GraphId gid = static_cast<GraphId>(graphs_.size());
  graphs_.emplace_back();
  graphs_[gid].proto = &g;
  graphs_[gid].owner = owner;
  graphs_[gid].parent = parent;
  graphs_[gid].symbol_prefix = std::move(symbol_prefix);

  // Returns the name's value and whether this call created it. Keys view the proto's strings,
  // which outlive the view (values_ may reallocate).
  auto define = [&](const std::string& name, std::uint64_t hash) -> std::pair<ValueId, bool> {
    const auto [id, inserted] =
        scope->names.try_emplace(name, hash, static_cast<ValueId>(values_.size()));
    if (inserted) {
      values_.emplace_back();
      values_.back().name = name;
      values_.back().graph = gid;
    }
    return {id, inserted};
  };

  // Every node's input and output ids, in node order, go in one block of this graph; the main
  // graph's values and names are sized once from the same count (growing, rehashing, a table of
  // millions of names or moving a million values would be a large share of building the view).
  // One pass over the nodes: on a large graph each pass is a cache miss per node proto.
  std::size_t io_count = 0, outputs_count = 0;
  for (const onnx::NodeProto& np : g.node()) {
    io_count += static_cast<std::size_t>(np.input_size() + np.output_size());
    outputs_count += static_cast<std::size_t>(np.output_size());
  }
  if (gid == 0) {
    const std::size_t main_values =
        static_cast<std::size_t>(g.input_size() + g.initializer_size()) + outputs_count;
    values_.reserve(main_values);
    scope->names.reserve(main_values);
  }
  for (const onnx::TensorProto& t : g.initializer()) {
    ValueId id = define(t.name(), NameTable::hash(t.name())).first;
    values_[id].initializer = &t;
    graphs_[gid].initializers.push_back(id);
  }
  for (const onnx::ValueInfoProto& vi : g.input()) {
    ValueId id = define(vi.name(), NameTable::hash(vi.name())).first;
    values_[id].graph_input = &vi;
    graphs_[gid].inputs.push_back(id);
  }
  const std::size_t first_node = nodes_.size();
  RequiredBodies required_bodies;
  ValueId* io = nullptr;
  if (io_count > 0) {
    io_blocks_.push_back(std::make_unique_for_overwrite<ValueId[]>(io_count));
    io = io_blocks_.back().get();
  }
  /// Nodes with an input not yet defined in the first pass, and where their input ids are.
  std::vector<std::pair<NodeId, ValueId*>> unbound;
  /// Nodes with a graph attribute, found in the first pass while their proto is in cache; their
  /// bodies are built once every name of this graph is defined.
  std::vector<NodeId> with_bodies;
  auto name_node = [&](const onnx::NodeProto& np, int k) {
    return "node " + std::to_string(k) + (np.name().empty() ? "" : " '" + np.name() + "'") + " (" +
           (np.domain().empty() ? "" : np.domain() + ":") + np.op_type() + ")" + where;
  };
  // Nodes go in chunks: the names of a chunk are hashed first and their table slots prefetched,
  // so that the probes' cache misses overlap (one after the other, they were most of this loop).
  constexpr int kChunk = 16;
  std::vector<std::uint64_t> hashes;  // of each node of the chunk: outputs, then inputs
  const std::uint64_t* next_hash = nullptr;
  for (int k = 0; k < g.node_size(); ++k) {
    if (k % kChunk == 0) {
      hashes.clear();
      for (int c = k; c < std::min(g.node_size(), k + kChunk); ++c) {
        auto add = [&](const std::string& name) {
          hashes.push_back(NameTable::hash(name));
          scope->names.prefetch(hashes.back());
        };
        for (const std::string& out : g.node(c).output()) add(out);
        for (const std::string& in : g.node(c).input()) add(in);
      }
      next_hash = hashes.data();
    }
    const onnx::NodeProto& np = g.node(k);
    const NodeId nid = static_cast<NodeId>(nodes_.size());
    nodes_.emplace_back();
    NodeEntry& n = nodes_.back();
    n.proto = &np;
    n.graph = gid;
    n.proto_index = static_cast<std::uint32_t>(k);
    n.op_type = np.op_type();
    n.domain = normalize_domain(np.domain());
    n.opset = model_->opset(n.domain);
    n.kind = op_kind(n.domain, n.op_type, n.opset);
    // Every node of a kind views the same strings, its first node's: rules compare op types at
    // every node, and one copy stays in cache where each node's own string would be a miss.
    n.op_type = index_->op_kinds[n.kind].op_type;
    n.domain = index_->op_kinds[n.kind].domain;
    if (n.op_type.empty()) {
      throw ModelError(model_->source() + ": node " + std::to_string(k) +
                       (np.name().empty() ? "" : " '" + np.name() + "'") + " has no op_type");
    }
    if (const std::string* body = required_bodies.missing(np, n.kind, n.opset)) {
      throw ModelError(model_->source() + ": " + name_node(np, k) + " has no '" + *body +
                       "' graph, which " + np.op_type() + " requires");
    }
    ValueId* outputs = io;
    io += np.output_size();
    n.outputs = ValueIds(outputs, static_cast<std::size_t>(np.output_size()));
    for (const std::string& out : np.output()) {
      const std::uint64_t hash = *next_hash++;
      if (out.empty()) {
        *outputs++ = kNoValue;
        continue;
      }
      const auto [id, created] = define(out, hash);
      const bool existed = !created;
      *outputs++ = id;
      if (values_[id].producer == kInvalidId && !values_[id].is_input() &&
          !values_[id].is_initializer()) {
        values_[id].producer = nid;
      } else if (existed) {
        // ONNX graphs are in SSA form: a second definition makes every reader ambiguous.
        throw ModelError(model_->source() + ": value '" + out + "' is produced more than once (" +
                         (values_[id].is_input()         ? "it is a graph input"
                          : values_[id].is_initializer() ? "it is an initializer"
                                                         : "by two nodes") +
                         "; node " + std::to_string(k) + " defines it again)");
      }
    }
    // Inputs defined in this graph's scope by now (every input of a sorted graph) are bound in
    // this pass, while the node's strings are in cache; the rest wait for the second pass (a
    // name of an enclosing scope may still be shadowed by a later node of this graph).
    ValueId* inputs = io;
    io += np.input_size();
    n.inputs = ValueIds(inputs, static_cast<std::size_t>(np.input_size()));
    bool all_bound = true;
    for (const std::string& in : np.input()) {
      const std::uint64_t hash = *next_hash++;
      const ValueId id = in.empty() ? kNoValue : scope->names.find(in, hash);
      all_bound = all_bound && (in.empty() || id != kNoValue);
      *inputs++ = !in.empty() && id == kNoValue ? kUnbound : id;
    }
    if (!all_bound) unbound.emplace_back(nid, inputs - np.input_size());
    const auto first_key = static_cast<std::uint32_t>(index_->attribute_keys.size());
    bool bodies = false;
    for (const onnx::AttributeProto& a : np.attribute()) {
      index_->attribute_keys.push_back(key_of(a, index_->inline_ints));
      bodies = bodies || holds_graphs(a);
    }
    index_->attribute_range.push_back(
        Index::Range{first_key, static_cast<std::uint32_t>(index_->attribute_keys.size())});
    if (bodies) with_bodies.push_back(nid);
  }
  for (const onnx::ValueInfoProto& vi : g.value_info()) {
    const ValueId id = scope->names.find(vi.name());
    if (id != kNoValue && values_[id].value_info == nullptr) values_[id].value_info = &vi;
  }
  for (const onnx::ValueInfoProto& vi : g.output()) {
    ValueId id = scope->lookup(vi.name());
    if (id == kNoValue) {
      throw ModelError(model_->source() + ": graph output '" + vi.name() + "'" + where +
                       " is not produced by any node, input or initializer");
    }
    if (values_[id].graph == gid && values_[id].graph_output == nullptr) {
      values_[id].graph_output = &vi;
    }
    graphs_[gid].outputs.push_back(id);
  }
  // Inputs the first pass could not bind are resolved now that every output of this graph is
  // defined: ONNX files need not be sorted, and a body may read any value of an enclosing scope.
  for (const auto& [nid, inputs] : unbound) {
    const onnx::NodeProto& np = *nodes_[nid].proto;
    for (int k = 0; k < np.input_size(); ++k) {
      ValueId& slot = inputs[k];
      if (slot != kUnbound) continue;
      const std::string& in = np.input(k);
      slot = scope->lookup(in);
      if (slot == kNoValue) {
        throw ModelError(model_->source() + ": " +
                         (np.name().empty() ? "node " + std::to_string(nodes_[nid].proto_index)
                                            : "node '" + np.name() + "'") +
                         " (" + np.op_type() + ") reads '" + in +
                         "', which no node, input or initializer defines" + where);
      }
    }
  }
  for (const NodeId nid : with_bodies) {
    const onnx::NodeProto& np = *nodes_[nid].proto;
    for (const onnx::AttributeProto& a : np.attribute()) {
      if (a.type() == onnx::AttributeProto::GRAPH || a.has_g()) {
        Scope inner;
        inner.outer = scope;
        GraphId body = build_graph(a.g(), gid, static_cast<NodeId>(nid), "", &inner, depth + 1,
                                   " in the '" + a.name() + "' graph of " +
                                       name_node(np, static_cast<int>(nid - first_node)));
        nodes_[nid].bodies.push_back(BodyRef{a.name(), body});
      }
      for (const onnx::GraphProto& sub : a.graphs()) {
        Scope inner;
        inner.outer = scope;
        GraphId body = build_graph(sub, gid, static_cast<NodeId>(nid), "", &inner, depth + 1,
                                   " in a '" + a.name() + "' graph of " +
                                       name_node(np, static_cast<int>(nid - first_node)));
        nodes_[nid].bodies.push_back(BodyRef{a.name(), body});
      }
    }
  }
  for (std::size_t nid = first_node; nid < first_node + static_cast<std::size_t>(g.node_size());
       ++nid) {
    graphs_[gid].nodes.push_back(static_cast<NodeId>(nid));
  }
  return gid;
}

void GraphView::collect_captures(NodeId n) {
  // Every graph in the subtree of n's bodies; a value defined in none of them is a capture.
  std::unordered_set<GraphId> subtree;
  std::vector<GraphId> stack;
  for (const BodyRef& b : nodes_[n].bodies) stack.push_back(b.graph);
  std::vector<GraphId> order;
  while (!stack.empty()) {
    GraphId g = stack.back();
    stack.pop_back();
    if (!subtree.insert(g).second) continue;
    order.push_back(g);
    for (NodeId m : graphs_[g].nodes) {
      for (const BodyRef& b : nodes_[m].bodies) stack.push_back(b.graph);
    }
  }
  std::sort(order.begin(), order.end());
  std::unordered_set<ValueId> seen;
  auto consider = [&](ValueId v) {
    if (v == kNoValue || subtree.count(values_[v].graph) != 0) return;
    if (seen.insert(v).second) nodes_[n].captures.push_back(v);
  };
  for (GraphId g : order) {
    for (NodeId m : graphs_[g].nodes) {
      for (ValueId v : nodes_[m].inputs) consider(v);
    }
    for (ValueId v : graphs_[g].outputs) consider(v);
  }
}

void GraphView::sort_graph(GraphId gid, std::vector<std::uint32_t>& position) {
  GraphEntry& ge = graphs_[gid];
  const std::size_t count = ge.nodes.size();
  // Position of each of this graph's nodes, indexed by NodeId (dense: no hashing on 1M nodes;
  // one buffer for every graph, reset before returning, so many small bodies stay linear).
  for (std::uint32_t k = 0; k < count; ++k) position[ge.nodes[k]] = k;
  auto local_producer = [&](ValueId v) -> NodeId {
    if (v == kNoValue || values_[v].graph != gid) return kInvalidId;
    return values_[v].producer;
  };
  // A node's dependencies: its inputs and the values its bodies capture.
  auto deps = [&](NodeId n, auto&& fn) {
    for (ValueId v : nodes_[n].inputs) fn(local_producer(v));
    for (const BodyRef& b : nodes_[n].bodies) {
      // Captures are computed after sorting; approximate with a walk of the body inputs.
      std::vector<GraphId> stack{b.graph};
      while (!stack.empty()) {
        GraphId g = stack.back();
        stack.pop_back();
        for (NodeId m : graphs_[g].nodes) {
          for (ValueId v : nodes_[m].inputs) fn(local_producer(v));
          for (const BodyRef& inner : nodes_[m].bodies) stack.push_back(inner.graph);
        }
        for (ValueId v : graphs_[g].outputs) fn(local_producer(v));
      }
    }
  };

  // Fast path: already topologically sorted (producers come first).
  bool sorted = true;
  for (std::uint32_t k = 0; k < count && sorted; ++k) {
    deps(ge.nodes[k], [&](NodeId p) {
      if (p != kInvalidId && position[p] >= k) sorted = false;
    });
  }
  if (!sorted) {
    // Kahn's algorithm, lowest file position first, so the result is deterministic and as close
    // to the file order as the dependencies allow.
    std::vector<std::uint32_t> indegree(count, 0);
    std::vector<std::vector<std::uint32_t>> users(count);
    for (std::uint32_t k = 0; k < count; ++k) {
      deps(ge.nodes[k], [&](NodeId p) {
        if (p == kInvalidId) return;
        std::uint32_t pk = position[p];
        users[pk].push_back(k);
        ++indegree[k];
      });
    }
    std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> ready;
    for (std::uint32_t k = 0; k < count; ++k) {
      if (indegree[k] == 0) ready.push(k);
    }
    std::vector<NodeId> order;
    order.reserve(count);
    while (!ready.empty()) {
      std::uint32_t k = ready.top();
      ready.pop();
      order.push_back(ge.nodes[k]);
      for (std::uint32_t u : users[k]) {
        if (--indegree[u] == 0) ready.push(u);
      }
    }
    if (order.size() != count) {
      // Walk back from a blocked node through blocked producers until a node repeats: it lies
      // on a cycle.
      std::uint32_t k = 0;
      while (indegree[k] == 0) ++k;
      std::vector<bool> visited(count, false);
      while (!visited[k]) {
        visited[k] = true;
        std::uint32_t next = k;
        deps(ge.nodes[k], [&](NodeId p) {
          if (p != kInvalidId && next == k && indegree[position[p]] != 0) next = position[p];
        });
        k = next;
      }
      const onnx::NodeProto& np = *nodes_[ge.nodes[k]].proto;
      throw ModelError(model_->source() + ": the graph has a cycle through node " +
                       std::to_string(nodes_[ge.nodes[k]].proto_index) +
                       (np.name().empty() ? "" : " '" + np.name() + "'") + " (" + np.op_type() +
                       ")");
    }
    ge.nodes = std::move(order);
  }
  if (order_ == NodeOrder::kReverseDfs) {
    if (gid == 0 && runtime_numbers_.size() == count) {
      // The walk follows the runtime's numbers: file positions ranked by them.
      std::vector<std::uint32_t> by_number(count);
      for (std::uint32_t k = 0; k < count; ++k) by_number[k] = k;
      std::sort(by_number.begin(), by_number.end(), [&](std::uint32_t a, std::uint32_t b) {
        return runtime_numbers_[a] < runtime_numbers_[b];
      });
      std::vector<std::uint32_t> rank(count);
      for (std::uint32_t r = 0; r < count; ++r) rank[by_number[r]] = r;
      for (NodeId n : ge.nodes) position[n] = rank[position[n]];
    }
    std::vector<NodeId> order = reverse_dfs_order(ge.nodes, position, deps);
    if (order != ge.nodes) {
      ge.nodes = std::move(order);
      sorted = false;
    }
  }
  for (std::uint32_t k = 0; k < count; ++k) {
    position[ge.nodes[k]] = 0xffffffffU;  // same node set as on entry, only reordered
    nodes_[ge.nodes[k]].index = k;
  }

  if (gid == 0 && !sorted) {
    // Renumber the main graph so that NodeId == topological position (per-node arrays of the
    // main graph are then indexed directly).
    std::vector<NodeId> new_id(nodes_.size());
    for (NodeId n = 0; n < nodes_.size(); ++n) new_id[n] = n;
    for (std::uint32_t k = 0; k < count; ++k) new_id[ge.nodes[k]] = k;
    std::vector<NodeEntry> renumbered(nodes_.size());
    std::vector<Index::Range> ranges(nodes_.size());
    for (NodeId n = 0; n < nodes_.size(); ++n) {
      renumbered[new_id[n]] = std::move(nodes_[n]);
      ranges[new_id[n]] = index_->attribute_range[n];
    }
    nodes_ = std::move(renumbered);
    index_->attribute_range = std::move(ranges);
    for (ValueEntry& v : values_) {
      if (v.producer != kInvalidId) v.producer = new_id[v.producer];
    }
    for (GraphEntry& g : graphs_) {
      if (g.owner != kInvalidId) g.owner = new_id[g.owner];
      for (NodeId& n : g.nodes) n = new_id[n];
    }
  }
}

std::string describe_node(const GraphView& graph, NodeId id) {
  const NodeEntry& n = graph.node(id);
  std::string text = "node " + std::to_string(n.index);
  if (!n.proto->name().empty()) text += " '" + n.proto->name() + "'";
  text += " (";
  if (!n.domain.empty()) text += std::string(n.domain) + ":";
  text += std::string(n.op_type) + ")";
  return text;
}

}  // namespace cctx
