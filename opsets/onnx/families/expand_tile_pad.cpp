// Expand, Tile and Pad (the indexing family): the operators that grow their data input, by
// broadcasting, repeating or padding it, with the values of the small shape tensors they grow
// (expressions.md, Shape-value propagation). None runs in place (each copies), so none has an
// in-place policy.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "indexing_helpers.hpp"
#include "indexing_rules.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

// ---- Expand, Tile, Pad --------------------------------------------------------------------------

/// Row-major broadcast of a value from concrete `from` dims to concrete `to` dims (numpy rules).
bool broadcast_value(const std::vector<Dim>& values, const std::vector<std::int64_t>& from,
                     const std::vector<std::int64_t>& to, std::vector<Dim>* result) {
  const std::int64_t total = capped_count(to, kMaxValueElements);
  if (total < 0 || from.size() > to.size()) return false;
  const std::size_t offset = to.size() - from.size();
  result->clear();
  for (std::int64_t flat = 0; flat < total; ++flat) {
    std::int64_t rest = flat, src = 0, stride = 1;
    for (std::size_t k = to.size(); k-- > 0;) {
      const std::int64_t coord = rest % to[k];
      rest /= to[k];
      if (k < offset) continue;
      const std::int64_t f = from[k - offset];
      src += (f == 1 ? 0 : coord) * stride;
      stride *= f;
    }
    if (src >= static_cast<std::int64_t>(values.size())) return false;
    result->push_back(values[static_cast<std::size_t>(src)]);
  }
  return true;
}

Status expand(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  const std::int32_t dtype = node.input_dtype(0);
  Shape in = input_shape(node, 0);
  std::vector<Dim> target;
  if (!input_values(node, 1, &target)) {
    // Unknown target of known length: the aligned dims are data-dependent.
    Shape s = input_shape(node, 1);
    std::int64_t len;
    if (!in.known || !s.known || s.rank() != 1 || !s.dims[0].get_int(&len)) {
      return set_shape(out, 0, dtype, Shape::unknown());
    }
    const std::size_t rank = std::max(in.rank(), static_cast<std::size_t>(len));
    std::vector<Dim> dims(rank);
    for (std::size_t k = 0; k < rank; ++k) {
      if (k < rank - static_cast<std::size_t>(len)) {
        dims[k] = in.dims[k];
      } else {
        dims[k] = fresh(node, out, 0, k, 0, kPosInf);
      }
    }
    return set_shape(out, 0, dtype, Shape::of(dims));
  }
  for (Dim d : target) {
    std::int64_t v;
    if (d.get_int(&v) && v < 0) return fail("shape entry " + std::to_string(v) + " is negative");
  }
  Shape result;
  check(broadcast_shapes(out, in, Shape::of(target), &result));
  check(set_shape(out, 0, dtype, result));
  std::vector<Dim> values, broadcast;
  std::vector<std::int64_t> from, to;
  if (input_values(node, 0, &values) && concrete_dims(in.dims, &from) &&
      concrete_dims(result.dims, &to) && broadcast_value(values, from, to, &broadcast)) {
    return set_value(out, 0, broadcast);
  }
  return Status::kOk;
}

Status tile(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  const std::int32_t dtype = node.input_dtype(0);
  Shape in = known_input(node, out, 0, dtype);
  const auto rank = static_cast<std::int64_t>(in.rank());
  std::vector<Dim> dims = in.dims;
  if (node.opset_version() < 6) {
    // Tile-1: scalar `tiles` copies along the scalar `axis`.
    require_inputs(node, 3);
    std::vector<Dim> tiles;
    std::vector<std::int64_t> axis_value;
    std::int64_t axis;
    if (!input_ints(node, 2, &axis_value) || axis_value.size() != 1 ||
        !normalize_axis(axis_value[0], rank, &axis)) {
      for (std::size_t k = 0; k < dims.size(); ++k) dims[k] = fresh(node, out, 0, k, 0, kPosInf);
      return set_shape(out, 0, dtype, Shape::of(dims));
    }
    const auto a = static_cast<std::size_t>(axis);
    dims[a] = input_values(node, 1, &tiles) && tiles.size() == 1
                  ? dims[a] * tiles[0]
                  : fresh(node, out, 0, a, 0, kPosInf);
    return set_shape(out, 0, dtype, Shape::of(dims));
  }
  std::vector<Dim> repeats;
  if (!input_values(node, 1, &repeats)) {
    for (std::size_t k = 0; k < dims.size(); ++k) dims[k] = fresh(node, out, 0, k, 0, kPosInf);
    return set_shape(out, 0, dtype, Shape::of(dims));
  }
  if (static_cast<std::int64_t>(repeats.size()) != rank) {
    return fail("repeats has " + std::to_string(repeats.size()) + " entries for rank " +
                std::to_string(rank));
  }
  for (std::size_t k = 0; k < dims.size(); ++k) {
    std::int64_t r;
    if (repeats[k].get_int(&r) && r < 0)
      return fail("repeat " + std::to_string(r) + " is negative");
    dims[k] = dims[k] * repeats[k];
  }
  check(set_shape(out, 0, dtype, Shape::of(dims)));
  // Value of a tiled 1-D tensor.
  std::vector<Dim> values;
  std::int64_t r;
  if (rank == 1 && input_values(node, 0, &values) && repeats[0].get_int(&r) &&
      static_cast<std::int64_t>(values.size()) * r <= kMaxValueElements) {
    std::vector<Dim> result;
    for (std::int64_t k = 0; k < r; ++k) result.insert(result.end(), values.begin(), values.end());
    return set_value(out, 0, result);
  }
  return Status::kOk;
}

