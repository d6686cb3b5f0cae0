// A dense, read-only view of a model's graphs: every value of every (sub)graph gets a ValueId,
// every node a NodeId, nodes of each graph are in topological order, and names are resolved with
// ONNX scoping (a body sees the outer values; a name it defines shadows the outer one).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace onnx {
class AttributeProto;
class GraphProto;
class NodeProto;
class TensorProto;
class ValueInfoProto;
}  // namespace onnx

namespace cctx {

class Model;

using ValueId = std::uint32_t;
using NodeId = std::uint32_t;
using GraphId = std::uint32_t;
inline constexpr ValueId kNoValue = 0xFFFFFFFFu;
inline constexpr std::uint32_t kInvalidId = 0xFFFFFFFFu;
/// A node's inputs or outputs. The ids live in one block per graph that the GraphView owns, so
/// building the view allocates nothing per node.
using ValueIds = std::span<const ValueId>;

struct ValueEntry {
  std::string_view name;         ///< views the model's string, which outlives the view
  GraphId graph = 0;             ///< graph that defines it
  NodeId producer = kInvalidId;  ///< first node producing it
  const onnx::ValueInfoProto* graph_input = nullptr;   ///< declaration as a graph input
  const onnx::ValueInfoProto* graph_output = nullptr;  ///< declaration as a graph output
  const onnx::ValueInfoProto* value_info = nullptr;    ///< declaration in value_info
  const onnx::TensorProto* initializer = nullptr;
  bool is_input() const { return graph_input != nullptr; }
  bool is_output() const { return graph_output != nullptr; }
  bool is_initializer() const { return initializer != nullptr; }
};

struct BodyRef {
  std::string_view attribute;  ///< name of the GRAPH(S) attribute ("then_branch", "body", ...)
  GraphId graph;
};

struct NodeEntry {
  const onnx::NodeProto* proto = nullptr;
  GraphId graph = 0;
  std::uint32_t index = 0;        ///< position in its graph's topological order
  std::uint32_t proto_index = 0;  ///< position in the file's node list
  /// Dense id of (domain, op_type, opset), shared by every node of the same operator in every
  /// graph of the view: stages resolve rules once per kind, not once per node.
  std::uint32_t kind = 0;
  std::string_view domain;  ///< normalised: "" for ai.onnx
  std::string_view op_type;
  std::int64_t opset = -1;  ///< version imported for the domain, -1 if none
  ValueIds inputs;          ///< kNoValue for omitted optionals
  ValueIds outputs;         ///< kNoValue for omitted optionals
  std::vector<BodyRef> bodies;
  /// Values read anywhere inside the bodies and defined in none of them (semantics.md "Lifetimes").
  std::vector<ValueId> captures;
};

struct GraphEntry {
  const onnx::GraphProto* proto = nullptr;
  NodeId owner = kInvalidId;  ///< node holding this body; kInvalidId for the main graph
  GraphId parent = kInvalidId;
  std::vector<NodeId> nodes;  ///< topological order
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;
  std::vector<ValueId> initializers;
  std::string symbol_prefix;  ///< owner chain for fresh symbols inside bodies ("Loop_4_body_")
};

/// The order a graph's nodes run in, which every stage follows (profile key
/// memory.execution_order).
enum class NodeOrder {
  /// As written, but a producer before its users: Kahn's algorithm, lowest file position first.
  kFile,
  /// ONNX Runtime's default (its GraphViewer): the post-order of a depth-first walk back from the
  /// nodes no other node reads, the last-written of them first, each node's producers taken
  /// highest file position first.
  kReverseDfs,
};

/// Built once per analysis. The main graph is graph 0 and its nodes are NodeIds 0..n-1 in
/// execution order, so per-node arrays of the main graph are indexed directly.
class GraphView {
 public:
  /// Throws ModelError on a cycle (naming a node on it), a read of an undefined name, or a node
  /// without op_type.
  /// `runtime_numbers`: per node of the main graph as written, the runtime's number for it
  /// (ONNX Runtime's NodeIndex), which kReverseDfs follows in place of the file position; empty
  /// when they are the file positions.
  explicit GraphView(const Model& model, NodeOrder order = NodeOrder::kFile,
                     std::span<const std::uint32_t> runtime_numbers = {});
  ~GraphView();
  GraphView(const GraphView&) = delete;
  GraphView& operator=(const GraphView&) = delete;

  const Model& model() const { return *model_; }
  const GraphEntry& main() const { return graphs_[0]; }
  const std::vector<GraphEntry>& graphs() const { return graphs_; }
  const std::vector<NodeEntry>& nodes() const { return nodes_; }
  const std::vector<ValueEntry>& values() const { return values_; }
  const NodeEntry& node(NodeId id) const { return nodes_[id]; }
  const ValueEntry& value(ValueId id) const { return values_[id]; }
  std::size_t main_node_count() const { return graphs_[0].nodes.size(); }
  /// Number of distinct NodeEntry::kind ids (0 .. op_kind_count() - 1).
  std::size_t op_kind_count() const;
  /// The name tables and the attribute index: the layouts that make the view fast, private to
  /// the framework (model/graph_index.hpp).
  struct Index;
  const Index& index() const { return *index_; }
  /// The runtime's number for node n of the main graph (ONNX Runtime's NodeIndex): its file
  /// position, or the number the constructor was given. The runtime visits its nodes in this
  /// order outside a run (it pre-packs their weights so).
  std::uint32_t runtime_number(NodeId n) const {
    const std::uint32_t k = nodes_[n].proto_index;
    return k < runtime_numbers_.size() ? runtime_numbers_[k] : k;
  }
  /// The main graph's nodes in that order (computed once).
  const std::vector<NodeId>& main_by_runtime_number() const { return main_by_number_; }
  /// Looks a name up in the main graph's scope.
  ValueId find(std::string_view name) const;
  /// Warnings found while building (a name produced twice, ...).
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  struct Scope;
  /// `where` places the graph in messages: "" for the main graph, else " in the 'body' graph of
  /// node 3 'l' (Loop)".
  GraphId build_graph(const onnx::GraphProto& g, GraphId parent, NodeId owner,
                      std::string symbol_prefix, Scope* outer, int depth, const std::string& where);
  /// `position`: scratch of nodes_.size() entries, all 0xffffffff on entry and on return.
  void sort_graph(GraphId g, std::vector<std::uint32_t>& position);
  void collect_captures(NodeId n);
  std::uint32_t op_kind(std::string_view domain, std::string_view op_type, std::int64_t opset);

  const Model* model_;
  NodeOrder order_;
  std::vector<std::uint32_t> runtime_numbers_;
  std::vector<NodeId> main_by_number_;
  std::vector<GraphEntry> graphs_;
  std::vector<NodeEntry> nodes_;
  std::vector<ValueEntry> values_;
  std::vector<std::unique_ptr<ValueId[]>> io_blocks_;  ///< what NodeEntry::inputs/outputs view
  std::unique_ptr<Index> index_;
  std::vector<std::string> warnings_;
};

/// "node 3 'mm' (MatMul)" or "node 3 (MatMul)": how messages name a node.
std::string describe_node(const GraphView& graph, NodeId id);

}  // namespace cctx
