// Reductions (expressions.md "Symbolic shape inference rules (ai.onnx plugin)"): Reduce* with axes
// from the attribute (ReduceSum <= 12, others
// <= 17) or from input 1, keepdims and noop_with_empty_axes; ArgMax/ArgMin. ReduceSum/Prod/Max/
// Min fold a known 1-D value (expressions.md "Shape-value propagation"). Every Reduce* has zero
// scratch (semantics.md "Peak scratch memory").
#include <algorithm>

#include "families.hpp"
#include "integral_floats.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

/// Which axes a reduction removes, as far as the node tells.
struct ReducedAxes {
  enum class Kind { kAll, kNone, kListed, kUnknown };
  Kind kind = Kind::kAll;
  std::vector<std::int64_t> listed;  ///< kListed: axes as written (possibly negative)
  std::int64_t unknown_count = -1;   ///< kUnknown: number of axes when the input's length is known
};

/// The first opset whose `op` takes its axes from input 1 instead of the attribute.
std::int64_t axes_input_since(const INodeView& node) { return node.is_op("ReduceSum") ? 13 : 18; }

/// Reads the axes. An empty list means "all axes" unless noop_with_empty_axes (input form only)
/// makes the node an identity.
ReducedAxes read_reduced_axes(const INodeView& node) {
  ReducedAxes r;
  const bool from_input = node.opset_version() >= axes_input_since(node);
  if (!from_input) {
    attr_ints_vec(node, "axes", &r.listed);
  } else if (node.has_input(1) && !input_ints(node, 1, &r.listed)) {
    r.kind = ReducedAxes::Kind::kUnknown;
    Shape axes_shape = input_shape(node, 1);
    std::int64_t n;
    if (axes_shape.known && axes_shape.rank() == 1 && axes_shape.dims[0].get_int(&n)) {
      r.unknown_count = n;
    }
    // A 0-length axes input is an empty list even without a known value.
    if (r.unknown_count != 0) return r;
    r.kind = ReducedAxes::Kind::kAll;
  }
  if (!r.listed.empty()) {
    r.kind = ReducedAxes::Kind::kListed;
  } else if (from_input && node.attr_int_or("noop_with_empty_axes", 0) != 0) {
    r.kind = ReducedAxes::Kind::kNone;
  }
  return r;
}

/// A fresh dim for an output axis whose source input dim is unknown, bounded by the dims it may
/// stand for (`candidates`, plus 1 when the axis may have been kept as 1).
Dim fresh_covering(const INodeView& node, IShapeSink& out, std::uint32_t axis,
                   const std::vector<Dim>& candidates, bool may_be_one) {
  std::int64_t lo = may_be_one ? 1 : kPosInf, hi = may_be_one ? 1 : 0;
  for (Dim d : candidates) {
    std::int64_t l, h;
    d.bounds(&l, &h);
    lo = std::min(lo, l);
    hi = std::max(hi, h);
  }
  return Dim(&node.expr(), out.fresh_dim(0, axis, std::max<std::int64_t>(lo, 0), hi));
}

/// Output shape when the axes are listed: reduced axes become 1 (keepdims) or disappear.
Shape listed_shape(const Shape& in, const std::vector<std::int64_t>& axes, bool keepdims) {
  const auto rank = static_cast<std::int64_t>(in.rank());
  std::vector<bool> reduced(in.rank(), false);
  for (std::int64_t a : axes) {
    std::int64_t axis;
    if (!normalize_axis(a, rank, &axis))
      fail("axis " + std::to_string(a) + " out of range for rank " + std::to_string(rank));
    if (reduced[static_cast<std::size_t>(axis)]) fail("duplicate axis " + std::to_string(a));
    reduced[static_cast<std::size_t>(axis)] = true;
  }
  std::vector<Dim> dims;
  for (std::size_t k = 0; k < in.rank(); ++k) {
    if (!reduced[k]) {
      dims.push_back(in.dims[k]);
    } else if (keepdims) {
      dims.push_back(in.dims[k].lift(1));
    }
  }
  return Shape::of(std::move(dims));
}

/// Output shape when the axes input has no known value: keepdims keeps the rank (each dim is its
/// input dim or 1), otherwise a known number of axes still fixes the rank.
Shape unknown_axes_shape(const INodeView& node, IShapeSink& out, const Shape& in,
                         const ReducedAxes& axes, bool keepdims) {
  if (!in.known) return Shape::unknown();
  std::vector<Dim> dims;
  if (keepdims) {
    for (std::size_t k = 0; k < in.rank(); ++k) {
      dims.push_back(in.dims[k].is(1) ? in.dims[k]
                                      : fresh_covering(node, out, static_cast<std::uint32_t>(k),
                                                       {in.dims[k]}, true));
    }
    return Shape::of(std::move(dims));
  }
  const auto rank = static_cast<std::int64_t>(in.rank());
  if (axes.unknown_count < 1 || axes.unknown_count > rank) return Shape::unknown();
  for (std::int64_t k = 0; k < rank - axes.unknown_count; ++k) {
    // Output axis k keeps one of the input axes k..k+count.
    std::vector<Dim> candidates(in.dims.begin() + k, in.dims.begin() + k + axes.unknown_count + 1);
    dims.push_back(fresh_covering(node, out, static_cast<std::uint32_t>(k), candidates, false));
  }
  return Shape::of(std::move(dims));
}

