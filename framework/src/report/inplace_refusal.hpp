// Why an output of a node got no in-place decision: for each output left without one and each of
// the node's inputs, the first condition of semantics.md "In-place reuse" that the pair fails. The
// pipeline records only accepted decisions, and a policy's declarations are not kept, so a pair
// that passes every condition is reported as "not declared by the policy".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cctx/compute_context.hpp"
#include "report/buffer_timeline.hpp"

namespace cctx::report_detail {

struct InplaceRefusal {
  std::uint32_t output = 0;
  std::int64_t input = -1;  ///< -1: the reason is about the node, not one input
  std::string reason;
};

std::vector<InplaceRefusal> inplace_refusals(const ComputeContext& ctx,
                                             const BufferTimeline& timeline, NodeId n);

}  // namespace cctx::report_detail
