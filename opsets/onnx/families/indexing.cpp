// Indexing and data-movement operators (expressions.md 7-8): Gather, GatherElements, GatherND,
// Scatter, ScatterElements, ScatterND, TensorScatter, Slice, Expand, Tile, Pad, NonZero, Unique,
// Compress, Trilu, CumSum, ReverseSequence, TopK and Det, with the value propagation of the small
// integer tensors exporters build shapes from, TopK's scratch estimate and the in-place policies
// of the scatter kernels.
#include <algorithm>
#include <cstdint>

#include "families.hpp"
#include "rule_kit.hpp"
#include "value_layout.hpp"

namespace cctx::opsets::onnx {

namespace {

/// Largest element count of a propagated value (expressions.md 8).
constexpr std::int64_t kMaxValueElements = 64;
/// Slice bounds at or beyond these literals are the exporters' "to the end" / "before the start"
/// sentinels (INT64_MAX, INT32_MAX, INT64_MIN, INT32_MIN).
constexpr std::int64_t kPastEnd = INT32_MAX;
constexpr std::int64_t kBeforeStart = INT32_MIN;

std::int64_t upper_bound(Dim d) {
  std::int64_t lo, hi;
  d.bounds(&lo, &hi);
  return hi < 0 ? 0 : hi;
}

/// The dims as integers when every one is concrete.
bool concrete_dims(const std::vector<Dim>& dims, std::vector<std::int64_t>* out) {
  out->clear();
  for (Dim d : dims) {
    std::int64_t v;
    if (!d.get_int(&v)) return false;
    out->push_back(v);
  }
  return true;
}

/// Product of concrete dims, or -1 when it exceeds `cap` (so callers never overflow).
std::int64_t capped_count(const std::vector<std::int64_t>& dims, std::int64_t cap) {
  std::int64_t n = 1;
  for (std::int64_t d : dims) {
    if (d < 0) return -1;
    if (d == 0) return 0;
  }
  for (std::int64_t d : dims) {
    if (n > cap / d) return -1;
    n *= d;
  }
  return n;
}

/// Number of elements of a shape as an expression (1 for a scalar).
Dim numel(const INodeView& node, const Shape& s) { return product(node, s.dims, 0, s.rank()); }

/// Unifies two dims that must be equal: a concrete mismatch is an error, else an `eq` constraint.
bool unify(IShapeSink& out, Dim a, Dim b, const char* what, std::string* error) {
  if (a.provably_eq(b)) return true;
  std::int64_t x, y;
  if ((a.get_int(&x) && b.get_int(&y)) || a.provably_ne(b)) {
    *error = std::string(what) + ": " + to_string(a) + " vs " + to_string(b);
    return false;
  }
  out.constraint(ConstraintKind::kEq, a.handle(), b.handle(), 0);
  return true;
}

/// Records `le(a, b)` unless it is proven.
void assume_le(IShapeSink& out, Dim a, Dim b) {
  if (!b.provably_ge(a)) out.constraint(ConstraintKind::kLe, a.handle(), b.handle(), 0);
}

/// Reads axis `attr` (default `fallback`) normalised against `rank`; fails on out-of-range.
bool read_axis(const INodeView& node, IShapeSink& out, const char* attr, std::int64_t fallback,
               std::int64_t rank, std::int64_t* axis, Status* st) {
  const std::int64_t a = node.attr_int_or(StringRef::from_c_str(attr), fallback);
  if (normalize_axis(a, rank, axis)) return true;
  *st = fail(out, "axis " + std::to_string(a) + " out of range for rank " + std::to_string(rank));
  return false;
}

/// Normalises a list of axes against `rank`; fails on out-of-range or repeated axes.
bool normalize_axes(IShapeSink& out, std::vector<std::int64_t>* axes, std::int64_t rank,
                    Status* st) {
  std::vector<bool> seen(static_cast<std::size_t>(rank), false);
  for (std::int64_t& a : *axes) {
    std::int64_t n;
    if (!normalize_axis(a, rank, &n)) {
      *st =
          fail(out, "axis " + std::to_string(a) + " out of range for rank " + std::to_string(rank));
      return false;
    }
    if (seen[static_cast<std::size_t>(n)]) {
      *st = fail(out, "axis " + std::to_string(a) + " is repeated");
      return false;
    }
    seen[static_cast<std::size_t>(n)] = true;
    a = n;
  }
  return true;
}

/// Wraps a concrete index into [0, n) (negative counts from the end); false when out of range.
bool wrap_index(std::int64_t i, std::int64_t n, std::int64_t* out) {
  if (i < -n || i >= n) return false;
  *out = i < 0 ? i + n : i;
  return true;
}

// ---- Gather family ------------------------------------------------------------------------------

Status gather(const INodeView& node, IShapeSink& out) {
  Status st;
  if (!require_inputs(node, out, 2, &st)) return st;
  const std::int32_t dtype = node.input_dtype(0);
  Shape data = input_shape(node, 0), indices = input_shape(node, 1);
  if (!data.known || !indices.known) return set_shape(out, 0, dtype, Shape::unknown());
  const auto rank = static_cast<std::int64_t>(data.rank());
  if (rank == 0) return fail(out, "data must have rank >= 1");
  std::int64_t axis;
  if (!read_axis(node, out, "axis", 0, rank, &axis, &st)) return st;
  const auto a = static_cast<std::size_t>(axis);
  std::vector<Dim> dims(data.dims.begin(), data.dims.begin() + axis);
  dims.insert(dims.end(), indices.dims.begin(), indices.dims.end());
  dims.insert(dims.end(), data.dims.begin() + axis + 1, data.dims.end());
  if (Status s = set_shape(out, 0, dtype, Shape::of(dims)); s != Status::kOk) return s;

  // Concrete indices against a concrete axis: out of range is a proven error.
  std::vector<std::int64_t> index_values;
  if (!input_ints(node, 1, &index_values)) return Status::kOk;
  std::int64_t axis_len;
  const bool axis_known = data.dims[a].get_int(&axis_len);
  if (axis_known) {
    for (std::int64_t& i : index_values) {
      if (!wrap_index(i, axis_len, &i)) {
        return fail(out, "index " + std::to_string(i) + " out of range for axis " +
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
  Status st;
  if (!require_inputs(node, out, 2, &st)) return st;
  const std::int32_t dtype = node.input_dtype(0);
  Shape data = input_shape(node, 0), indices = input_shape(node, 1);
  if (data.known && indices.known && data.rank() != indices.rank()) {
    return fail(out, "data has rank " + std::to_string(data.rank()) + " but indices rank " +
                         std::to_string(indices.rank()));
  }
  if (Status s = set_shape(out, 0, dtype, indices); s != Status::kOk) return s;
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
    if (!wrap_index(i, n, &w)) return fail(out, "index " + std::to_string(i) + " out of range");
    result.push_back(values[static_cast<std::size_t>(w)]);
  }
  return set_value(out, 0, result);
}

Status gather_nd(const INodeView& node, IShapeSink& out) {
  Status st;
  if (!require_inputs(node, out, 2, &st)) return st;
  const std::int32_t dtype = node.input_dtype(0);
  Shape data = input_shape(node, 0), indices = input_shape(node, 1);
  if (!data.known || !indices.known) return set_shape(out, 0, dtype, Shape::unknown());
  const std::int64_t b = node.attr_int_or("batch_dims", 0);
  const auto r = static_cast<std::int64_t>(data.rank()),
             q = static_cast<std::int64_t>(indices.rank());
  if (r < 1 || q < 1) return fail(out, "data and indices must have rank >= 1");
  if (b < 0 || b >= std::min(r, q))
    return fail(out, "batch_dims " + std::to_string(b) + " out of range");
  std::int64_t k;
  if (!indices.dims.back().get_int(&k)) return set_shape(out, 0, dtype, Shape::unknown());
  if (k < 1 || b + k > r) {
    return fail(out, "last indices dim " + std::to_string(k) + " with batch_dims " +
                         std::to_string(b) + " exceeds the data rank " + std::to_string(r));
  }
  std::string error;
  for (std::int64_t i = 0; i < b; ++i) {
    const auto u = static_cast<std::size_t>(i);
    if (!unify(out, data.dims[u], indices.dims[u], "batch dims differ", &error))
      return fail(out, error);
  }
  std::vector<Dim> dims(indices.dims.begin(), indices.dims.end() - 1);
  dims.insert(dims.end(), data.dims.begin() + b + k, data.dims.end());
  return set_shape(out, 0, dtype, Shape::of(dims));
}

// ---- Scatter family -----------------------------------------------------------------------------

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

/// Scatter, ScatterElements, ScatterND: the output is the data tensor with some elements replaced,
/// so it keeps data's shape. A 1-D data value with concrete indices and known updates is updated.
Status scatter(const INodeView& node, IShapeSink& out) {
  Status st;
  if (!require_inputs(node, out, 3, &st)) return st;
  Shape data = input_shape(node, 0);
  if (Status s = set_shape(out, 0, node.input_dtype(0), data); s != Status::kOk) return s;
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
      return fail(out, "index " + std::to_string(index_values[k]) + " out of range");
    }
    auto& slot = values[static_cast<std::size_t>(w)];
    if (!reduce_update(reduction, slot, updates[k], &slot)) return Status::kOk;
  }
  return set_value(out, 0, values);
}

/// TensorScatter (24): present_cache has past_cache's shape; the update's sequence axis may be
/// shorter than the cache's.
Status tensor_scatter(const INodeView& node, IShapeSink& out) {
  Status st;
  if (!require_inputs(node, out, 2, &st)) return st;
  Shape past = input_shape(node, 0), update = input_shape(node, 1);
  if (past.known && update.known) {
    if (past.rank() != update.rank())
      return fail(out, "past_cache and update have different ranks");
    const auto rank = static_cast<std::int64_t>(past.rank());
    std::int64_t axis;
    if (!read_axis(node, out, "axis", -2, rank, &axis, &st)) return st;
    std::string error;
    for (std::size_t k = 0; k < past.rank(); ++k) {
      if (static_cast<std::int64_t>(k) == axis) {
        std::int64_t u, p;
        if (update.dims[k].get_int(&u) && past.dims[k].get_int(&p) && u > p) {
          return fail(out, "update sequence length " + std::to_string(u) + " exceeds the cache's " +
                               std::to_string(p));
        }
        assume_le(out, update.dims[k], past.dims[k]);
      } else if (!unify(out, past.dims[k], update.dims[k], "cache and update differ", &error)) {
        return fail(out, error);
      }
    }
  }
  return set_shape(out, 0, node.input_dtype(0), past);
}

// ---- Slice --------------------------------------------------------------------------------------

/// Output length of one sliced axis (expressions.md 7): the ONNX clamping rules built
/// symbolically, so that the bounds rules drop the parts that cannot bind.
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
  Status st;
  if (!require_inputs(node, out, 1, &st)) return st;
  const std::int32_t dtype = node.input_dtype(0);
  Shape in = input_shape(node, 0);
  if (!in.known) return set_shape(out, 0, dtype, Shape::unknown());
  const auto rank = static_cast<std::int64_t>(in.rank());

  std::vector<Dim> starts, ends, steps;
  std::vector<std::int64_t> axes;
  bool bounds_known = true, axes_known = true, have_axes = false;
  std::int64_t count = -1;  // number of sliced axes, when known
  if (node.opset_version() < 10) {
    std::vector<std::int64_t> s, e;
    if (!attr_ints_vec(node, "starts", &s) || !attr_ints_vec(node, "ends", &e)) {
      return fail(out, "missing 'starts' or 'ends' attribute");
    }
    for (std::int64_t v : s) starts.push_back(node.constant(v));
    for (std::int64_t v : e) ends.push_back(node.constant(v));
    have_axes = attr_ints_vec(node, "axes", &axes);
  } else {
    if (!require_inputs(node, out, 3, &st)) return st;
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
    if (ends.size() != starts.size()) return fail(out, "starts and ends have different lengths");
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
      return fail(out, "axes has " + std::to_string(axes.size()) + " entries for " +
                           std::to_string(count) + " starts");
    }
    if (!normalize_axes(out, &axes, rank, &st)) return st;
  } else if (!have_axes && count >= 0) {
    if (count > rank) return fail(out, "more starts than input axes");
    for (std::int64_t k = 0; k < count; ++k) axes.push_back(k);
  } else {
    // Which axes are sliced is unknown: every length is data-dependent.
    std::vector<Dim> dims;
    for (std::size_t k = 0; k < in.rank(); ++k)
      dims.push_back(fresh(node, out, 0, k, 0, upper_bound(in.dims[k])));
    return set_shape(out, 0, dtype, Shape::of(dims));
  }
  if (!steps.empty() && steps.size() != axes.size())
    return fail(out, "steps and axes have different lengths");

