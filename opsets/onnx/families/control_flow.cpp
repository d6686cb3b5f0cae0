// Operators with graph bodies (expressions.md 7): If, Loop, Scan and SequenceMap. The host infers
// a body on request (IShapeSink::infer_body) with the body input types a rule describes; outer
// values stay visible, so captures need nothing here.
#include <algorithm>
#include <optional>

#include "families.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

// ---- body values --------------------------------------------------------------------------------

/// A value handed to or returned from a body, owned by the plugin (ValueDesc only borrows).
struct BodyValue {
  ValueKind kind = ValueKind::kUnknown;
  std::int32_t dtype = dtype::kUndefined;
  Shape shape;
  bool has_value = false;
  std::vector<Dim> value;
  /// A sequence's length, when known (symbolic or concrete); its elements are all `shape`.
  bool has_length = false;
  Dim length;
};

BodyValue node_input(const INodeView& node, std::uint32_t i) {
  BodyValue v;
  v.kind = node.input_kind(i);
  v.dtype = node.input_dtype(i);
  v.shape = input_shape(node, i);
  v.has_value = input_values(node, i, &v.value);
  if (v.kind == ValueKind::kSequence && node.input_sequence_length_dim(i, &v.length)) {
    // A body sees one shape for every element, so only a sequence whose positions all have that
    // shape keeps its length (a symbolic length already means uniform elements).
    std::vector<Shape> elements;
    v.has_length = !input_elements(node, i, &elements) ||
                   std::all_of(elements.begin(), elements.end(),
                               [&](const Shape& e) { return same_shape(e, v.shape); });
  }
  return v;
}

BodyValue scalar_tensor(std::int32_t dtype) {
  BodyValue v;
  v.kind = ValueKind::kTensor;
  v.dtype = dtype;
  v.shape = Shape::of({});
  return v;
}

/// The element tensor of a sequence (a tensor stays itself).
BodyValue element_of(BodyValue v) {
  if (v.kind == ValueKind::kSequence) v.kind = ValueKind::kTensor;
  v.has_value = false;
  v.value.clear();
  v.has_length = false;
  return v;
}

/// Sets node output `o` from a body value (values only on tensors).
Status set_body_value(IShapeSink& out, std::uint32_t o, const BodyValue& v) {
  const ValueKind kind = v.kind == ValueKind::kUnknown ? ValueKind::kTensor : v.kind;
  std::vector<std::uint32_t> h = handles(v.shape.dims);
  const std::int32_t rank = v.shape.known ? static_cast<std::int32_t>(h.size()) : -1;
  if (Status s = out.set_output(o, kind, v.dtype, rank, h.data()); s != Status::kOk) return s;
  if (kind == ValueKind::kTensor && v.has_value) return set_value(out, o, v.value);
  if (kind == ValueKind::kSequence && v.has_length)
    return out.set_output_length(o, v.length.handle());
  return Status::kOk;
}

/// Describes body inputs to the host, keeping the handle arrays alive for the call.
class BodyInputs {
 public:
  explicit BodyInputs(const std::vector<BodyValue>& values) {
    dims_.reserve(values.size());
    values_.reserve(values.size());
    for (const BodyValue& v : values) {
      dims_.push_back(handles(v.shape.dims));
      // A sequence's length travels as its one value (ValueDesc).
      const bool sequence_length = v.kind == ValueKind::kSequence && v.has_length;
      values_.push_back(sequence_length ? std::vector<std::uint32_t>{v.length.handle()}
                                        : handles(v.value));
      ValueDesc d;
      d.kind = v.kind;
      d.dtype = v.dtype;
      d.rank = v.shape.known ? static_cast<std::int32_t>(v.shape.rank()) : -1;
      d.dims = dims_.back().data();
      d.value_size =
          v.has_value || sequence_length ? static_cast<std::int32_t>(values_.back().size()) : -1;
      d.values = values_.back().data();
      descs_.push_back(d);
    }
  }
  const ValueDesc* data() const { return descs_.data(); }
  std::uint32_t size() const { return static_cast<std::uint32_t>(descs_.size()); }

 private:
  std::vector<std::vector<std::uint32_t>> dims_, values_;
  std::vector<ValueDesc> descs_;
};

/// Collects what the host reports for each body output.
class BodyResults final : public IBodyOutputs {
 public:
  explicit BodyResults(const ExprApi& api) : api_(api) {}

