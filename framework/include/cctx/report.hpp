// Reports over a computed ComputeContext: the seed's table, evaluated totals, the JSON contract
// (`cctx.analysis/1`), CSV, and the compact model listing.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

#include "cctx/compute_context.hpp"

namespace cctx {

struct ReportOptions {
  std::string model_path;               ///< shown in the JSON "model.path"
  std::vector<Assignment> evaluate;     ///< assignments evaluated per node and for the peak
};

/// An amount as text: the integer, or the canonical expression.
std::string amount_text(ExprPool& pool, Expr e);
/// An amount as JSON: an integer when concrete, else the canonical string.
nlohmann::ordered_json amount_json(ExprPool& pool, Expr e);
/// "tag=amount, ..." with untagged first as "untagged", or "-" when empty (the seed's format).
std::string bucket_text(ExprPool& pool, const Bucket& bucket);

/// The seed's symbolic memory table (headers, separators, one row per node).
std::string memory_table(const ComputeContext& ctx);
/// "Per-node peak scratch memory (bytes):" listing as in the seed.
std::string scratch_listing(const ComputeContext& ctx);
/// Evaluated total_bytes per node for each assignment, as in the seed.
std::string evaluated_totals_table(const ComputeContext& ctx, const std::vector<Assignment>& evaluate);
/// Whole-graph peak: the formula, its node, and one line per assignment.
std::string peak_summary(const ComputeContext& ctx, const std::vector<Assignment>& evaluate);
/// Warnings and notes, one per line ("" when none).
std::string diagnostics_text(const ComputeContext& ctx);

/// The `cctx.analysis/1` JSON document.
nlohmann::ordered_json json_report(const ComputeContext& ctx, const ReportOptions& options);
/// One CSV row per node: index, name, op, the seven memory keys (buckets as tag=amount;...),
/// scratch, and one evaluated total column per assignment.
std::string csv_report(const ComputeContext& ctx, const ReportOptions& options);
/// The compact listing of a model (the seed's pretty_onnx output).
std::string model_listing(const Model& model);
/// Inferred shapes per value: name, kind, dtype, shape, value, tag.
std::string shapes_table(const ComputeContext& ctx);
nlohmann::ordered_json shapes_json(const ComputeContext& ctx, const ReportOptions& options);

/// "N=1" / "B=2,S=8": how reports label an assignment.
std::string assignment_label(const Assignment& a);

}  // namespace cctx
