// Generators (expressions.md "Symbolic shape inference rules (ai.onnx plugin)" and "Shape-value
// propagation"): Constant, ConstantOfShape, Range, EyeLike and OneHot. Their output shapes come
// from attributes or from the values of small integer inputs, and integer results small enough
// carry their value.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "families.hpp"
#include "integral_floats.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

constexpr std::int64_t kMaxValueElements = 64;

/// The single element of input i as a double when it is a small floating constant.
bool scalar_float(const INodeView& node, std::uint32_t i, double* out) {
  Span<double> v;
  if (!node.has_input(i) || !node.input_float_values(i, &v) || v.size != 1) return false;
  *out = v[0];
  return true;
}

Status set_ints(IShapeSink& out, const INodeView& node, const Shape& shape,
                const std::int64_t* values, std::size_t count) {
  check(set_shape(out, 0, dtype::kInt64, shape));
  if (count > static_cast<std::size_t>(kMaxValueElements)) return Status::kOk;
  std::vector<Dim> v;
  for (std::size_t k = 0; k < count; ++k) v.push_back(node.constant(values[k]));
  return set_value(out, 0, v);
}

/// Constant: exactly one of value, value_int(s), value_float(s), value_string(s), sparse_value.
/// Integer payloads propagate as values.
Status constant(const INodeView& node, IShapeSink& out) {
  TensorAttr t;
  if (node.attr_tensor(StringRef("value"), &t)) {
    std::vector<Dim> dims;
    for (std::int64_t d : t.dims) {
      if (d < 0) return fail("'value' has a negative dim");
      dims.push_back(node.constant(d));
    }
    check(set_shape(out, 0, t.dtype, Shape::of(dims)));
    if (t.int_values.data != nullptr && dtype::carries_values(t.dtype)) {
      std::vector<Dim> values;
      for (std::int64_t v : t.int_values) values.push_back(node.constant(v));
      return set_value(out, 0, values);
    }
    return Status::kOk;
  }
  std::int64_t i;
  if (node.attr_int(StringRef("value_int"), &i)) return set_ints(out, node, Shape::of({}), &i, 1);
  Span<std::int64_t> ints;
  if (node.attribute_type(StringRef("value_ints")) != AttrType::kNone &&
      node.attr_ints(StringRef("value_ints"), &ints)) {
    return set_ints(out, node, Shape::of({node.constant(static_cast<std::int64_t>(ints.size))}),
                    ints.data, ints.size);
  }
  if (node.attribute_type(StringRef("value_float")) == AttrType::kFloat) {
    return set_shape(out, 0, dtype::kFloat, Shape::of({}));
  }
  Span<float> floats;
  if (node.attribute_type(StringRef("value_floats")) != AttrType::kNone &&
      node.attr_floats(StringRef("value_floats"), &floats)) {
    return set_shape(out, 0, dtype::kFloat,
                     Shape::of({node.constant(static_cast<std::int64_t>(floats.size))}));
  }
  if (node.attribute_type(StringRef("value_string")) == AttrType::kString) {
    return set_shape(out, 0, dtype::kString, Shape::of({}));
  }
  if (node.attribute_type(StringRef("value_strings")) == AttrType::kStrings) {
    const auto n = static_cast<std::int64_t>(node.attr_strings_count(StringRef("value_strings")));
    return set_shape(out, 0, dtype::kString, Shape::of({node.constant(n)}));
  }
  if (node.attribute_type(StringRef("sparse_value")) != AttrType::kNone) {
    // The SDK does not expose a sparse tensor's dims: leaving the output unset hands the node to
    // the fallbacks (ONNX schema inference reads `sparse_value.dims`).
    return Status::kOk;
  }
  return fail("Constant has no value attribute");
}

/// ConstantOfShape: the shape is input 0's value; integer fills of concrete size <= 64 carry the
/// filled value.
Status constant_of_shape(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  TensorAttr t;
  const bool has_value = node.attr_tensor(StringRef("value"), &t);
  const std::int32_t dtype = has_value ? t.dtype : dtype::kFloat;
  std::vector<Dim> dims;
  if (!input_values(node, 0, &dims)) {
    Shape s = input_shape(node, 0);
    std::int64_t len;
    if (!s.known || s.rank() != 1 || !s.dims[0].get_int(&len) || len < 0) {
      return set_shape(out, 0, dtype, Shape::unknown());
    }
    for (std::int64_t k = 0; k < len; ++k)
      dims.push_back(fresh(node, out, 0, static_cast<std::size_t>(k), 0, kPosInf));
    return set_shape(out, 0, dtype, Shape::of(dims));
  }
  // Element count, saturated just above the value limit (-1 when symbolic).
  std::int64_t count = 1;
  bool concrete = true;
  for (Dim d : dims) {
    std::int64_t v;
    if (!d.get_int(&v)) {
      concrete = false;
      continue;
    }
    if (v < 0) return fail("shape entry " + std::to_string(v) + " is negative");
    count = v == 0 ? 0 : (count > kMaxValueElements / v ? kMaxValueElements + 1 : count * v);
  }
  check(set_shape(out, 0, dtype, Shape::of(dims)));
  if (concrete && count <= kMaxValueElements && has_value && dtype::carries_values(dtype) &&
      t.int_values.size == 1) {
    return set_value(
        out, 0, std::vector<Dim>(static_cast<std::size_t>(count), node.constant(t.int_values[0])));
  }
  return Status::kOk;
}