  void on_output(std::uint32_t index, const ValueDesc& d) noexcept override {
    try {
      if (index >= values.size()) values.resize(index + 1);
      BodyValue& v = values[index];
      v.kind = d.kind;
      v.dtype = d.dtype;
      v.shape = d.rank < 0 ? Shape::unknown() : Shape::of({});
      for (std::int32_t a = 0; a < d.rank; ++a) v.shape.dims.emplace_back(&api_, d.dims[a]);
      if (d.kind == ValueKind::kSequence) {
        v.has_length = d.value_size == 1;
        if (v.has_length) v.length = Dim(&api_, d.values[0]);
        return;
      }
      v.has_value = d.value_size >= 0;
      for (std::int32_t k = 0; k < d.value_size; ++k) v.value.emplace_back(&api_, d.values[k]);
    } catch (...) {
      failed = true;
    }
  }

  std::vector<BodyValue> values;
  bool failed = false;

 private:
  const ExprApi& api_;
};

/// Infers the body `attr` and returns its outputs in `results`.
Status infer_body(const INodeView& node, IShapeSink& out, const char* attr,
                  const std::vector<BodyValue>& inputs, std::vector<BodyValue>* results) {
  BodyInputs descs(inputs);
  BodyResults collected(node.expr());
  if (Status s = out.infer_body(StringRef::from_c_str(attr), descs.size(), descs.data(), collected);
      s != Status::kOk) {
    return s;
  }
  if (collected.failed)
    return fail(out, std::string("could not record the outputs of '") + attr + "'");
  const std::int32_t expected = node.attr_graph_outputs(StringRef::from_c_str(attr));
  collected.values.resize(static_cast<std::size_t>(std::max(expected, 0)));
  *results = std::move(collected.values);
  return Status::kOk;
}

bool same_values(const BodyValue& a, const BodyValue& b) {
  if (!a.has_value || !b.has_value || a.value.size() != b.value.size()) return false;
  for (std::size_t k = 0; k < a.value.size(); ++k) {
    if (!a.value[k].provably_eq(b.value[k])) return false;
  }
  return true;
}

// ---- If -----------------------------------------------------------------------------------------

/// How an If output dim that differs between the branches is represented (plugin option
/// `if_merge`): `max` is an evaluable upper bound, right for memory; `fresh` a new symbol.
enum class IfMerge { kMax, kFresh };

/// 1 when the condition is provably true, 0 when provably false, -1 when undecided.
int decided_branch(const INodeView& node) {
  std::vector<Dim> cond;
  if (!input_values(node, 0, &cond) || cond.size() != 1) return -1;
  const Dim zero = cond[0].lift(0);
  if (cond[0].provably_eq(zero)) return 0;
  if (cond[0].provably_ne(zero)) return 1;
  return -1;
}

Dim merge_branch_dims(const INodeView& node, IShapeSink& out, std::uint32_t o, std::uint32_t axis,
                      Dim a, Dim b, IfMerge mode) {
  if (a.provably_eq(b)) return a;
  Dim merged = max(a, b);
  if (mode == IfMerge::kFresh) {
    std::int64_t alo, ahi, blo, bhi;
    a.bounds(&alo, &ahi);
    b.bounds(&blo, &bhi);
    merged = fresh(node, out, o, axis, std::max<std::int64_t>(0, std::min(alo, blo)),
                   std::max(ahi, bhi));
  }
  out.constraint(ConstraintKind::kOneOf, merged.handle(), a.handle(), b.handle());
  return merged;
}

Status merge_branches(const INodeView& node, IShapeSink& out, std::uint32_t o, const BodyValue& a,
                      const BodyValue& b, IfMerge mode, BodyValue* merged) {
  if (a.kind != b.kind && a.kind != ValueKind::kUnknown && b.kind != ValueKind::kUnknown) {
    return fail(out, "output " + std::to_string(o) + " has different kinds in the two branches");
  }
  if (a.dtype != b.dtype && a.dtype != dtype::kUndefined && b.dtype != dtype::kUndefined) {
    return fail(out,
                "output " + std::to_string(o) + " has different element types in the two branches");
  }
  merged->kind = a.kind != ValueKind::kUnknown ? a.kind : b.kind;
  merged->dtype = a.dtype != dtype::kUndefined ? a.dtype : b.dtype;
  merged->has_value = same_values(a, b);
  if (merged->has_value) merged->value = a.value;
  merged->has_length = a.has_length && b.has_length && a.length.provably_eq(b.length) &&
                       same_shape(a.shape, b.shape);
  if (merged->has_length) merged->length = a.length;
  if (!a.shape.known || !b.shape.known || a.shape.rank() != b.shape.rank()) {
    merged->shape = Shape::unknown();
    return Status::kOk;
  }
  merged->shape = Shape::of({});
  for (std::size_t k = 0; k < a.shape.rank(); ++k) {
    merged->shape.dims.push_back(merge_branch_dims(node, out, o, static_cast<std::uint32_t>(k),
                                                   a.shape.dims[k], b.shape.dims[k], mode));
  }
  return Status::kOk;
}

