// Sequences and optionals. A sequence or optional value is described by its element tensor's
// dtype and one shape standing for every element (types.hpp): elements of different shapes share
// one whose differing dims are the max of the alternatives (the upper bound If uses for its
// branches). When a sequence's length is known the host also keeps each position's shape
// (IShapeSink::set_output_elements), which makes SequenceAt, SequenceLength and
// ConcatFromSequence exact; what depends on data (a position or a split without a value) leaves
// the length unknown, and the lengths and concatenated sizes it governs are fresh symbols.
#include <algorithm>

#include "families.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

/// Longest sequence whose positions are tracked one by one (a split into many chunks is not).
constexpr std::size_t kMaxTrackedLength = 64;

Status set_sequence(IShapeSink& out, std::uint32_t o, std::int32_t dtype, const Shape& element) {
  std::vector<std::uint32_t> h = handles(element.dims);
  return out.set_output(o, ValueKind::kSequence, dtype,
                        element.known ? static_cast<std::int32_t>(h.size()) : -1, h.data());
}

/// One shape standing for every element: ranks differ -> unknown rank; equal dims kept; else the
/// max, with one_of when there are exactly two symbolic alternatives.
Shape merge_elements(IShapeSink& out, const std::vector<Shape>& shapes) {
  if (shapes.empty()) return Shape::unknown();
  for (const Shape& s : shapes) {
    if (!s.known || s.rank() != shapes[0].rank()) return Shape::unknown();
  }
  Shape merged = shapes[0];
  for (std::size_t k = 0; k < merged.rank(); ++k) {
    std::vector<Dim> distinct;
    for (const Shape& s : shapes) {
      Dim d = s.dims[k];
      if (std::none_of(distinct.begin(), distinct.end(), [d](Dim e) { return e.provably_eq(d); })) {
        distinct.push_back(d);
      }
    }
    Dim m = distinct[0];
    for (std::size_t i = 1; i < distinct.size(); ++i) m = max(m, distinct[i]);
    if (distinct.size() == 2 && !m.is_const()) {
      out.constraint(ConstraintKind::kOneOf, m.handle(), distinct[0].handle(),
                     distinct[1].handle());
    }
    merged.dims[k] = m;
  }
  return merged;
}

/// Sets a sequence of known length: one position per element (an unknown-rank element is only
/// described by `common`, the shape standing for every element).
Status set_positions(IShapeSink& out, std::uint32_t o, std::int32_t dtype, const Shape& common,
                     const std::vector<Shape>& elements) {
  check(set_sequence(out, o, dtype, common));
  if (elements.size() > kMaxTrackedLength) return Status::kOk;
  return set_elements(out, o, elements);
}

/// A sequence of known elements: the shape standing for them all is their merge when every one
/// is known, else `fallback` (a shape that already stands for them all).
Status set_known_elements(IShapeSink& out, std::uint32_t o, std::int32_t dtype,
                          const std::vector<Shape>& elements, const Shape& fallback) {
  const bool all_known =
      std::all_of(elements.begin(), elements.end(), [](const Shape& e) { return e.known; });
  return set_positions(out, o, dtype, all_known ? merge_elements(out, elements) : fallback,
                       elements);
}

/// A sequence of `length` elements (symbolic or concrete), every one of shape `element`.
Status set_uniform(IShapeSink& out, std::uint32_t o, std::int32_t dtype, const Shape& element,
                   Dim length) {
  check(set_sequence(out, o, dtype, element));
  return out.set_output_length(o, length);
}

/// The length of sequence input i when it is known only as an expression: its elements then all
/// have the input's shape.
bool symbolic_length(const INodeView& node, std::uint32_t i, Dim* length) {
  return node.input_sequence_length(i) < 0 && node.input_sequence_length_dim(i, length);
}

/// Requires input i to be a sequence (or of a kind not inferred yet).
void require_sequence(const INodeView& node, std::uint32_t i) {
  const ValueKind kind = node.input_kind(i);
  if (kind != ValueKind::kSequence && kind != ValueKind::kUnknown)
    fail("input " + std::to_string(i) + " must be a sequence");
}

/// The position given by input i (`fallback` when absent) for a sequence of `length` elements,
/// mapped into [0, length) ([0, length] with `past_end`, as for an insertion). `*known` is false
/// when the position has no value; an out-of-range position fails.
Status read_position(const INodeView& node, std::uint32_t i, std::int64_t length,
                     std::int64_t fallback, bool past_end, std::int64_t* position, bool* known) {
  std::int64_t p = fallback;
  *known = false;
  if (node.has_input(i)) {
    std::vector<std::int64_t> v;
    if (!input_ints(node, i, &v) || v.size() != 1) return Status::kOk;
    p = v[0];
  }
  const std::int64_t hi = past_end ? length : length - 1;
  if (p < -length || p > hi) {
    return fail("position " + std::to_string(p) + " out of range for a sequence of " +
                std::to_string(length) + " element(s)");
  }
  *position = p < 0 ? p + length : p;
  *known = true;
  return Status::kOk;
}