/// Input i as an integer: its value, or its floating constant when that is an exact integer.
Dim integer_scalar(const INodeView& node, std::uint32_t i) {
  Dim v = scalar_value(node, i);
  double f;
  if (!v.valid() && scalar_float(node, i, &f) && f == std::floor(f) && std::fabs(f) < 9.0e18) {
    v = node.constant(static_cast<std::int64_t>(f));
  }
  return v;
}

/// Input i as a double: its floating constant or its concrete integer value.
bool concrete_scalar(const INodeView& node, std::uint32_t i, double* out) {
  if (scalar_float(node, i, out)) return true;
  const Dim v = scalar_value(node, i);
  std::int64_t k;
  if (!v.valid() || !v.get_int(&k)) return false;
  *out = static_cast<double>(k);
  return true;
}

/// Range: n = max(0, CeilToInt(limit - start, delta)) when every input is an integer (a value,
/// or a floating constant or value that is an exact integer) and delta is a literal != 0; start
/// and limit may be symbolic. Otherwise computed from concrete inputs, else a fresh length.
/// Results of concrete length <= 64 carry their value (floating ones while exact).
Status range(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 3);
  const std::int32_t dtype = node.input_dtype(0);
  const Dim start = integer_scalar(node, 0), limit = integer_scalar(node, 1);
  const Dim delta = integer_scalar(node, 2);
  std::int64_t step;
  if (start.valid() && limit.valid() && delta.valid() && delta.get_int(&step)) {
    if (step == 0) return fail("delta is 0");
    const Dim n = max(ceil_div(limit - start, step), node.constant(0));
    check(set_shape(out, 0, dtype, Shape::of({n})));
    std::int64_t count;
    if (n.get_int(&count) && count <= kMaxValueElements) {
      std::vector<Dim> values;
      for (std::int64_t k = 0; k < count; ++k) values.push_back(start + k * step);
      if (dtype::is_float(dtype) && !exact_in_float(out, dtype, values)) return Status::kOk;
      return set_value(out, 0, values);
    }
    return Status::kOk;
  }
  double fs, fl, fd;
  if (concrete_scalar(node, 0, &fs) && concrete_scalar(node, 1, &fl) &&
      concrete_scalar(node, 2, &fd)) {
    if (fd == 0.0) return fail("delta is 0");
    const double n = std::ceil((fl - fs) / fd);
    if (!std::isfinite(n) || n > 9.0e18) return fail("Range length is not finite");
    const auto count = static_cast<std::int64_t>(std::max(0.0, n));
    return set_shape(out, 0, dtype, Shape::of({node.constant(count)}));
  }
  return set_shape(out, 0, dtype, Shape::of({fresh(node, out, 0, 0, 0, kPosInf)}));
}

/// EyeLike: the 2-D input's shape, dtype from the `dtype` attribute or the input.
Status eye_like(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  Shape in = input_shape(node, 0);
  if (in.known && in.rank() != 2) return fail("input must be 2-D");
  const auto dtype = static_cast<std::int32_t>(node.attr_int_or("dtype", node.input_dtype(0)));
  return set_shape(out, 0, dtype, in);
}

/// OneHot: the indices' shape with `depth` inserted at `axis` (default -1, relative to the
/// output rank); depth from input 1's value (integer, maybe symbolic) or float constant.
Status one_hot(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 3);
  const std::int32_t dtype = node.input_dtype(2);
  Shape indices = known_input(node, out, 0, dtype);
  const auto out_rank = static_cast<std::int64_t>(indices.rank()) + 1;
  const std::int64_t axis_attr = node.attr_int_or("axis", -1);
  std::int64_t axis;
  if (!normalize_axis(axis_attr, out_rank, &axis)) {
    return fail("axis " + std::to_string(axis_attr) + " out of range for rank " +
                std::to_string(out_rank));
  }
  const auto a = static_cast<std::size_t>(axis);
  Dim depth = scalar_value(node, 1);
  double fdepth;
  if (!depth.valid() && scalar_float(node, 1, &fdepth)) {
    if (!std::isfinite(fdepth) || fdepth > 9.0e18 || fdepth < -9.0e18)
      return fail("depth is not finite");
    depth = node.constant(static_cast<std::int64_t>(fdepth));  // the runtime truncates
  }
  std::int64_t dv;
  if (depth.valid() && depth.get_int(&dv) && dv < 0)
    return fail("depth is negative (" + std::to_string(dv) + ")");
  if (!depth.valid()) depth = fresh(node, out, 0, a, 0, kPosInf);
  std::vector<Dim> dims = indices.dims;
  dims.insert(dims.begin() + axis, depth);
  return set_shape(out, 0, dtype, Shape::of(dims));
}

constinit const FnShapeRule kConstant{&constant};
constinit const FnShapeRule kConstantOfShape{&constant_of_shape};
constinit const FnShapeRule kRange{&range};
constinit const FnShapeRule kEyeLike{&eye_like};
constinit const FnShapeRule kOneHot{&one_hot};

}  // namespace

void register_generators(Registration& reg) {
  reg.shape("Constant", {1, 9, 11, 12, 13, 19, 21, 23, 24, 25}, kConstant);
  reg.shape("ConstantOfShape", {9, 20, 21, 23, 24, 25}, kConstantOfShape);
  // Range 27 admits float16 and bfloat16 (and stash_type); the length formula is unchanged.
  reg.shape("Range", {11, 27}, kRange);
  reg.shape("EyeLike", {9, 22}, kEyeLike);
  reg.shape("OneHot", {9, 11}, kOneHot);
}

}  // namespace cctx::opsets::onnx
