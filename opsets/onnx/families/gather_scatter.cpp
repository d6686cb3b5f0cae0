// Gather and scatter (the indexing family): Gather, GatherElements, GatherND, Scatter,
// ScatterElements, ScatterND and TensorScatter, with the values of the small integer tensors
// exporters gather shapes from (expressions.md, Shape-value propagation), and the in-place
// policies of the scatter kernels, whose output is the data tensor with some elements replaced.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "indexing_helpers.hpp"
#include "indexing_rules.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

/// Wraps a concrete index into [0, n) (negative counts from the end); false when out of range.
bool wrap_index(std::int64_t i, std::int64_t n, std::int64_t* out) {
  if (i < -n || i >= n) return false;
  *out = i < 0 ? i + n : i;
  return true;
}

// ---- Gather family ------------------------------------------------------------------------------

Status gather(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  const std::int32_t dtype = node.input_dtype(0);
  Shape data = input_shape(node, 0), indices = input_shape(node, 1);
  if (!data.known || !indices.known) return set_shape(out, 0, dtype, Shape::unknown());
  const auto rank = static_cast<std::int64_t>(data.rank());
  if (rank == 0) return fail("data must have rank >= 1");
  const std::int64_t axis = read_axis(node, "axis", 0, rank);
  const auto a = static_cast<std::size_t>(axis);
  std::vector<Dim> dims(data.dims.begin(), data.dims.begin() + axis);
  dims.insert(dims.end(), indices.dims.begin(), indices.dims.end());
  dims.insert(dims.end(), data.dims.begin() + axis + 1, data.dims.end());
  check(set_shape(out, 0, dtype, Shape::of(dims)));

  // Concrete indices against a concrete axis: out of range is a proven error.
  std::vector<std::int64_t> index_values;
  if (!input_ints(node, 1, &index_values)) return Status::kOk;
  std::int64_t axis_len;
  const bool axis_known = data.dims[a].get_int(&axis_len);
  if (axis_known) {
    for (std::int64_t& i : index_values) {
      if (!wrap_index(i, axis_len, &i)) {
        return fail("index " + std::to_string(i) + " out of range for axis " +
                    std::to_string(axis) + " of size " + std::to_string(axis_len));
      }
    }
  }
  // Value: elements at the indices (the exporters' Shape -> Gather pattern).
  std::vector<Dim> values;
  std::vector<std::int64_t> ddims;
  if (!axis_known || !input_values(node, 0, &values) || !concrete_dims(data.dims, &ddims)) {
    return Status::kOk;
  }
  std::int64_t outer = 1, inner = 1;
  for (std::size_t k = 0; k < a; ++k) outer *= ddims[k];
  for (std::size_t k = a + 1; k < ddims.size(); ++k) inner *= ddims[k];
  if (static_cast<std::int64_t>(values.size()) != outer * axis_len * inner) return Status::kOk;
  const auto count = static_cast<std::int64_t>(index_values.size());
  if (outer * count * inner > kMaxValueElements) return Status::kOk;
  std::vector<Dim> result;
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t i : index_values) {
      for (std::int64_t n = 0; n < inner; ++n) {
        result.push_back(values[static_cast<std::size_t>((o * axis_len + i) * inner + n)]);
      }
    }
  }
  return set_value(out, 0, result);
}

Status gather_elements(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  const std::int32_t dtype = node.input_dtype(0);
  Shape data = input_shape(node, 0), indices = input_shape(node, 1);
  if (data.known && indices.known && data.rank() != indices.rank()) {
    return fail("data has rank " + std::to_string(data.rank()) + " but indices rank " +
                std::to_string(indices.rank()));
  }
  check(set_shape(out, 0, dtype, indices));
  // Value of a 1-D gather.
  std::vector<Dim> values;
  std::vector<std::int64_t> index_values;
  if (!data.known || data.rank() != 1 || !input_values(node, 0, &values) ||
      !input_ints(node, 1, &index_values)) {
    return Status::kOk;
  }
  std::vector<Dim> result;
  const auto n = static_cast<std::int64_t>(values.size());
  for (std::int64_t i : index_values) {
    std::int64_t w;
    if (!wrap_index(i, n, &w)) return fail("index " + std::to_string(i) + " out of range");
    result.push_back(values[static_cast<std::size_t>(w)]);
  }
  return set_value(out, 0, result);
}