Status if_op(const INodeView& node, IShapeSink& out, IfMerge mode) {
  Status st;
  if (!require_inputs(node, out, 1, &st)) return st;
  // Both branches are inferred even when the condition is decided: their nodes need shapes too.
  std::vector<BodyValue> then_out, else_out;
  if (Status s = infer_body(node, out, "then_branch", {}, &then_out); s != Status::kOk) return s;
  if (Status s = infer_body(node, out, "else_branch", {}, &else_out); s != Status::kOk) return s;
  if (then_out.size() != else_out.size() || then_out.size() < node.output_count()) {
    return fail(out, "the branches have " + std::to_string(then_out.size()) + " and " +
                         std::to_string(else_out.size()) + " outputs for " +
                         std::to_string(node.output_count()) + " node outputs");
  }
  const int branch = decided_branch(node);
  for (std::uint32_t o = 0; o < node.output_count(); ++o) {
    if (!node.has_output(o)) continue;
    BodyValue result;
    if (branch >= 0) {
      result = branch == 1 ? then_out[o] : else_out[o];
    } else if (Status s = merge_branches(node, out, o, then_out[o], else_out[o], mode, &result);
               s != Status::kOk) {
      return s;
    }
    if (Status s = set_body_value(out, o, result); s != Status::kOk) return s;
  }
  return Status::kOk;
}

Status if_max(const INodeView& node, IShapeSink& out) { return if_op(node, out, IfMerge::kMax); }
Status if_fresh(const INodeView& node, IShapeSink& out) {
  return if_op(node, out, IfMerge::kFresh);
}

// ---- loop-carried values ------------------------------------------------------------------------

/// True when `next` still describes the carried value `cur`: the same rank with provably equal
/// dims (or cur's rank unknown), and cur's value, if any, unchanged.
bool keeps(const BodyValue& cur, const BodyValue& next) {
  if (cur.has_value && !same_values(cur, next)) return false;
  if (!cur.shape.known) return true;
  if (!next.shape.known || next.shape.rank() != cur.shape.rank()) return false;
  for (std::size_t a = 0; a < cur.shape.rank(); ++a) {
    if (!next.shape.dims[a].provably_eq(cur.shape.dims[a])) return false;
  }
  return true;
}

/// Infers a loop body until its carried values reach a fixpoint (expressions.md 7, Loop). When the
/// loop provably runs at least once and the body maps the values after one iteration to
/// themselves (`[d0]` -> `[1]` -> `[1]`, or `max(a,b)` -> `max(a,b)`), those are the final
/// values. Otherwise a carried dim that an iteration changes becomes a fresh loop-variant symbol,
/// seen by the body and held by the final value (node output k for carried value k), and the body
/// is inferred again. The symbols are fresh, so every later iteration maps them to themselves and
/// one re-inference usually suffices; after kMaxPasses every carried dim is made loop-variant,
/// which is a fixpoint.
class CarriedFixpoint {
 public:
  /// `axis_offset`: position of carried dim 0 in the node's output (Scan 8 prepends the batch).
  CarriedFixpoint(const INodeView& node, IShapeSink& out, std::vector<BodyValue> initial,
                  std::uint32_t axis_offset)
      : node_(node), out_(out), carried_(std::move(initial)), axis_offset_(axis_offset) {
    for (const BodyValue& v : carried_) variant_.emplace_back(v.shape.rank(), false);
    length_symbol_.resize(carried_.size());
    initial_length_.resize(carried_.size());
  }

