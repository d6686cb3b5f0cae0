// The operator coverage table (docs/coverage.md) rendered from `cctx plugins`' JSON document.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace cctx::cli {

/// Markdown: per plugin, its domains and one row per operator with the since_versions of its
/// shape, tag, in-place and scratch rules.
std::string coverage_markdown(const nlohmann::ordered_json& plugins);

}  // namespace cctx::cli