/// Folds a 1-D (or scalar) known value when every axis is reduced (expressions.md "Shape-value
/// propagation"); small floating constants of exact integers count, and a floating sum or product
/// keeps its value only while its type holds it exactly.
void fold_value(const INodeView& node, IShapeSink& out, const Shape& in, bool all_reduced) {
  std::vector<Dim> values;
  if (!all_reduced || !in.known || in.rank() > 1 || !exact_input_values(node, 0, &values)) return;
  const ExprApi& api = node.expr();
  std::vector<std::uint32_t> h = handles(values);
  const auto n = static_cast<std::uint32_t>(h.size());
  Dim folded;
  if (node.is_op("ReduceSum")) {
    folded = node.constant(0);
    for (Dim v : values) folded += v;
  } else if (node.is_op("ReduceProd")) {
    folded = node.constant(1);
    for (Dim v : values) folded *= v;
  } else if ((node.is_op("ReduceMax") || node.is_op("ReduceMin")) && n > 0) {
    const ExprOp op = node.is_op("ReduceMax") ? ExprOp::kMax : ExprOp::kMin;
    folded = n == 1 ? values[0] : Dim(&api, api.nary(api.pool, op, h.data(), n));
  } else {
    return;
  }
  const std::int32_t dtype = node.input_dtype(0);
  if (dtype::is_float(dtype) && !exact_in_float(out, dtype, {folded})) return;
  set_value(out, 0, {folded});
}

Status reduce(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const std::int32_t dtype = node.input_dtype(0);
  const Shape in = input_shape(node, 0);
  const bool keepdims = node.attr_int_or("keepdims", 1) != 0;
  const ReducedAxes axes = read_reduced_axes(node);
  Shape result;
  bool all_reduced = false;
  switch (axes.kind) {
    case ReducedAxes::Kind::kNone:
      result = in;
      break;
    case ReducedAxes::Kind::kAll:
      all_reduced = true;
      if (!keepdims) {
        result = Shape::of({});  // a scalar whatever the input rank
      } else if (in.known) {
        result = Shape::of(std::vector<Dim>(in.rank(), node.constant(1)));
      }
      break;
    case ReducedAxes::Kind::kListed:
      if (in.known) {
        result = listed_shape(in, axes.listed, keepdims);
        all_reduced = in.rank() <= 1;
      }
      break;
    case ReducedAxes::Kind::kUnknown:
      result = unknown_axes_shape(node, out, in, axes, keepdims);
      break;
  }
  check(set_shape(out, 0, dtype, result));
  if (axes.kind == ReducedAxes::Kind::kNone) {
    std::vector<Dim> values;
    if (exact_input_values(node, 0, &values)) set_value(out, 0, values);
  } else {
    fold_value(node, out, in, all_reduced);
  }
  return Status::kOk;
}

Status arg_reduce(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const Shape in = known_input(node, out, 0, dtype::kInt64);
  const std::int64_t a = node.attr_int_or("axis", 0);
  return set_shape(out, 0, dtype::kInt64,
                   listed_shape(in, {a}, node.attr_int_or("keepdims", 1) != 0));
}

Status zero_scratch(const INodeView& node, IScratchSink& out) {
  return out.set_bytes(node.constant(0));
}

constinit const FnShapeRule kReduce{&reduce};
constinit const FnShapeRule kArgReduce{&arg_reduce};
constinit const FnScratchEstimator kZeroScratch{&zero_scratch};

}  // namespace

void register_reduce(Registration& reg) {
  // Versions where the axes move from the attribute to input 1 (ReduceSum 13, others 18) or the
  // types change; one rule reads opset_version() for the axes.
  reg.shape("ReduceSum", {1, 11, 13}, kReduce);
  for (const char* op : {"ReduceMean", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
                         "ReduceLogSumExp", "ReduceSumSquare"}) {
    reg.shape(op, {1, 11, 13, 18}, kReduce);
  }
  for (const char* op : {"ReduceMax", "ReduceMin"}) reg.shape(op, {1, 11, 12, 13, 18, 20}, kReduce);
  for (const char* op : {"ArgMax", "ArgMin"}) reg.shape(op, {1, 11, 12, 13}, kArgReduce);
  for (const char* op :
       {"ReduceSum", "ReduceMean", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
        "ReduceLogSumExp", "ReduceSumSquare", "ReduceMax", "ReduceMin"}) {
    reg.scratch(op, 1, kZeroScratch);
  }
}

}  // namespace cctx::opsets::onnx
