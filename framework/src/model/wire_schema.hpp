// The few paths of ONNX's wire format that lead to tensors, for the walkers that skip tensor
// payloads on load (structure_parse) and put them back on save (payload_splice). Everything off
// these paths is copied as bytes, unread: the walkers know message boundaries, not the format.
// Field numbers are onnx.proto's (stable across IR versions).
#pragma once

#include <cstdint>

namespace cctx::detail::wire {

/// The messages on a path to a TensorProto; kOther is any message the walkers copy as bytes.
enum class Msg : std::uint8_t {
  kOther,
  kModel,
  kGraph,
  kNode,
  kAttribute,
  kTensor,
  kSparseTensor,
  kFunction,
  kTrainingInfo,
};

/// The message a length-delimited `field` of `parent` holds when it is on a path to tensors.
constexpr Msg child(Msg parent, std::uint32_t field) {
  switch (parent) {
    case Msg::kModel:  // graph, training_info, functions
      return field == 7    ? Msg::kGraph
             : field == 20 ? Msg::kTrainingInfo
             : field == 25 ? Msg::kFunction
                           : Msg::kOther;
    case Msg::kTrainingInfo:  // initialization, algorithm
      return field == 1 || field == 2 ? Msg::kGraph : Msg::kOther;
    case Msg::kGraph:  // node, initializer, sparse_initializer
      return field == 1    ? Msg::kNode
             : field == 5  ? Msg::kTensor
             : field == 15 ? Msg::kSparseTensor
                           : Msg::kOther;
    case Msg::kNode:  // attribute
      return field == 5 ? Msg::kAttribute : Msg::kOther;
    case Msg::kAttribute:  // t, g, tensors, graphs, sparse_tensor, sparse_tensors
      return field == 5 || field == 10    ? Msg::kTensor
             : field == 6 || field == 11  ? Msg::kGraph
             : field == 22 || field == 23 ? Msg::kSparseTensor
                                          : Msg::kOther;
    case Msg::kSparseTensor:  // values, indices
      return field == 1 || field == 2 ? Msg::kTensor : Msg::kOther;
    case Msg::kFunction:  // node, attribute_proto (default values may be tensors)
      return field == 7 ? Msg::kNode : field == 11 ? Msg::kAttribute : Msg::kOther;
    case Msg::kTensor:
    case Msg::kOther:
      return Msg::kOther;
  }
  return Msg::kOther;
}

/// TensorProto.dims.
inline constexpr std::uint32_t kTensorDims = 1;

/// The field cctx puts in a TensorProto in place of the payload it skipped: a varint, the index
/// of the skipped fields in the model's payload table. The largest field number protobuf allows,
/// far from any ONNX will use; one already present in a file counts as payload itself (it is
/// skipped and written back as it was), so every marker in a loaded model is cctx's.
inline constexpr std::uint32_t kPayloadMarker = (1U << 29) - 1;

/// TensorProto's data fields: float_data, int32_data, string_data, int64_data, raw_data,
/// double_data, uint64_data, and the marker.
constexpr bool is_payload(std::uint32_t field) {
  return (field >= 4 && field <= 7) || field == 9 || field == 10 || field == 11 ||
         field == kPayloadMarker;
}

}  // namespace cctx::detail::wire
