// Slice (the indexing family): the ONNX clamping rules built symbolically for each sliced axis
// (expressions.md, Symbolic shape inference rules), and the values of sliced shape tensors
// (expressions.md, Shape-value propagation). Its own file because the rule is the family's
// largest: attributes before opset 10, inputs after, axes and steps known or not.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "indexing_helpers.hpp"
#include "indexing_rules.hpp"
#include "rule_kit.hpp"
#include "value_layout.hpp"

namespace cctx::opsets::onnx {

namespace {

/// Slice bounds at or beyond these literals are the exporters' "to the end" / "before the start"
/// sentinels (INT64_MAX, INT32_MAX, INT64_MIN, INT32_MIN).
constexpr std::int64_t kPastEnd = INT32_MAX;
constexpr std::int64_t kBeforeStart = INT32_MIN;

// ---- Slice --------------------------------------------------------------------------------------

/// Output length of one sliced axis (expressions.md, Symbolic shape inference rules): the ONNX
/// clamping rules built symbolically, so that the bounds rules drop the parts that cannot bind.
Dim slice_length(IShapeSink& out, Dim d, Dim s, Dim e, std::int64_t t) {
  const Dim zero = d.lift(0), one = d.lift(1);
  auto neg = [&](Dim x) { return min(max(zero - x, zero), one); };  // 1 iff x < 0
  auto adj = [&](Dim x) { return x + d * neg(x); };
  auto clamp = [&](Dim x, Dim lo, Dim hi) { return min(max(x, lo), hi); };
  std::int64_t sv = 0, ev = 0;
  const bool s_lit = s.get_int(&sv), e_lit = e.get_int(&ev);
  Dim s2, e2;
  if (t > 0) {
    if (s_lit && sv >= kPastEnd) {
      assume_le(out, d, s);
      s2 = d;
    } else if (s_lit && sv <= kBeforeStart) {
      s2 = zero;
    } else {
      s2 = clamp(adj(s), zero, d);
    }
    if (e_lit && ev >= kPastEnd) {
      assume_le(out, d, e);
      e2 = d;
    } else if (e_lit && ev <= kBeforeStart) {
      e2 = zero;
    } else {
      e2 = clamp(adj(e), zero, d);
    }
    return max(zero, ceil_div(e2 - s2, t));
  }
  if (s_lit && sv >= kPastEnd) {
    assume_le(out, d, s);
    s2 = d - 1;
  } else if (s_lit && sv <= kBeforeStart) {
    s2 = zero;
  } else {
    s2 = clamp(adj(s), zero, d - 1);
  }
  if (e_lit && ev >= kPastEnd) {
    e2 = d - 1;
  } else if (e_lit && ev <= kBeforeStart) {
    e2 = d.lift(-1);
  } else {
    e2 = clamp(adj(e), d.lift(-1), d - 1);
  }
  return max(zero, ceil_div(s2 - e2, -t));
}

/// The concrete element positions selected by a slice of a length-n axis.
std::vector<std::int64_t> slice_positions(std::int64_t n, std::int64_t s, std::int64_t e,
                                          std::int64_t t) {
  auto adjust = [n](std::int64_t x) { return x < 0 ? (x < -n ? -n - 1 : x) + n : x; };
  std::int64_t start = adjust(s), end = adjust(e);
  if (t > 0) {
    start = std::clamp<std::int64_t>(start, 0, n);
    end = std::clamp<std::int64_t>(end, 0, n);
  } else {
    start = std::clamp<std::int64_t>(start, 0, n - 1);
    end = std::clamp<std::int64_t>(end, -1, n - 1);
  }
  std::vector<std::int64_t> positions;
  for (std::int64_t i = start; t > 0 ? i < end : i > end; i += t) positions.push_back(i);
  return positions;
}

Status slice(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const std::int32_t dtype = node.input_dtype(0);
  Shape in = known_input(node, out, 0, dtype);
  const auto rank = static_cast<std::int64_t>(in.rank());

  std::vector<Dim> starts, ends, steps;
  std::vector<std::int64_t> axes;
  bool bounds_known = true, axes_known = true, have_axes = false;
  std::int64_t count = -1;  // number of sliced axes, when known
  if (node.opset_version() < 10) {
    std::vector<std::int64_t> s, e;
    if (!attr_ints_vec(node, "starts", &s) || !attr_ints_vec(node, "ends", &e)) {
      return fail("missing 'starts' or 'ends' attribute");
    }
    for (std::int64_t v : s) starts.push_back(node.constant(v));
    for (std::int64_t v : e) ends.push_back(node.constant(v));
    have_axes = attr_ints_vec(node, "axes", &axes);
  } else {
    require_inputs(node, 3);
    bounds_known = input_values(node, 1, &starts) && input_values(node, 2, &ends);
    if (node.has_input(3)) {
      have_axes = true;
      axes_known = input_ints(node, 3, &axes);
    }
    if (node.has_input(4) && !input_values(node, 4, &steps)) {
      bounds_known = false;  // unknown steps: the affected lengths are unknown
    }
  }
  if (bounds_known) {
    count = static_cast<std::int64_t>(starts.size());
    if (ends.size() != starts.size()) return fail("starts and ends have different lengths");
  } else {
    // The number of sliced axes from a known length of starts/ends/axes.
    for (std::uint32_t i = 1; i <= 3 && count < 0 && node.opset_version() >= 10; ++i) {
      Shape s = input_shape(node, i);
      std::int64_t len;
      if (node.has_input(i) && s.known && s.rank() == 1 && s.dims[0].get_int(&len)) count = len;
    }
  }
  if (have_axes && axes_known) {
    if (count >= 0 && static_cast<std::int64_t>(axes.size()) != count) {
      return fail("axes has " + std::to_string(axes.size()) + " entries for " +
                  std::to_string(count) + " starts");
    }
    normalize_axes(&axes, rank);
  } else if (!have_axes && count >= 0) {
    if (count > rank) return fail("more starts than input axes");
    for (std::int64_t k = 0; k < count; ++k) axes.push_back(k);
  } else {
    // Which axes are sliced is unknown: every length is data-dependent, and at most the
    // input's (a slice never grows an axis): its worst case.
    std::vector<Dim> dims;
    for (std::size_t k = 0; k < in.rank(); ++k)
      dims.push_back(fresh_upto(node, out, 0, k, in.dims[k]));
    return set_shape(out, 0, dtype, Shape::of(dims));
  }
  if (!steps.empty() && steps.size() != axes.size())
    return fail("steps and axes have different lengths");

  std::vector<Dim> dims = in.dims;
  std::vector<std::int64_t> step_values(axes.size(), 1);
  std::vector<bool> step_known(axes.size(), true);
  for (std::size_t k = 0; k < steps.size(); ++k) {
    step_known[k] = steps[k].get_int(&step_values[k]);
    if (step_known[k] && step_values[k] == 0)
      return fail("slice step 0 on axis " + std::to_string(axes[k]));
  }
  for (std::size_t k = 0; k < axes.size(); ++k) {
    const auto a = static_cast<std::size_t>(axes[k]);
    if (!bounds_known || !step_known[k]) {
      dims[a] = fresh_upto(node, out, 0, a, in.dims[a]);  // at most the input's length
    } else {
      dims[a] = slice_length(out, in.dims[a], starts[k], ends[k], step_values[k]);
    }
  }
  check(set_shape(out, 0, dtype, Shape::of(dims)));

  // Value: a value of concrete dims sliced with concrete bounds.
  std::vector<Dim> values;
  std::vector<std::int64_t> in_dims;
  if (!bounds_known || !input_values(node, 0, &values) || !value_dims(in, &in_dims)) {
    return Status::kOk;
  }
  std::int64_t total = 1;
  for (std::int64_t d : in_dims) total *= d;
  if (total != static_cast<std::int64_t>(values.size())) return Status::kOk;
  std::vector<std::size_t> source(in_dims.size());
  std::vector<std::vector<std::int64_t>> picks(in_dims.size());
  for (std::size_t a = 0; a < in_dims.size(); ++a) {
    source[a] = a;
    for (std::int64_t i = 0; i < in_dims[a]; ++i) picks[a].push_back(i);
  }
  for (std::size_t k = 0; k < axes.size(); ++k) {
    std::int64_t s0, e0;
    if (!step_known[k] || !starts[k].get_int(&s0) || !ends[k].get_int(&e0)) return Status::kOk;
    const auto a = static_cast<std::size_t>(axes[k]);
    picks[a] = slice_positions(in_dims[a], s0, e0, step_values[k]);
  }
  return set_value(out, 0, pick_elements(values, in_dims, source, picks));
}

}  // namespace

constinit const FnShapeRule kSlice{&slice};

}  // namespace cctx::opsets::onnx