  std::vector<Dim> dims = in.dims;
  std::vector<std::int64_t> step_values(axes.size(), 1);
  std::vector<bool> step_known(axes.size(), true);
  for (std::size_t k = 0; k < steps.size(); ++k) {
    step_known[k] = steps[k].get_int(&step_values[k]);
    if (step_known[k] && step_values[k] == 0)
      return fail(out, "slice step 0 on axis " + std::to_string(axes[k]));
  }
  for (std::size_t k = 0; k < axes.size(); ++k) {
    const auto a = static_cast<std::size_t>(axes[k]);
    if (!bounds_known || !step_known[k]) {
      dims[a] = fresh(node, out, 0, a, 0, upper_bound(in.dims[a]));
    } else {
      dims[a] = slice_length(out, in.dims[a], starts[k], ends[k], step_values[k]);
    }
  }
  if (Status s = set_shape(out, 0, dtype, Shape::of(dims)); s != Status::kOk) return s;

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
  Status st;
  if (!require_inputs(node, out, 2, &st)) return st;
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
    if (d.get_int(&v) && v < 0)
      return fail(out, "shape entry " + std::to_string(v) + " is negative");
  }
  Shape result;
  if (Status s = broadcast_shapes(out, in, Shape::of(target), &result); s != Status::kOk) return s;
  if (Status s = set_shape(out, 0, dtype, result); s != Status::kOk) return s;
  std::vector<Dim> values, broadcast;
  std::vector<std::int64_t> from, to;
  if (input_values(node, 0, &values) && concrete_dims(in.dims, &from) &&
      concrete_dims(result.dims, &to) && broadcast_value(values, from, to, &broadcast)) {
    return set_value(out, 0, broadcast);
  }
  return Status::kOk;
}