  /// Body inputs are `prefix`, the carried values, then `suffix`; the carried body outputs start
  /// at `first_output`. `runs_once`: the loop provably runs at least one iteration.
  Status run(const char* attr, const std::vector<BodyValue>& prefix,
             const std::vector<BodyValue>& suffix, std::size_t first_output, bool runs_once) {
    auto infer = [&] { return infer_body(node_, out_, attr, body_inputs(prefix, suffix), &last_); };
    if (Status s = infer(); s != Status::kOk) return s;
    first_ = last_;
    if (generalize_sequences(first_output)) {
      if (Status s = infer(); s != Status::kOk) return s;
      ++passes_;
      first_ = last_;
    }
    if (runs_once && changed(first_output)) {
      const std::vector<BodyValue> initial = carried_;
      for (std::size_t k = 0; k < carried_.size(); ++k) {
        carried_[k] = first_[first_output + k];
        if (length_symbol_[k]) carried_[k].length = *length_symbol_[k];
      }
      if (Status s = infer(); s != Status::kOk) return s;
      ++passes_;
      if (!changed(first_output)) return Status::kOk;
      carried_ = initial;
      last_ = first_;
    }
    for (int pass = 1;; ++pass) {
      if (!absorb(first_output)) return Status::kOk;
      if (pass == kMaxPasses) make_all_variant();
      ++passes_;
      if (Status s = infer(); s != Status::kOk || pass == kMaxPasses) return s;
    }
  }

  /// The carried values as the body saw them last: the final values of the loop, except for
  /// the lengths of carried sequences (final_length).
  const std::vector<BodyValue>& carried() const { return carried_; }

  /// Carried sequence k after `trip` iterations: when every iteration adds the same number of
  /// elements d of the carried element shape (the body maps length L to L + d for the symbolic
  /// L it was given), its length is initial + trip * d; otherwise unknown.
  BodyValue final_value(std::size_t k, std::size_t first_output, Dim trip) const {
    BodyValue v = carried_[k];
    if (!length_symbol_[k]) return v;
    v.has_length = false;
    const BodyValue& after = last_[first_output + k];
    if (!initial_length_[k] || !after.has_length || !same_shape(after.shape, v.shape)) return v;
    const Dim step = after.length - *length_symbol_[k];
    if (!step.is_const()) return v;
    v.has_length = true;
    v.length = *initial_length_[k] + trip * step;
    return v;
  }
  /// Body outputs of the last inference.
  const std::vector<BodyValue>& results() const { return last_; }

  /// A per-iteration output dim (scan output element): when the body was re-inferred, a dim that
  /// moved away from its first-pass form depends on loop-variant symbols and becomes fresh.
  Shape per_iteration_shape(std::size_t body_output, std::uint32_t node_output,
                            std::uint32_t axis_offset) {
    const Shape& last = last_[body_output].shape;
    const Shape& first = first_[body_output].shape;
    if (passes_ == 0 || !last.known) return last;
    if (!first.known || first.rank() != last.rank()) return Shape::unknown();
    Shape s = last;
    for (std::size_t k = 0; k < s.rank(); ++k) {
      if (s.dims[k].same(first.dims[k]) || s.dims[k].is_const()) continue;
      s.dims[k] =
          fresh(node_, out_, node_output, static_cast<std::uint32_t>(k) + axis_offset, 0, kPosInf);
    }
    return s;
  }

 private:
  static constexpr int kMaxPasses = 3;
  /// Axis under which a carried sequence's loop-variant length is named (`<Op>_<n>_o<k>_d999`):
  /// no element dim has that axis.
  static constexpr std::uint32_t kLengthAxis = 999;

  /// Gives every carried sequence a loop-variant length symbol L, so that one inference shows how
  /// an iteration changes the length (L -> L + d). An initially empty sequence takes the element
  /// shape of its first iteration: it has no elements of its own to merge. True when there is a
  /// carried sequence.
  bool generalize_sequences(std::size_t first_output) {
    bool any = false;
    for (std::size_t k = 0; k < carried_.size(); ++k) {
      BodyValue& cur = carried_[k];
      if (cur.kind != ValueKind::kSequence) continue;
      any = true;
      if (cur.has_length) initial_length_[k] = cur.length;
      if (cur.has_length && cur.length.is(0)) {
        cur.shape = first_[first_output + k].shape;
        variant_[k].assign(cur.shape.rank(), false);
      }
      length_symbol_[k] =
          fresh(node_, out_, static_cast<std::uint32_t>(k), kLengthAxis, 0, kPosInf);
      cur.has_length = true;
      cur.length = *length_symbol_[k];
    }
    return any;
  }

