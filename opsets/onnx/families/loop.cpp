// Loop (the control-flow family): the carried values through the loop fixpoint
// (carried_fixpoint.hpp), the trip count from M and cond, and the scan outputs stacked along it.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "body_values.hpp"
#include "carried_fixpoint.hpp"
#include "control_flow_rules.hpp"
#include "rule_kit.hpp"

namespace cctx::opsets::onnx {

namespace {

// ---- Loop ---------------------------------------------------------------------------------------

/// Trip count (expressions.md, Symbolic shape inference rules): the value of M when the loop cannot
/// stop early (no cond input, or a true cond that the body keeps true), else fresh in [0, hi(M)].
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
  // A negative M runs no iteration, as 0 does (ONNX Runtime's loop compares `iteration < M`).
  if (m_known && never_stops_early) return max(m[0], m[0].lift(0));
  if (m_known) return fresh_upto(node, out, scan_output, 0, max(m[0], m[0].lift(0)));
  return fresh(node, out, scan_output, 0, 0, kPosInf);
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
  if (node.input_count() < 2) return fail("expects inputs M and cond (possibly empty)");
  const std::uint32_t carried_count = node.input_count() - 2;
  const std::int32_t body_outputs = node.attr_graph_outputs("body");
  if (body_outputs < 0) return fail("missing 'body' graph");
  if (static_cast<std::uint32_t>(body_outputs) != 1 + node.output_count() ||
      node.output_count() < carried_count) {
    return fail("body has " + std::to_string(body_outputs) + " outputs for " +
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
  check(loop.run("body", {scalar_tensor(dtype::kInt64), cond_in}, {}, 1, loop_runs_once(node)));
  const Dim trip = loop_trip_count(node, out, loop.results()[0], carried_count);
  for (std::uint32_t k = 0; k < carried_count; ++k) {
    if (!node.has_output(k)) continue;
    check(set_body_value(out, k, loop.final_value(k, 1, trip)));
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
    check(set_shape(out, o, loop.results()[body_output].dtype, stacked));
  }
  return Status::kOk;
}

}  // namespace

constinit const FnShapeRule kLoop{&loop_op};

}  // namespace cctx::opsets::onnx