Status tile(const INodeView& node, IShapeSink& out) {
  Status st;
  if (!require_inputs(node, out, 2, &st)) return st;
  const std::int32_t dtype = node.input_dtype(0);
  Shape in = input_shape(node, 0);
  if (!in.known) return set_shape(out, 0, dtype, Shape::unknown());
  const auto rank = static_cast<std::int64_t>(in.rank());
  std::vector<Dim> dims = in.dims;
  if (node.opset_version() < 6) {
    // Tile-1: scalar `tiles` copies along the scalar `axis`.
    if (!require_inputs(node, out, 3, &st)) return st;
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
    return fail(out, "repeats has " + std::to_string(repeats.size()) + " entries for rank " +
                         std::to_string(rank));
  }
  for (std::size_t k = 0; k < dims.size(); ++k) {
    std::int64_t r;
    if (repeats[k].get_int(&r) && r < 0)
      return fail(out, "repeat " + std::to_string(r) + " is negative");
    dims[k] = dims[k] * repeats[k];
  }
  if (Status s = set_shape(out, 0, dtype, Shape::of(dims)); s != Status::kOk) return s;
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
  Status st;
  if (!require_inputs(node, out, 1, &st)) return st;
  const std::int32_t dtype = node.input_dtype(0);
  Shape in = input_shape(node, 0);
  if (!in.known) return set_shape(out, 0, dtype, Shape::unknown());
  const auto rank = static_cast<std::int64_t>(in.rank());
  std::vector<Dim> pads;
  bool pads_known = true;
  if (node.opset_version() < 11) {
    std::vector<std::int64_t> attr;
    const char* name = node.opset_version() < 2 ? "paddings" : "pads";
    if (!attr_ints_vec(node, name, &attr))
      return fail(out, std::string("missing '") + name + "' attribute");
    for (std::int64_t v : attr) pads.push_back(node.constant(v));
  } else {
    if (!require_inputs(node, out, 2, &st)) return st;
    pads_known = input_values(node, 1, &pads);
  }
  std::vector<std::int64_t> axes;
  bool axes_known = true;
  if (node.opset_version() >= 18 && node.has_input(3)) {
    axes_known = input_ints(node, 3, &axes);
    if (axes_known && !normalize_axes(out, &axes, rank, &st)) return st;
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
    return fail(out, "pads has " + std::to_string(pads.size()) + " entries for " +
                         std::to_string(n) + " axes");
  }
  for (std::size_t k = 0; k < n; ++k) {
    const auto a = static_cast<std::size_t>(axes[k]);
    Dim d = in.dims[a] + pads[k] + pads[k + n];
    if (d.lift(0).provably_gt(d)) {
      return fail(out,
                  "padding gives axis " + std::to_string(a) + " the negative size " + to_string(d));
    }
    dims[a] = d;
  }
  if (Status s = set_shape(out, 0, dtype, Shape::of(dims)); s != Status::kOk) return s;

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

// ---- data-dependent sizes -----------------------------------------------------------------------

/// NonZero: int64 `[rank, nnz]`, nnz fresh in [0, hi(numel)]; an input with a known concrete
/// value (a folded bool/int constant) gives the exact count and, when small, the coordinates.
Status nonzero(const INodeView& node, IShapeSink& out) {
  Status st;
  if (!require_inputs(node, out, 1, &st)) return st;
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
    if (Status s =
            set_shape(out, 0, dtype::kInt64, Shape::of({node.constant(rank), node.constant(nnz)}));
        s != Status::kOk) {
      return s;
    }
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
  const std::int64_t hi = in.known ? upper_bound(numel(node, in)) : kPosInf;
  return set_shape(out, 0, dtype::kInt64, Shape::of({rank, fresh(node, out, 0, 1, 0, hi)}));
}

/// Unique: one fresh count u (in [0, hi(numel)], or [0, hi(d[axis])] with `axis`) shared by Y,
/// indices and counts; inverse_indices has one entry per input element (or slice).
Status unique(const INodeView& node, IShapeSink& out) {
  Status st;
  if (!require_inputs(node, out, 1, &st)) return st;
  const std::int32_t dtype = node.input_dtype(0);
  Shape in = input_shape(node, 0);
  std::int64_t axis_attr;
  const bool has_axis = node.attr_int(StringRef("axis"), &axis_attr);
  Shape y;
  Dim u, inverse;
  if (!has_axis) {
    const Dim total = in.known ? numel(node, in) : Dim();
    u = fresh(node, out, 0, 0, 0, in.known ? upper_bound(total) : kPosInf);
    inverse = in.known ? total : fresh(node, out, 2, 0, 0, kPosInf);
    y = Shape::of({u});
  } else if (in.known) {
    std::int64_t axis;
    if (!normalize_axis(axis_attr, static_cast<std::int64_t>(in.rank()), &axis)) {
      return fail(out, "axis " + std::to_string(axis_attr) + " out of range");
    }
    const auto a = static_cast<std::size_t>(axis);
    u = fresh(node, out, 0, a, 0, upper_bound(in.dims[a]));
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
    if (Status s = set_shape(out, o, o == 0 ? dtype : dtype::kInt64, per_value[o]);
        s != Status::kOk)
      return s;
  }
  return Status::kOk;
}

/// Compress: condition entries past the selected length are ignored (as ONNX Runtime does), so
/// with a known condition the count is exact: a true entry at position p counts 1 when p <
/// length is proven, 0 when refuted, else `min(max(length-p,0),1)` (at most a few such terms).
/// Otherwise the count is fresh in [0, min(hi(length), len(condition))].
Status compress(const INodeView& node, IShapeSink& out) {
  Status st;
  if (!require_inputs(node, out, 2, &st)) return st;
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
      return fail(out, "axis " + std::to_string(axis_attr) + " out of range");
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
    std::int64_t hi = limit.valid() ? upper_bound(limit) : kPosInf;
    Shape c = input_shape(node, 1);
    std::int64_t c_len;
    if (c.known && c.rank() == 1 && c.dims[0].get_int(&c_len)) hi = std::min(hi, c_len);
    count = fresh(node, out, 0, a, 0, hi);
  }
  if (!has_axis) {
    if (Status s = set_shape(out, 0, dtype, Shape::of({count})); s != Status::kOk) return s;
  } else {
    Shape result = in;
    result.dims[a] = count;
    if (Status s = set_shape(out, 0, dtype, result); s != Status::kOk) return s;
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
  Status st;
  if (!require_inputs(node, out, 1, &st)) return st;
  const std::int32_t dtype = node.input_dtype(0);
  Shape in = input_shape(node, 0);
  if (!in.known) {
    if (Status s = set_shape(out, 0, dtype, Shape::unknown()); s != Status::kOk) return s;
    return node.output_count() > 1 ? set_shape(out, 1, dtype::kInt64, Shape::unknown())
                                   : Status::kOk;
  }
  std::int64_t axis;
  if (!read_axis(node, out, "axis", -1, static_cast<std::int64_t>(in.rank()), &axis, &st))
    return st;
  const auto a = static_cast<std::size_t>(axis);
  const Dim d = in.dims[a];
  Dim k;
  if (node.opset_version() < 10) {
    std::int64_t kv;
    if (!node.attr_int(StringRef("k"), &kv)) return fail(out, "missing 'k' attribute");
    k = node.constant(kv);
  } else {
    if (!require_inputs(node, out, 2, &st)) return st;
    std::vector<Dim> kvalue;
    if (input_values(node, 1, &kvalue) && kvalue.size() == 1) k = kvalue[0];
  }
  if (k.valid()) {
    std::int64_t kv, dv;
    if (k.get_int(&kv) && kv < 0) return fail(out, "k is negative (" + std::to_string(kv) + ")");
    if (k.get_int(&kv) && d.get_int(&dv) && kv > dv) {
      return fail(out, "k = " + std::to_string(kv) + " exceeds axis " + std::to_string(axis) +
                           " of size " + std::to_string(dv));
    }
  } else {
    k = fresh(node, out, 0, a, 0, upper_bound(d));
  }
  assume_le(out, k, d);
  Shape result = in;
  result.dims[a] = k;
  if (Status s = set_shape(out, 0, dtype, result); s != Status::kOk) return s;
  return node.output_count() > 1 ? set_shape(out, 1, dtype::kInt64, result) : Status::kOk;
}

// ---- shape-preserving and others ----------------------------------------------------------------

Status same_as_data(const INodeView& node, IShapeSink& out) {
  Status st;
  if (!require_inputs(node, out, 1, &st)) return st;
  return same_as_input(node, out, 0, node.input_dtype(0));
}

/// Det: `[*, M, M]` -> `[*]`.
Status det(const INodeView& node, IShapeSink& out) {
  Status st;
  if (!require_inputs(node, out, 1, &st)) return st;
  const std::int32_t dtype = node.input_dtype(0);
  Shape in = input_shape(node, 0);
  if (!in.known) return set_shape(out, 0, dtype, Shape::unknown());
  if (in.rank() < 2) return fail(out, "input must have rank >= 2");
  std::string error;
  if (!unify(out, in.dims[in.rank() - 2], in.dims[in.rank() - 1], "matrices are not square",
             &error)) {
    return fail(out, error);
  }
  return set_shape(out, 0, dtype, Shape::of({in.dims.begin(), in.dims.end() - 2}));
}

/// TopK keeps an index buffer of every input element (int64) while selecting (semantics.md 9).
Status topk_scratch(const INodeView& node, IScratchSink& out) {
  Shape in = input_shape(node, 0);
  if (!in.known) return out.fail(Status::kUnsupported, "input rank unknown");
  return out.set_bytes(numel(node, in) * 8);
}

// In-place: ONNX Runtime's Scatter/ScatterElements (CPU), ScatterND (CUDA; the CPU kernel skips
// its copy when the buffers coincide) and TensorScatter (CPU) kernels declare MayInplace(0, 0):
// the output is the data tensor with some elements replaced, same dtype and shape. No other op
// of this family is a view or runs in place there (Slice, Expand, Tile, Pad copy), so none gets a
// policy: a wrong alias would under-report memory.
Status reuse_data(const INodeView&, IInplaceSink& out) { return out.may_reuse(0, 0); }

constinit const FnShapeRule kGather{&gather};
constinit const FnShapeRule kGatherElements{&gather_elements};
constinit const FnShapeRule kGatherND{&gather_nd};
constinit const FnShapeRule kScatter{&scatter};
constinit const FnShapeRule kTensorScatter{&tensor_scatter};
constinit const FnShapeRule kSlice{&slice};
constinit const FnShapeRule kExpand{&expand};
constinit const FnShapeRule kTile{&tile};
constinit const FnShapeRule kPad{&pad};
constinit const FnShapeRule kNonZero{&nonzero};
constinit const FnShapeRule kUnique{&unique};
constinit const FnShapeRule kCompress{&compress};
constinit const FnShapeRule kTopK{&topk};
constinit const FnShapeRule kSameAsData{&same_as_data};
constinit const FnShapeRule kDet{&det};
constinit const FnScratchEstimator kTopKScratch{&topk_scratch};
constinit const FnInplacePolicy kReuseData{&reuse_data};

}  // namespace

