/// @file shape_helpers.hpp
/// Header-only convenience layer for shape rules: shapes as vectors of Dims, value lists, axis
/// normalisation and multidirectional broadcasting. It uses std containers *inside* the plugin;
/// nothing of it crosses the boundary (the sinks receive plain handle arrays).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cctx/sdk/dims.hpp"
#include "cctx/sdk/node_view.hpp"
#include "cctx/sdk/rules.hpp"

namespace cctx::sdk {
inline namespace v1 {

/// A symbolic shape: unknown rank, or a list of dims.
struct Shape {
  bool known = false;
  std::vector<Dim> dims;

  static Shape unknown() { return Shape{}; }
  static Shape of(std::vector<Dim> d) { return Shape{true, std::move(d)}; }
  std::size_t rank() const noexcept { return dims.size(); }
};

/// Both shapes known, of one rank, with provably equal dims.
inline bool same_shape(const Shape& a, const Shape& b) noexcept {
  if (!a.known || !b.known || a.rank() != b.rank()) return false;
  for (std::size_t k = 0; k < a.rank(); ++k) {
    if (!a.dims[k].provably_eq(b.dims[k])) return false;
  }
  return true;
}

/// Canonical text of a dim (for messages).
inline std::string to_string(Dim d) {
  char buffer[128];
  std::size_t n = d.print(buffer, sizeof buffer);
  if (n <= sizeof buffer) return std::string(buffer, n);
  std::string text(n, '\0');
  d.print(text.data(), n);
  return text;
}

inline std::string to_string(StringRef s) { return std::string(s.data, s.size); }

inline Shape input_shape(const INodeView& node, std::uint32_t i) {
  Shape s;
  std::int32_t rank = node.input_rank(i);
  if (rank < 0) return s;
  s.known = true;
  s.dims.reserve(static_cast<std::size_t>(rank));
  for (std::int32_t a = 0; a < rank; ++a) {
    s.dims.push_back(node.input_dim(i, static_cast<std::uint32_t>(a)));
  }
  return s;
}

/// The known value of input i (a small integer tensor), or false.
inline bool input_values(const INodeView& node, std::uint32_t i, std::vector<Dim>* out) {
  if (!node.has_input(i)) return false;
  std::int32_t n = node.input_value_size(i);
  if (n < 0) return false;
  out->clear();
  out->reserve(static_cast<std::size_t>(n));
  for (std::int32_t k = 0; k < n; ++k) {
    out->push_back(node.input_value(i, static_cast<std::uint32_t>(k)));
  }
  return true;
}

/// The known value of input i when every element is an integer.
inline bool input_ints(const INodeView& node, std::uint32_t i, std::vector<std::int64_t>* out) {
  std::vector<Dim> values;
  if (!input_values(node, i, &values)) return false;
  out->clear();
  for (Dim d : values) {
    std::int64_t v;
    if (!d.get_int(&v)) return false;
    out->push_back(v);
  }
  return true;
}

/// The element shapes of sequence input i, one per position, or false when its length is
/// unknown.
inline bool input_elements(const INodeView& node, std::uint32_t i, std::vector<Shape>* out) {
  const std::int32_t length = node.input_sequence_length(i);
  if (length < 0) return false;
  out->assign(static_cast<std::size_t>(length), Shape::unknown());
  for (std::uint32_t k = 0; k < static_cast<std::uint32_t>(length); ++k) {
    const std::int32_t rank = node.input_element_rank(i, k);
    if (rank < 0) continue;
    Shape& s = (*out)[k];
    s.known = true;
    for (std::int32_t a = 0; a < rank; ++a) {
      s.dims.push_back(node.input_element_dim(i, k, static_cast<std::uint32_t>(a)));
    }
  }
  return true;
}

inline std::vector<std::uint32_t> handles(const std::vector<Dim>& dims) {
  std::vector<std::uint32_t> h;
  h.reserve(dims.size());
  for (Dim d : dims) h.push_back(d.handle());
  return h;
}

namespace detail {
/// Calls fn(count, handles) with the dims' handles: on the stack for the usual ranks, since a
/// rule sets an output per node and an allocation each time shows in large graphs.
template <class Fn>
Status with_handles(const std::vector<Dim>& dims, Fn&& fn) {
  constexpr std::size_t kOnStack = 8;
  if (dims.size() <= kOnStack) {
    std::uint32_t h[kOnStack];
    for (std::size_t k = 0; k < dims.size(); ++k) h[k] = dims[k].handle();
    return fn(static_cast<std::uint32_t>(dims.size()), h);
  }
  const std::vector<std::uint32_t> h = handles(dims);
  return fn(static_cast<std::uint32_t>(h.size()), h.data());
}
}  // namespace detail

inline Status set_shape(IShapeSink& out, std::uint32_t index, std::int32_t dtype,
                        const Shape& shape) {
  if (!shape.known) return out.set_unknown_rank(index, dtype);
  return detail::with_handles(shape.dims, [&](std::uint32_t count, const std::uint32_t* h) {
    return out.set_tensor(index, dtype, static_cast<std::int32_t>(count), h);
  });
}

inline Status set_value(IShapeSink& out, std::uint32_t index, const std::vector<Dim>& values) {
  return detail::with_handles(values, [&](std::uint32_t count, const std::uint32_t* h) {
    return out.set_output_value(index, count, h);
  });
}

/// Sets the length of sequence output `index` and the shape of each of its elements (call it
/// after the output's set_output).
inline Status set_elements(IShapeSink& out, std::uint32_t index,
                           const std::vector<Shape>& elements) {
  std::vector<std::int32_t> ranks;
  std::vector<std::uint32_t> dims;
  for (const Shape& e : elements) {
    ranks.push_back(e.known ? static_cast<std::int32_t>(e.rank()) : -1);
    for (Dim d : e.dims) dims.push_back(d.handle());
  }
  return out.set_output_elements(index, static_cast<std::uint32_t>(ranks.size()), ranks.data(),
                                 dims.data());
}

/// Maps a possibly negative axis into [0, rank). False when out of range.
inline bool normalize_axis(std::int64_t axis, std::int64_t rank, std::int64_t* out) noexcept {
  if (axis < -rank || axis >= rank) return false;
  *out = axis < 0 ? axis + rank : axis;
  return true;
}

/// Broadcasts two dims (expressions.md section 7). Records what broadcasting requires (the
/// runtime refuses dims that do not broadcast); returns false and sets `*error` when the dims
/// provably cannot broadcast.
inline bool broadcast_dim(IShapeSink& sink, Dim a, Dim b, Dim* out, std::string* error) {
  // The cheap tests first: a dim of 1 against a symbol is the common case (masks, norms), and a
  // proof of equality costs far more than a look at a constant.
  if (a.same(b)) {
    *out = a;
    return true;
  }
  if (b.is(1)) {  // a, whether or not it provably equals 1
    *out = a;
    return true;
  }
  if (a.is(1)) {
    // a when b provably equals 1, else b. Only a dim whose bounds are [1, 1] can (the proof
    // looks at the interval of 1 - b), so the others skip it.
    std::int64_t lo, hi;
    b.bounds(&lo, &hi);
    *out = lo == 1 && hi == 1 && a.provably_eq(b) ? a : b;
    return true;
  }
  if (a.provably_eq(b)) {
    *out = a;
    return true;
  }
  std::int64_t ca, cb;
  bool ka = a.get_int(&ca), kb = b.get_int(&cb);
  if (ka && kb) {
    *error = "cannot broadcast " + std::to_string(ca) + " with " + std::to_string(cb);
    return false;
  }
  if (ka || kb) {
    Dim c = ka ? a : b, s = ka ? b : a;
    Dim one = c.lift(1);
    if (s.provably_ne(one) && s.provably_ne(c)) {
      *error = "cannot broadcast " + to_string(a) + " with " + to_string(b);
      return false;
    }
    sink.require(ConstraintKind::kOneOf, s, one, c);
    *out = c;
    return true;
  }
  Dim one = a.lift(1);
  if (a.provably_ne(one) && b.provably_ne(one) && a.provably_ne(b)) {
    *error = "cannot broadcast " + to_string(a) + " with " + to_string(b);
    return false;
  }
  sink.require(ConstraintKind::kBroadcast, a, b);
  // max(a,b)*min(a,b,1) is exact when a dim may be 0; the engine reduces it to max(a,b) when
  // both are provably >= 1.
  *out = max(a, b) * min(min(a, b), one);
  return true;
}

namespace detail {
/// broadcast_shapes over `count` shapes. An output axis takes the dim of the first shape that
/// reaches it, then broadcasts with each later shape's dim there, in order; an axis is reached
/// once a shape of rank at least (rank - axis) has been seen. Allocates only the result.
inline Status broadcast_all(IShapeSink& sink, const Shape* const* shapes, std::size_t count,
                            Shape* out) {
  std::size_t rank = 0;
  for (std::size_t k = 0; k < count; ++k) {
    if (!shapes[k]->known) {
      *out = Shape::unknown();
      return Status::kOk;
    }
    if (shapes[k]->rank() > rank) rank = shapes[k]->rank();
  }
  std::vector<Dim> dims(rank);
  std::size_t reached = 0;  // the trailing axes some earlier shape has set
  for (std::size_t s = 0; s < count; ++s) {
    const Shape& shape = *shapes[s];
    const std::size_t offset = rank - shape.rank();
    for (std::size_t k = 0; k < shape.rank(); ++k) {
      const std::size_t axis = offset + k;
      if (axis < rank - reached) {
        dims[axis] = shape.dims[k];
        continue;
      }
      std::string error;
      if (!broadcast_dim(sink, dims[axis], shape.dims[k], &dims[axis], &error)) {
        error += " at output axis " + std::to_string(axis);
        return sink.fail(Status::kInvalidArgument, StringRef(error.data(), error.size()));
      }
    }
    if (shape.rank() > reached) reached = shape.rank();
  }
  *out = Shape::of(std::move(dims));
  return Status::kOk;
}
}  // namespace detail

/// Multidirectional (numpy) broadcasting of several shapes. Unknown rank in -> unknown rank out.
inline Status broadcast_shapes(IShapeSink& sink, const std::vector<Shape>& shapes, Shape* out) {
  std::vector<const Shape*> list;
  list.reserve(shapes.size());
  for (const Shape& s : shapes) list.push_back(&s);
  return detail::broadcast_all(sink, list.data(), list.size(), out);
}

/// Broadcasting of two shapes (the binary operators' case, without a list of copies).
inline Status broadcast_shapes(IShapeSink& sink, const Shape& a, const Shape& b, Shape* out) {
  const Shape* list[2] = {&a, &b};
  return detail::broadcast_all(sink, list, 2, out);
}

/// Product of dims [begin, end) (1 for an empty range).
inline Dim product(const INodeView& node, const std::vector<Dim>& dims, std::size_t begin,
                   std::size_t end) {
  Dim p = node.constant(1);
  for (std::size_t k = begin; k < end && k < dims.size(); ++k) p = p * dims[k];
  return p;
}

}  // namespace v1
}  // namespace cctx::sdk