/// Pad: pads from the `paddings` (1) / `pads` (2-10) attribute or input 1 (>= 11), restricted to
/// the `axes` input (>= 18). out = d + begin + end; a proven negative result is an error.
Status pad(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const std::int32_t dtype = node.input_dtype(0);
  Shape in = known_input(node, out, 0, dtype);
  const auto rank = static_cast<std::int64_t>(in.rank());
  std::vector<Dim> pads;
  bool pads_known = true;
  if (node.opset_version() < 11) {
    std::vector<std::int64_t> attr;
    const char* name = node.opset_version() < 2 ? "paddings" : "pads";
    if (!attr_ints_vec(node, name, &attr))
      return fail(std::string("missing '") + name + "' attribute");
    for (std::int64_t v : attr) pads.push_back(node.constant(v));
  } else {
    require_inputs(node, 2);
    pads_known = input_values(node, 1, &pads);
  }
  std::vector<std::int64_t> axes;
  bool axes_known = true;
  if (node.opset_version() >= 18 && node.has_input(3)) {
    axes_known = input_ints(node, 3, &axes);
    if (axes_known) normalize_axes(&axes, rank);
  } else {
    for (std::int64_t k = 0; k < rank; ++k) axes.push_back(k);
  }
  std::vector<Dim> dims = in.dims;
  if (!axes_known) {
    for (std::size_t k = 0; k < dims.size(); ++k) dims[k] = fresh(node, out, 0, k, 0, kPosInf);
    return set_shape(out, 0, dtype, Shape::of(dims));
  }
  if (!pads_known) {
    for (std::int64_t a : axes) {
      dims[static_cast<std::size_t>(a)] =
          fresh(node, out, 0, static_cast<std::size_t>(a), 0, kPosInf);
    }
    return set_shape(out, 0, dtype, Shape::of(dims));
  }
  const std::size_t n = axes.size();
  if (pads.size() != 2 * n) {
    return fail("pads has " + std::to_string(pads.size()) + " entries for " + std::to_string(n) +
                " axes");
  }
  for (std::size_t k = 0; k < n; ++k) {
    const auto a = static_cast<std::size_t>(axes[k]);
    Dim d = in.dims[a] + pads[k] + pads[k + n];
    if (d.lift(0).provably_gt(d)) {
      return fail("padding gives axis " + std::to_string(a) + " the negative size " + to_string(d));
    }
    dims[a] = d;
  }
  check(set_shape(out, 0, dtype, Shape::of(dims)));

  // Value of a constant-padded 1-D tensor (exporters pad shape vectors with 1s).
  std::vector<Dim> values;
  std::int64_t before, after;
  if (rank != 1 || attr_string_or(node, "mode", "constant") != "constant" ||
      !input_values(node, 0, &values) || !pads[0].get_int(&before) || !pads[1].get_int(&after)) {
    return Status::kOk;
  }
  Dim fill = node.constant(0);
  if (node.opset_version() < 11) {
    const float v = node.attr_float_or("value", 0.0f);
    if (v != static_cast<float>(static_cast<std::int64_t>(v))) return Status::kOk;
    fill = node.constant(static_cast<std::int64_t>(v));
  } else if (node.has_input(2)) {
    std::vector<Dim> c;
    if (!input_values(node, 2, &c) || c.size() != 1) return Status::kOk;
    fill = c[0];
  }
  const auto len = static_cast<std::int64_t>(values.size());
  if (len + before + after < 0 || len + before + after > kMaxValueElements) return Status::kOk;
  std::vector<Dim> result;
  for (std::int64_t i = -before; i < len + after; ++i) {
    result.push_back(i >= 0 && i < len ? values[static_cast<std::size_t>(i)] : fill);
  }
  return set_value(out, 0, result);
}

}  // namespace

constinit const FnShapeRule kExpand{&expand};
constinit const FnShapeRule kTile{&tile};
constinit const FnShapeRule kPad{&pad};

}  // namespace cctx::opsets::onnx
