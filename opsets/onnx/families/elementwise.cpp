// Element-wise operators: unary (same shape), binary and variadic with multidirectional
// broadcasting, comparisons (bool results), Where, and value propagation for integer arithmetic
// (expressions.md "Shape-value propagation").
#include "families.hpp"
#include "float_fractions.hpp"
#include "float_terms.hpp"
#include "integral_floats.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

// ---- unary -------------------------------------------------------------------------------------

/// Whether unary_fractions gives `node` a value from `fractions`: a Round of a symbolic or rounded
/// fraction, and the ops it does not know, leave it to the float terms.
bool fractions_decide(const INodeView& node, const std::vector<Fraction>& fractions) {
  if (node.is_op("Ceil") || node.is_op("Floor") || node.is_op("Neg") || node.is_op("Relu")) {
    return true;
  }
  if (!node.is_op("Round")) return false;
  Dim r;
  for (const Fraction& f : fractions) {
    if (!round_half_even(f, node.input_dtype(0), &r)) return false;
  }
  return true;
}

/// Unary value flow on fractions (float_fractions.hpp): Ceil, Floor and Round give integers, Neg
/// and Relu keep a fraction (and with it its floor and ceiling). Otherwise, on float terms
/// (float_terms.hpp): what a fraction cannot say, such as the Floor of a rounded product.
Status unary_fractions(const INodeView& node, IShapeSink& out) {
  std::vector<Fraction> fractions;
  if (!input_fractions(node, 0, &fractions) || !fractions_decide(node, fractions)) {
    unary_terms(node, out);
    return Status::kOk;
  }
  std::vector<Dim> integers;
  for (Fraction& f : fractions) {
    if (node.is_op("Ceil")) {
      integers.push_back(ceil_of(f));
    } else if (node.is_op("Floor")) {
      integers.push_back(floor_of(f));
    } else if (node.is_op("Round")) {
      Dim r;
      round_half_even(f, node.input_dtype(0), &r);  // fractions_decide: it succeeds
      integers.push_back(r);
    } else if (node.is_op("Neg")) {
      f.num = -f.num;
    } else if (node.is_op("Relu")) {
      f.num = max(f.num, 0);
    } else {
      return Status::kOk;
    }
  }
  if (!integers.empty()) return set_value(out, 0, integers);
  set_fractions(out, 0, fractions);
  return Status::kOk;
}

Status unary_same(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  Shape s = input_shape(node, 0);
  check(set_shape(out, 0, node.input_dtype(0), s));
  // Value flow for tensors of exact integers (integer types, and floating ones whose elements
  // are exact integers): Neg negates, Abs of a non-negative value, Ceil/Floor/Round of an integer
  // are the integer, Sqrt of a concrete perfect square and Reciprocal of +-1 stay integers.
  // Identity passes on only an input's own value: a float weight's copy (PyTorch's shared
  // LayerNorm weights) is no shape arithmetic.
  std::vector<Dim> values;
  if (node.is_op("Identity")) {
    if (input_values(node, 0, &values)) return set_value(out, 0, values);
    return Status::kOk;
  }
  if (!exact_input_values(node, 0, &values)) return unary_fractions(node, out);
  if (node.is_op("Neg")) {
    for (Dim& v : values) v = -v;
  } else if (node.is_op("Relu")) {
    for (Dim& v : values) v = max(v, 0);
  } else if (node.is_op("Abs")) {
    for (Dim& v : values) {
      if (!v.provably_ge(v.lift(0))) return unary_fractions(node, out);  // |v| unknown: a term
    }
  } else if (node.is_op("Sqrt")) {
    for (Dim& v : values) {
      if (!exact_sqrt(v, &v)) return unary_fractions(node, out);  // not a perfect square
    }
  } else if (node.is_op("Reciprocal")) {
    for (Dim v : values) {
      if (!v.is(1) && !v.is(-1)) return unary_fractions(node, out);  // 1/v is not an integer
    }
  } else if (node.is_op("Not")) {
    // A decided condition stays decided through Not (PyTorch's `if x.dim() != 3`).
    for (Dim& v : values) {
      if (!v.is(0) && !v.is(1)) return Status::kOk;
      v = v.lift(v.is(0) ? 1 : 0);
    }
  } else if (!node.is_op("Ceil") && !node.is_op("Floor") && !node.is_op("Round")) {
    return Status::kOk;
  }
  return set_value(out, 0, values);
}

Status unary_bool(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  return set_shape(out, 0, dtype::kBool, input_shape(node, 0));
}

// ---- binary / variadic broadcasting -------------------------------------------------------------