void register_indexing(Registration& reg) {
  reg.shape("Gather", {1, 11, 13}, kGather);
  reg.shape("GatherElements", {11, 13}, kGatherElements);
  reg.shape("GatherND", {11, 12, 13}, kGatherND);
  reg.shape("Scatter", {9, 11}, kScatter);
  reg.shape("ScatterElements", {11, 13, 16, 18}, kScatter);
  reg.shape("ScatterND", {11, 13, 16, 18}, kScatter);
  reg.shape("TensorScatter", 24, kTensorScatter);
  reg.shape("Slice", {1, 10, 11, 13}, kSlice);
  reg.shape("Expand", {8, 13}, kExpand);
  reg.shape("Tile", {1, 6, 13}, kTile);
  reg.shape("Pad", {1, 2, 11, 13, 18, 19, 21, 23}, kPad);
  reg.shape("NonZero", {9, 13}, kNonZero);
  reg.shape("Unique", 11, kUnique);
  reg.shape("Compress", {9, 11}, kCompress);
  reg.shape("TopK", {1, 10, 11}, kTopK);
  reg.shape("Trilu", 14, kSameAsData);
  reg.shape("CumSum", {11, 14}, kSameAsData);
  reg.shape("ReverseSequence", 10, kSameAsData);
  reg.shape("Det", {11, 22}, kDet);
  reg.scratch("TopK", 1, kTopKScratch);
  for (const char* op : {"Scatter", "ScatterElements", "ScatterND", "TensorScatter"}) {
    reg.inplace(op, 1, kReuseData);
  }
}

}  // namespace cctx::opsets::onnx
