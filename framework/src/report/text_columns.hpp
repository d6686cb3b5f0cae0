// Left-aligned text columns with dashed rules, the layout of the seed's table, for the text
// output of explain and diff.
#pragma once

#include <string>
#include <vector>

namespace cctx::report_detail {

/// Columns separated by two spaces, indented by two, dashed rules around the header and at the
/// end. Every row has as many cells as `headers`.
std::string text_columns(const std::vector<std::string>& headers,
                         std::vector<std::vector<std::string>> rows);

}  // namespace cctx::report_detail