  std::vector<BodyValue> body_inputs(const std::vector<BodyValue>& prefix,
                                     const std::vector<BodyValue>& suffix) const {
    std::vector<BodyValue> inputs = prefix;
    inputs.insert(inputs.end(), carried_.begin(), carried_.end());
    inputs.insert(inputs.end(), suffix.begin(), suffix.end());
    return inputs;
  }

  Dim variant_dim(std::size_t k, std::size_t axis) {
    variant_[k][axis] = true;
    return fresh(node_, out_, static_cast<std::uint32_t>(k),
                 static_cast<std::uint32_t>(axis) + axis_offset_, 0, kPosInf);
  }

  /// True when the last inference's carried outputs differ from the carried values.
  bool changed(std::size_t first_output) const {
    for (std::size_t k = 0; k < carried_.size(); ++k) {
      if (!keeps(carried_[k], last_[first_output + k])) return true;
    }
    return false;
  }

  /// Folds one iteration's outputs into the carried values; true when anything changed.
  bool absorb(std::size_t first_output) {
    bool changed = false;
    for (std::size_t k = 0; k < carried_.size(); ++k) {
      BodyValue& cur = carried_[k];
      const BodyValue& next = last_[first_output + k];
      if (cur.has_value && !same_values(cur, next)) {
        cur.has_value = false;
        cur.value.clear();
        changed = true;
      }
      if (!cur.shape.known) continue;
      if (!next.shape.known || next.shape.rank() != cur.shape.rank()) {
        cur.shape = Shape::unknown();
        changed = true;
        continue;
      }
      for (std::size_t a = 0; a < cur.shape.rank(); ++a) {
        if (variant_[k][a] || next.shape.dims[a].provably_eq(cur.shape.dims[a])) continue;
        cur.shape.dims[a] = variant_dim(k, a);
        changed = true;
      }
    }
    return changed;
  }

  void make_all_variant() {
    for (std::size_t k = 0; k < carried_.size(); ++k) {
      BodyValue& cur = carried_[k];
      cur.has_value = false;
      cur.value.clear();
      for (std::size_t a = 0; a < cur.shape.rank(); ++a) {
        if (!variant_[k][a]) cur.shape.dims[a] = variant_dim(k, a);
      }
    }
  }

  const INodeView& node_;
  IShapeSink& out_;
  std::vector<BodyValue> carried_;
  std::uint32_t axis_offset_;
  std::vector<std::vector<bool>> variant_;
  std::vector<std::optional<Dim>> length_symbol_, initial_length_;  ///< per carried sequence
  std::vector<BodyValue> first_, last_;
  int passes_ = 0;  ///< re-inferences done
};

// ---- Loop ---------------------------------------------------------------------------------------

/// Trip count (expressions.md 7): the value of M when the loop cannot stop early (no cond input,
/// or a true cond that the body keeps true), else fresh in [0, hi(M)].
Dim loop_trip_count(const INodeView& node, IShapeSink& out, const BodyValue& body_cond,
                    std::uint32_t scan_output) {
  std::vector<Dim> m, cond;
  const bool m_known = input_values(node, 0, &m) && m.size() == 1;
  const bool has_cond = node.has_input(1);
  const bool cond_known = has_cond && input_values(node, 1, &cond) && cond.size() == 1;
  if (cond_known && cond[0].is(0)) return node.constant(0);
  const bool body_keeps_true = body_cond.has_value && body_cond.value.size() == 1 &&
                               body_cond.value[0].is_const() && !body_cond.value[0].is(0);
  const bool never_stops_early = !has_cond || (cond_known && !cond[0].is(0) && body_keeps_true);
  if (m_known && never_stops_early) return m[0];
  std::int64_t lo = 0, hi = kPosInf;
  if (m_known) m[0].bounds(&lo, &hi);
  return fresh(node, out, scan_output, 0, 0, std::max<std::int64_t>(hi, 0));
}

/// True when the loop provably runs at least one iteration: M, if given, is >= 1 and the initial
/// cond, if given, is true.
bool loop_runs_once(const INodeView& node) {
  std::vector<Dim> v;
  if (node.has_input(0) &&
      !(input_values(node, 0, &v) && v.size() == 1 && v[0].provably_ge(v[0].lift(1)))) {
    return false;
  }
  return !node.has_input(1) ||
         (input_values(node, 1, &v) && v.size() == 1 && v[0].provably_ne(v[0].lift(0)));
}

