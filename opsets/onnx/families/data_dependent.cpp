// Operators whose output sizes depend on the data (the indexing family): NonZero, Unique,
// Compress and TopK. A size the inputs do not decide is a fresh symbol bounded by what the input
// holds; NonZero of a folded constant, Compress with a known condition and TopK with a known
// (possibly symbolic) k get the exact size. TopK's scratch estimate is here too (semantics.md,
// Peak scratch memory).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "indexing_helpers.hpp"
#include "indexing_rules.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

/// Number of elements of a shape as an expression (1 for a scalar).
Dim numel(const INodeView& node, const Shape& s) { return product(node, s.dims, 0, s.rank()); }

// ---- data-dependent sizes -----------------------------------------------------------------------

/// NonZero: int64 `[rank, nnz]`, nnz fresh in [0, hi(numel)]; an input with a known concrete
/// value (a folded bool/int constant) gives the exact count and, when small, the coordinates.
Status nonzero(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  Shape in = input_shape(node, 0);
  std::vector<std::int64_t> dims, values;
  if (in.known && concrete_dims(in.dims, &dims) && input_ints(node, 0, &values) &&
      static_cast<std::int64_t>(values.size()) == capped_count(dims, kMaxValueElements)) {
    std::vector<std::int64_t> hits;
    for (std::size_t k = 0; k < values.size(); ++k) {
      if (values[k] != 0) hits.push_back(static_cast<std::int64_t>(k));
    }
    const auto rank = static_cast<std::int64_t>(dims.size()),
               nnz = static_cast<std::int64_t>(hits.size());
    check(set_shape(out, 0, dtype::kInt64, Shape::of({node.constant(rank), node.constant(nnz)})));
    if (rank * nnz > kMaxValueElements) return Status::kOk;
    // Row r holds the coordinates along axis r (row-major unravel of each hit).
    std::vector<Dim> coords(static_cast<std::size_t>(rank * nnz));
    for (std::int64_t h = 0; h < nnz; ++h) {
      std::int64_t rest = hits[static_cast<std::size_t>(h)];
      for (std::int64_t r = rank; r-- > 0;) {
        const std::int64_t d = dims[static_cast<std::size_t>(r)];
        coords[static_cast<std::size_t>(r * nnz + h)] = node.constant(rest % d);
        rest /= d;
      }
    }
    return set_value(out, 0, coords);
  }
  Dim rank = in.known ? node.constant(static_cast<std::int64_t>(in.rank()))
                      : fresh(node, out, 0, 0, 0, kMaxRank);
  const Dim count =
      in.known ? fresh_upto(node, out, 0, 1, numel(node, in)) : fresh(node, out, 0, 1, 0, kPosInf);
  return set_shape(out, 0, dtype::kInt64, Shape::of({rank, count}));
}

/// Unique: one fresh count u (in [0, hi(numel)], or [0, hi(d[axis])] with `axis`) shared by Y,
/// indices and counts; inverse_indices has one entry per input element (or slice).
Status unique(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const std::int32_t dtype = node.input_dtype(0);
  Shape in = input_shape(node, 0);
  std::int64_t axis_attr;
  const bool has_axis = node.attr_int(StringRef("axis"), &axis_attr);
  Shape y;
  Dim u, inverse;
  if (!has_axis) {
    const Dim total = in.known ? numel(node, in) : Dim();
    u = in.known ? fresh_upto(node, out, 0, 0, total) : fresh(node, out, 0, 0, 0, kPosInf);
    inverse = in.known ? total : fresh(node, out, 2, 0, 0, kPosInf);
    y = Shape::of({u});
  } else if (in.known) {
    std::int64_t axis;
    if (!normalize_axis(axis_attr, static_cast<std::int64_t>(in.rank()), &axis)) {
      return fail("axis " + std::to_string(axis_attr) + " out of range");
    }
    const auto a = static_cast<std::size_t>(axis);
    u = fresh_upto(node, out, 0, a, in.dims[a]);
    inverse = in.dims[a];
    y = in;
    y.dims[a] = u;
  } else {
    // Unknown rank with an axis: Y's rank is unknown; the counts still share one symbol.
    u = fresh(node, out, 1, 0, 0, kPosInf);
    inverse = fresh(node, out, 2, 0, 0, kPosInf);
    y = Shape::unknown();
  }
  const Shape per_value[] = {y, Shape::of({u}), Shape::of({inverse}), Shape::of({u})};
  for (std::uint32_t o = 0; o < node.output_count() && o < 4; ++o) {
    if (!node.has_output(o)) continue;
    check(set_shape(out, o, o == 0 ? dtype : dtype::kInt64, per_value[o]));
  }
  return Status::kOk;
}

