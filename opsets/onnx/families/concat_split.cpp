// Concat and Split (expressions.md "Symbolic shape inference rules (ai.onnx plugin)"): the concat
// axis is the simplified sum of the parts, the other axes are unified; Split sizes come from the
// attribute, the input or num_outputs.
#include "families.hpp"
#include "integral_floats.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

Status concat(const INodeView& node, IShapeSink& out) {
  std::vector<Shape> parts;
  std::int32_t dtype = 0;
  for (std::uint32_t i = 0; i < node.input_count(); ++i) {
    if (!node.has_input(i)) continue;
    parts.push_back(input_shape(node, i));
    if (dtype == 0) dtype = node.input_dtype(i);
  }
  if (parts.empty()) return fail("expects at least one input");
  std::int64_t axis_attr;
  if (!node.attr_int(StringRef("axis"), &axis_attr)) return fail("missing 'axis' attribute");
  std::size_t rank = 0;
  bool known = false;
  for (const Shape& p : parts) {
    if (p.known) {
      rank = p.rank();
      known = true;
      break;
    }
  }
  if (!known) return set_shape(out, 0, dtype, Shape::unknown());
  std::int64_t axis;
  if (!normalize_axis(axis_attr, static_cast<std::int64_t>(rank), &axis)) {
    return fail("axis " + std::to_string(axis_attr) + " out of range for rank " +
                std::to_string(rank));
  }
  const auto a = static_cast<std::size_t>(axis);
  std::vector<Dim> dims;
  Dim total = node.constant(0);
  bool all_known = true;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const Shape& s = parts[p];
    if (!s.known) {
      all_known = false;
      continue;
    }
    if (s.rank() != rank) return fail("inputs have different ranks");
    if (dims.empty()) {
      dims = s.dims;
      total = s.dims[a];
      continue;
    }
    total = total + s.dims[a];
    for (std::size_t k = 0; k < rank; ++k) {
      if (k == a || dims[k].provably_eq(s.dims[k])) continue;
      std::int64_t x, y;
      const bool kx = dims[k].get_int(&x), ky = s.dims[k].get_int(&y);
      if (kx && ky) {
        return fail("inputs differ at axis " + std::to_string(k) + ": " + std::to_string(x) +
                    " vs " + std::to_string(y));
      }
      out.constraint(ConstraintKind::kEq, dims[k].handle(), s.dims[k].handle(), 0);
      if (ky) dims[k] = s.dims[k];  // a concrete dim beats a symbolic one
    }
  }
  dims[a] = all_known
                ? total
                : Dim(&node.expr(), out.fresh_dim(0, static_cast<std::uint32_t>(a), 0, kPosInf));
  check(set_shape(out, 0, dtype, Shape::of(dims)));
  // 1-D value concatenation (the exporter's shape-building pattern).
  if (rank == 1) {
    std::vector<Dim> values, part;
    for (std::uint32_t i = 0; i < node.input_count(); ++i) {
      if (!node.has_input(i)) continue;
      if (!exact_input_values(node, i, &part)) return Status::kOk;
      values.insert(values.end(), part.begin(), part.end());
    }
    if (values.size() <= 64) set_value(out, 0, values);
  }
  return Status::kOk;
}

/// 1-D value splitting (torchvision's `for s in shape` over a Shape): each output takes its run
/// of the input's value when every size is concrete.
void split_values(const INodeView& node, IShapeSink& out, const Shape& in,
                  const std::vector<Dim>& sizes) {
  std::vector<Dim> values;
  if (in.rank() != 1 || !input_values(node, 0, &values)) return;
  std::size_t at = 0;
  for (std::uint32_t o = 0; o < sizes.size(); ++o) {
    std::int64_t len;
    if (!sizes[o].get_int(&len) || len < 0 || at + static_cast<std::size_t>(len) > values.size())
      return;
    const auto end = at + static_cast<std::size_t>(len);
    if (has_output(node, o)) {
      set_value(out, o,
                std::vector<Dim>(values.begin() + static_cast<std::ptrdiff_t>(at),
                                 values.begin() + static_cast<std::ptrdiff_t>(end)));
    }
    at = end;
  }
}

