// `cctx plan`'s outputs: the plan as text, as a versioned JSON document a runtime can replay
// (format cctx.memory_plan/1), and as a figure of the buffers over time and address at one
// assignment (SVG, and an HTML page holding it).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cctx/memory_plan.hpp"

namespace cctx {

struct PlanReport {
  std::string model;
  std::string profile;
  const MemoryPlan* plan = nullptr;
  std::vector<PlanValues> evaluations;  ///< --eval's assignments
  std::optional<PlanCheck> check;       ///< --check N
};

/// `wide`: every formula in place (else long ones are named and listed under the table).
std::string plan_text(const ComputeContext& ctx, const PlanReport& report, bool wide);
nlohmann::ordered_json plan_json(const ComputeContext& ctx, const PlanReport& report);
/// The buffers at one assignment as boxes: nodes along x, addresses along y, the arena and the
/// live-bytes floor as lines. Self-contained SVG, like the analysis figures.
std::string plan_svg(const ComputeContext& ctx, const MemoryPlan& plan, const PlanValues& at);
/// One page: the figure at each assignment, the figures per assignment, the check's summary.
std::string plan_html(const ComputeContext& ctx, const PlanReport& report);
/// The check's summary lines ("check: ...").
std::string plan_check_text(const PlanCheck& check);

}  // namespace cctx
