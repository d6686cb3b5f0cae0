// The buffer planners (see buffer_plan.hpp).
#include "pipeline/buffer_plan.hpp"

#include <stdexcept>
#include <string>

#include "pipeline/analysis_state.hpp"

namespace cctx {

namespace {

/// The seed's accounting: lifetimes by last reader, then in-place decisions from the plugins'
/// policies (or the structural fallback), each output's own buffer otherwise.
class SeedBufferPlanner final : public BufferPlanner {
 public:
  std::string_view name() const override { return "seed"; }
  BufferPlan plan(Analysis& a, const ShapeResult& shapes, const TagResult& tags,
                  const StepTimer& timed) const override {
    BufferPlan plan;
    timed("lifetimes", [&] { run_lifetime_stage(a, tags, plan); });
    timed("inplace", [&] { run_inplace_stage(a, shapes, plan); });
    return plan;
  }
};

}  // namespace

std::unique_ptr<BufferPlanner> make_buffer_planner(std::string_view name) {
  if (name == "seed") return std::make_unique<SeedBufferPlanner>();
  if (name == "free_list") return make_free_list_planner();
  throw std::invalid_argument("unknown buffer planner '" + std::string(name) + "'");
}

}  // namespace cctx