// ---- construction and access --------------------------------------------------------------------

Status sequence_empty(const INodeView& node, IShapeSink& out) {
  const auto dtype = static_cast<std::int32_t>(node.attr_int_or("dtype", dtype::kFloat));
  return set_positions(out, 0, dtype, Shape::unknown(), {});
}

Status sequence_construct(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  std::vector<Shape> shapes;
  for (std::uint32_t i = 0; i < node.input_count(); ++i) shapes.push_back(input_shape(node, i));
  return set_positions(out, 0, node.input_dtype(0), merge_elements(out, shapes), shapes);
}

Status sequence_insert(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  require_sequence(node, 0);
  std::int32_t dtype = node.input_dtype(0);
  if (dtype == dtype::kUndefined) dtype = node.input_dtype(1);
  const Shape inserted = input_shape(node, 1);
  std::vector<Shape> elements;
  if (!input_elements(node, 0, &elements)) {
    Dim length;
    const Shape common = input_shape(node, 0);
    // Elements of one shape stay so when the inserted tensor has it too: one more of them.
    if (symbolic_length(node, 0, &length) && same_shape(common, inserted)) {
      return set_uniform(out, 0, dtype, common, length + 1);
    }
    return set_sequence(out, 0, dtype, merge_elements(out, {common, inserted}));
  }
  const auto length = static_cast<std::int64_t>(elements.size());
  std::int64_t at = 0;
  bool known = false;
  check(read_position(node, 2, length, length, true, &at, &known));
  if (known) {
    elements.insert(elements.begin() + at, inserted);
    const Shape common =
        length == 0 ? inserted : merge_elements(out, {input_shape(node, 0), inserted});
    return set_known_elements(out, 0, dtype, elements, common);
  }
  // A position without a value: one more element, none of them known by position.
  return set_positions(out, 0, dtype, merge_elements(out, {input_shape(node, 0), inserted}),
                       std::vector<Shape>(elements.size() + 1, Shape::unknown()));
}

Status sequence_at(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 2);
  require_sequence(node, 0);
  std::vector<Shape> elements;
  if (input_elements(node, 0, &elements)) {
    const auto length = static_cast<std::int64_t>(elements.size());
    std::int64_t at = 0;
    bool known = false;
    check(read_position(node, 1, length, 0, false, &at, &known));
    if (known && elements[static_cast<std::size_t>(at)].known) {
      return set_shape(out, 0, node.input_dtype(0), elements[static_cast<std::size_t>(at)]);
    }
  }
  return set_shape(out, 0, node.input_dtype(0), input_shape(node, 0));
}

Status sequence_erase(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  require_sequence(node, 0);
  const std::int32_t dtype = node.input_dtype(0);
  const Shape common = input_shape(node, 0);
  std::vector<Shape> elements;
  if (!input_elements(node, 0, &elements)) {
    Dim length;
    if (symbolic_length(node, 0, &length)) return set_uniform(out, 0, dtype, common, length - 1);
    return set_sequence(out, 0, dtype, common);
  }
  const auto length = static_cast<std::int64_t>(elements.size());
  if (length == 0) return fail("cannot erase from an empty sequence");
  std::int64_t at = 0;
  bool known = false;
  check(read_position(node, 1, length, -1, false, &at, &known));
  if (known) {
    elements.erase(elements.begin() + at);
    return set_known_elements(out, 0, dtype, elements, common);
  }
  return set_positions(out, 0, dtype, common,
                       std::vector<Shape>(elements.size() - 1, Shape::unknown()));
}

Status sequence_length(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  require_sequence(node, 0);
  check(set_shape(out, 0, dtype::kInt64, Shape::of({})));
  Dim length;
  if (node.input_sequence_length_dim(0, &length)) return set_value(out, 0, {length});
  return Status::kOk;
}

// ---- split and concat ---------------------------------------------------------------------------

/// Size of the split axis in the elements of SplitToSequence with a `split` input: a scalar s
/// gives chunks of s and a smaller last one (upper bound min(s, d)), a list gives its entries.
Dim split_chunk_dim(const INodeView& node, IShapeSink& out, Dim d, std::uint32_t axis) {
  std::vector<Dim> split;
  const Shape split_shape = input_shape(node, 1);
  if (input_values(node, 1, &split) && !split.empty()) {
    if (split_shape.known && split_shape.rank() == 0) return min(split[0], d);
    std::vector<Shape> sizes;
    for (Dim s : split) sizes.push_back(Shape::of({s}));
    return merge_elements(out, sizes).dims[0];
  }
  return fresh_upto(node, out, 0, axis, d);
}

