#include "declarative/declared_rules.hpp"

#include <algorithm>
#include <map>

#include "cctx/dtypes.hpp"
#include "cctx/errors.hpp"
#include "declarative/dim_program.hpp"
#include "plugins/host_registrar.hpp"

namespace cctx {

namespace {

sdk::StringRef ref(const std::string& s) { return sdk::StringRef(s.data(), s.size()); }

std::string key_text(const DeclaredOp& op) {
  return (op.domain.empty() ? std::string("ai.onnx") : op.domain) + "::" + op.op_type + "@" +
         std::to_string(op.since_version);
}

std::string count_text(std::uint32_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string rank_text(const DeclaredInput& input) {
  if (input.min_rank == input.max_rank) return "rank " + std::to_string(input.min_rank);
  if (input.max_rank == DeclaredInput::kAnyRank) {
    return "rank " + std::to_string(input.min_rank) + " or more";
  }
  return "rank " + std::to_string(input.min_rank) + " to " + std::to_string(input.max_rank);
}

/// "" when the node's input count fits `inputs:`, else why not.
std::string arity_problem(const DeclaredOp& op, const sdk::INodeView& node) {
  const std::uint32_t n = node.input_count();
  // With one requirement per input, an absent required input is named by input_problem().
  const std::uint32_t min = op.input_specs.empty() ? op.min_inputs : 0;
  if (n >= min && n <= op.max_inputs) return {};
  std::string declared;
  if (op.min_inputs == op.max_inputs) {
    declared = std::to_string(op.min_inputs);
  } else if (op.max_inputs == DeclaredOp::kAnyInputs) {
    declared = "at least " + std::to_string(op.min_inputs);
  } else {
    declared = std::to_string(op.min_inputs) + " to " + std::to_string(op.max_inputs);
  }
  return "the node has " + count_text(n, "input") + "; the op declares " + declared;
}

/// "" when every input meets its requirement of `inputs: [{rank: ..., optional: ...}]`.
std::string input_problem(const DeclaredOp& op, const sdk::INodeView& node) {
  for (std::uint32_t k = 0; k < op.input_specs.size(); ++k) {
    const DeclaredInput& spec = op.input_specs[k];
    const std::string input = "input " + std::to_string(k);
    const std::string field = " (inputs[" + std::to_string(k) + "])";
    if (!node.has_input(k)) {
      if (spec.optional) continue;
      return "the node has no " + input + ", which the op requires" + field;
    }
    if (!spec.dtypes.empty()) {
      const std::int32_t dtype = node.input_dtype(k);
      if (std::find(spec.dtypes.begin(), spec.dtypes.end(), dtype) == spec.dtypes.end()) {
        std::string allowed;
        for (const std::int32_t code : spec.dtypes) {
          allowed += (allowed.empty() ? "" : " or ") + std::string(dtype_name(code));
        }
        return input + " is " +
               (dtype == 0 ? std::string("of an unknown type") : dtype_name(dtype)) +
               ", but the op requires " + allowed + field;
      }
    }
    if (!spec.has_rank) continue;
    const std::int32_t rank = node.input_rank(k);
    if (rank >= spec.min_rank && rank <= spec.max_rank) continue;
    return input + (rank < 0 ? " has an unknown rank" : " has rank " + std::to_string(rank)) +
           ", but the op requires " + rank_text(spec) + field;
  }
  return {};
}

/// "" when the node fits the op's declared inputs, else why not.
std::string fit_problem(const DeclaredOp& op, const sdk::INodeView& node) {
  std::string problem = arity_problem(op, node);
  return problem.empty() ? input_problem(op, node) : problem;
}

bool evaluate(const DeclaredDim& dim, const DeclaredOp& op, const RuleRegistry* registry,
              const sdk::INodeView& node, std::uint32_t& out, std::string& error) {
  if (detail::evaluate_dim(*dim.program, node, op.defaults, registry, out, error)) return true;
  error = dim.name + ": " + error;
  return false;
}

template <class Sink>
sdk::Status failure(Sink& sink, const std::string& message) {
  return sink.fail(sdk::Status::kInvalidArgument, ref(message));
}

class ShapeRule final : public sdk::IShapeRule {
 public:
  ShapeRule(const DeclaredOp& op, const RuleRegistry* registry) : op_(op), registry_(registry) {}

  sdk::Status infer(const sdk::INodeView& node, sdk::IShapeSink& out) const noexcept override {
    try {
      if (std::string problem = fit_problem(op_, node); !problem.empty()) {
        return failure(out, problem);
      }
      if (std::string problem = requirement_problem(node, out); !problem.empty()) {
        return failure(out, problem);
      }
      const std::uint32_t outputs = node.output_count();
      if (outputs > op_.outputs.size()) {
        return failure(out, "the node has " + count_text(outputs, "output") + "; the op declares " +
                                std::to_string(op_.outputs.size()));
      }
      std::vector<std::uint32_t> dims;
      for (std::uint32_t k = 0; k < outputs; ++k) {
        if (!node.has_output(k)) continue;
        const DeclaredOutput& decl = op_.outputs[k];
        std::int32_t dtype = 0;
        if (std::string error; !element_type(decl, op_.defaults, node, dtype, error)) {
          return failure(out, "outputs[" + std::to_string(k) + "].dtype: " + error);
        }
        dims.clear();
        std::int32_t rank = 0;
        if (decl.shape_from_input) {
          const std::uint32_t in = decl.shape_input;
          if (!node.has_input(in)) {
            return failure(out, "outputs[" + std::to_string(k) + "].shape: the node has no input " +
                                    std::to_string(in));
          }
          rank = node.input_rank(in);
          for (std::int32_t a = 0; a < rank; ++a) {
            dims.push_back(node.input_dim_handle(in, static_cast<std::uint32_t>(a)));
          }
        } else {
          for (const DeclaredDim& dim : decl.dims) {
            std::uint32_t handle = 0;
            if (std::string error; !evaluate(dim, op_, registry_, node, handle, error)) {
              return failure(out, error);
            }
            dims.push_back(handle);
          }
          rank = static_cast<std::int32_t>(dims.size());
        }
        const sdk::Status s = out.set_output(k, sdk::ValueKind::kTensor, dtype, rank, dims.data());
        if (s != sdk::Status::kOk) return s;
      }
      return sdk::Status::kOk;
    } catch (const std::exception& e) {
      return out.fail(sdk::Status::kInternal, sdk::StringRef::from_c_str(e.what()));
    } catch (...) {
      return out.fail(sdk::Status::kInternal, "unknown exception");
    }
  }

 private:
  static bool element_type(const DeclaredOutput& decl, const detail::AttrDefaults& defaults,
                           const sdk::INodeView& node, std::int32_t& dtype, std::string& error) {
    switch (decl.dtype_from) {
      case DeclaredOutput::DtypeFrom::kFixed:
        dtype = decl.dtype;
        return true;
      case DeclaredOutput::DtypeFrom::kInput:
        if (!node.has_input(decl.dtype_input)) {
          error = "the node has no input " + std::to_string(decl.dtype_input);
          return false;
        }
        dtype = node.input_dtype(decl.dtype_input);
        return true;
      case DeclaredOutput::DtypeFrom::kAttribute: {
        std::int64_t code = 0;
        if (!detail::attribute_value(node, defaults, decl.dtype_attribute, code, error))
          return false;
        if (code <= 0 || code > INT32_MAX) {
          error = "attribute '" + decl.dtype_attribute + "' is " + std::to_string(code) +
                  ", not an element type code";
          return false;
        }
        dtype = static_cast<std::int32_t>(code);
        return true;
      }
    }
    return false;
  }

  /// `requires:`: "" when none is provably false (the others become requirements of the node),
  /// else which one and its two sides there.
  std::string requirement_problem(const sdk::INodeView& node, sdk::IShapeSink& out) const {
    using Kind = DeclaredRequirement::Kind;
    for (const DeclaredRequirement& r : op_.requirements) {
      std::uint32_t ha = 0, hb = 0;
      if (std::string error; !evaluate(r.a, op_, registry_, node, ha, error) ||
                             !evaluate(r.b, op_, registry_, node, hb, error)) {
        return error;
      }
      const sdk::Dim a(&node.expr(), ha), b(&node.expr(), hb);
      auto text = [](sdk::Dim d) {
        char buffer[128];
        const std::size_t n = d.print(buffer, sizeof buffer);
        return std::string(buffer, std::min(n, sizeof buffer));
      };
      bool refused = false;
      sdk::ConstraintKind kind = sdk::ConstraintKind::kEq;
      switch (r.kind) {
        case Kind::kEq:
          refused = a.provably_ne(b);
          break;
        case Kind::kLe:
          refused = a.provably_gt(b);
          kind = sdk::ConstraintKind::kLe;
          break;
        case Kind::kDivides: {
          std::int64_t remainder = 0;
          refused = mod(b, a).get_int(&remainder) && remainder != 0;
          kind = sdk::ConstraintKind::kDivides;
          break;
        }
      }
      if (refused) {
        return "requires " + r.text + ", which does not hold here (" + text(a) + " and " + text(b) +
               ")";
      }
      out.require(kind, a, b);
    }
    return {};
  }

  const DeclaredOp& op_;
  const RuleRegistry* registry_;  // sizes element types a plugin registered
};

class InplacePolicy final : public sdk::IInplacePolicy {
 public:
  InplacePolicy(const DeclaredOp& op, const RuleRegistry* registry)
      : op_(op), registry_(registry) {}

  sdk::Status declare(const sdk::INodeView& node, sdk::IInplaceSink& out) const noexcept override {
    try {
      for (const DeclaredOp::WriteInto& w : op_.write_into) {
        std::uint32_t capacity = 0;
        if (std::string error; !evaluate(w.capacity, op_, registry_, node, capacity, error)) {
          return out.fail(sdk::Status::kUnsupported, sdk::StringRef(error.data(), error.size()));
        }
        if (sdk::Status s = out.write_into_handle(w.output, w.input, capacity);
            s != sdk::Status::kOk) {
          return s;
        }
      }
    } catch (const std::exception& e) {
      return out.fail(sdk::Status::kInternal, sdk::StringRef::from_c_str(e.what()));
    }
    for (auto [o, i] : op_.alias) {
      if (sdk::Status s = out.alias(o, i); s != sdk::Status::kOk) return s;
    }
    for (auto [o, i] : op_.may_reuse) {
      if (sdk::Status s = out.may_reuse(o, i); s != sdk::Status::kOk) return s;
    }
    return sdk::Status::kOk;
  }

 private:
  const DeclaredOp& op_;
  const RuleRegistry* registry_;  // sizes element types a plugin registered
};

class ScratchEstimator final : public sdk::IScratchEstimator {
 public:
  ScratchEstimator(const DeclaredOp& op, const RuleRegistry* registry)
      : op_(op), registry_(registry) {}

  sdk::Status estimate(const sdk::INodeView& node, sdk::IScratchSink& out) const noexcept override {
    try {
      if (std::string problem = fit_problem(op_, node); !problem.empty()) {
        return failure(out, problem);
      }
      std::uint32_t bytes = 0;
      if (std::string error; !evaluate(*op_.scratch, op_, registry_, node, bytes, error)) {
        return failure(out, error);
      }
      return out.set_bytes_handle(bytes);
    } catch (const std::exception& e) {
      return out.fail(sdk::Status::kInternal, sdk::StringRef::from_c_str(e.what()));
    } catch (...) {
      return out.fail(sdk::Status::kInternal, "unknown exception");
    }
  }

 private:
  const DeclaredOp& op_;
  const RuleRegistry* registry_;
};

}  // namespace

/// The rules of one declarative op.
class DeclaredOpRules {
 public:
  DeclaredOpRules(DeclaredOp op, const RuleRegistry* registry)
      : op_(std::move(op)),
        shape_(op_, registry),
        inplace_(op_, registry),
        scratch_(op_, registry) {}