Status split(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  Shape in = input_shape(node, 0);
  const std::int32_t dtype = node.input_dtype(0);
  const std::uint32_t n = node.output_count();
  if (!in.known) {
    for (std::uint32_t o = 0; o < n; ++o) set_shape(out, o, dtype, Shape::unknown());
    return Status::kOk;
  }
  std::int64_t axis;
  if (!normalize_axis(node.attr_int_or("axis", 0), static_cast<std::int64_t>(in.rank()), &axis)) {
    return fail("axis out of range");
  }
  const auto a = static_cast<std::size_t>(axis);
  const Dim d = in.dims[a];
  std::vector<Dim> sizes;
  bool have_sizes = false;
  if (node.opset_version() < 13) {
    std::vector<std::int64_t> attr;
    if (attr_ints_vec(node, "split", &attr) && !attr.empty()) {
      for (std::int64_t v : attr) sizes.push_back(node.constant(v));
      have_sizes = true;
    }
  } else if (node.has_input(1)) {
    if (!input_values(node, 1, &sizes)) {
      for (std::uint32_t o = 0; o < n; ++o) {
        std::vector<Dim> dims = in.dims;
        dims[a] = Dim(&node.expr(), out.fresh_dim(o, static_cast<std::uint32_t>(a), 0, kPosInf));
        set_shape(out, o, dtype, Shape::of(dims));
      }
      return Status::kOk;
    }
    have_sizes = true;
  }
  if (have_sizes) {
    if (sizes.size() != n) {
      return fail("split has " + std::to_string(sizes.size()) + " sizes for " + std::to_string(n) +
                  " outputs");
    }
    Dim sum = node.constant(0);
    for (Dim s : sizes) sum = sum + s;
    std::int64_t x, y;
    if (sum.get_int(&x) && d.get_int(&y) && x != y) {
      return fail("split sizes sum to " + std::to_string(x) + " but the axis has " +
                  std::to_string(y));
    }
    if (!sum.provably_eq(d)) out.constraint(ConstraintKind::kEq, sum.handle(), d.handle(), 0);
  } else {
    std::int64_t parts = static_cast<std::int64_t>(n);
    if (node.opset_version() >= 18) {
      parts = node.attr_int_or("num_outputs", parts);
      if (parts != static_cast<std::int64_t>(n))
        return fail("num_outputs does not match the outputs");
    }
    if (parts <= 0) return fail("no outputs");
    if (node.opset_version() >= 18) {
      // Chunks of CeilToInt(d, n); the last one takes what is left.
      Dim chunk = ceil_div(d, parts);
      for (std::int64_t k = 0; k + 1 < parts; ++k) sizes.push_back(chunk);
      sizes.push_back(d - (parts - 1) * chunk);
      std::int64_t last;
      if (sizes.back().get_int(&last) && last < 0)
        return fail("cannot split " + to_string(d) + " into " + std::to_string(parts));
    } else {
      Dim part = exact_div(d, parts);
      if (!d.is_const())
        out.constraint(ConstraintKind::kDivides, node.constant(parts).handle(), d.handle(), 0);
      std::int64_t v;
      if (d.get_int(&v) && v % parts != 0)
        return fail("cannot split " + std::to_string(v) + " into " + std::to_string(parts) +
                    " equal parts");
      sizes.assign(static_cast<std::size_t>(parts), part);
    }
  }
  for (std::uint32_t o = 0; o < n; ++o) {
    std::vector<Dim> dims = in.dims;
    dims[a] = sizes[o];
    check(set_shape(out, o, dtype, Shape::of(dims)));
  }
  split_values(node, out, in, sizes);
  return Status::kOk;
}

constinit const FnShapeRule kConcat{&concat};
constinit const FnShapeRule kSplit{&split};

}  // namespace

void register_concat_split(Registration& reg) {
  reg.shape("Concat", {1, 4, 11, 13}, kConcat);
  reg.shape("Split", {1, 2, 11, 13, 18}, kSplit);
}

}  // namespace cctx::opsets::onnx
