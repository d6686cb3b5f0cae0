// The per-node table of the HTML report as compact JSON: each distinct text once in a string
// table, each row a short array of indices and numbers, so a 100k-node model stays a few MB and
// the page renders it by pages instead of holding 100k DOM rows.
#pragma once

#include <string>
#include <vector>

#include "cctx/compute_context.hpp"

namespace cctx::report_detail {

/// The JSON text for <script type="application/json" id="cctx-data">, with every '<' escaped so
/// that no text in it can close the script element.
std::string html_table_data(const ComputeContext& ctx, const std::vector<Assignment>& evaluate);

}  // namespace cctx::report_detail
