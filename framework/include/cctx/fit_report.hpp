// `cctx fit`'s outputs: the answer as text, JSON (format cctx.fit/1) and CSV, one row per fit (a
// frontier has one per value of its outer symbol).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cctx/fit.hpp"

namespace cctx {

struct FitReport {
  std::string model;
  std::string profile;
  /// The frontier's outer symbol (empty for one varied symbol); each fit then fixes it.
  std::string outer;
  std::vector<FitResult> fits;
  /// Settings of common servers the answer gives ("Triton (config.pbtxt): max_batch_size: 36").
  std::vector<std::string> suggestions = {};
};

std::string fit_text(const FitReport& report);
nlohmann::ordered_json fit_json(const FitReport& report);
std::string fit_csv(const FitReport& report);
/// The reserve against the varied symbol (`points`, from sweep()) with the budget and the value
/// found marked; for a frontier, the largest inner value against the outer one. Self-contained
/// SVG, like the analysis figures.
std::string fit_svg(const FitReport& report, const std::vector<FitPoint>& points);
/// One self-contained page: the answer (or the frontier) as a table, the figure, the search.
std::string fit_html(const FitReport& report, const std::vector<FitPoint>& points);

}  // namespace cctx
