// Evaluation and aggregation shared by the figures (see figure_data.hpp).
#include "report/figure_data.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cctx/report.hpp"

namespace cctx::report_detail {

std::int64_t AmountEvaluator::operator()(Expr e) {
  auto [it, inserted] = cache_.try_emplace(e.id, 0);
  if (inserted) it->second = pool_.eval(e, assignment_);
  return it->second;
}

std::vector<std::int64_t> evaluated_totals(const ComputeContext& ctx,
                                           const Assignment& assignment) {
  AmountEvaluator eval(ctx.pool(), assignment);
  std::vector<std::int64_t> out;
  out.reserve(ctx.node_count());
  for (NodeId n = 0; n < ctx.node_count(); ++n) out.push_back(eval(ctx.memory(n).total));
  return out;
}

std::size_t bucket_size_for(std::size_t node_count) {
  if (node_count <= kFigureMaxColumns) return 1;
  return (node_count + kFigureMaxColumns - 1) / kFigureMaxColumns;
}

std::vector<std::size_t> bucket_maxima(const std::vector<std::int64_t>& values,
                                       std::size_t bucket) {
  std::vector<std::size_t> out;
  for (std::size_t start = 0; start < values.size(); start += bucket) {
    std::size_t best = start;
    const std::size_t end = std::min(values.size(), start + bucket);
    for (std::size_t i = start + 1; i < end; ++i) {
      if (values[i] > values[best]) best = i;
    }
    out.push_back(best);
  }
  return out;
}

std::string aggregation_note(std::size_t node_count, std::size_t bucket, std::string_view mark) {
  if (bucket <= 1) return {};
  return fmt::format("{} nodes: each {} shows the largest of {} consecutive nodes", node_count,
                     mark, bucket);
}

std::vector<std::string_view> node_op_types(const ComputeContext& ctx) {
  std::vector<std::string_view> out;
  out.reserve(ctx.node_count());
  for (NodeId n = 0; n < ctx.node_count(); ++n) out.push_back(ctx.graph().node(n).op_type);
  return out;
}

}  // namespace cctx::report_detail
