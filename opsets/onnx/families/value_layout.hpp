// Rearranging the small integer values exporters compute shapes with (expressions.md "Shape-value
// propagation") when they are multi-dimensional: PyTorch's F.pad export reshapes its pads to [n,
// 2], reverses the rows with a Slice of step -1 and transposes them before flattening.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

/// The dims of `s` as integers; false for an unknown rank or a symbolic dim.
inline bool value_dims(const Shape& s, std::vector<std::int64_t>* dims) {
  if (!s.known) return false;
  dims->clear();
  for (const Dim& d : s.dims) {
    std::int64_t v;
    if (!d.get_int(&v) || v < 0) return false;
    dims->push_back(v);
  }
  return true;
}

/// Row-major elements of a value of concrete `dims` picked per output axis j: output axis j
/// walks source axis `source[j]` at the positions `picks[j]`. Empty picks give no elements.
inline std::vector<Dim> pick_elements(const std::vector<Dim>& values,
                                      const std::vector<std::int64_t>& dims,
                                      const std::vector<std::size_t>& source,
                                      const std::vector<std::vector<std::int64_t>>& picks) {
  const std::size_t rank = dims.size();
  std::vector<std::int64_t> stride(rank, 1);
  for (std::size_t a = rank; a-- > 1;) stride[a - 1] = stride[a] * dims[a];
  std::vector<Dim> result;
  for (const auto& p : picks) {
    if (p.empty()) return result;
  }
  std::vector<std::size_t> at(rank, 0);
  for (;;) {
    std::int64_t flat = 0;
    for (std::size_t j = 0; j < rank; ++j) flat += picks[j][at[j]] * stride[source[j]];
    result.push_back(values[static_cast<std::size_t>(flat)]);
    std::size_t j = rank;
    while (j > 0 && ++at[j - 1] == picks[j - 1].size()) at[--j] = 0;
    if (j == 0) return result;
  }
}

}  // namespace cctx::opsets::onnx
