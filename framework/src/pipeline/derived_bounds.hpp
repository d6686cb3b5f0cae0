// Bounds derived from the model (semantics.md "Bounds derived from the model"): a constraint a
// rule recorded in the main graph, over a single declared symbol, that fails at the ends of the
// symbol's bounds narrows them to the nearest values where it holds. The model cannot run at the
// values cut off, so simplifying under the narrowed bounds keeps every result exact where the
// model runs.
#pragma once

#include <vector>

#include "cctx/compute_context.hpp"
#include "cctx/expr.hpp"
#include "cctx/graph.hpp"
#include "pipeline/analysis_state.hpp"

namespace cctx {

/// Narrows the pool's bounds of the one declared symbol `c` mentions, if `c` cuts off values at
/// an end of its bounds; appends what it did to `derived`. `graph` names its node in the reason.
void derive_bounds(ExprPool& pool, const GraphView& graph, const Constraint& c,
                   std::vector<DerivedBound>& derived);

/// The shape stage, run again from the start while its requirements narrowed some bounds (at
/// most a few times): what a pass built before a narrowing was simplified under the wider bounds,
/// the next pass simplifies everything under the narrowed ones from the first node on. Replaces
/// `s.pool`; the result's derived_bounds lists every narrowing of every pass.
ShapeResult run_shape_stage_with_derived_bounds(Analysis& s);

/// Whether `c` holds at `at`; throws ExprError when it cannot be evaluated there.
bool constraint_holds(ExprPool& pool, const Constraint& c, const Assignment& at);

/// One line for a constraint: "4 <= height", "height % 32 == 0" style.
std::string constraint_text(ExprPool& pool, const Constraint& c);

}  // namespace cctx
