// A runtime's graph rewrites applied to a model's main graph before it is analysed: the graph a
// runtime really runs is what the later stages plan (docs/design/rewrites.md).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cctx/compute_context.hpp"
#include "cctx/model.hpp"

namespace onnx {
class GraphProto;
class NodeProto;
}  // namespace onnx

namespace cctx {

struct RewriteRule;

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

 private:
  friend std::unique_ptr<RewrittenModel> rewrite_model(
      const Model& model, std::span<const std::shared_ptr<const RewriteRule>> rules);
  std::unique_ptr<onnx::GraphProto> owned_;  ///< its node list owns the new and copied nodes
  Model model_;
  std::unordered_map<const onnx::NodeProto*, RewriteOrigin> origins_;
  RewriteSummary summary_;
};

/// `model` with `rules` applied to its main graph, in order, each over every node, the list
/// repeated until nothing changes (at most 5 times). Returns nullptr, having copied nothing,
/// when no rule matches. A match replaces nodes only when every value it removes is read by
/// the matched nodes alone and is neither a graph output nor read inside a body.
std::unique_ptr<RewrittenModel> rewrite_model(
    const Model& model, std::span<const std::shared_ptr<const RewriteRule>> rules);

}  // namespace cctx
