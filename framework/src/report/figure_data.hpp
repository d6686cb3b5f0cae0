// What the figures and the HTML report evaluate: amounts under one assignment (each distinct
// expression once), per-node totals, and the grouping of consecutive nodes that keeps a figure
// readable on a large graph.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cctx/compute_context.hpp"

namespace cctx::report_detail {

/// Evaluates amounts under one assignment; a 100k-node graph repeats few distinct expressions.
class AmountEvaluator {
 public:
  AmountEvaluator(ExprPool& pool, const Assignment& assignment)
      : pool_(pool), assignment_(assignment) {}
  std::int64_t operator()(Expr e);

 private:
  ExprPool& pool_;
  const Assignment& assignment_;
  std::unordered_map<std::uint32_t, std::int64_t> cache_;
};

/// total_bytes of every node under `assignment`.
std::vector<std::int64_t> evaluated_totals(const ComputeContext& ctx, const Assignment& assignment);

/// Consecutive nodes per figure column: 1 up to the column limit, then enough to stay under it.
std::size_t bucket_size_for(std::size_t node_count);
/// For each bucket of `bucket` consecutive values: the index of its largest value (the lowest
/// index on ties, as the peak is reported).
std::vector<std::size_t> bucket_maxima(const std::vector<std::int64_t>& values, std::size_t bucket);
/// The subtitle that says a figure is aggregated ("" when it is not); `mark` is what one
/// aggregate is drawn as ("point", "bar").
std::string aggregation_note(std::size_t node_count, std::size_t bucket, std::string_view mark);
/// Op type of every main-graph node, for tick labels.
std::vector<std::string_view> node_op_types(const ComputeContext& ctx);

}  // namespace cctx::report_detail
