// Decoding small TensorProto payloads (initializers, Constant attributes) into numbers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace onnx {
class TensorProto;
}

namespace cctx {

/// Number of elements (product of dims; 1 for a scalar). -1 on overflow or a negative dim.
std::int64_t tensor_element_count(const onnx::TensorProto& t);

/// Integer contents of an integer or bool tensor with at most `max_elements` elements, from the
/// typed fields or raw_data. False for other types, external data, data
/// Model::load left in the file, or a size mismatch.
bool tensor_int_values(const onnx::TensorProto& t, std::size_t max_elements,
                       std::vector<std::int64_t>* out);

/// Contents of a float/double/float16/bfloat16 tensor as doubles (same conditions).
bool tensor_float_values(const onnx::TensorProto& t, std::size_t max_elements,
                         std::vector<double>* out);

}  // namespace cctx
