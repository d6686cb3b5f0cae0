// Reports over a computed ComputeContext: the seed's table, evaluated totals, the JSON contract
// (`cctx.analysis/1`), CSV, and the compact model listing.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cctx/compute_context.hpp"
#include "cctx/host.hpp"
#include "cctx/upper_bounds.hpp"

namespace cctx {

struct ReportOptions {
  std::string model_path;            ///< shown in the JSON "model.path"
  std::vector<Assignment> evaluate;  ///< assignments evaluated per node and for the peak
  /// Per assignment (or none): the data-dependent symbols it holds at their upper bound.
  std::vector<std::vector<BoundedSymbol>> at_upper_bound;
  /// Set when the report is of the model analysed again with its input sizes fixed (cctx
  /// analyze --eval, semantics.md "Evaluation at fixed sizes"): those sizes (the one
  /// assignment evaluated) and what the symbolic formulas lacked.
  Assignment fixed_sizes = {};
  std::string fixed_because = {};
  /// Names of the assignments (a scenario file's, `cctx analyze --scenarios`), parallel to
  /// `evaluate`; empty when they have none.
  std::vector<std::string> names = {};
  /// `cctx analyze --budget`: each evaluation says whether its reserve fits, and the HTML
  /// report's reserve figures draw the line; 0 when none is given.
  std::int64_t budget = 0;
};

/// Long formulas of the terminal report replaced by short names ("F1") and listed once in a
/// footer, so that the tables fit a terminal (`cctx analyze` without `--wide`). Identical
/// formulas share a name. A folder that is not `enabled` hands every text back unchanged.
class FormulaFolder {
 public:
  explicit FormulaFolder(bool enabled, std::size_t longest = 24)
      : enabled_(enabled), longest_(longest) {}
  /// `text` itself when short enough (or folding is off), else its name.
  std::string fold(const std::string& text);
  /// "Formulas (cctx analyze --wide prints them in place):\n  F1 = ...\n", or "" when none.
  std::string footer() const;
  bool enabled() const { return enabled_; }

 private:
  bool enabled_;
  std::size_t longest_;
  std::vector<std::string> texts_;
  std::map<std::string, std::size_t, std::less<>> index_;
};

/// An amount as text: the integer, or the canonical expression.
std::string amount_text(ExprPool& pool, Expr e);
/// An amount as JSON: an integer when concrete, else the canonical string.
nlohmann::ordered_json amount_json(ExprPool& pool, Expr e);
/// "tag=amount, ..." with untagged first as "untagged", or "-" when empty (the seed's format).
std::string bucket_text(ExprPool& pool, const Bucket& bucket);

/// The seed's symbolic memory table (headers, separators, one row per node).
std::string memory_table(const ComputeContext& ctx, FormulaFolder* folder = nullptr);
/// "Per-node peak scratch memory (bytes):" listing as in the seed.
std::string scratch_listing(const ComputeContext& ctx, FormulaFolder* folder = nullptr);
/// Evaluated total_bytes per node for each assignment, as in the seed.
std::string evaluated_totals_table(const ComputeContext& ctx,
                                   const std::vector<Assignment>& evaluate);
/// The same figures with one row per node and one column per assignment: what fits a terminal
/// when the graph has more nodes than a line has room for.
std::string evaluated_totals_by_node(const ComputeContext& ctx,
                                     const std::vector<Assignment>& evaluate);
/// Whole-graph peak: the formula, its node, and one line per assignment.
/// `at_upper_bound` (per assignment, or empty) adds a line naming the symbols taken at their bound.
std::string peak_summary(const ComputeContext& ctx, const std::vector<Assignment>& evaluate,
                         const std::vector<std::vector<BoundedSymbol>>& at_upper_bound = {},
                         const std::vector<std::string>& names = {},
                         FormulaFolder* folder = nullptr, std::int64_t budget = 0);
/// "" when the profile's runtime did not rewrite the graph; else one line: the node counts
/// before and after, and each rewrite with how often it applied.
std::string rewrites_text(const ComputeContext& ctx);
/// Warnings and notes, one per line ("" when none).
std::string diagnostics_text(const ComputeContext& ctx);

/// The `cctx.analysis/1` JSON document.
nlohmann::ordered_json json_report(const ComputeContext& ctx, const ReportOptions& options);
/// json_report(ctx, options).dump(2), byte for byte, written without building the document and
/// without holding its whole text (the CLI's path: linear time and small memory on large graphs).
/// The constructor does all that can fail (the peak's evaluations); write() then only formats
/// and hands the text to `sink`, in order, in pieces of about kPieceBytes.
class JsonReportWriter {
 public:
  static constexpr std::size_t kPieceBytes = std::size_t{1} << 20;
  /// The analysis report (json_report) or the shapes document (shapes_json: no nodes, no peak).
  enum class Document { kAnalysis, kShapes };

