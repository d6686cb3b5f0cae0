// The types of a model's values as ONNX Runtime sees them when it resolves the graph: ONNX's own
// shape inference, without data propagation (it does no arithmetic on dim names and computes no
// shape tensors). One analysis, computed on first use and shared: the runtime's rewrites test
// element types and ranks with it, and the free-list planner compares sizes with it.
#pragma once

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "cctx/model.hpp"

namespace cctx {

class RuntimeTypes {
 public:
  /// ONNX's inference over `model` (the linked onnx library; the model crosses serialized,
  /// without the tensor payloads skipped at load), plus the initializers' own types. Nullopt
  /// when the inference fails as a whole. Throws only when the library cannot be opened (an
  /// error of the installation, not of the model).
  static std::optional<RuntimeTypes> infer(const Model& model);

  /// The value's type, or nullptr when the inference gave it none.
  const onnx::TypeProto* find(std::string_view name) const;
  /// The value's shape, or nullptr when the inference gave it none (no rank either).
  const onnx::TensorShapeProto* shape(std::string_view name) const;
  /// The value's element type (TensorProto::DataType), or 0 when unknown.
  std::int32_t elem_type(std::string_view name) const;
  /// The value's rank, or -1 when unknown: the inference's, else one carried through the
  /// operators whose output rank ONNX Runtime's own (newer) inference knows where the linked
  /// library's gives no shape at all (a Reshape to a computed shape of known length, then
  /// Transpose, MatMul, elementwise and normalising operators after it).
  std::int32_t rank(std::string_view name) const;

 private:
  void carry_ranks(const onnx::GraphProto& g);
  std::int32_t known_rank(const std::string& name) const;
  /// The length of a 1-D value (a shape operand) when the inference knows it, else -1.
  std::int32_t shape_length(const std::string& name) const;

  std::unordered_map<std::string, onnx::TypeProto> types_;
  std::unordered_map<std::string, std::int32_t> carried_ranks_;  ///< values without a shape
};

}  // namespace cctx