/// Compress: condition entries past the selected length are ignored (as ONNX Runtime does), so
/// with a known condition the count is exact: a true entry at position p counts 1 when p <
/// length is proven, 0 when refuted, else `min(max(length-p,0),1)` (at most a few such terms).
/// Otherwise the count is fresh in [0, min(hi(length), len(condition))].
Status compress(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  const std::int32_t dtype = node.input_dtype(0);
  Shape in = input_shape(node, 0);
  std::int64_t axis_attr;
  const bool has_axis = node.attr_int(StringRef("axis"), &axis_attr);
  if (has_axis && !in.known) return set_shape(out, 0, dtype, Shape::unknown());
  std::size_t a = 0;
  Dim limit;  // the length the condition selects from
  if (has_axis) {
    std::int64_t axis;
    if (!normalize_axis(axis_attr, static_cast<std::int64_t>(in.rank()), &axis)) {
      return fail("axis " + std::to_string(axis_attr) + " out of range");
    }
    a = static_cast<std::size_t>(axis);
    limit = in.dims[a];
  } else if (in.known) {
    limit = numel(node, in);
  }
  constexpr int kMaxUndecided = 8;
  std::vector<std::int64_t> condition;
  std::vector<std::int64_t> selected;  // positions that provably count
  Dim exact_count = node.constant(0);
  int undecided = 0;
  bool decided = limit.valid() && input_ints(node, 1, &condition);
  for (std::size_t k = 0; decided && k < condition.size(); ++k) {
    if (condition[k] == 0) continue;
    const Dim position = limit.lift(static_cast<std::int64_t>(k));
    if (limit.provably_gt(position)) {
      selected.push_back(static_cast<std::int64_t>(k));
      exact_count = exact_count + 1;
    } else if (!position.provably_ge(limit)) {
      const Dim zero = limit.lift(0), one = limit.lift(1);
      exact_count = exact_count + min(max(limit - position, zero), one);
      decided = ++undecided <= kMaxUndecided;
    }
  }
  Dim count;
  if (decided) {
    count = exact_count;
  } else {
    // At most the selected length and the condition's length (entries past either select none).
    Dim upper = limit;
    const Shape c = input_shape(node, 1);
    if (c.known && c.rank() == 1) upper = upper.valid() ? min(upper, c.dims[0]) : c.dims[0];
    count = fresh_upto(node, out, 0, a, upper);
  }
  if (!has_axis) {
    check(set_shape(out, 0, dtype, Shape::of({count})));
  } else {
    Shape result = in;
    result.dims[a] = count;
    check(set_shape(out, 0, dtype, result));
  }
  // Value of a compressed 1-D tensor.
  std::vector<Dim> values;
  if (decided && undecided == 0 && in.known && in.rank() == 1 && input_values(node, 0, &values)) {
    std::vector<Dim> result;
    for (std::int64_t k : selected) {
      if (k >= static_cast<std::int64_t>(values.size())) return Status::kOk;
      result.push_back(values[static_cast<std::size_t>(k)]);
    }
    return set_value(out, 0, result);
  }
  return Status::kOk;
}

/// TopK: k from the attribute (< 10) or input 1's value (possibly symbolic); unknown k becomes a
/// fresh symbol in [0, hi(d)] shared by both outputs, with `le(k, d)`.
Status topk(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const std::int32_t dtype = node.input_dtype(0);
  Shape in = input_shape(node, 0);
  if (!in.known) {
    check(set_shape(out, 0, dtype, Shape::unknown()));
    return node.output_count() > 1 ? set_shape(out, 1, dtype::kInt64, Shape::unknown())
                                   : Status::kOk;
  }
  const std::int64_t axis = read_axis(node, "axis", -1, static_cast<std::int64_t>(in.rank()));
  const auto a = static_cast<std::size_t>(axis);
  const Dim d = in.dims[a];
  Dim k;
  if (node.opset_version() < 10) {
    std::int64_t kv;
    if (!node.attr_int(StringRef("k"), &kv)) return fail("missing 'k' attribute");
    k = node.constant(kv);
  } else {
    require_inputs(node, 2);
    std::vector<Dim> kvalue;
    if (input_values(node, 1, &kvalue) && kvalue.size() == 1) k = kvalue[0];
  }
  if (k.valid()) {
    std::int64_t kv, dv;
    if (k.get_int(&kv) && kv < 0) return fail("k is negative (" + std::to_string(kv) + ")");
    if (k.get_int(&kv) && d.get_int(&dv) && kv > dv) {
      return fail("k = " + std::to_string(kv) + " exceeds axis " + std::to_string(axis) +
                  " of size " + std::to_string(dv));
    }
  } else {
    k = fresh_upto(node, out, 0, a, d);
  }
  assume_le(out, k, d);
  Shape result = in;
  result.dims[a] = k;
  check(set_shape(out, 0, dtype, result));
  return node.output_count() > 1 ? set_shape(out, 1, dtype::kInt64, result) : Status::kOk;
}

/// TopK keeps an index buffer of every input element (int64) while selecting (semantics.md, Peak
/// scratch memory).
Status topk_scratch(const INodeView& node, IScratchSink& out) {
  Shape in = input_shape(node, 0);
  if (!in.known) return unsupported("input rank unknown");
  return out.set_bytes(numel(node, in) * 8);
}

}  // namespace

constinit const FnShapeRule kNonZero{&nonzero};
constinit const FnShapeRule kUnique{&unique};
constinit const FnShapeRule kCompress{&compress};
constinit const FnShapeRule kTopK{&topk};
constinit const FnScratchEstimator kTopKScratch{&topk_scratch};

}  // namespace cctx::opsets::onnx