  JsonReportWriter(const ComputeContext& ctx, const ReportOptions& options,
                   Document document = Document::kAnalysis);
  void write(const std::function<void(std::string_view)>& sink) const;

 private:
  const ComputeContext& ctx_;
  Document document_;
  nlohmann::ordered_json model_;
  std::vector<std::pair<const char*, nlohmann::ordered_json>> trailing_;  ///< after "nodes"
};
/// Appends json_report(ctx, options).dump(2) to `out` (JsonReportWriter into a string).
void append_json_report(std::string& out, const ComputeContext& ctx, const ReportOptions& options);
/// One CSV row per node: index, name, op, the seven memory keys (buckets as tag=amount;...),
/// scratch, and one evaluated total column per assignment.
std::string csv_report(const ComputeContext& ctx, const ReportOptions& options);
/// How much model_listing shows: kSeed is the seed's pretty_onnx output byte for byte (no
/// attributes, `float[]` also for a value of unknown rank); kFull is `cctx print`'s, which adds
/// each node's attributes as ONNX's printer does (`Concat <axis = 0> (M, X)`) and marks unknown
/// rank as `float?`, so that `float[]` means a scalar only.
enum class ListingStyle { kSeed, kFull };
/// The compact listing of a model.
std::string model_listing(const Model& model, ListingStyle style = ListingStyle::kSeed);
/// Inferred shapes per value: name, kind, dtype, shape, value, tag.
std::string shapes_table(const ComputeContext& ctx);
nlohmann::ordered_json shapes_json(const ComputeContext& ctx, const ReportOptions& options);

/// "N=1" / "B=2,S=8": how reports label an assignment.
std::string assignment_label(const Assignment& a);
/// A byte count in binary units with three significant digits: "512 B", "9.32 MiB", "1.91 GiB"
/// (truncated, never rounded up).
std::string byte_units(std::int64_t bytes);

// ---- figures (self-contained SVG: no scripts, generic font families) ---------------------------

/// Above this many nodes a figure shows, per bucket of consecutive nodes, the node with the
/// largest value, and says so in its subtitle.
inline constexpr std::size_t kFigureMaxColumns = 400;
/// The seed's figure: evaluated total_bytes per node, one line with circle markers per
/// assignment (at least one). Each polyline carries its data in data-nodes / data-values.
std::string total_bytes_svg(const ComputeContext& ctx, const std::vector<Assignment>& evaluate);
/// Memory at each node under `assignment`, stacked by source (initializers, inputs,
/// intermediates, outputs, scratch) and tag, with the peak node marked (class "peak-marker").
std::string memory_stack_svg(const ComputeContext& ctx, const Assignment& assignment);

// ---- HTML --------------------------------------------------------------------------------------

struct HtmlReportOptions {
  ReportOptions report;
  std::vector<PluginInfo> plugins;  ///< shown with the profile
};
/// One self-contained HTML page (inline CSS, JS and SVG): summary, peak, top nodes, figures, the
/// per-node table (paged from embedded JSON, sortable, filterable by op type) and warnings.
/// Uncaught script errors are written into <div id="errors">.
std::string html_report(const ComputeContext& ctx, const HtmlReportOptions& options);

// ---- explain -----------------------------------------------------------------------------------

/// Why node `node` needs what it needs: the buffers live at its entry (values, source, tag, size,
/// creation and release), its outputs and their allocation, the in-place decisions with the
/// decision log's events (when the profile enables `decision_log`) and, for the outputs left
/// without a decision, why each input could not be taken over; the scratch estimate.
/// The live buffers are rebuilt from the public results (lifetimes, in-place decisions, value
/// sizes and tags); "consistent" says whether they add up to already_allocated_bytes.
nlohmann::ordered_json explain_node(const ComputeContext& ctx, NodeId node,
                                    const std::vector<Assignment>& evaluate);
/// The explanation as text.
std::string explain_text(const nlohmann::ordered_json& explanation);

// ---- diff --------------------------------------------------------------------------------------

/// One side of a diff: a `cctx.analysis/1` document and how to name it. (clang-tidy 14 takes
/// nlohmann::json's noexcept move, which asserts its invariant, for one that may throw.)
// NOLINTNEXTLINE(bugprone-exception-escape)
struct DiffSide {
  std::string label;
  nlohmann::json report;  ///< unordered: parsing a large report into ordered_json is quadratic
};
/// Per-node change of total_bytes (symbolic, and at each assignment), the peak before and
/// after, and the nodes whose in-place decisions changed (`cctx.diff/1`). Nodes are matched by
/// index when both graphs list the same op types, else by (unique) node name. Throws Error when
/// a side is not an analysis report or the nodes cannot be matched.
nlohmann::ordered_json diff_reports(const DiffSide& before, const DiffSide& after,
                                    const std::vector<Assignment>& evaluate);
/// The diff as text tables.
std::string diff_text(const nlohmann::ordered_json& diff);

}  // namespace cctx
