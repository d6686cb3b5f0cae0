// Quantization operators of com.microsoft (ContribOperators.md): QuantizeLinear (y = x's shape, of
// the zero point's type, uint8 without one), DequantizeLinear (y = x's shape, of the scale's type)
// and GatherBlockQuantized (Gather on block-quantized data, dequantized to the scales' type).
#include <string>
#include <vector>

#include "families.hpp"
#include "ms_kit.hpp"

namespace cctx::opsets::microsoft {

namespace {

/// Per-axis parameters (attribute `axis`) are 1-D with x's length on that axis.
bool check_per_axis(const INodeView& node, IShapeSink& out, const Shape& x, std::string* error) {
  std::int64_t raw, axis;
  if (!x.known || !node.attr_int("axis", &raw)) return true;
  if (!normalize_axis(raw, static_cast<std::int64_t>(x.rank()), &axis)) {
    *error = "axis " + std::to_string(raw) + " out of range for rank " + std::to_string(x.rank());
    return false;
  }
  for (std::uint32_t i : {1u, 2u}) {
    Shape p;
    if (!known_shape(node, i, &p, 1)) continue;  // scalars broadcast over the axis
    Dim unified;
    if (!unify(out, x.dims[static_cast<std::size_t>(axis)], p.dims[0], &unified, error)) {
      *error = std::string(i == 1 ? "scale" : "zero point") + " length differs from axis " +
               std::to_string(axis) + ": " + *error;
      return false;
    }
  }
  return true;
}

Status quantize_linear(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  const Shape x = input_shape(node, 0);
  std::string error;
  if (!check_per_axis(node, out, x, &error)) return fail(error);
  return set_shape(out, 0, dtype_or(node, 2, dtype::kUint8), x);
}

Status dequantize_linear(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  const Shape x = input_shape(node, 0);
  std::string error;
  if (!check_per_axis(node, out, x, &error)) return fail(error);
  return set_shape(out, 0, dtype_or(node, 1, dtype::kFloat), x);
}

/// data[:g] + indices.shape + data[g+1:] with g = gather_axis (default 0). uint8 data packs
/// 8 / bits values per byte along its last dim, so that dim is unpacked in the output.
Status gather_block_quantized(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 3);
  const std::int32_t type = dtype_or(node, 2, dtype::kFloat);
  const Shape data = input_shape(node, 0), indices = input_shape(node, 1);
  if (!data.known || !indices.known) return set_shape(out, 0, type, Shape::unknown());
  const auto rank = static_cast<std::int64_t>(data.rank());
  const std::int64_t raw = node.attr_int_or("gather_axis", 0);
  std::int64_t axis;
  if (rank == 0 || !normalize_axis(raw, rank, &axis)) {
    return fail("gather_axis " + std::to_string(raw) + " out of range for rank " +
                std::to_string(rank));
  }
  std::vector<Dim> dims(data.dims.begin(), data.dims.begin() + axis);
  dims.insert(dims.end(), indices.dims.begin(), indices.dims.end());
  const std::size_t tail = dims.size();
  dims.insert(dims.end(), data.dims.begin() + axis + 1, data.dims.end());
  if (node.input_dtype(0) == dtype::kUint8 && dims.size() > tail) {
    const std::int64_t bits = node.attr_int_or("bits", 4);
    if (bits != 2 && bits != 4 && bits != 8) {
      return fail("bits " + std::to_string(bits) + " is not 2, 4 or 8");
    }
    dims.back() = dims.back() * (8 / bits);
  }
  return set_shape(out, 0, type, Shape::of(std::move(dims)));
}

constinit const FnShapeRule kQuantizeLinear{&quantize_linear};
constinit const FnShapeRule kDequantizeLinear{&dequantize_linear};
constinit const FnShapeRule kGatherBlockQuantized{&gather_block_quantized};

}  // namespace

void register_quantization(Registration& reg) {
  reg.shape("QuantizeLinear", 1, kQuantizeLinear);
  reg.shape("DequantizeLinear", 1, kDequantizeLinear);
  reg.shape("GatherBlockQuantized", 1, kGatherBlockQuantized);
  // A Gather: a weight result makes its data weight (semantics.md "Tags: Per-node rule" step 7).
  TagTraits gather_like;
  gather_like.backward = TagBackward::kInput0;
  reg.tags("GatherBlockQuantized", gather_like);
}

}  // namespace cctx::opsets::microsoft