  const DeclaredOp& op() const { return op_; }

  /// The rule kinds this op registers.
  std::vector<RuleKind> kinds() const {
    std::vector<RuleKind> out{RuleKind::kShape};
    if (op_.has_tags) out.push_back(RuleKind::kTagTraits);
    if (op_.has_inplace) out.push_back(RuleKind::kInplace);
    if (op_.scratch) out.push_back(RuleKind::kScratch);
    return out;
  }

  void stage(sdk::IRegistrar& r) const {
    const sdk::RuleKey key{ref(op_.domain), ref(op_.op_type), op_.since_version};
    r.add_shape_rule(key, &shape_);
    if (op_.has_tags) {
      sdk::TagTraits traits;
      traits.explicit_tag = op_.node_tag;
      traits.positional =
          sdk::Span<sdk::PositionalTag>{op_.input_tags.data(), op_.input_tags.size()};
      traits.inherit = op_.inherit;
      traits.backward = op_.backward;
      r.add_tag_traits(key, traits);
    }
    if (op_.has_inplace) r.add_inplace_policy(key, &inplace_);
    if (op_.scratch) r.add_scratch_estimator(key, &scratch_);
  }

 private:
  DeclaredOp op_;
  ShapeRule shape_;
  InplacePolicy inplace_;
  ScratchEstimator scratch_;
};

DeclaredRuleSet::DeclaredRuleSet(std::vector<DeclaredOp> ops, const RuleRegistry* registry) {
  ops_.reserve(ops.size());
  for (DeclaredOp& op : ops) {
    ops_.push_back(std::make_unique<DeclaredOpRules>(std::move(op), registry));
  }
}

DeclaredRuleSet::~DeclaredRuleSet() = default;

void DeclaredRuleSet::register_into(RuleRegistry& registry,
                                    const std::shared_ptr<const PluginHandle>& owner,
                                    const std::string& domain_origin) const {
  static const std::map<std::string, std::string> kNoOptions;
  // Conflicts first, with the op's own position: nothing is added when one op cannot be.
  for (const auto& rules : ops_) {
    const DeclaredOp& op = rules->op();
    if (op.override_rules) continue;
    for (RuleKind kind : rules->kinds()) {
      if (const RuleEntry* e = registry.find_exact(kind, op.domain, op.op_type, op.since_version)) {
        throw PluginError(op.where + ": " + rule_kind_name(kind) + " rule " + key_text(op) +
                          " is already registered by " + e->origin +
                          "; set 'override: true' on this op to replace it");
      }
    }
  }
  std::vector<std::unique_ptr<HostRegistrar>> staged;
  for (const auto& rules : ops_) {
    const DeclaredOp& op = rules->op();
    auto registrar = std::make_unique<HostRegistrar>(registry, owner, "profile " + op.where,
                                                     kNoOptions, op.override_rules);
    rules->stage(*registrar);
    if (registrar->failed()) throw PluginError(op.where + ": " + registrar->messages());
    staged.push_back(std::move(registrar));
  }
  for (const auto& registrar : staged) registrar->commit();
  std::map<std::string, std::pair<std::int32_t, std::int32_t>> ranges;
  for (const auto& rules : ops_) {
    const DeclaredOp& op = rules->op();
    auto [it, fresh] = ranges.try_emplace(op.domain, op.since_version, op.since_version);
    if (!fresh) {
      it->second.first = std::min(it->second.first, op.since_version);
      it->second.second = std::max(it->second.second, op.since_version);
    }
  }
  for (const auto& [domain, range] : ranges) {
    registry.declare_domain(DomainRange{domain, range.first, range.second, domain_origin});
  }
}

}  // namespace cctx