/// Elementwise value propagation over broadcast small tensors with integer values (small floating
/// constants of exact integers included); a floating result keeps its value only while its type
/// holds every element exactly.
/// Number of elements of a broadcast result that carries a value (rank <= 1, at most 64), or -1.
std::int64_t value_elements(const Shape& result) {
  if (!result.known || result.rank() > 1) return -1;
  if (result.rank() == 0) return 1;
  std::int64_t len;
  if (!result.dims[0].get_int(&len) || len < 0 || len > 64) return -1;
  return len;
}

/// Elementwise value propagation over broadcast small tensors with integer values (small floating
/// constants of exact integers included); a floating result keeps its value only while its type
/// holds every element exactly. True when it set the value.
template <class Op>
bool propagate_values(const INodeView& node, IShapeSink& out, const Shape& result,
                      std::int32_t dtype, Op op) {
  std::vector<Dim> a, b;
  if (!exact_input_values(node, 0, &a) || !exact_input_values(node, 1, &b)) return false;
  const std::int64_t count = value_elements(result);
  if (count < 0) return false;
  const auto n = static_cast<std::size_t>(count);
  if ((a.size() != n && a.size() != 1) || (b.size() != n && b.size() != 1)) return false;
  std::vector<Dim> values;
  values.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    Dim x = a[a.size() == 1 ? 0 : k], y = b[b.size() == 1 ? 0 : k];
    Dim r;
    if (!op(x, y, &r)) return false;
    values.push_back(r);
  }
  if (dtype::is_float(dtype) && !exact_in_float(out, dtype, values)) return false;
  set_value(out, 0, values);
  return true;
}

/// The same over fractions (float_fractions.hpp), for floating Add, Sub, Mul and Div whose
/// operands are exact floating values (integers, binary fractions such as 0.5) and whose result
/// is not all integers: `float(h) / 32.0` is h/32. Where no exact fraction is the result (an
/// operand is a rounded quotient, or the numerator outgrows the type), float terms keep the
/// computation (float_terms.hpp).
void propagate_fractions(const INodeView& node, IShapeSink& out, const Shape& result,
                         std::int32_t dtype, FractionOp op) {
  const std::int64_t count = value_elements(result);
  const FloatTermOp term_op = op == FractionOp::kAdd   ? FloatTermOp::kAdd
                              : op == FractionOp::kSub ? FloatTermOp::kSub
                              : op == FractionOp::kMul ? FloatTermOp::kMul
                                                       : FloatTermOp::kDiv;
  std::vector<Fraction> a, b;
  if (count < 0) return;
  if (!exact_input_fractions(node, 0, &a) || !exact_input_fractions(node, 1, &b)) {
    propagate_terms(node, out, count, dtype, term_op);
    return;
  }
  const auto n = static_cast<std::size_t>(count);
  if ((a.size() != n && a.size() != 1) || (b.size() != n && b.size() != 1)) return;
  std::vector<Fraction> values(n);
  for (std::size_t k = 0; k < n; ++k) {
    if (!combine(op, a[a.size() == 1 ? 0 : k], b[b.size() == 1 ? 0 : k], &values[k]) ||
        !settle_fraction(out, dtype, &values[k])) {
      propagate_terms(node, out, count, dtype, term_op);
      return;
    }
  }
  set_fractions(out, 0, values);
}

Status broadcast_inputs(const INodeView& node, IShapeSink& out, Shape* result) {
  if (node.input_count() == 2 && node.has_input(0) && node.has_input(1)) {
    // The binary operators: no list of shapes to build.
    return broadcast_shapes(out, input_shape(node, 0), input_shape(node, 1), result);
  }
  std::vector<Shape> shapes;
  shapes.reserve(node.input_count());
  for (std::uint32_t i = 0; i < node.input_count(); ++i) {
    if (node.has_input(i)) shapes.push_back(input_shape(node, i));
  }
  if (shapes.empty()) return fail("expects at least one input");
  return broadcast_shapes(out, shapes, result);
}

/// An integer divisor of 0 is undefined behaviour in ONNX (and traps in ONNX Runtime): the model
/// cannot run unless a size-valued divisor such as a window count is at least 1. Required, so the
/// host narrows the input bounds that would make it 0, and the quotient simplifies.
void require_nonzero_divisor(IShapeSink& out, Dim y) {
  if (y.provably_ge(y.lift(0)) && !y.provably_gt(y.lift(0))) {
    out.require(ConstraintKind::kNe, y, y.lift(0));
  }
}

