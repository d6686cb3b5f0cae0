// The host's implementation of sdk::INodeView over the graph view and the shapes inferred so far.
#pragma once

#include <cctx/sdk/node_view.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cctx/op_schema.hpp"
#include "model/graph_index.hpp"
#include "pipeline/analysis_state.hpp"
#include "pipeline/expr_bridge.hpp"

namespace onnx {
class AttributeProto;
}

namespace cctx {

class HostNodeView final : public sdk::INodeView {
 public:
  HostNodeView(const Analysis& analysis, const ShapeResult& shapes, ExprBridge& bridge,
               NodeId node);
  /// Adds the attributes the rule read to Analysis::attributes_read, when it is recorded.
  ~HostNodeView();
  HostNodeView(const HostNodeView&) = delete;
  HostNodeView& operator=(const HostNodeView&) = delete;

  sdk::StringRef op_type() const noexcept override;
  sdk::StringRef domain() const noexcept override;
  sdk::StringRef name() const noexcept override;
  std::int64_t opset_version() const noexcept override;
  std::int64_t node_index() const noexcept override;
  const sdk::ExprApi& expr() const noexcept override;

  std::uint32_t input_count() const noexcept override;
  std::uint32_t output_count() const noexcept override;
  bool has_input(std::uint32_t i) const noexcept override;
  bool has_output(std::uint32_t i) const noexcept override;
  sdk::StringRef input_name(std::uint32_t i) const noexcept override;
  sdk::StringRef output_name(std::uint32_t i) const noexcept override;
  sdk::ValueKind input_kind(std::uint32_t i) const noexcept override;
  std::int32_t input_dtype(std::uint32_t i) const noexcept override;
  std::int32_t input_rank(std::uint32_t i) const noexcept override;
  std::uint32_t input_dim_handle(std::uint32_t i, std::uint32_t axis) const noexcept override;
  std::int32_t input_value_size(std::uint32_t i) const noexcept override;
  std::uint32_t input_value_handle(std::uint32_t i, std::uint32_t k) const noexcept override;
  bool input_float_values(std::uint32_t i, sdk::Span<double>* out) const noexcept override;
  bool input_is_constant(std::uint32_t i) const noexcept override;

  sdk::AttrType attribute_type(sdk::StringRef name) const noexcept override;
  bool attr_int(sdk::StringRef name, std::int64_t* out) const noexcept override;
  bool attr_float(sdk::StringRef name, float* out) const noexcept override;
  bool attr_string(sdk::StringRef name, sdk::StringRef* out) const noexcept override;
  bool attr_ints(sdk::StringRef name, sdk::Span<std::int64_t>* out) const noexcept override;
  bool attr_floats(sdk::StringRef name, sdk::Span<float>* out) const noexcept override;
  std::uint32_t attr_strings_count(sdk::StringRef name) const noexcept override;
  bool attr_string_at(sdk::StringRef name, std::uint32_t k,
                      sdk::StringRef* out) const noexcept override;
  bool attr_tensor(sdk::StringRef name, sdk::TensorAttr* out) const noexcept override;
  std::int32_t attr_graph_inputs(sdk::StringRef name) const noexcept override;
  std::int32_t attr_graph_outputs(sdk::StringRef name) const noexcept override;
  std::int32_t input_sequence_length(std::uint32_t i) const noexcept override;
  std::int32_t input_element_rank(std::uint32_t i, std::uint32_t k) const noexcept override;
  std::uint32_t input_element_dim_handle(std::uint32_t i, std::uint32_t k,
                                         std::uint32_t axis) const noexcept override;
  bool input_sequence_length_handle(std::uint32_t i, std::uint32_t* out) const noexcept override;
  bool input_fraction_handles(std::uint32_t i, std::uint32_t* count, const std::uint32_t** nums,
                              const std::uint32_t** dens) const noexcept override;
  bool input_float_handles(std::uint32_t i, std::uint32_t* count,
                           const std::uint32_t** terms) const noexcept override;

  NodeId id() const { return node_; }
  /// The node's attributes as the graph view keeps them (read without marking them read).
  std::span<const AttributeKey> attribute_keys() const;

  /// An attribute the rule asked for that the node does not have, when the node has one of
  /// nearly the same name that the rule never read ("num_head" where the node says
  /// "num_heads"): "attribute 'num_head', which the node does not have (did you mean
  /// 'num_heads'?)". Empty when there is none. Read after the rule returns.
  std::string attribute_slips() const;

 private:
  /// "input 1 'X'", or "input 3, which the node does not have".
  std::string describe_input(std::uint32_t i) const;
  const AttributeKey* find_key(sdk::StringRef name) const noexcept;
  const onnx::AttributeProto* find(sdk::StringRef name) const noexcept;
  /// The declared default of attribute `name` when the node's schema gives it one of `type`:
  /// what a rule reads for an attribute the node omits (schema.hpp).
  const SchemaAttribute* declared_default(sdk::StringRef name, sdk::AttrType type) const noexcept;
  ValueId input_value_id(std::uint32_t i) const noexcept;
  /// Element k of sequence input i when its length is known, else nullptr.
  const ElementShape* input_element(std::uint32_t i, std::uint32_t k) const noexcept;

  const Analysis& state_;
  const ShapeResult& shapes_;
  ExprBridge& bridge_;
  NodeId node_;
  const NodeEntry& entry_;
  const OpSchema* schema_;  ///< the node's declared contract, or null
  // Decoded tensor attribute storage, valid until the next attr_tensor call.
  mutable std::vector<std::int64_t> tensor_dims_;
  mutable std::vector<std::int64_t> tensor_ints_;
  mutable std::vector<double> tensor_floats_;
  // What input_fraction_handles handed out, valid until the rule returns. The arrays stay where
  // they are while later inputs are read: a vector's elements move when it grows, their heap
  // arrays do not. (A deque, which allocates when made, cost 30k pairs of allocations on a
  // 10k-node graph, one per view.)
  mutable std::vector<std::vector<std::uint32_t>> fraction_handles_;
  mutable std::vector<std::vector<std::uint32_t>> float_handles_;  // input_float_handles
  // Which of the node's attributes the rule read (bit k: the k-th, the first 64), and the names
  // it asked for that the node does not have: attribute_slips().
  mutable std::uint64_t attributes_read_ = 0;
  mutable std::vector<std::string> attributes_missed_;
};

}  // namespace cctx