Status gather_nd(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  const std::int32_t dtype = node.input_dtype(0);
  Shape data = input_shape(node, 0), indices = input_shape(node, 1);
  if (!data.known || !indices.known) return set_shape(out, 0, dtype, Shape::unknown());
  const std::int64_t b = node.attr_int_or("batch_dims", 0);
  const auto r = static_cast<std::int64_t>(data.rank()),
             q = static_cast<std::int64_t>(indices.rank());
  if (r < 1 || q < 1) return fail("data and indices must have rank >= 1");
  if (b < 0 || b >= std::min(r, q))
    return fail("batch_dims " + std::to_string(b) + " out of range");
  std::int64_t k;
  if (!indices.dims.back().get_int(&k)) return set_shape(out, 0, dtype, Shape::unknown());
  if (k < 1 || b + k > r) {
    return fail("last indices dim " + std::to_string(k) + " with batch_dims " + std::to_string(b) +
                " exceeds the data rank " + std::to_string(r));
  }
  for (std::int64_t i = 0; i < b; ++i) {
    const auto u = static_cast<std::size_t>(i);
    unify(out, data.dims[u], indices.dims[u], "batch dims differ");
  }
  std::vector<Dim> dims(indices.dims.begin(), indices.dims.end() - 1);
  dims.insert(dims.end(), data.dims.begin() + b + k, data.dims.end());
  return set_shape(out, 0, dtype, Shape::of(dims));
}

// ---- Scatter family
// -----------------------------------------------------------------------------

/// Combines an existing element with an update under the node's `reduction`; false when unknown.
bool reduce_update(const std::string& reduction, Dim current, Dim update, Dim* result) {
  if (reduction == "none") {
    *result = update;
  } else if (reduction == "add") {
    *result = current + update;
  } else if (reduction == "mul") {
    *result = current * update;
  } else if (reduction == "max") {
    *result = max(current, update);
  } else if (reduction == "min") {
    *result = min(current, update);
  } else {
    return false;
  }
  return true;
}

/// Scatter, ScatterElements, ScatterND: the output is the data tensor with some elements
/// replaced, so it keeps data's shape. A 1-D data value with concrete indices and known updates
/// is updated.
Status scatter(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 3);
  Shape data = input_shape(node, 0);
  check(set_shape(out, 0, node.input_dtype(0), data));
  std::vector<Dim> values, updates;
  std::vector<std::int64_t> index_values;
  if (!data.known || data.rank() != 1 || !input_values(node, 0, &values) ||
      !input_ints(node, 1, &index_values) || !input_values(node, 2, &updates) ||
      index_values.size() != updates.size()) {
    return Status::kOk;
  }
  if (node.is_op("ScatterND")) {
    Shape indices = input_shape(node, 1);
    if (!indices.known || indices.rank() == 0 || !indices.dims.back().is(1)) return Status::kOk;
  }
  const std::string reduction = attr_string_or(node, "reduction", "none");
  const auto n = static_cast<std::int64_t>(values.size());
  for (std::size_t k = 0; k < index_values.size(); ++k) {
    std::int64_t w;
    if (!wrap_index(index_values[k], n, &w)) {
      return fail("index " + std::to_string(index_values[k]) + " out of range");
    }
    auto& slot = values[static_cast<std::size_t>(w)];
    if (!reduce_update(reduction, slot, updates[k], &slot)) return Status::kOk;
  }
  return set_value(out, 0, values);
}

/// TensorScatter (24): present_cache has past_cache's shape; the update's sequence axis may be
/// shorter than the cache's.
Status tensor_scatter(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  Shape past = input_shape(node, 0), update = input_shape(node, 1);
  if (past.known && update.known) {
    if (past.rank() != update.rank()) return fail("past_cache and update have different ranks");
    const auto rank = static_cast<std::int64_t>(past.rank());
    const std::int64_t axis = read_axis(node, "axis", -2, rank);
    for (std::size_t k = 0; k < past.rank(); ++k) {
      if (static_cast<std::int64_t>(k) == axis) {
        std::int64_t u, p;
        if (update.dims[k].get_int(&u) && past.dims[k].get_int(&p) && u > p) {
          return fail("update sequence length " + std::to_string(u) + " exceeds the cache's " +
                      std::to_string(p));
        }
        assume_le(out, update.dims[k], past.dims[k]);
      } else {
        unify(out, past.dims[k], update.dims[k], "cache and update differ");
      }
    }
  }
  return set_shape(out, 0, node.input_dtype(0), past);
}

// In-place: ONNX Runtime's Scatter/ScatterElements (CPU), ScatterND (CUDA; the CPU kernel skips
// its copy when the buffers coincide) and TensorScatter (CPU) kernels declare MayInplace(0, 0):
// the output is the data tensor with some elements replaced, same dtype and shape. No other op
// of this family is a view or runs in place there (Slice, Expand, Tile, Pad copy), so none gets a
// policy: a wrong alias would under-report memory.
Status reuse_data(const INodeView&, IInplaceSink& out) { return out.may_reuse(0, 0); }

}  // namespace

constinit const FnShapeRule kGather{&gather};
constinit const FnShapeRule kGatherElements{&gather_elements};
constinit const FnShapeRule kGatherND{&gather_nd};
constinit const FnShapeRule kScatter{&scatter};
constinit const FnShapeRule kTensorScatter{&tensor_scatter};
constinit const FnInplacePolicy kReuseData{&reuse_data};

}  // namespace cctx::opsets::onnx
