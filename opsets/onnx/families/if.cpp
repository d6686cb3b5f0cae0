// If (the control-flow family): both branches are inferred, a decided condition selects one (so
// does a branch whose nodes refuse their inputs: the other one runs), and otherwise each output
// merges the branches' kinds, types, values and dims, a dim that differs
// becoming their max or a fresh symbol (plugin option `if_merge`, read by register_control_flow).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "body_values.hpp"
#include "control_flow_rules.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

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

/// Branches whose output `o` differs in rank (PyTorch's "squeeze if the size is 1": a Squeeze
/// in one branch, the unsqueezed tensor in the other): the rank depends on which branch runs,
/// the number of elements need not. Equal counts give that count; otherwise, with `if_merge`
/// max, the larger count bounds the bytes from above. It is exact for the squeeze pattern:
/// Squeeze takes the removed symbolic dim to be 1 (its constraint), and that branch runs only
/// when it is, so the other branch's count is what either branch holds.
void merge_element_counts(const INodeView& node, IShapeSink& out, std::uint32_t o,
                          const BodyValue& a, const BodyValue& b, IfMerge mode, BodyValue* merged) {
  // A branch output of unknown rank counts when it has a count itself (an If inside).
  if ((!a.shape.known && !a.has_elements) || (!b.shape.known && !b.has_elements)) return;
  const Dim ca = a.shape.known ? product(node, a.shape.dims, 0, a.shape.rank()) : a.elements;
  const Dim cb = b.shape.known ? product(node, b.shape.dims, 0, b.shape.rank()) : b.elements;
  if (ca.provably_eq(cb)) {
    merged->elements = ca;
  } else if (mode == IfMerge::kMax) {
    merged->elements = max(ca, cb);
    out.constraint(ConstraintKind::kOneOf, merged->elements.handle(), ca.handle(), cb.handle());
  } else {
    return;
  }
  merged->has_elements = true;
  auto rank = [](const BodyValue& v) {
    return v.shape.known ? std::to_string(v.shape.rank()) : std::string("unknown");
  };
  const std::string message = "output " + std::to_string(o) + ": the branches give ranks " +
                              rank(a) + " and " + rank(b) +
                              ": its rank depends on which branch runs, its element count does not";
  out.warn(StringRef(message.data(), message.size()));
}

Status merge_branches(const INodeView& node, IShapeSink& out, std::uint32_t o, const BodyValue& a,
                      const BodyValue& b, IfMerge mode, BodyValue* merged) {
  if (a.kind != b.kind && a.kind != ValueKind::kUnknown && b.kind != ValueKind::kUnknown) {
    return fail("output " + std::to_string(o) + " has different kinds in the two branches");
  }
  if (a.dtype != b.dtype && a.dtype != dtype::kUndefined && b.dtype != dtype::kUndefined) {
    return fail("output " + std::to_string(o) + " has different element types in the two branches");
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
    if (merged->kind == ValueKind::kTensor) merge_element_counts(node, out, o, a, b, mode, merged);
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
  require_inputs(node, 1);
  // Both branches are inferred even when the condition is decided: their nodes need shapes too.
  std::vector<BodyValue> then_out, else_out;
  std::uint32_t then_refusals = 0, else_refusals = 0;
  check(infer_body(node, out, "then_branch", {}, &then_out));
  check(out.body_refusals(&then_refusals));
  check(infer_body(node, out, "else_branch", {}, &else_out));
  check(out.body_refusals(&else_refusals));
  if (then_out.size() != else_out.size() || then_out.size() < node.output_count()) {
    return fail("the branches have " + std::to_string(then_out.size()) + " and " +
                std::to_string(else_out.size()) + " outputs for " +
                std::to_string(node.output_count()) + " node outputs");
  }
  int branch = decided_branch(node);
  if (branch < 0 && (then_refusals == 0) != (else_refusals == 0)) {
    // One branch breaks an operator's contract with these inputs (silero's 8 kHz branch at a
    // 16 kHz chunk size): the runtime would fail there, so the other one is what runs.
    branch = then_refusals == 0 ? 1 : 0;
    const std::string message = std::string("the ") + (branch == 1 ? "else" : "then") +
                                " branch cannot run here (" +
                                std::to_string(branch == 1 ? else_refusals : then_refusals) +
                                " node(s) refusing their inputs): the " +
                                (branch == 1 ? "then" : "else") + " branch is the one that runs";
    out.warn(StringRef(message.data(), message.size()));
  }
  // The branch that does not run holds no memory.
  if (branch >= 0)
    check(out.skip_body(StringRef::from_c_str(branch == 1 ? "else_branch" : "then_branch")));
  for (std::uint32_t o = 0; o < node.output_count(); ++o) {
    if (!node.has_output(o)) continue;
    BodyValue result;
    if (branch >= 0) {
      result = branch == 1 ? then_out[o] : else_out[o];
    } else {
      check(merge_branches(node, out, o, then_out[o], else_out[o], mode, &result));
    }
    check(set_body_value(out, o, result));
  }
  return Status::kOk;
}

Status if_max(const INodeView& node, IShapeSink& out) { return if_op(node, out, IfMerge::kMax); }
Status if_fresh(const INodeView& node, IShapeSink& out) {
  return if_op(node, out, IfMerge::kFresh);
}

}  // namespace

constinit const FnShapeRule kIfMax{&if_max};
constinit const FnShapeRule kIfFresh{&if_fresh};

}  // namespace cctx::opsets::onnx
