// The loop fixpoint of the control-flow family, shared by Loop (loop.cpp) and Scan (scan.cpp):
// a body is inferred again until the values it carries from one iteration to the next stop
// changing, a dim that an iteration changes becoming a fresh loop-variant symbol
// (expressions.md, Symbolic shape inference rules: Loop).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "body_values.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

/// True when `next` still describes the carried value `cur`: the same rank with provably equal
/// dims (or cur's rank unknown), and cur's value, if any, unchanged.
inline bool keeps(const BodyValue& cur, const BodyValue& next) {
  if (cur.has_value && !same_values(cur, next)) return false;
  if (!cur.shape.known) return true;
  if (!next.shape.known || next.shape.rank() != cur.shape.rank()) return false;
  for (std::size_t a = 0; a < cur.shape.rank(); ++a) {
    if (!next.shape.dims[a].provably_eq(cur.shape.dims[a])) return false;
  }
  return true;
}

/// Infers a loop body until its carried values reach a fixpoint (expressions.md, Symbolic shape
/// inference rules: Loop). When the loop provably runs at least once and the body maps the values
/// after one iteration to themselves (`[d0]` -> `[1]` -> `[1]`, or `max(a,b)` -> `max(a,b)`), those
/// are the final values. Otherwise a carried dim that an iteration changes becomes a fresh
/// loop-variant symbol, seen by the body and held by the final value (node output k for carried
/// value k), and the body is inferred again. The symbols are fresh, so every later iteration maps
/// them to themselves and one re-inference usually suffices; after kMaxPasses every carried dim is
/// made loop-variant, which is a fixpoint.
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
    check(infer());
    first_ = last_;
    if (generalize_sequences(first_output)) {
      check(infer());
      ++passes_;
      first_ = last_;
    }
    if (runs_once && changed(first_output)) {
      const std::vector<BodyValue> initial = carried_;
      for (std::size_t k = 0; k < carried_.size(); ++k) {
        carried_[k] = first_[first_output + k];
        if (length_symbol_[k]) carried_[k].length = *length_symbol_[k];
      }
      check(infer());
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

}  // namespace cctx::opsets::onnx
