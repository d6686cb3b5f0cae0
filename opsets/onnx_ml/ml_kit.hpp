// Helpers shared by the ai.onnx.ml rules: the domain, attribute lengths (the class and target
// counts of these operators live in attributes, not in input shapes), the batch dimension of the
// classic [N, F] / [F] inputs, and output setters that tolerate omitted optional outputs.
#pragma once

#include <cctx/sdk/kit.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace cctx::opsets::onnx_ml {

using namespace cctx::sdk;
using namespace cctx::sdk::kit;

inline constexpr StringRef kDomain("ai.onnx.ml");
/// Unbounded upper end of a fresh symbol's range.
inline constexpr std::int64_t kPosInf = INT64_MAX;

// ---- messages -----------------------------------------------------------------------------------

inline void warn(IShapeSink& out, const std::string& message) {
  out.warn(StringRef(message.data(), message.size()));
}

// ---- attributes ---------------------------------------------------------------------------------

/// Element count of a list attribute (INTS, FLOATS, STRINGS) or of a tensor attribute (the
/// `*_as_tensor` and opset-4/5 forms); -1 when the attribute is absent or of another type.
inline std::int64_t attr_length(const INodeView& node, const char* name) {
  const StringRef key = StringRef::from_c_str(name);
  switch (node.attribute_type(key)) {
    case AttrType::kInts: {
      Span<std::int64_t> s;
      return node.attr_ints(key, &s) ? static_cast<std::int64_t>(s.size) : -1;
    }
    case AttrType::kFloats: {
      Span<float> s;
      return node.attr_floats(key, &s) ? static_cast<std::int64_t>(s.size) : -1;
    }
    case AttrType::kStrings:
      return static_cast<std::int64_t>(node.attr_strings_count(key));
    case AttrType::kTensor: {
      TensorAttr t;
      if (!node.attr_tensor(key, &t)) return -1;
      std::int64_t count = 1;
      for (std::int64_t d : t.dims) count *= d;
      return count;
    }
    default:
      return -1;
  }
}

/// True when a list attribute is present with at least one element: the spec's "is set" for
/// `classlabels_*`, `cats_*`, `values_*` (an empty list selects nothing).
inline bool attr_set(const INodeView& node, const char* name) {
  return attr_length(node, name) > 0;
}

/// Element type of a tensor attribute, or dtype::kUndefined when absent.
inline std::int32_t attr_tensor_dtype(const INodeView& node, const char* name) {
  TensorAttr t;
  return node.attr_tensor(StringRef::from_c_str(name), &t) ? t.dtype : dtype::kUndefined;
}

/// Class labels of a classifier: `classlabels_strings` wins (the spec's using_strings), else the
/// integer list, whose attribute name differs between operators.
struct ClassLabels {
  std::int32_t dtype = dtype::kInt64;  ///< element type of the predicted-label output
  std::int64_t count = 0;              ///< number of labels; 0 when neither list is set
};

inline ClassLabels class_labels(const INodeView& node, const char* ints_attr) {
  if (std::int64_t n = attr_length(node, "classlabels_strings"); n > 0) return {dtype::kString, n};
  std::int64_t n = attr_length(node, ints_attr);
  return {dtype::kInt64, n > 0 ? n : 0};
}

// ---- inputs and outputs -------------------------------------------------------------------------

/// Requires input 0 (every ai.onnx.ml operator reads X first).
inline void require_x(const INodeView& node) {
  if (node.input_count() == 0 || !node.has_input(0)) fail("expects input X");
}

/// Rows N of an input that is [N, F], or [F] read as one row (the spec's rule for the classifier,
/// regressor and vectorizer inputs). An unknown rank gives a fresh symbol on output 0, axis 0,
/// which the caller reuses for every output so that they share it.
inline Status batch_rows(const INodeView& node, IShapeSink& out, std::uint32_t input, Dim* n) {
  const std::int32_t rank = node.input_rank(input);
  if (rank == 1) {
    *n = node.constant(1);
  } else if (rank == 2) {
    *n = node.input_dim(input, 0);
  } else if (rank < 0) {
    *n = Dim(&node.expr(), out.fresh_dim(0, 0, 0, kPosInf));
  } else {
    return fail("expects X of shape [N,F] or [F], got rank " + std::to_string(rank));
  }
  return Status::kOk;
}

/// Sets output `o` to a tensor of `dims`, unless the node does not list it: a classifier node that
/// names only its label output still gets that shape instead of an out-of-range failure.
inline Status set_tensor_output(const INodeView& node, IShapeSink& out, std::uint32_t o,
                                std::int32_t type, std::vector<Dim> dims) {
  if (o >= node.output_count() || !node.has_output(o)) return Status::kOk;
  return set_shape(out, o, type, Shape::of(std::move(dims)));
}

}  // namespace cctx::opsets::onnx_ml
