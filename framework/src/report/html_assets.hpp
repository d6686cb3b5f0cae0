// The inline style and scripts of the HTML report. The page loads nothing from elsewhere.
#pragma once

#include <string_view>

namespace cctx::report_detail {

/// The page's style sheet.
extern const std::string_view kHtmlStyle;
/// Runs first: writes every uncaught error and unhandled rejection into <div id="errors">, so
/// that a headless browser's DOM dump shows them.
extern const std::string_view kHtmlErrorCapture;
/// Renders the per-node table by pages from the JSON in <script id="cctx-data">: sorting by any
/// column, filtering by op type and by text. Sets body[data-table-ready] when done.
extern const std::string_view kHtmlTableScript;

}  // namespace cctx::report_detail
