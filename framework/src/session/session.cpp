// Session: evaluation in one place (session.hpp). What was the command line's driver
// (check_symbols, specialization_reason, analyse_at_fixed_sizes) and Python's partial copy of it.
#include "cctx/session.hpp"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <optional>
#include <set>

#include "cctx/errors.hpp"
#include "cctx/expr.hpp"

namespace cctx {

namespace {

/// The names an expression reads, sorted; throws ExprError on bad syntax.
std::vector<std::string> names_read(const std::string& expression) {
  ExprPool scratch;
  return scratch.symbols_of(scratch.parse(expression));
}

std::string origin_of(const ComputeContext& ctx, const std::string& name) {
  const SymbolInfo* info = ctx.pool().find_symbol(name);
  if (info == nullptr || info->origin.empty()) return "a symbol of the model";
  return info->origin;
}

std::string label_of(const Assignment& a) {
  std::string label;
  for (const auto& [name, value] : a) {
    label += (label.empty() ? "" : ",") + name + "=" + std::to_string(value);
  }
  return label;
}

/// The symbols of the main graph's inputs' dims: the sizes a user assigns.
std::set<std::string> input_symbols(const ComputeContext& ctx) {
  std::set<std::string> names;
  for (ValueId v : ctx.graph().graphs()[0].inputs) {
    for (Expr d : ctx.shape(v).dims) {
      for (std::string& name : ctx.pool().symbols_of(d)) names.insert(std::move(name));
    }
  }
  return names;
}

/// " (its inputs' symbols: B, S, past)", for a message about a symbol the model lacks.
std::string model_symbols_text(const ComputeContext& ctx) {
  const std::set<std::string> names = input_symbols(ctx);
  if (names.empty()) return " (its inputs have no symbolic dims)";
  std::string listed;
  std::size_t shown = 0;
  for (const std::string& n : names) {
    if (++shown > 12) {
      listed += ", ...";
      break;
    }
    listed += (listed.empty() ? "" : ", ") + n;
  }
  return " (its inputs' symbols: " + listed + ")";
}

/// For a refused assignment whose reason names a dim a main-graph input declares as an expression
/// (a dim_param such as Optimum's `past_sequence_length + 1`, read as arithmetic): what the model
/// claims there, and how to say what is really fed. Empty when no such dim is in `failed`.
std::string declared_expression_hint(const ComputeContext& ctx, const std::string& failed) {
  for (ValueId v : ctx.graph().graphs()[0].inputs) {
    const ValueEntry& value = ctx.graph().value(v);
    if (!value.is_input() || !value.graph_input->type().has_tensor_type()) continue;
    const onnx::TensorShapeProto& declared = value.graph_input->type().tensor_type().shape();
    const std::vector<Expr>& dims = ctx.shape(v).dims;
    if (static_cast<std::size_t>(declared.dim_size()) != dims.size()) continue;
    for (int k = 0; k < declared.dim_size(); ++k) {
      const std::string& text = declared.dim(k).dim_param();
      const Expr d = dims[static_cast<std::size_t>(k)];
      if (text.empty() || ctx.pool().is_symbol(d) || !ctx.pool().has_symbols(d)) continue;
      if (failed.find(ctx.pool().print(d)) == std::string::npos) continue;
      std::string example;
      for (int j = 0; j < declared.dim_size(); ++j) {
        example +=
            (j == 0 ? "" : ",") +
            (j == k ? std::string("EXPR") : ctx.pool().print(dims[static_cast<std::size_t>(j)]));
      }
      return " (the model declares " + std::string(value.name) + "'s dim " + std::to_string(k) +
             " as '" + text +
             "', read as arithmetic; if it is fed otherwise, say how with --input " +
             std::string(value.name) + "=" + example + ")";
    }
  }
  return {};
}

/// How a message tells the user to give a symbol a value.
std::string give(std::string_view source, const std::string& name) {
  return source == "--eval" ? "add --eval " + name + "=V" : "give '" + name + "' a value";
}

/// Why the one assignment of input sizes is better answered by analysing the model again at
/// those sizes (semantics.md "Evaluation at fixed sizes"): a node choosing between bodies (an
/// If) that the symbolic analysis could not decide, or a symbol the formulas need that the
/// assignment does not give and no bound stands for. nullopt when neither, when there are
/// several assignments, when one names a symbol that is not an input's, or when the model
/// cannot run there (the checks refuse it).
std::optional<std::string> specialization_reason(const ComputeContext& ctx,
                                                 const std::vector<Assignment>& assignments,
                                                 const std::set<std::string>& needed) {
  // One assignment of sizes the model can run at: a sweep keeps one symbolic analysis.
  if (assignments.size() != 1 || assignments[0].empty()) return std::nullopt;
  const Assignment& given = assignments[0];
  // Sizes of the main graph's inputs only: what the model would declare at those sizes. A value
  // given to an internal symbol (bytes_Y=24) is the user's own answer for the symbolic analysis.
  const std::set<std::string> inputs = input_symbols(ctx);
  for (const auto& [name, value] : given) {
    // A runtime parameter (threads) is no size: it changes no shape.
    if (inputs.count(name) == 0 && !ctx.pool().parameter_default(name)) return std::nullopt;
  }
  if (ctx.failed_requirement(given)) return std::nullopt;
  // A node choosing between bodies (an If) that the analysis could not decide holds the larger
  // of their working memories and outputs; at fixed sizes the branch that runs may be known.
  for (const NodeEntry& node : ctx.graph().nodes()) {
    if (node.bodies.size() < 2) continue;
    const bool decided = std::any_of(node.bodies.begin(), node.bodies.end(),
                                     [&](const BodyRef& b) { return !ctx.body_runs(b.graph); });
    if (!decided) {
      return describe_node(ctx.graph(), static_cast<NodeId>(&node - ctx.graph().nodes().data())) +
             " chooses a branch the symbolic analysis could not decide";
    }
  }
  Assignment completed = given;
  assign_upper_bounds(ctx, needed, completed);
  for (const std::string& name : needed) {
    // A failed rule is named by the checks: the sizes do not decide what it left unknown.
    if (completed.count(name) == 0 && ctx.rule_failure_behind(name) == nullptr) {
      return "the formulas need '" + name + "' (" + origin_of(ctx, name) +
             "), which these sizes decide";
    }
  }
  return std::nullopt;
}

/// Every assigned name is a symbol of the model, the model can run at each assignment, and
/// every symbol the totals depend on has a value: a data-dependent one nobody gave takes its
/// producer's upper bound (added to the assignment, and returned per assignment).
std::vector<std::vector<BoundedSymbol>> check_and_complete(const ComputeContext& ctx,
                                                           std::vector<Assignment>& assignments,
                                                           std::string_view source,
                                                           const std::set<std::string>& needed) {
  if (assignments.empty()) return {};
  const std::string from(source);
  for (const Assignment& a : assignments) {
    for (const auto& [name, value] : a) {
      const SymbolInfo* symbol = ctx.pool().find_symbol(name);
      if (symbol == nullptr) {
        throw Error(from + ": the model has no symbol '" + name + "'" + model_symbols_text(ctx),
                    ExitCode::kUsage);
      }
      if (value < symbol->bounds.lo && ctx.pool().parameter_default(name)) {
        throw Error(from + ": " + name + "=" + std::to_string(value) + ": " + symbol->origin +
                        " must be at least " + std::to_string(symbol->bounds.lo),
                    ExitCode::kUsage);
      }
    }
  }
  std::vector<std::vector<BoundedSymbol>> bounded;
  for (Assignment& a : assignments) {
    // An assignment where the model cannot run (a Conv window larger than its padded input, dims
    // that do not broadcast, a negative size) has no memory figures: refuse it, naming why.
    if (const std::optional<std::string> failed = ctx.failed_requirement(a)) {
      throw Error(from + " " + label_of(a) + ": the model cannot run there: " + *failed +
                      declared_expression_hint(ctx, *failed),
                  ExitCode::kUsage);
    }
    bounded.push_back(assign_upper_bounds(ctx, needed, a));
    for (const std::string& name : needed) {
      if (a.count(name) != 0) continue;
      // A failed rule is the cause, not the symbol: lead with the rule's own message.
      if (const RuleFailure* f = ctx.rule_failure_behind(name)) {
        throw Error(from + ": cannot evaluate the totals: the " +
                        std::string(rule_kind_name(f->kind)) + " rule of " + f->rule +
                        " failed at " + describe_node(ctx.graph(), f->node) + ": " + f->message +
                        "; the totals depend on '" + name +
                        "', what it left unknown (fix the rule, or " + give(source, name) + ")",
                    ExitCode::kUsage);
      }
      throw Error(from + ": no value for symbol '" + name + "', which the totals depend on (" +
                      origin_of(ctx, name) + "); " + give(source, name),
                  ExitCode::kUsage);
    }
  }
  return bounded;
}

}  // namespace

Session::Session(std::shared_ptr<const Host> host, Model model)
    : host_(std::move(host)),
      model_(std::make_unique<Model>(std::move(model))),
      symbolic_(std::make_unique<ComputeContext>(*host_)) {
  for (const auto& [symbol, expression] : host_->profile().report.let) {
    // The profile reader checked the syntax.
    relations_.push_back({symbol, expression, "the profile's report.let", names_read(expression)});
  }
  static constexpr std::string_view kMetadataPrefix = "cctx.let.";
  for (const onnx::StringStringEntryProto& entry : model_->proto().metadata_props()) {
    if (!entry.key().starts_with(kMetadataPrefix)) continue;
    SymbolRelation r{entry.key().substr(kMetadataPrefix.size()), entry.value(),
                     "the model's metadata '" + entry.key() + "'"};
    try {
      r.reads = names_read(r.expression);
    } catch (const ExprError& e) {
      throw ModelError(model_->source() + ": " + r.origin + ": " + e.what());
    }
    relations_.push_back(std::move(r));
  }
}

void Session::add_relation(SymbolRelation relation) {
  try {
    relation.reads = names_read(relation.expression);
  } catch (const ExprError& e) {
    throw Error(
        relation.origin + " '" + relation.symbol + "=" + relation.expression + "': " + e.what(),
        ExitCode::kUsage);
  }
  relations_.push_back(std::move(relation));
}

bool Session::read_by_relations(std::string_view name) const {
  return std::any_of(relations_.begin(), relations_.end(), [&](const SymbolRelation& r) {
    return std::binary_search(r.reads.begin(), r.reads.end(), name);
  });
}

void Session::apply_relations(std::vector<Assignment>& assignments, std::string_view source) const {
  if (relations_.empty()) return;
  const ExprPool& model_symbols = symbolic_->pool();
  // The names the expressions read that the model does not have: parameters.
  std::set<std::string> parameters;
  for (const SymbolRelation& r : relations_) {
    for (const std::string& name : r.reads) {
      if (model_symbols.find_symbol(name) == nullptr) parameters.insert(name);
    }
  }
  for (const SymbolRelation& r : relations_) {
    // A relation defining a name nobody reads and the model lacks: a typo on the command line;
    // a profile's or a model's relation for another model (a decoder's context) is skipped.
    if (model_symbols.find_symbol(r.symbol) == nullptr && parameters.count(r.symbol) == 0 &&
        r.origin == "--let") {
      throw Error("--let '" + r.symbol + "=" + r.expression + "': the model has no symbol '" +
                      r.symbol + "'",
                  ExitCode::kUsage);
    }
  }
  for (Assignment& a : assignments) {
    for (const SymbolRelation& r : relations_) {
      const bool complete = std::all_of(r.reads.begin(), r.reads.end(),
                                        [&](const std::string& n) { return a.count(n) != 0; });
      if (!complete) continue;
      std::int64_t value = 0;
      try {
        value = evaluate_expression(r.expression, a);
      } catch (const ExprError& e) {
        throw Error(std::string(source) + " " + label_of(a) + ": " + r.origin + " '" + r.symbol +
                        "=" + r.expression + "': " + e.what(),
                    ExitCode::kUsage);
      }
      if (const auto given = a.find(r.symbol); given != a.end() && given->second != value) {
        throw Error(std::string(source) + " " + label_of(a) + " gives " + r.symbol + "=" +
                        std::to_string(given->second) + ", but " + r.origin + " '" + r.symbol +
                        "=" + r.expression + "' makes it " + std::to_string(value),
                    ExitCode::kUsage);
      }
      a[r.symbol] = value;
    }
    for (const std::string& p : parameters) a.erase(p);
  }
}

Session::~Session() = default;

const std::set<std::string>& Session::needed_symbols(const ComputeContext& ctx) const {
  auto it = needed_.find(&ctx);
  if (it == needed_.end()) it = needed_.emplace(&ctx, symbols_to_evaluate(ctx)).first;
  return it->second;
}

void Session::analyse() {
  needed_.clear();
  fixed_.reset();
  fixed_at_.clear();
  symbolic_->compute(*model_);
}

Evaluation Session::evaluate(std::vector<Assignment> assignments, std::string_view source) const {
  Evaluation out;
  out.context = symbolic_.get();
  apply_relations(assignments, source);
  if (const std::optional<std::string> why =
          specialization_reason(*symbolic_, assignments, needed_symbols(*symbolic_))) {
    if (!fixed_ || fixed_at_ != assignments[0]) {
      Profile at_sizes = host_->profile();
      for (const auto& [name, value] : assignments[0]) {
        if (!symbolic_->pool().parameter_default(name)) at_sizes.fixed_sizes[name] = value;
      }
      auto fixed = std::make_unique<ComputeContext>(host_->registry(), std::move(at_sizes));
      fixed->compute(*model_);
      needed_.erase(fixed_.get());
      fixed_ = std::move(fixed);
      fixed_at_ = assignments[0];
    }
    out.context = fixed_.get();
    out.fixed_sizes = assignments[0];
    out.fixed_because = *why;
    // The assignment still labels the evaluation: the fixed analysis knows its symbols (the
    // declarations named them before they were fixed), and its amounts no longer need them.
  }
  out.at_upper_bound =
      check_and_complete(*out.context, assignments, source, needed_symbols(*out.context));
  out.assignments = std::move(assignments);
  return out;
}

}  // namespace cctx
