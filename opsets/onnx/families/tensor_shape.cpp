// Shape-manipulating operators: Shape, Size, Reshape, Flatten, Squeeze, Unsqueeze, Transpose,
// Cast, CastLike, BitCast (expressions.md "Symbolic shape inference rules (ai.onnx plugin)"), with
// their value propagation (expressions.md "Shape-value propagation").
#include <algorithm>
#include <string>

#include "families.hpp"
#include "float_fractions.hpp"
#include "float_terms.hpp"
#include "integral_floats.hpp"
#include "rule_kit.hpp"
#include "value_layout.hpp"

namespace cctx::opsets::onnx {

namespace {

/// Passes input 0's known value through unchanged (a reshape of a small tensor keeps its
/// row-major element list).
void keep_value(const INodeView& node, IShapeSink& out) {
  std::vector<Dim> values;
  if (input_values(node, 0, &values)) set_value(out, 0, values);
}

Status shape_op(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  Shape s = input_shape(node, 0);
  if (!s.known) {
    Dim len(&node.expr(), out.fresh_dim(0, 0, 0, kMaxRank));
    return set_shape(out, 0, dtype::kInt64, Shape::of({len}));
  }
  const auto rank = static_cast<std::int64_t>(s.rank());
  std::int64_t start = node.attr_int_or("start", 0), end = node.attr_int_or("end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<std::int64_t>(start, 0, rank);
  end = std::clamp<std::int64_t>(end, 0, rank);
  std::vector<Dim> values;
  for (std::int64_t k = start; k < end; ++k) values.push_back(s.dims[static_cast<std::size_t>(k)]);
  check(set_shape(out, 0, dtype::kInt64,
                  Shape::of({node.constant(static_cast<std::int64_t>(values.size()))})));
  return set_value(out, 0, values);
}

Status size_op(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  check(set_shape(out, 0, dtype::kInt64, Shape::of({})));
  Shape s = input_shape(node, 0);
  if (s.known) return set_value(out, 0, {product(node, s.dims, 0, s.rank())});
  return Status::kOk;
}

Status reshape(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const std::int32_t dtype = node.input_dtype(0);
  Shape in = input_shape(node, 0);
  std::vector<Dim> target;
  if (node.opset_version() < 5) {
    std::vector<std::int64_t> attr;
    if (!attr_ints_vec(node, "shape", &attr)) return fail("missing 'shape' attribute");
    for (std::int64_t v : attr) target.push_back(node.constant(v));
  } else {
    require_inputs(node, 2);
    if (!input_values(node, 1, &target)) {
      // Unknown value of known length L: L fresh dims; else unknown rank.
      Shape shape_in = input_shape(node, 1);
      std::int64_t len;
      if (shape_in.known && shape_in.rank() == 1 && shape_in.dims[0].get_int(&len) && len >= 0) {
        std::vector<Dim> dims;
        for (std::int64_t k = 0; k < len; ++k) {
          dims.emplace_back(&node.expr(),
                            out.fresh_dim(0, static_cast<std::uint32_t>(k), 0, kPosInf));
        }
        check(set_shape(out, 0, dtype, Shape::of(dims)));
        keep_value(node, out);
        return Status::kOk;
      }
      return set_shape(out, 0, dtype, Shape::unknown());
    }
  }
  const bool allowzero = node.attr_int_or("allowzero", 0) != 0;
  std::vector<Dim> dims(target.size());
  std::ptrdiff_t infer_at = -1;
  for (std::size_t k = 0; k < target.size(); ++k) {
    std::int64_t v;
    if (!target[k].get_int(&v)) {
      dims[k] = target[k];
      if (!target[k].provably_ge(target[k].lift(1))) {
        out.constraint(ConstraintKind::kLe, node.constant(1).handle(), target[k].handle(), 0);
      }
      continue;
    }
    if (v == 0 && !allowzero) {
      if (!in.known) {
        dims[k] = Dim(&node.expr(), out.fresh_dim(0, static_cast<std::uint32_t>(k), 0, kPosInf));
      } else if (k >= in.rank()) {
        return fail("shape entry " + std::to_string(k) + " is 0 (copy) but the input has rank " +
                    std::to_string(in.rank()));
      } else {
        dims[k] = in.dims[k];
      }
    } else if (v == -1) {
      if (infer_at >= 0) return fail("shape has more than one -1");
      infer_at = static_cast<std::ptrdiff_t>(k);
    } else if (v < -1) {
      return fail("invalid shape entry " + std::to_string(v));
    } else {
      dims[k] = target[k];
    }
  }
  if (infer_at >= 0) {
    const auto at = static_cast<std::size_t>(infer_at);
    if (!in.known) {
      dims[at] = Dim(&node.expr(), out.fresh_dim(0, static_cast<std::uint32_t>(at), 0, kPosInf));
    } else {
      Dim total = product(node, in.dims, 0, in.rank());
      Dim known = node.constant(1);
      for (std::size_t k = 0; k < dims.size(); ++k) {
        if (k != at) known = known * dims[k];
      }
      std::int64_t t, kn;
      const bool concrete = total.get_int(&t) && known.get_int(&kn);
      if (concrete && kn == 0) return fail("cannot infer -1: the other dims multiply to 0");
      if (concrete && t % kn != 0) {
        return fail("cannot reshape " + std::to_string(t) + " elements into a multiple of " +
                    std::to_string(kn));
      }
      if (known.is(0)) return fail("cannot infer -1: the other dims multiply to 0");
      dims[at] = exact_div(total, known);
    }
  }
  check(set_shape(out, 0, dtype, Shape::of(dims)));
  keep_value(node, out);
  return Status::kOk;
}

Status flatten(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  Shape in = input_shape(node, 0);
  const std::int32_t dtype = node.input_dtype(0);
  if (!in.known) return set_shape(out, 0, dtype, Shape::unknown());
  const auto rank = static_cast<std::int64_t>(in.rank());
  std::int64_t axis = node.attr_int_or("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) return fail("axis out of range for rank " + std::to_string(rank));
  const auto a = static_cast<std::size_t>(axis);
  check(set_shape(out, 0, dtype,
                  Shape::of({product(node, in.dims, 0, a), product(node, in.dims, a, in.rank())})));
  keep_value(node, out);
  return Status::kOk;
}

/// Axes from the attribute (opset < 13) or input 1 (opset >= 13). False when unknown.
bool read_axes(const INodeView& node, bool* present, std::vector<std::int64_t>* axes) {
  *present = false;
  if (node.opset_version() < 13) {
    *present = attr_ints_vec(node, "axes", axes);
    return true;
  }
  if (!node.has_input(1)) return true;
  *present = true;
  return input_ints(node, 1, axes);
}

Status squeeze(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  Shape in = input_shape(node, 0);
  const std::int32_t dtype = node.input_dtype(0);
  bool present;
  std::vector<std::int64_t> axes;
  if (!read_axes(node, &present, &axes) || !in.known)
    return set_shape(out, 0, dtype, Shape::unknown());
  const auto rank = static_cast<std::int64_t>(in.rank());
  std::vector<bool> drop(in.rank(), false);
  if (present) {
    for (std::int64_t a : axes) {
      std::int64_t axis;
      if (!normalize_axis(a, rank, &axis))
        return fail("axis " + std::to_string(a) + " out of range");
      Dim d = in.dims[static_cast<std::size_t>(axis)];
      std::int64_t v;
      if (d.get_int(&v) && v != 1) {
        return fail("cannot squeeze axis " + std::to_string(a) + " of size " + std::to_string(v));
      }
      if (!d.is(1)) out.constraint(ConstraintKind::kEq, d.handle(), d.lift(1).handle(), 0);
      drop[static_cast<std::size_t>(axis)] = true;
    }
  } else {
    for (std::size_t k = 0; k < in.rank(); ++k) {
      if (in.dims[k].is(1)) {
        drop[k] = true;
      } else if (!in.dims[k].is_const()) {
        out.constraint(ConstraintKind::kNe, in.dims[k].handle(), in.dims[k].lift(1).handle(), 0);
      }
    }
  }
  std::vector<Dim> dims;
  for (std::size_t k = 0; k < in.rank(); ++k) {
    if (!drop[k]) dims.push_back(in.dims[k]);
  }
  check(set_shape(out, 0, dtype, Shape::of(dims)));
  keep_value(node, out);
  return Status::kOk;
}

Status unsqueeze(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  Shape in = input_shape(node, 0);
  const std::int32_t dtype = node.input_dtype(0);
  bool present;
  std::vector<std::int64_t> axes;
  if (!read_axes(node, &present, &axes) || !in.known)
    return set_shape(out, 0, dtype, Shape::unknown());
  if (!present) return fail("missing axes");
  const auto out_rank = static_cast<std::int64_t>(in.rank() + axes.size());
  std::vector<bool> is_new(static_cast<std::size_t>(out_rank), false);
  for (std::int64_t a : axes) {
    std::int64_t axis;
    if (!normalize_axis(a, out_rank, &axis))
      return fail("axis " + std::to_string(a) + " out of range");
    if (is_new[static_cast<std::size_t>(axis)]) return fail("duplicate axis " + std::to_string(a));
    is_new[static_cast<std::size_t>(axis)] = true;
  }
  std::vector<Dim> dims;
  std::size_t next = 0;
  for (std::int64_t k = 0; k < out_rank; ++k) {
    dims.push_back(is_new[static_cast<std::size_t>(k)] ? node.constant(1) : in.dims[next++]);
  }
  check(set_shape(out, 0, dtype, Shape::of(dims)));
  keep_value(node, out);
  return Status::kOk;
}

Status transpose(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  Shape in = input_shape(node, 0);
  const std::int32_t dtype = node.input_dtype(0);
  if (!in.known) return set_shape(out, 0, dtype, Shape::unknown());
  std::vector<std::int64_t> perm;
  if (!attr_ints_vec(node, "perm", &perm)) {
    for (std::size_t k = in.rank(); k-- > 0;) perm.push_back(static_cast<std::int64_t>(k));
  }
  if (perm.size() != in.rank()) return fail("perm has the wrong length");
  std::vector<bool> used(in.rank(), false);
  std::vector<Dim> dims;
  for (std::int64_t p : perm) {
    std::int64_t axis;
    if (!normalize_axis(p, static_cast<std::int64_t>(in.rank()), &axis) ||
        used[static_cast<std::size_t>(axis)]) {
      return fail("perm is not a permutation");
    }
    used[static_cast<std::size_t>(axis)] = true;
    dims.push_back(in.dims[static_cast<std::size_t>(axis)]);
  }
  check(set_shape(out, 0, dtype, Shape::of(dims)));
  // Value (expressions.md "Shape-value propagation"): the elements of a value of concrete dims,
  // permuted.
  std::vector<Dim> values;
  std::vector<std::int64_t> in_dims;
  if (!input_values(node, 0, &values) || !value_dims(in, &in_dims)) return Status::kOk;
  std::int64_t total = 1;
  for (std::int64_t d : in_dims) total *= d;
  if (total != static_cast<std::int64_t>(values.size())) return Status::kOk;
  std::vector<std::size_t> source;
  std::vector<std::vector<std::int64_t>> picks;
  for (std::int64_t p : perm) {
    std::int64_t axis = 0;
    if (!normalize_axis(p, static_cast<std::int64_t>(in.rank()), &axis)) return Status::kOk;
    source.push_back(static_cast<std::size_t>(axis));
    picks.emplace_back();
    for (std::int64_t i = 0; i < in_dims[static_cast<std::size_t>(axis)]; ++i)
      picks.back().push_back(i);
  }
  return set_value(out, 0, pick_elements(values, in_dims, source, picks));
}

/// 1 for a nonzero value, 0 for zero; false when neither is proven.
bool bool_of(Dim v, Dim* out) {
  const Dim zero = v.lift(0);
  if (v.is(0)) {
    *out = zero;
  } else if (v.provably_ne(zero)) {
    *out = v.lift(1);
  } else {
    return false;
  }
  return true;
}

/// Cast of a floating value held as fractions (float_fractions.hpp): to an integer type it
/// truncates toward zero, to bool it tests for zero, to a floating type an exact fraction stays
/// when the new type holds it.
Status cast_fractions(const INodeView& node, IShapeSink& out, std::int32_t to) {
  std::vector<Fraction> fractions;
  if (!input_fractions(node, 0, &fractions)) {
    cast_terms(node, out, to);  // a computation a fraction cannot hold (float_terms.hpp)
    return Status::kOk;
  }
  std::vector<Dim> integers;
  for (Fraction& f : fractions) {
    Dim v;
    if (to == dtype::kBool) {
      if (!bool_of(f.num, &v)) return Status::kOk;
    } else if (to == dtype::kInt64 || to == dtype::kInt32) {
      std::int64_t x;
      if (!trunc_of(f, &v)) {
        cast_terms(node, out, to);  // a numerator of unknown sign: the runtime's truncation
        return Status::kOk;
      }
      if (to == dtype::kInt32 && v.get_int(&x) && (x < INT32_MIN || x > INT32_MAX)) {
        return Status::kOk;
      }
    } else if (dtype::is_float(to) && is_power_of_two(f.den) && settle_fraction(out, to, &f)) {
      continue;
    } else {
      cast_terms(node, out, to);  // a rounded quotient in another type
      return Status::kOk;
    }
    integers.push_back(v);
  }
  if (!integers.empty()) return set_value(out, 0, integers);
  set_fractions(out, 0, fractions);
  return Status::kOk;
}

Status cast(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  std::int32_t to = node.is_op("CastLike") ? node.input_dtype(1)
                                           : static_cast<std::int32_t>(node.attr_int_or("to", 0));
  check(set_shape(out, 0, to, input_shape(node, 0)));
  std::vector<Dim> values;
  if (!exact_input_values(node, 0, &values)) return cast_fractions(node, out, to);
  if (to == dtype::kBool) {
    // Nonzero is true; a symbolic element needs its sign known.
    for (Dim& v : values) {
      if (!bool_of(v, &v)) return Status::kOk;
    }
    return set_value(out, 0, values);
  }
  if (to == dtype::kInt64 || to == dtype::kInt32) {
    if (to == dtype::kInt32) {
      for (Dim v : values) {
        std::int64_t x;
        if (v.get_int(&x) && (x < INT32_MIN || x > INT32_MAX)) return Status::kOk;
      }
    }
    return set_value(out, 0, values);
  }
  // Integers survive a cast to a floating type that holds them exactly.
  if (exact_in_float(out, to, values)) return set_value(out, 0, values);
  return Status::kOk;
}

/// Storage width in bits of an element type, 0 when unknown here (string, plugin codes).
std::int64_t element_bits(std::int32_t code) {
  switch (code) {
    case dtype::kUint2:
    case dtype::kInt2:
      return 2;
    case dtype::kUint4:
    case dtype::kInt4:
    case dtype::kFloat4E2M1:
      return 4;
    default:
      break;
  }
  std::int64_t bytes = 0;
  return element_bytes(code, &bytes) ? bytes * 8 : 0;
}

/// BitCast (26): the input's shape in type `to`, which must have the input's bit width (the
/// bytes are reinterpreted, never converted). No value: the bits of an integer mean another
/// number in the new type.
Status bitcast(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  std::int64_t to = 0;
  if (!node.attr_int("to", &to)) return fail("attribute 'to' is required");
  const auto target = static_cast<std::int32_t>(to);
  if (target == dtype::kString || node.input_dtype(0) == dtype::kString) {
    return fail("string tensors cannot be bit-cast");
  }
  const std::int64_t from_bits = element_bits(node.input_dtype(0));
  const std::int64_t to_bits = element_bits(target);
  if (from_bits != 0 && to_bits != 0 && from_bits != to_bits) {
    return fail("'to' must have the input's bit width: " + std::to_string(from_bits) + " vs " +
                std::to_string(to_bits) + " bits");
  }
  return set_shape(out, 0, target, input_shape(node, 0));
}

constinit const FnShapeRule kShape{&shape_op};
constinit const FnShapeRule kSize{&size_op};
constinit const FnShapeRule kReshape{&reshape};
constinit const FnShapeRule kFlatten{&flatten};
constinit const FnShapeRule kSqueeze{&squeeze};
constinit const FnShapeRule kUnsqueeze{&unsqueeze};
constinit const FnShapeRule kTranspose{&transpose};
constinit const FnShapeRule kCast{&cast};
constinit const FnShapeRule kBitCast{&bitcast};

}  // namespace

void register_tensor_shape(Registration& reg) {
  // Rules that read the opset version themselves are registered once per behaviour change so
  // that `cctx plugins` shows the versions covered.
  // 23, 24 and 25 only widen the element types (float4e2m1, float8e8m0, int2/uint2): the same
  // rule, registered again so that the coverage table lists every version
  // (docs/opsets-24-27.md).
  reg.shape("Shape", {1, 13, 15, 19, 21, 23, 24, 25}, kShape);
  reg.shape("Size", {1, 13, 19, 21, 23, 24, 25}, kSize);
  reg.shape("Reshape", {1, 5, 13, 14, 19, 21, 23, 24, 25}, kReshape);
  reg.shape("Flatten", {1, 9, 11, 13, 21, 23, 24, 25}, kFlatten);
  reg.shape("Squeeze", {1, 11, 13, 21, 23, 24, 25}, kSqueeze);
  reg.shape("Unsqueeze", {1, 11, 13, 21, 23, 24, 25}, kUnsqueeze);
  reg.shape("Transpose", {1, 13, 21, 23, 24, 25}, kTranspose);
  reg.shape("Cast", {1, 6, 9, 13, 19, 21, 23, 24, 25}, kCast);
  reg.shape("CastLike", {15, 19, 21, 23, 24, 25}, kCast);
  reg.shape("BitCast", 26, kBitCast);
}

}  // namespace cctx::opsets::onnx