Status loop_op(const INodeView& node, IShapeSink& out) {
  if (node.input_count() < 2) return fail(out, "expects inputs M and cond (possibly empty)");
  const std::uint32_t carried_count = node.input_count() - 2;
  const std::int32_t body_outputs = node.attr_graph_outputs("body");
  if (body_outputs < 0) return fail(out, "missing 'body' graph");
  if (static_cast<std::uint32_t>(body_outputs) != 1 + node.output_count() ||
      node.output_count() < carried_count) {
    return fail(out, "body has " + std::to_string(body_outputs) + " outputs for " +
                         std::to_string(carried_count) + " carried values and " +
                         std::to_string(node.output_count()) + " node outputs");
  }
  std::vector<BodyValue> initial;
  for (std::uint32_t k = 0; k < carried_count; ++k) initial.push_back(node_input(node, 2 + k));
  // The body only runs while the condition holds, so it always sees cond = true.
  BodyValue cond_in = scalar_tensor(dtype::kBool);
  cond_in.has_value = true;
  cond_in.value = {node.constant(1)};
  CarriedFixpoint loop(node, out, std::move(initial), 0);
  if (Status s =
          loop.run("body", {scalar_tensor(dtype::kInt64), cond_in}, {}, 1, loop_runs_once(node));
      s != Status::kOk) {
    return s;
  }
  const Dim trip = loop_trip_count(node, out, loop.results()[0], carried_count);
  for (std::uint32_t k = 0; k < carried_count; ++k) {
    if (!node.has_output(k)) continue;
    if (Status s = set_body_value(out, k, loop.final_value(k, 1, trip)); s != Status::kOk) return s;
  }
  if (node.output_count() == carried_count) return Status::kOk;
  for (std::uint32_t o = carried_count; o < node.output_count(); ++o) {
    if (!node.has_output(o)) continue;
    const std::size_t body_output = 1 + o;
    Shape element = loop.per_iteration_shape(body_output, o, 1);
    Shape stacked = Shape::unknown();
    if (element.known) {
      stacked = Shape::of({trip});
      stacked.dims.insert(stacked.dims.end(), element.dims.begin(), element.dims.end());
    }
    if (Status s = set_shape(out, o, loop.results()[body_output].dtype, stacked);
        s != Status::kOk) {
      return s;
    }
  }
  return Status::kOk;
}

// ---- Scan ---------------------------------------------------------------------------------------

/// Unifies a dim shared by several inputs (Scan's trip count, Scan 8's batch): the first known
/// one wins, the others are recorded equal; concrete conflicts are errors.
class SharedDim {
 public:
  explicit SharedDim(const char* what) : what_(what) {}

  Status add(IShapeSink& out, Dim d) {
    if (!known_) {
      dim_ = d;
      known_ = true;
      return Status::kOk;
    }
    if (d.provably_eq(dim_)) return Status::kOk;
    std::int64_t a, b;
    if ((d.get_int(&a) && dim_.get_int(&b)) || d.provably_ne(dim_)) {
      return fail(out, std::string(what_) + " differs between inputs: " + to_string(dim_) + " vs " +
                           to_string(d));
    }
    out.constraint(ConstraintKind::kEq, dim_.handle(), d.handle(), 0);
    return Status::kOk;
  }

  bool known() const { return known_; }

  /// True when an input gave the dim and it is provably >= 1.
  bool provably_positive() const { return known_ && dim_.provably_ge(dim_.lift(1)); }

  /// The shared dim, or a fresh one named after (output, axis) when no input knows it.
  Dim get(const INodeView& node, IShapeSink& out, std::uint32_t o, std::uint32_t axis) {
    if (!known_) {
      dim_ = fresh(node, out, o, axis, 0, kPosInf);
      known_ = true;
    }
    return dim_;
  }

 private:
  const char* what_;
  Dim dim_;
  bool known_ = false;
};

/// Axes attribute with one entry per item (default 0); false when the length is wrong.
bool per_item_axes(const INodeView& node, const char* name, std::uint32_t count,
                   std::vector<std::int64_t>* axes) {
  if (!attr_ints_vec(node, name, axes)) axes->assign(count, 0);
  return axes->size() == count;
}