Status arithmetic(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  Shape result;
  check(broadcast_inputs(node, out, &result));
  const std::int32_t dtype = node.input_dtype(0);
  check(set_shape(out, 0, dtype, result));
  const bool floating = dtype::is_float(dtype);
  bool valued = false;
  if (node.is_op("Add")) {
    valued = propagate_values(node, out, result, dtype,
                              [](Dim x, Dim y, Dim* r) { return *r = x + y, true; });
    if (!valued && floating) propagate_fractions(node, out, result, dtype, FractionOp::kAdd);
  } else if (node.is_op("Sub")) {
    valued = propagate_values(node, out, result, dtype,
                              [](Dim x, Dim y, Dim* r) { return *r = x - y, true; });
    if (!valued && floating) propagate_fractions(node, out, result, dtype, FractionOp::kSub);
  } else if (node.is_op("Mul")) {
    valued = propagate_values(node, out, result, dtype,
                              [](Dim x, Dim y, Dim* r) { return *r = x * y, true; });
    if (!valued && floating) propagate_fractions(node, out, result, dtype, FractionOp::kMul);
  } else if (node.is_op("Div") && floating) {
    // An exact integer quotient is a plain value; any other is a fraction.
    valued = propagate_values(node, out, result, dtype, [](Dim x, Dim y, Dim* r) {
      if (!y.provably_ne(y.lift(0)) || !mod(x, y).is(0)) return false;
      *r = exact_div(x, y);
      return true;
    });
    if (!valued) propagate_fractions(node, out, result, dtype, FractionOp::kDiv);
  } else if (node.is_op("Div")) {
    // Integer division truncates; it equals floor division when both operands are >= 0 / > 0.
    propagate_values(node, out, result, dtype, [&out](Dim x, Dim y, Dim* r) {
      require_nonzero_divisor(out, y);
      if (!x.provably_ge(x.lift(0)) || !y.provably_gt(y.lift(0))) return false;
      *r = floor_div(x, y);
      return true;
    });
  } else if (node.is_op("Mod")) {
    const bool fmod = node.attr_int_or("fmod", 0) != 0;
    propagate_values(node, out, result, dtype, [fmod, &out](Dim x, Dim y, Dim* r) {
      require_nonzero_divisor(out, y);
      if (fmod && (!x.provably_ge(x.lift(0)) || !y.provably_gt(y.lift(0)))) return false;
      *r = mod(x, y);
      return true;
    });
  }
  return Status::kOk;
}

Status variadic(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  Shape result;
  check(broadcast_inputs(node, out, &result));
  std::int32_t dtype = 0;
  for (std::uint32_t i = 0; i < node.input_count() && dtype == 0; ++i) dtype = node.input_dtype(i);
  check(set_shape(out, 0, dtype, result));
  if (node.input_count() == 2 && (node.is_op("Max") || node.is_op("Min"))) {
    const bool is_max = node.is_op("Max");
    const bool valued = propagate_values(node, out, result, dtype, [is_max](Dim x, Dim y, Dim* r) {
      *r = is_max ? max(x, y) : min(x, y);
      return true;
    });
    if (!valued && dtype::is_float(dtype)) {
      propagate_terms(node, out, value_elements(result), dtype,
                      is_max ? FloatTermOp::kMax : FloatTermOp::kMin);
    }
  }
  return Status::kOk;
}

/// 0/1 for a decided comparison, false when undecided.
bool decide(Dim x, Dim y, const INodeView& node, Dim* r) {
  bool value;
  if (node.is_op("Equal")) {
    if (x.provably_eq(y)) {
      value = true;
    } else if (x.provably_ne(y)) {
      value = false;
    } else {
      return false;
    }
  } else {
    DimRelation rel = x.compare(y);
    const bool lt = rel == DimRelation::kLt, gt = rel == DimRelation::kGt;
    const bool le = lt || rel == DimRelation::kLe || rel == DimRelation::kEq;
    const bool ge = gt || rel == DimRelation::kGe || rel == DimRelation::kEq;
    if (node.is_op("Less")) {
      if (lt)
        value = true;
      else if (ge)
        value = false;
      else
        return false;
    } else if (node.is_op("Greater")) {
      if (gt)
        value = true;
      else if (le)
        value = false;
      else
        return false;
    } else if (node.is_op("LessOrEqual")) {
      if (le)
        value = true;
      else if (gt)
        value = false;
      else
        return false;
    } else if (node.is_op("GreaterOrEqual")) {
      if (ge)
        value = true;
      else if (lt)
        value = false;
      else
        return false;
    } else {
      return false;
    }
  }
  *r = x.lift(value ? 1 : 0);
  return true;
}

Status comparison(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  Shape result;
  check(broadcast_inputs(node, out, &result));
  check(set_shape(out, 0, dtype::kBool, result));
  propagate_values(node, out, result, dtype::kBool,
                   [&node](Dim x, Dim y, Dim* r) { return decide(x, y, node, r); });
  return Status::kOk;
}