/// The split-axis size of every element of SplitToSequence when their number is known: d chunks
/// of 1 without `split` (d concrete), the entries of a `split` list, or chunks of a concrete
/// scalar `split` s of a concrete d (the last one d - (n-1)*s).
bool split_chunks(const INodeView& node, Dim d, std::vector<Dim>* chunks) {
  std::int64_t size;
  if (!node.has_input(1)) {
    if (!d.get_int(&size) || size > static_cast<std::int64_t>(kMaxTrackedLength)) return false;
    chunks->assign(static_cast<std::size_t>(size), d.lift(1));
    return true;
  }
  std::vector<Dim> split;
  const Shape split_shape = input_shape(node, 1);
  if (!input_values(node, 1, &split) || !split_shape.known || split_shape.rank() > 1) return false;
  if (split_shape.rank() == 1) {
    *chunks = split;
    return true;
  }
  std::int64_t s;
  if (split.size() != 1 || !split[0].get_int(&s) || s <= 0 || !d.get_int(&size)) return false;
  if ((size + s - 1) / s > static_cast<std::int64_t>(kMaxTrackedLength)) return false;
  for (std::int64_t begin = 0; begin < size; begin += s) {
    chunks->push_back(d.lift(std::min(s, size - begin)));
  }
  return true;
}

Status split_to_sequence(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const std::int32_t dtype = node.input_dtype(0);
  const Shape in = input_shape(node, 0);
  if (!in.known) return set_sequence(out, 0, dtype, Shape::unknown());
  std::int64_t axis;
  const std::int64_t a = node.attr_int_or("axis", 0);
  if (!normalize_axis(a, static_cast<std::int64_t>(in.rank()), &axis)) {
    return fail("axis " + std::to_string(a) + " out of range");
  }
  const auto at = static_cast<std::size_t>(axis);
  const Dim d = in.dims[at];
  const bool drop_axis = !node.has_input(1) && node.attr_int_or("keepdims", 1) == 0;
  auto element_with = [&](Dim size) {
    Shape e = in;
    if (drop_axis) {
      e.dims.erase(e.dims.begin() + static_cast<std::ptrdiff_t>(at));
    } else {
      e.dims[at] = size;
    }
    return e;
  };
  const Dim common_size =
      node.has_input(1) ? split_chunk_dim(node, out, d, static_cast<std::uint32_t>(at)) : d.lift(1);
  const Shape common = element_with(common_size);
  std::vector<Dim> chunks;
  if (!split_chunks(node, d, &chunks)) {
    // Without `split`, d chunks of 1: uniform, so a symbolic d is still the length.
    if (!node.has_input(1)) return set_uniform(out, 0, dtype, common, d);
    return set_sequence(out, 0, dtype, common);
  }
  std::vector<Shape> elements;
  for (Dim size : chunks) elements.push_back(element_with(size));
  return set_positions(out, 0, dtype, common, elements);
}

/// The concatenated axis: the sum of the elements' dims there, or (new_axis) their number, when
/// the positions are known; otherwise fresh.
Dim joined_dim(const INodeView& node, IShapeSink& out, std::size_t at, std::size_t rank,
               bool new_axis) {
  std::vector<Shape> elements;
  Dim length;
  if (symbolic_length(node, 0, &length)) {
    // Every element has the input's shape (of rank `rank`, checked by the caller).
    if (new_axis) return length;
    return length * input_shape(node, 0).dims[at];
  }
  if (input_elements(node, 0, &elements) && !elements.empty()) {
    if (new_axis) return node.constant(static_cast<std::int64_t>(elements.size()));
    const bool same_rank = std::all_of(elements.begin(), elements.end(), [rank](const Shape& e) {
      return e.known && e.rank() == rank;
    });
    if (same_rank) {
      Dim sum = node.constant(0);
      for (const Shape& e : elements) sum += e.dims[at];
      return sum;
    }
  }
  return fresh(node, out, 0, static_cast<std::uint32_t>(at), 0, kPosInf);
}

