// Session: the composition root of one analysis. It holds the host (profile and plugins), the
// model and its symbolic ComputeContext, and owns evaluation: the one path from "these sizes" to
// figures that the command line (`analyze`, `explain`, `diff`) and the Python module share, so
// they agree by construction (docs/design/architecture.md, "Session").
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cctx/compute_context.hpp"
#include "cctx/host.hpp"
#include "cctx/model.hpp"
#include "cctx/upper_bounds.hpp"

namespace cctx {

/// What Session::evaluate settles for a list of assignments before any figure is computed.
struct Evaluation {
  /// The assignments, each completed with the data-dependent sizes it lacked, at their upper
  /// bounds (the worst case).
  std::vector<Assignment> assignments;
  /// Per assignment: the symbols it was completed with.
  std::vector<std::vector<BoundedSymbol>> at_upper_bound;
  /// The analysis the figures come from: the symbolic one, or the model analysed again with its
  /// input sizes fixed at the one assignment (semantics.md "Evaluation at fixed sizes").
  const ComputeContext* context = nullptr;
  Assignment fixed_sizes;     ///< the sizes of a fixed-size analysis; empty otherwise
  std::string fixed_because;  ///< what the symbolic formulas lacked; empty otherwise
};

/// A symbol computed from others when an assignment lacks it: `--let total_seq=past_seq+seq`,
/// a profile's `report.let`, or the model's metadata (`cctx.let.total_seq: past_seq + seq`).
/// Names of its expression that are not symbols of the model are parameters of the relations
/// (`--let past_seq=context-1 --eval context=4096`): used, then dropped from the assignment.
struct SymbolRelation {
  std::string symbol;
  std::string expression;
  std::string origin;  ///< "--let", "the profile's report.let", "the model's metadata"
  /// The names the expression reads, sorted; filled by the Session when the relation is added
  /// (parsed once: `cctx fit` evaluates hundreds of assignments).
  std::vector<std::string> reads = {};
};

class Session {
 public:
  /// Adopts `model`; `host` supplies the profile and the rules (one host serves many sessions).
  Session(std::shared_ptr<const Host> host, Model model);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const Host& host() const { return *host_; }
  const Model& model() const { return *model_; }
  Model& model() { return *model_; }
  /// The symbolic analysis (before analyse(): set its progress callback here).
  ComputeContext& symbolic() { return *symbolic_; }
  const ComputeContext& symbolic() const { return *symbolic_; }

  /// The relations evaluate() applies, in order: the profile's, the model's metadata's, then
  /// those added here (the command line's).
  const std::vector<SymbolRelation>& relations() const { return relations_; }
  void add_relation(SymbolRelation relation);
  /// Whether some relation's expression reads `name` (a parameter when the model lacks it).
  bool read_by_relations(std::string_view name) const;

  /// Runs the pipeline on the model (ComputeContext::compute); throws as it does.
  void analyse();

  /// Checks `assignments` and settles where their figures come from:
  ///  - the relations give each assignment the symbols it lacks (a relation applies when the
  ///    assignment gives every name of its expression; one that contradicts a given value is
  ///    refused);
  ///  - every assigned name must be a symbol of the model;
  ///  - one assignment of input sizes that the symbolic formulas cannot answer alone (an If the
  ///    analysis could not decide, a size only the branch that runs decides) is answered by
  ///    analysing the model again with those sizes fixed;
  ///  - an assignment where the model cannot run (a failed requirement, a negative size) is
  ///    refused, naming the node;
  ///  - each data-dependent size an assignment lacks takes its upper bound; a symbol with
  ///    neither a value nor a bound is refused, naming where it comes from (or the failed rule
  ///    that left it unknown).
  /// Refusals are usage errors (Error, ExitCode::kUsage) whose text starts with `source` ("--eval"
  /// for the command line, "assignment" for Python). The Evaluation refers to this session.
  Evaluation evaluate(std::vector<Assignment> assignments,
                      std::string_view source = "--eval") const;

 private:
  void apply_relations(std::vector<Assignment>& assignments, std::string_view source) const;
  /// symbols_to_evaluate of the symbolic or the fixed-size analysis, computed once per analysis
  /// (a walk of every node's totals: `cctx fit` evaluates hundreds of assignments).
  const std::set<std::string>& needed_symbols(const ComputeContext& ctx) const;

  std::shared_ptr<const Host> host_;
  std::vector<SymbolRelation> relations_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<ComputeContext> symbolic_;
  /// The last fixed-size analysis and its sizes: evaluating the same sizes again reuses it.
  mutable std::unique_ptr<ComputeContext> fixed_;
  mutable Assignment fixed_at_;
  mutable std::map<const ComputeContext*, std::set<std::string>> needed_;
};

}  // namespace cctx