Shape without_axes(const Shape& s, std::size_t first, std::size_t count) {
  Shape r = s;
  r.dims.erase(r.dims.begin() + static_cast<std::ptrdiff_t>(first),
               r.dims.begin() + static_cast<std::ptrdiff_t>(first + count));
  return r;
}

struct ScanLayout {
  bool batched = false;  ///< Scan 8: inputs [batch, seq, ...], states [batch, ...]
  std::uint32_t first_state = 0, states = 0, scan_inputs = 0, scan_outputs = 0;
  std::vector<std::int64_t> input_axes, output_axes;
};

Status read_scan_layout(const INodeView& node, IShapeSink& out, ScanLayout* l) {
  std::int64_t m;
  if (!node.attr_int("num_scan_inputs", &m) || m < 0) return fail(out, "missing 'num_scan_inputs'");
  l->batched = node.opset_version() < 9;
  l->first_state = l->batched ? 1 : 0;
  const auto inputs = static_cast<std::int64_t>(node.input_count()) - l->first_state;
  if (inputs < m) return fail(out, "fewer inputs than num_scan_inputs");
  l->scan_inputs = static_cast<std::uint32_t>(m);
  l->states = static_cast<std::uint32_t>(inputs - m);
  if (node.output_count() < l->states) return fail(out, "fewer outputs than state variables");
  l->scan_outputs = node.output_count() - l->states;
  if (node.attr_graph_outputs("body") != static_cast<std::int32_t>(node.output_count())) {
    return fail(out, "body outputs do not match the node outputs");
  }
  if (l->batched) return Status::kOk;
  if (!per_item_axes(node, "scan_input_axes", l->scan_inputs, &l->input_axes) ||
      !per_item_axes(node, "scan_output_axes", l->scan_outputs, &l->output_axes)) {
    return fail(out,
                "scan_input_axes/scan_output_axes do not have one entry per scan input/output");
  }
  return Status::kOk;
}

/// The scan elements the body sees, unifying the trip count (and Scan 8's batch) on the way.
Status scan_elements(const INodeView& node, IShapeSink& out, const ScanLayout& l, SharedDim* trip,
                     SharedDim* batch, std::vector<BodyValue>* elements) {
  for (std::uint32_t i = 0; i < l.scan_inputs; ++i) {
    BodyValue v = element_of(node_input(node, l.first_state + l.states + i));
    if (v.shape.known) {
      const auto rank = static_cast<std::int64_t>(v.shape.rank());
      std::int64_t axis = 1;
      if (!l.batched && !normalize_axis(l.input_axes[i], rank, &axis)) {
        return fail(out, "scan input " + std::to_string(i) + " axis out of range");
      }
      if (axis >= rank)
        return fail(out, "scan input " + std::to_string(i) + " has no sequence axis");
      if (Status s = trip->add(out, v.shape.dims[static_cast<std::size_t>(axis)]); s != Status::kOk)
        return s;
      if (l.batched) {
        if (Status s = batch->add(out, v.shape.dims[0]); s != Status::kOk) return s;
        v.shape = without_axes(v.shape, 0, 2);
      } else {
        v.shape = without_axes(v.shape, static_cast<std::size_t>(axis), 1);
      }
    }
    elements->push_back(std::move(v));
  }
  return Status::kOk;
}