Status logical(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  Shape result;
  check(broadcast_inputs(node, out, &result));
  check(set_shape(out, 0, dtype::kBool, result));
  // Decided conditions combine into a decided one.
  propagate_values(node, out, result, dtype::kBool, [&node](Dim x, Dim y, Dim* r) {
    const bool xt = x.is(1), yt = y.is(1);
    if ((!xt && !x.is(0)) || (!yt && !y.is(0))) return false;
    const bool v = node.is_op("And") ? xt && yt : node.is_op("Or") ? xt || yt : xt != yt;
    *r = x.lift(v ? 1 : 0);
    return true;
  });
  return Status::kOk;
}

// Bitwise and bit-shift ops keep the input type.
Status bitwise(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  Shape result;
  check(broadcast_inputs(node, out, &result));
  return set_shape(out, 0, node.input_dtype(0), result);
}

// PRelu: the slope broadcasts to X (unidirectionally; per channel before opset 7), so Y is X.
Status prelu(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  return set_shape(out, 0, node.input_dtype(0), input_shape(node, 0));
}

Status where(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 3);
  Shape result;
  check(broadcast_inputs(node, out, &result));
  std::int32_t dtype = node.input_dtype(1) != 0 ? node.input_dtype(1) : node.input_dtype(2);
  check(set_shape(out, 0, dtype, result));
  // Per-element choice when every condition is decided.
  std::vector<Dim> c, x, y;
  if (input_values(node, 0, &c) && input_values(node, 1, &x) && input_values(node, 2, &y) &&
      result.known && result.rank() <= 1) {
    std::size_t n = 1;
    if (result.rank() == 1) {
      std::int64_t len;
      if (!result.dims[0].get_int(&len) || len > 64) return Status::kOk;
      n = static_cast<std::size_t>(len);
    }
    std::vector<Dim> values;
    for (std::size_t k = 0; k < n; ++k) {
      auto pick = [&](const std::vector<Dim>& v) { return v.size() == 1 ? v[0] : v[k]; };
      if ((c.size() != 1 && c.size() != n) || (x.size() != 1 && x.size() != n) ||
          (y.size() != 1 && y.size() != n)) {
        return Status::kOk;
      }
      std::int64_t cond;
      if (!pick(c).get_int(&cond)) return Status::kOk;
      values.push_back(cond != 0 ? pick(x) : pick(y));
    }
    set_value(out, 0, values);
  }
  return Status::kOk;
}

constinit const FnShapeRule kUnary{&unary_same};
constinit const FnShapeRule kUnaryBool{&unary_bool};
constinit const FnShapeRule kArithmetic{&arithmetic};
constinit const FnShapeRule kVariadic{&variadic};
constinit const FnShapeRule kComparison{&comparison};
constinit const FnShapeRule kLogical{&logical};
constinit const FnShapeRule kBitwise{&bitwise};
constinit const FnShapeRule kWhere{&where};
constinit const FnShapeRule kPRelu{&prelu};

}  // namespace

void register_elementwise(Registration& reg) {
  for (const char* op :
       {"Abs",     "Neg",         "Relu",       "LeakyRelu", "Elu",        "Selu",
        "Sigmoid", "HardSigmoid", "HardSwish",  "Tanh",      "Exp",        "Log",
        "Sqrt",    "Reciprocal",  "Floor",      "Ceil",      "Round",      "Sign",
        "Erf",     "Gelu",        "Softplus",   "Softsign",  "Clip",       "Sin",
        "Cos",     "Tan",         "Asin",       "Acos",      "Atan",       "Sinh",
        "Cosh",    "Asinh",       "Acosh",      "Atanh",     "Mish",       "ThresholdedRelu",
        "Celu",    "Shrink",      "BitwiseNot", "Softmax",   "LogSoftmax", "Hardmax",
        "Not"}) {
    reg.shape(op, 1, kUnary);
  }
  // Identity's versions after 1 widen its types (bfloat16, optionals and sequences, 8-, 4- and
  // 2-bit types); Swish (Y = X * Sigmoid(alpha * X)) is new in 24.
  reg.shape("Identity", {1, 13, 14, 16, 19, 21, 23, 24, 25}, kUnary);
  reg.shape("Swish", 24, kUnary);
  for (const char* op : {"IsNaN", "IsInf"}) reg.shape(op, 1, kUnaryBool);
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "Mod"}) reg.shape(op, 1, kArithmetic);
  reg.shape("PRelu", {1, 6, 7, 9, 16}, kPRelu);
  for (const char* op : {"Sum", "Max", "Min", "Mean"}) reg.shape(op, 1, kVariadic);
  for (const char* op : {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"}) {
    reg.shape(op, 1, kComparison);
  }
  for (const char* op : {"And", "Or", "Xor"}) reg.shape(op, 1, kLogical);
  for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitShift"})
    reg.shape(op, 1, kBitwise);
  reg.shape("Where", {9, 16}, kWhere);
}

}  // namespace cctx::opsets::onnx
