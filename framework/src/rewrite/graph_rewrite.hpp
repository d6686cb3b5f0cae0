// A runtime's graph rewrites applied to a model's main graph before it is analysed: the graph a
// runtime really runs is what the later stages plan (docs/design/rewrites.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cctx/compute_context.hpp"
#include "cctx/model.hpp"

namespace onnx {
class GraphProto;
class NodeProto;
class TensorShapeProto;
}  // namespace onnx

namespace cctx {

struct RewriteRule;

/// What rules may ask about a value of the model before the rewrites (as ONNX Runtime resolves
/// it: ONNX's inference), beyond what constants say themselves: its element type
/// (TensorProto::DataType, 0 when unknown) and rank (-1 when unknown). Asked only by the rules
/// that test them (`x{rank=3}`, builtin:same_type_casts), so whatever computes the answers runs
/// only then. A value a rewrite made has neither.
struct ValueTypeQuery {
  std::function<std::int32_t(std::string_view)> elem_type;
  std::function<std::int32_t(std::string_view)> rank;
  /// The value's shape as the inference gives it, or nullptr.
  std::function<const onnx::TensorShapeProto*(std::string_view)> shape;
};

/// The model with the rewrites applied, made without copying what they leave alone (as
/// InlinedModel is): initializers, inputs, outputs, value_info and every node whose inputs did
/// not change are the original's messages, borrowed; the original must outlive this.
class RewrittenModel {
 public:
  explicit RewrittenModel(Model model);
  RewrittenModel(const RewrittenModel&) = delete;
  RewrittenModel& operator=(const RewrittenModel&) = delete;
  ~RewrittenModel();

  const Model& model() const { return model_; }
  /// Where a node of model() came from, or nullptr for a node of the original model.
  const RewriteOrigin* origin(const onnx::NodeProto* node) const;
  const RewriteSummary& summary() const { return summary_; }
  /// Per node of the main graph, in the order written: the runtime's number for it (ONNX
  /// Runtime's NodeIndex: the original's file position, the nodes its optimiser adds numbered
  /// after all others in the order made), which its default execution order follows.
  std::span<const std::uint32_t> runtime_numbers() const { return numbers_; }

 private:
  friend std::unique_ptr<RewrittenModel> rewrite_model(
      const Model& model, std::span<const std::shared_ptr<const RewriteRule>> rules,
      const ValueTypeQuery& types);
  std::unique_ptr<onnx::GraphProto> owned_;  ///< its node list owns the new and copied nodes
  Model model_;
  std::unordered_map<const onnx::NodeProto*, RewriteOrigin> origins_;
  RewriteSummary summary_;
  std::vector<std::uint32_t> numbers_;
};

/// `model` with `rules` applied to its main graph, in order, each over every node, the list
/// repeated until nothing changes (at most 5 times). Returns nullptr, having copied nothing,
/// when no rule matches. A match replaces nodes only when every value it removes is read by
/// the matched nodes alone and is neither a graph output nor read inside a body. `types` answers
/// the rules' questions about values (empty functions: every type and rank unknown).
std::unique_ptr<RewrittenModel> rewrite_model(
    const Model& model, std::span<const std::shared_ptr<const RewriteRule>> rules,
    const ValueTypeQuery& types = {});

}  // namespace cctx