Status scan_op(const INodeView& node, IShapeSink& out) {
  ScanLayout l;
  if (Status s = read_scan_layout(node, out, &l); s != Status::kOk) return s;
  SharedDim trip("sequence length"), batch("batch size");
  std::vector<BodyValue> initial, elements;
  for (std::uint32_t k = 0; k < l.states; ++k) {
    BodyValue v = node_input(node, l.first_state + k);
    if (l.batched && v.shape.known) {
      if (v.shape.rank() == 0)
        return fail(out, "state " + std::to_string(k) + " has no batch axis");
      if (Status s = batch.add(out, v.shape.dims[0]); s != Status::kOk) return s;
      v.shape = without_axes(v.shape, 0, 1);
    }
    initial.push_back(std::move(v));
  }
  if (Status s = scan_elements(node, out, l, &trip, &batch, &elements); s != Status::kOk) return s;
  const std::uint32_t offset = l.batched ? 1 : 0;
  CarriedFixpoint scan(node, out, std::move(initial), offset);
  if (Status s = scan.run("body", {}, elements, 0, trip.provably_positive()); s != Status::kOk) {
    return s;
  }
  for (std::uint32_t k = 0; k < l.states; ++k) {
    if (!node.has_output(k)) continue;
    BodyValue final_state = scan.carried()[k];
    if (final_state.kind == ValueKind::kSequence) {
      final_state.has_length = false;
      if (trip.known()) final_state = scan.final_value(k, 0, trip.get(node, out, k, 0));
    }
    if (l.batched && final_state.shape.known) {
      final_state.shape.dims.insert(final_state.shape.dims.begin(), batch.get(node, out, k, 0));
    }
    if (Status s = set_body_value(out, k, final_state); s != Status::kOk) return s;
  }
  for (std::uint32_t j = 0; j < l.scan_outputs; ++j) {
    const std::uint32_t o = l.states + j;
    if (!node.has_output(o)) continue;
    Shape element = scan.per_iteration_shape(o, o, offset + 1);
    if (element.known) {
      std::int64_t axis = 0;
      const auto rank = static_cast<std::int64_t>(element.rank()) + 1;
      if (!l.batched && !normalize_axis(l.output_axes[j], rank, &axis)) {
        return fail(out, "scan output " + std::to_string(j) + " axis out of range");
      }
      const auto at = static_cast<std::uint32_t>(axis) + offset;
      element.dims.insert(element.dims.begin() + static_cast<std::ptrdiff_t>(axis),
                          trip.get(node, out, o, at));
      if (l.batched) element.dims.insert(element.dims.begin(), batch.get(node, out, o, 0));
    }
    if (Status s = set_shape(out, o, scan.results()[o].dtype, element); s != Status::kOk) return s;
  }
  return Status::kOk;
}

// ---- SequenceMap --------------------------------------------------------------------------------

/// The body runs once per element: sequence inputs contribute their element, tensors themselves;
/// each body output becomes a sequence of such elements.
Status sequence_map(const INodeView& node, IShapeSink& out) {
  Status st;
  if (!require_inputs(node, out, 1, &st)) return st;
  if (node.input_kind(0) != ValueKind::kSequence && node.input_kind(0) != ValueKind::kUnknown) {
    return fail(out, "input 0 must be a sequence");
  }
  std::vector<BodyValue> inputs, results;
  const BodyValue first = node_input(node, 0);
  for (std::uint32_t i = 0; i < node.input_count(); ++i) {
    BodyValue v = node_input(node, i);
    inputs.push_back(v.kind == ValueKind::kSequence || i == 0 ? element_of(v) : v);
  }
  if (Status s = infer_body(node, out, "body", inputs, &results); s != Status::kOk) return s;
  if (results.size() < node.output_count())
    return fail(out, "body has fewer outputs than the node");
  for (std::uint32_t o = 0; o < node.output_count(); ++o) {
    if (!node.has_output(o)) continue;
    BodyValue element = element_of(results[o]);
    element.kind = ValueKind::kSequence;
    // One output element per element of input 0 (uniform when input 0's are).
    element.has_length = first.has_length;
    element.length = first.length;
    if (Status s = set_body_value(out, o, element); s != Status::kOk) return s;
  }
  return Status::kOk;
}

constinit const FnShapeRule kIfMax{&if_max};
constinit const FnShapeRule kIfFresh{&if_fresh};
constinit const FnShapeRule kLoop{&loop_op};
constinit const FnShapeRule kScan{&scan_op};
constinit const FnShapeRule kSequenceMap{&sequence_map};

}  // namespace

void register_control_flow(Registration& reg) {
  // Plugin option `if_merge` (expressions.md 7, If): `max` (default) or `fresh`.
  StringRef merge("max");
  reg.registrar().option("if_merge", &merge);
  if (!merge.equals("max") && !merge.equals("fresh")) {
    reg.fail("option 'if_merge' must be 'max' or 'fresh'");
    return;
  }
  // Versions 13, 16, 19, 21 and 23 only widen the value types; the rules cover them unchanged.
  reg.shape("If", {1, 11, 13, 16, 19, 21, 23}, merge.equals("max") ? kIfMax : kIfFresh);
  reg.shape("Loop", {1, 11, 13, 16, 19, 21, 23}, kLoop);
  reg.shape("Scan", {8, 9, 11, 16, 19, 21, 23}, kScan);
  reg.shape("SequenceMap", 17, kSequenceMap);
}

}  // namespace cctx::opsets::onnx