Status concat_from_sequence(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  require_sequence(node, 0);
  const std::int32_t dtype = node.input_dtype(0);
  Shape element = known_input(node, out, 0, dtype);
  const bool new_axis = node.attr_int_or("new_axis", 0) != 0;
  std::int64_t a;
  if (!node.attr_int("axis", &a)) return fail("missing 'axis'");
  const auto rank = static_cast<std::int64_t>(element.rank()) + (new_axis ? 1 : 0);
  std::int64_t axis;
  if (!normalize_axis(a, rank, &axis)) return fail("axis " + std::to_string(a) + " out of range");
  const auto at = static_cast<std::size_t>(axis);
  const Dim joined = joined_dim(node, out, at, element.rank(), new_axis);
  if (new_axis) {
    element.dims.insert(element.dims.begin() + static_cast<std::ptrdiff_t>(at), joined);
  } else {
    element.dims[at] = joined;
  }
  return set_shape(out, 0, dtype, element);
}

// ---- optionals ----------------------------------------------------------------------------------

/// Optional(x) wraps x's element description. Without an input the element type comes from the
/// TYPE_PROTO attribute `type`, which the SDK cannot read: dtype and rank stay unknown.
Status optional_op(const INodeView& node, IShapeSink& out) {
  if (!node.has_input(0))
    return out.set_output(0, ValueKind::kOptional, dtype::kUndefined, -1, nullptr);
  if (node.input_kind(0) == ValueKind::kSequence) {
    // An optional sequence has no description in the SDK's value kinds (the element would be
    // taken for a tensor later): keep only the element type.
    out.warn("an optional wrapping a sequence is described without its element shape");
    return out.set_output(0, ValueKind::kOptional, node.input_dtype(0), -1, nullptr);
  }
  Shape s = input_shape(node, 0);
  std::vector<std::uint32_t> h = handles(s.dims);
  return out.set_output(0, ValueKind::kOptional, node.input_dtype(0),
                        s.known ? static_cast<std::int32_t>(h.size()) : -1, h.data());
}

/// From opset 18 the input may also be a tensor or a sequence, returned unchanged.
Status optional_get_element(const INodeView& node, IShapeSink& out) {
  require_inputs(node, 1);
  const ValueKind kind = node.input_kind(0);
  const ValueKind result = kind == ValueKind::kSequence ? kind : ValueKind::kTensor;
  Shape s = input_shape(node, 0);
  std::vector<std::uint32_t> h = handles(s.dims);
  check(out.set_output(0, result, node.input_dtype(0),
                       s.known ? static_cast<std::int32_t>(h.size()) : -1, h.data()));
  std::vector<Dim> values;
  if (kind == ValueKind::kTensor && input_values(node, 0, &values)) set_value(out, 0, values);
  return Status::kOk;
}

/// A missing input (opset 18) has no element; a plain tensor or sequence always has one.
Status optional_has_element(const INodeView& node, IShapeSink& out) {
  check(set_shape(out, 0, dtype::kBool, Shape::of({})));
  const ValueKind kind = node.input_kind(0);
  if (!node.has_input(0)) return set_value(out, 0, {node.constant(0)});
  if (kind == ValueKind::kTensor || kind == ValueKind::kSequence) {
    return set_value(out, 0, {node.constant(1)});
  }
  return Status::kOk;
}

constinit const FnShapeRule kSequenceEmpty{&sequence_empty};
constinit const FnShapeRule kSequenceConstruct{&sequence_construct};
constinit const FnShapeRule kSequenceInsert{&sequence_insert};
constinit const FnShapeRule kSequenceAt{&sequence_at};
constinit const FnShapeRule kSequenceErase{&sequence_erase};
constinit const FnShapeRule kSequenceLength{&sequence_length};
constinit const FnShapeRule kSplitToSequence{&split_to_sequence};
constinit const FnShapeRule kConcatFromSequence{&concat_from_sequence};
constinit const FnShapeRule kOptional{&optional_op};
constinit const FnShapeRule kOptionalGetElement{&optional_get_element};
constinit const FnShapeRule kOptionalHasElement{&optional_has_element};

}  // namespace

void register_sequence(Registration& reg) {
  reg.shape("SequenceEmpty", 11, kSequenceEmpty);
  reg.shape("SequenceConstruct", 11, kSequenceConstruct);
  reg.shape("SequenceInsert", 11, kSequenceInsert);
  reg.shape("SequenceAt", 11, kSequenceAt);
  reg.shape("SequenceErase", 11, kSequenceErase);
  reg.shape("SequenceLength", 11, kSequenceLength);
  reg.shape("SplitToSequence", {11, 24}, kSplitToSequence);  // 24: bfloat16
  reg.shape("ConcatFromSequence", 11, kConcatFromSequence);
  reg.shape("Optional", 15, kOptional);
  reg.shape("OptionalGetElement", {15, 18}, kOptionalGetElement);
  reg.shape("OptionalHasElement", {15, 18}, kOptionalHasElement);
}

}  // namespace cctx::opsets::onnx
