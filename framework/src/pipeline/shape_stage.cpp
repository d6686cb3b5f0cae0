// Stage 1: symbolic shape inference (semantics.md "Shapes", expressions.md "Symbolic shape
// inference rules (ai.onnx plugin)" and "Shape-value propagation").
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <exception>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "cctx/crash_report.hpp"
#include "cctx/errors.hpp"
#include "model/tensor_data.hpp"
#include "pipeline/analysis_state.hpp"
#include "pipeline/derived_bounds.hpp"
#include "pipeline/expr_bridge.hpp"
#include "pipeline/host_node_view.hpp"
#include "pipeline/node_flags.hpp"
#include "pipeline/onnx_fallback.hpp"
#include "pipeline/schema_check.hpp"
#include "pipeline/shape_types.hpp"

namespace cctx {

namespace {

constexpr std::size_t kMaxValueElements = 64;
/// Longest sequence the host keeps position by position (as the ai.onnx rules do).
constexpr std::size_t kMaxTrackedPositions = 64;

std::string text(sdk::StringRef s) { return s.data ? std::string(s.data, s.size) : std::string(); }

class ShapeStage;

/// The engine's type of an ONNX floating element type, for float terms: float and double only.
std::optional<FloatType> float_type_of(std::int32_t dtype) {
  if (dtype == sdk::dtype::kFloat) return FloatType::kFloat32;
  if (dtype == sdk::dtype::kDouble) return FloatType::kFloat64;
  return std::nullopt;
}

FloatOp float_op_of(sdk::FloatTermOp op) {
  switch (op) {
    case sdk::FloatTermOp::kSub:
      return FloatOp::kSub;
    case sdk::FloatTermOp::kMul:
      return FloatOp::kMul;
    case sdk::FloatTermOp::kDiv:
      return FloatOp::kDiv;
    case sdk::FloatTermOp::kMin:
      return FloatOp::kMin;
    case sdk::FloatTermOp::kMax:
      return FloatOp::kMax;
    case sdk::FloatTermOp::kNeg:
      return FloatOp::kNeg;
    case sdk::FloatTermOp::kAbs:
      return FloatOp::kAbs;
    case sdk::FloatTermOp::kSqrt:
      return FloatOp::kSqrt;
    default:
      return FloatOp::kAdd;
  }
}

/// The host's IShapeSink for one node: writes straight into the analysis state. Every handle is
/// checked before it is stored: an invalid one is refused and fails the rule call (ExprBridge).
class HostShapeSink final : public sdk::IShapeSink {
 public:
  HostShapeSink(ShapeStage& stage, ExprBridge& bridge, Analysis& s, ShapeResult& out, NodeId n)
      : stage_(stage),
        bridge_(bridge),
        s_(s),
        out_(out),
        n_(n),
        node_(s.graph->node(n)),
        set_(node_.outputs.size()) {}

  sdk::Status set_output(std::uint32_t out, sdk::ValueKind kind, std::int32_t dtype,
                         std::int32_t rank, const std::uint32_t* dims) noexcept override {
    try {
      if (out >= node_.outputs.size()) {
        return fail_bad_output(out);
      }
      ValueId v = node_.outputs[out];
      if (v == kNoValue) return sdk::Status::kOk;  // omitted optional output
      ValueShape shape;
      shape.kind = kind;
      shape.dtype = dtype;
      shape.inferred = true;
      if (rank >= 0) {
        shape.known_rank = true;
        shape.dims.reserve(static_cast<std::size_t>(rank));
        // Some handle is invalid exactly when the largest one is: one check after the copy (none
        // for a scalar, whose empty dims are valid even in an empty pool).
        std::uint32_t top = rank > 0 ? dims[0] : 0;
        for (std::int32_t k = 0; k < rank; ++k) {
          top = worst(top, dims[k]);
          shape.dims.push_back(Expr{dims[k]});
        }
        if (rank > 0 && !bridge_.valid(top)) return refuse(top, "IShapeSink::set_output");
      }
      out_.values[v] = std::move(shape);
      set_.set(out);
      // A body inferred again sets its outputs afresh: no fraction of an earlier pass survives.
      if (!out_.fraction_values.empty()) out_.fraction_values.erase(v);
      if (!pending_fractions_.empty()) pending_fractions_.erase(v);
      if (!out_.float_terms.empty()) out_.float_terms.erase(v);
      if (!pending_terms_.empty()) pending_terms_.erase(v);
      return sdk::Status::kOk;
    } catch (const std::exception& e) {
      return fail(sdk::Status::kInternal, sdk::StringRef::from_c_str(e.what()));
    }
  }

  sdk::Status set_output_value(std::uint32_t out, std::uint32_t count,
                               const std::uint32_t* values) noexcept override {
    try {
      if (out >= node_.outputs.size()) {
        return fail_bad_output(out);
      }
      ValueId v = node_.outputs[out];
      if (v == kNoValue || count > kMaxValueElements) return sdk::Status::kOk;
      // No handle at all is valid even in an empty pool (a scalar of a model without dims).
      if (count > 0) {
        const std::uint32_t top = worst_of(values, count);
        if (!bridge_.valid(top)) return refuse(top, "IShapeSink::set_output_value");
      }
      ValueShape& shape = out_.values[v];
      shape.has_value = true;
      shape.value.resize(count);
      for (std::uint32_t k = 0; k < count; ++k) shape.value[k] = Expr{values[k]};
      return sdk::Status::kOk;
    } catch (const std::exception& e) {
      return fail(sdk::Status::kInternal, sdk::StringRef::from_c_str(e.what()));
    }
  }

  sdk::Status set_output_fraction_handles(std::uint32_t out, std::uint32_t count,
                                          const std::uint32_t* nums,
                                          const std::uint32_t* dens) noexcept override {
    try {
      if (out >= node_.outputs.size()) return fail_bad_output(out);
      ValueId v = node_.outputs[out];
      if (v == kNoValue || count > kMaxValueElements || count == 0) return sdk::Status::kOk;
      const std::uint32_t top = worst(worst_of(nums, count), worst_of(dens, count));
      if (!bridge_.valid(top)) return refuse(top, "IShapeSink::set_output_fraction_handles");
      FractionValue f;
      bool integral = true;
      for (std::uint32_t k = 0; k < count; ++k) {
        const Expr den{dens[k]};
        if (s_.pool->interval(den).lo < 1) {
          message_ = "set_output_fraction_handles: denominator " + s_.pool->print(den) +
                     " is not proven >= 1";
          return fail(sdk::Status::kInvalidArgument,
                      sdk::StringRef(message_.data(), message_.size()));
        }
        integral = integral && s_.pool->as_int(den) == 1;
        f.nums.push_back(Expr{nums[k]});
        f.dens.push_back(den);
      }
      if (integral) {
        pending_fractions_.erase(v);
        return set_output_value(out, count, nums);
      }
      // Kept until the rule returns: a rule that fails leaves no value behind.
      pending_fractions_[v] = std::move(f);
      return sdk::Status::kOk;
    } catch (const std::exception& e) {
      return fail(sdk::Status::kInternal, sdk::StringRef::from_c_str(e.what()));
    }
  }

  /// Stores the fractions and float terms the rule stated, once it succeeded.
  void commit_fractions() {
    for (auto& [v, f] : pending_fractions_) out_.fraction_values[v] = std::move(f);
    pending_fractions_.clear();
    for (auto& [v, t] : pending_terms_) out_.float_terms[v] = std::move(t);
    pending_terms_.clear();
  }

  // ---- floating-point sizes (SDK 1.5; expressions.md 4.5) ------------------------------------

  sdk::Status float_term_handle(sdk::FloatTermOp op, std::int32_t dtype, std::uint32_t a,
                                std::uint32_t b, std::uint32_t* out) noexcept override {
    try {
      const std::optional<FloatType> type = float_type_of(dtype);
      if (!type) return sdk::Status::kUnsupported;
      ExprPool& pool = *s_.pool;
      std::optional<FloatTerm> made;
      if (op == sdk::FloatTermOp::kFromDim) {
        if (!bridge_.valid(a)) return refuse(a, "IShapeSink::float_term_handle");
        made = pool.float_of(Expr{a}, *type);
      } else {
        const bool binary = op != sdk::FloatTermOp::kCast && op != sdk::FloatTermOp::kNeg &&
                            op != sdk::FloatTermOp::kAbs && op != sdk::FloatTermOp::kSqrt;
        if (!valid_term(a) || (binary && !valid_term(b))) {
          message_ = "IShapeSink::float_term_handle: invalid float term handle " +
                     std::to_string(valid_term(a) ? b : a);
          return fail(sdk::Status::kInvalidArgument,
                      sdk::StringRef(message_.data(), message_.size()));
        }
        switch (op) {
          case sdk::FloatTermOp::kCast:
            made = pool.float_cast(FloatTerm{a}, *type);
            break;
          case sdk::FloatTermOp::kNeg:
          case sdk::FloatTermOp::kAbs:
          case sdk::FloatTermOp::kSqrt:
            if (pool.float_type(FloatTerm{a}) != *type) return sdk::Status::kUnsupported;
            made = pool.float_unary(float_op_of(op), FloatTerm{a});
            break;
          default:
            if (pool.float_type(FloatTerm{a}) != *type) return sdk::Status::kUnsupported;
            made = pool.float_binary(float_op_of(op), FloatTerm{a}, FloatTerm{b});
            break;
        }
      }
      if (!made) return sdk::Status::kUnsupported;
      *out = made->id;
      return sdk::Status::kOk;
    } catch (const std::exception& e) {
      return fail(sdk::Status::kInternal, sdk::StringRef::from_c_str(e.what()));
    }
  }

  sdk::Status float_constant_handle(double value, std::int32_t dtype,
                                    std::uint32_t* out) noexcept override {
    try {
      const std::optional<FloatType> type = float_type_of(dtype);
      if (!type) return sdk::Status::kUnsupported;
      const std::optional<FloatTerm> made = s_.pool->float_constant(value, *type);
      if (!made) return sdk::Status::kUnsupported;
      *out = made->id;
      return sdk::Status::kOk;
    } catch (const std::exception& e) {
      return fail(sdk::Status::kInternal, sdk::StringRef::from_c_str(e.what()));
    }
  }

  sdk::Status float_to_dim_handle(std::uint32_t term, sdk::FloatRounding rounding,
                                  std::uint32_t out, std::uint32_t element,
                                  std::uint32_t* dim) noexcept override {
    try {
      if (!valid_term(term)) {
        message_ =
            "IShapeSink::float_to_dim_handle: invalid float term handle " + std::to_string(term);
        return fail(sdk::Status::kInvalidArgument,
                    sdk::StringRef(message_.data(), message_.size()));
      }
      if (out >= node_.outputs.size()) return fail_bad_output(out);
      const auto how = static_cast<Rounding>(static_cast<std::int32_t>(rounding) & 3);
      // Named as fresh dims are (fresh_output_dim), `_v<element>` for the value's element.
      const std::string name = s_.graph->graphs()[node_.graph].symbol_prefix +
                               sanitize_symbol(node_.op_type) + "_" + std::to_string(node_.index) +
                               "_o" + std::to_string(out) + "_v" + std::to_string(element);
      const std::string origin = describe_node(*s_.graph, n_) + " output " + std::to_string(out) +
                                 " element " + std::to_string(element) +
                                 ": computed in floating point";
      const std::optional<Expr> made = s_.pool->float_round(FloatTerm{term}, how, name, origin);
      if (!made) return sdk::Status::kUnsupported;
      *dim = made->id;
      return sdk::Status::kOk;
    } catch (const std::exception& e) {
      return fail(sdk::Status::kInternal, sdk::StringRef::from_c_str(e.what()));
    }
  }

  sdk::Status set_output_float_handles(std::uint32_t out, std::uint32_t count,
                                       const std::uint32_t* terms) noexcept override {
    try {
      if (out >= node_.outputs.size()) return fail_bad_output(out);
      ValueId v = node_.outputs[out];
      if (v == kNoValue || count > kMaxValueElements || count == 0) return sdk::Status::kOk;
      std::vector<FloatTerm> kept;
      kept.reserve(count);
      for (std::uint32_t k = 0; k < count; ++k) {
        if (!valid_term(terms[k])) {
          message_ = "IShapeSink::set_output_float_handles: invalid float term handle " +
                     std::to_string(terms[k]);
          return fail(sdk::Status::kInvalidArgument,
                      sdk::StringRef(message_.data(), message_.size()));
        }
        kept.push_back(FloatTerm{terms[k]});
      }
      // Kept until the rule returns: a rule that fails leaves no value behind.
      pending_terms_[v] = std::move(kept);
      return sdk::Status::kOk;
    } catch (const std::exception& e) {
      return fail(sdk::Status::kInternal, sdk::StringRef::from_c_str(e.what()));
    }
  }

  sdk::Status set_output_elements(std::uint32_t out, std::uint32_t count, const std::int32_t* ranks,
                                  const std::uint32_t* dims) noexcept override {
    try {
      sdk::Status status;
      ValueShape* shape = sequence_output(out, "set_output_elements", &status);
      if (shape == nullptr) return status;
      std::size_t dim_count = 0;
      for (std::uint32_t k = 0; k < count; ++k) {
        if (ranks[k] > 0) dim_count += static_cast<std::size_t>(ranks[k]);
      }
      if (dim_count > 0) {
        const std::uint32_t top = worst_of(dims, dim_count);
        if (!bridge_.valid(top)) return refuse(top, "IShapeSink::set_output_elements");
      }
      std::vector<ElementShape> elements(count);
      std::size_t next = 0;
      for (std::uint32_t k = 0; k < count; ++k) {
        if (ranks[k] < 0) continue;
        elements[k].known_rank = true;
        for (std::int32_t a = 0; a < ranks[k]; ++a) elements[k].dims.push_back(Expr{dims[next++]});
      }
      shape->elements = std::move(elements);
      shape->length.reset();
      return sdk::Status::kOk;
    } catch (const std::exception& e) {
      return fail(sdk::Status::kInternal, sdk::StringRef::from_c_str(e.what()));
    }
  }

  sdk::Status set_output_length_handle(std::uint32_t out, std::uint32_t length) noexcept override {
    try {
      sdk::Status status;
      if (!bridge_.valid(length)) return refuse(length, "IShapeSink::set_output_length");
      ValueShape* shape = sequence_output(out, "set_output_length", &status);
      if (shape == nullptr) return status;
      set_sequence_length(*s_.pool, Expr{length}, kMaxTrackedPositions, *shape);
      return sdk::Status::kOk;
    } catch (const std::exception& e) {
      return fail(sdk::Status::kInternal, sdk::StringRef::from_c_str(e.what()));
    }
  }

  sdk::Status set_output_element_count_handle(std::uint32_t out,
                                              std::uint32_t count) noexcept override {
    try {
      if (out >= node_.outputs.size()) return fail_bad_output(out);
      if (!bridge_.valid(count)) return refuse(count, "IShapeSink::set_output_element_count");
      ValueId v = node_.outputs[out];
      if (v == kNoValue) return sdk::Status::kOk;
      ValueShape& shape = out_.values[v];
      if (!set_[out] || shape.kind != sdk::ValueKind::kTensor || shape.known_rank) {
        message_ = "set_output_element_count on output " + std::to_string(out) +
                   ", which was not set as a tensor of unknown rank";
        return fail(sdk::Status::kInvalidArgument,
                    sdk::StringRef(message_.data(), message_.size()));
      }
      shape.element_count = Expr{count};
      return sdk::Status::kOk;
    } catch (const std::exception& e) {
      return fail(sdk::Status::kInternal, sdk::StringRef::from_c_str(e.what()));
    }
  }

  sdk::Status body_output_element_count_handle(std::uint32_t index,
                                               std::uint32_t* count) noexcept override {
    if (index >= body_counts_.size() || !body_counts_[index]) return sdk::Status::kUnsupported;
    *count = body_counts_[index]->id;
    return sdk::Status::kOk;
  }

  sdk::Status body_refusals(std::uint32_t* count) noexcept override {
    *count = body_refusals_;
    return sdk::Status::kOk;
  }

  sdk::Status skip_body(sdk::StringRef attr) noexcept override;

  /// Sequence output `out` for set_output_elements/set_output_length; nullptr with `*status` set
  /// when it is out of range (an error), omitted (kOk: nothing to record) or not a sequence.
  ValueShape* sequence_output(std::uint32_t out, const char* method, sdk::Status* status) {
    *status = sdk::Status::kOk;
    if (out >= node_.outputs.size()) {
      *status = fail_bad_output(out);
      return nullptr;
    }
    ValueId v = node_.outputs[out];
    if (v == kNoValue) return nullptr;
    ValueShape& shape = out_.values[v];
    if (!set_[out] || shape.kind != sdk::ValueKind::kSequence) {
      message_ = std::string(method) + " on output " + std::to_string(out) +
                 ", which was not set as a sequence";
      *status =
          fail(sdk::Status::kInvalidArgument, sdk::StringRef(message_.data(), message_.size()));
      return nullptr;
    }
    return &shape;
  }

  std::uint32_t fresh_dim(std::uint32_t out, std::uint32_t axis, std::int64_t lo,
                          std::int64_t hi) noexcept override {
    try {
      const std::uint32_t made = fresh_output_dim(s_, out_, n_, out, axis, lo, hi).id;
      fresh_made_.push_back(made);
      return made;
    } catch (...) {
      return s_.pool->integer(0).id;
    }
  }

  sdk::Status bound_fresh_dim_handle(std::uint32_t dim, std::uint32_t upper) noexcept override {
    if (const std::uint32_t top = worst(dim, upper); !bridge_.valid(top)) {
      return refuse(top, "IShapeSink::bound_fresh_dim");
    }
    if (std::find(fresh_made_.begin(), fresh_made_.end(), dim) == fresh_made_.end()) {
      message_ = "bound_fresh_dim on " + s_.pool->print(Expr{dim}) +
                 ", which is not a symbol fresh_dim made in this call";
      return fail(sdk::Status::kInvalidArgument, sdk::StringRef(message_.data(), message_.size()));
    }
    try {
      const DimBound bound{Expr{dim}, Expr{upper}, n_};
      const auto [at, added] = out_.dim_bound_index.try_emplace(dim, out_.dim_bounds.size());
      if (added) {
        out_.dim_bounds.push_back(bound);
      } else {
        out_.dim_bounds[at->second] = bound;
      }
    } catch (...) {
    }
    return sdk::Status::kOk;
  }

  sdk::Status constraint(sdk::ConstraintKind kind, std::uint32_t a, std::uint32_t b,
                         std::uint32_t c) noexcept override {
    return record(kind, a, b, c, false, "IShapeSink::constraint");
  }

  sdk::Status require_handles(sdk::ConstraintKind kind, std::uint32_t a, std::uint32_t b,
                              std::uint32_t c) noexcept override {
    return record(kind, a, b, c, true, "IShapeSink::require_handles");
  }

  sdk::Status record(sdk::ConstraintKind kind, std::uint32_t a, std::uint32_t b, std::uint32_t c,
                     bool required, const char* what) noexcept {
    // `c` means something for kOneOf only; elsewhere whatever the plugin passed is not read.
    if (kind != sdk::ConstraintKind::kOneOf) c = a;
    if (const std::uint32_t top = worst(worst(a, b), c); !bridge_.valid(top))
      return refuse(top, what);
    try {
      out_.constraints.push_back(
          Constraint{static_cast<Constraint::Kind>(kind), Expr{a}, Expr{b}, Expr{c}, n_, required});
      if (required) {
        derive_bounds(*s_.pool, *s_.graph, out_.constraints.back(), out_.derived_bounds);
      }
    } catch (...) {
    }
    return sdk::Status::kOk;
  }

  sdk::Status warn(sdk::StringRef message) noexcept override {
    try {
      s_.warn(n_, describe_node(*s_.graph, n_) + ": " + text(message));
    } catch (...) {
    }
    return sdk::Status::kOk;
  }

  sdk::Status fail(sdk::Status code, sdk::StringRef message) noexcept override {
    try {
      if (!error_.empty()) error_ += "; ";
      error_ += message.empty() ? std::string("rule failed") : text(message);
    } catch (...) {
    }
    return code == sdk::Status::kOk ? sdk::Status::kInternal : code;
  }

  sdk::Status infer_body(sdk::StringRef attr, std::uint32_t input_count,
                         const sdk::ValueDesc* inputs,
                         sdk::IBodyOutputs& outputs) noexcept override;

  const std::string& error() const { return error_; }
  bool output_set(std::size_t k) const { return set_[k]; }

 private:
  /// An invalid handle: nothing is stored, and the rule call fails whatever it returns.
  sdk::Status refuse(std::uint32_t handle, const char* where) {
    bridge_.reject(handle, where);
    return sdk::Status::kInvalidArgument;
  }

  bool valid_term(std::uint32_t term) const { return term < s_.pool->float_term_count(); }

  sdk::Status fail_bad_output(std::uint32_t out) {
    // Built before the StringRef: argument evaluation order would otherwise be unspecified.
    message_ = "output index " + std::to_string(out) + " out of range (node has " +
               std::to_string(node_.outputs.size()) + " outputs)";
    return fail(sdk::Status::kInvalidArgument, sdk::StringRef(message_.data(), message_.size()));
  }

  ShapeStage& stage_;
  ExprBridge& bridge_;
  Analysis& s_;
  ShapeResult& out_;
  NodeId n_;
  const NodeEntry& node_;
  NodeFlags set_;
  std::vector<std::uint32_t> fresh_made_;  ///< what fresh_dim returned during this call
  /// Per output of the body infer_body inferred last: its element count, for an unknown rank.
  std::vector<std::optional<Expr>> body_counts_;
  /// Nodes of the body infer_body inferred last whose shape rule refused its inputs.
  std::uint32_t body_refusals_ = 0;
  std::unordered_map<ValueId, FractionValue> pending_fractions_;
  std::unordered_map<ValueId, std::vector<FloatTerm>> pending_terms_;
  std::string error_;
  std::string message_;
};

class ShapeStage {
 public:
  ShapeStage(Analysis& s, ShapeResult& out) : s_(s), out_(out), bridge_(*s.pool) {}

  void run() {
    out_.values.assign(s_.graph->values().size(), ValueShape{});
    seed_graph(0);
    infer_graph(0);
    for (ValueId v = 0; v < out_.values.size(); ++v) {
      const ValueShape& shape = out_.values[v];
      if (s_.graph->value(v).graph == 0 && shape.kind == ValueKind::kTensor && !shape.known_rank &&
          (shape.dtype == 0 || dtype_bits(shape.dtype, s_.registry.get()) != 0)) {
        out_.unknown_rank_values.push_back(v);
      }
    }
  }

  /// Seeds initializers and declared inputs of graph g (inputs of bodies are set by the caller).
  void seed_graph(GraphId g) {
    const GraphEntry& ge = s_.graph->graphs()[g];
    for (ValueId v : ge.inputs) {
      const onnx::ValueInfoProto* decl = s_.graph->value(v).graph_input;
      if (s_.graph->value(v).is_initializer()) continue;  // the initializer's shape wins
      out_.values[v] = declared_shape(v, *decl);
    }
    for (ValueId v : ge.initializers) seed_initializer(v);
    if (g == 0) check_input_dims_used(ge);
  }

  /// Every Profile::input_dims name is a main-graph input fed by the caller: a typo or an
  /// initializer would otherwise change nothing, silently.
  void check_input_dims_used(const GraphEntry& main) {
    for (const auto& [name, dims] : s_.options.input_dims) {
      bool found = false;
      std::string inputs;
      for (ValueId v : main.inputs) {
        const ValueEntry& value = s_.graph->value(v);
        if (value.is_initializer()) {
          if (value.name == name) {
            throw Error("--input " + name + ": '" + name +
                            "' is an initializer, not an input the caller feeds",
                        ExitCode::kUsage);
          }
          continue;
        }
        found = found || value.name == name;
        inputs += (inputs.empty() ? "" : ", ") + std::string(value.name);
      }
      if (!found) {
        throw Error("--input " + name + ": the model has no input '" + name +
                        "' (its inputs: " + (inputs.empty() ? std::string("none") : inputs) + ")",
                    ExitCode::kUsage);
      }
    }
  }

  /// The dims --input gives a main-graph input, replacing `declared`'s.
  void apply_input_dims(ValueId v, ValueShape& declared) {
    const ValueEntry& value = s_.graph->value(v);
    if (value.graph != 0 || !value.is_input()) return;
    const auto it = s_.options.input_dims.find(value.name);
    if (it == s_.options.input_dims.end()) return;
    const std::string& name = it->first;
    if (declared.known_rank && declared.dims.size() != it->second.size()) {
      throw Error("--input " + name + ": " + std::to_string(it->second.size()) +
                      " dims given, but the model declares " + std::to_string(declared.dims.size()),
                  ExitCode::kUsage);
    }
    declared.known_rank = true;
    declared.dims.clear();
    for (const std::string& text : it->second) {
      try {
        declared.dims.push_back(s_.pool->parse(text));
      } catch (const ExprError& e) {
        throw Error("--input " + name + ": '" + text + "' is not a dim: " + e.what(),
                    ExitCode::kUsage);
      }
    }
  }

  void infer_graph(GraphId g) {
    for (NodeId n : s_.graph->graphs()[g].nodes) infer_node(n);
  }

  /// Infers a body for a control-flow rule; reports its outputs.
  /// `element_counts` receives, per body output, the element count of a tensor of unknown rank
  /// that has one (ValueDesc cannot carry it: IShapeSink::body_output_element_count_handle does).
  sdk::Status infer_body(NodeId n, const std::string& attr, std::uint32_t count,
                         const sdk::ValueDesc* inputs, sdk::IBodyOutputs& outputs,
                         std::vector<std::optional<Expr>>* element_counts,
                         std::uint32_t* refusals) {
    const NodeEntry& node = s_.graph->node(n);
    GraphId body = kInvalidId;
    for (const BodyRef& b : node.bodies) {
      if (b.attribute == attr) body = b.graph;
    }
    if (body == kInvalidId) return sdk::Status::kInvalidArgument;
    // The body's rules run inside this node's rule call: each of them must see only its own
    // invalid handles, and this call its own once the body is done.
    const InvalidHandle outer = bridge_.take_invalid();
    struct Restore {
      ExprBridge& bridge;
      InvalidHandle outer;
      ~Restore() { bridge.restore_invalid(outer); }
    } restore{bridge_, outer};
    const GraphEntry& ge = s_.graph->graphs()[body];
    seed_graph(body);
    for (std::size_t k = 0; k < ge.inputs.size() && k < count; ++k) {
      ValueId v = ge.inputs[k];
      const sdk::ValueDesc& d = inputs[k];
      if (d.kind == sdk::ValueKind::kUnknown && d.dtype == 0 && d.rank < 0)
        continue;  // keep declared
      // What the rule does not know (dtype, rank) keeps the body's own declaration.
      const ValueShape declared = out_.values[v];
      ValueShape shape;
      shape.kind = d.kind != sdk::ValueKind::kUnknown ? d.kind : declared.kind;
      shape.dtype = d.dtype != 0 ? d.dtype : declared.dtype;
      shape.inferred = true;
      if (d.rank >= 0) {
        shape.known_rank = true;
        for (std::int32_t a = 0; a < d.rank; ++a) shape.dims.push_back(Expr{d.dims[a]});
      } else if (declared.known_rank) {
        shape.known_rank = true;
        shape.dims = declared.dims;
      }
      if (shape.kind == sdk::ValueKind::kSequence) {
        // A sequence's only "value" is its length (ValueDesc).
        if (d.value_size == 1) {
          set_sequence_length(*s_.pool, Expr{d.values[0]}, kMaxTrackedPositions, shape);
        }
      } else if (d.value_size >= 0) {
        shape.has_value = true;
        for (std::int32_t a = 0; a < d.value_size; ++a) shape.value.push_back(Expr{d.values[a]});
      }
      out_.values[v] = std::move(shape);
    }
    // Inferred again (a Loop's fixpoint, an If inside one): whether it runs is decided anew.
    out_.skipped_bodies.erase(body);
    const std::uint32_t refused_before = refusals_;
    infer_graph(body);
    *refusals = refusals_ - refused_before;
    refusals_of_[body] = *refusals;
    element_counts->assign(ge.outputs.size(), std::nullopt);
    std::vector<std::uint32_t> dims, values;
    for (std::size_t k = 0; k < ge.outputs.size(); ++k) {
      ValueId v = ge.outputs[k];
      const ValueShape& shape = out_.values[v];
      dims.clear();
      values.clear();
      for (Expr e : shape.dims) dims.push_back(e.id);
      for (Expr e : shape.value) values.push_back(e.id);
      const std::optional<Expr> length = sequence_length(*s_.pool, shape);
      if (length) values.assign(1, length->id);
      sdk::ValueDesc d;
      d.kind = shape.kind;
      d.dtype = shape.dtype;
      d.rank = shape.known_rank ? static_cast<std::int32_t>(dims.size()) : -1;
      d.dims = dims.data();
      d.value_size = shape.has_value || length ? static_cast<std::int32_t>(values.size()) : -1;
      d.values = values.data();
      if (shape.kind == sdk::ValueKind::kTensor && !shape.known_rank) {
        (*element_counts)[k] = shape.element_count;
      }
      outputs.on_output(static_cast<std::uint32_t>(k), d);
    }
    return sdk::Status::kOk;
  }

 private:
  ValueShape declared_shape(ValueId v, const onnx::ValueInfoProto& decl) {
    if (!decl.has_type()) return ValueShape{};
    ValueShape shape = from_type_proto(
        *s_.pool, decl.type(), [&](std::size_t axis) { return fresh_declared_dim(s_, v, axis); },
        false);
    if (!s_.options.input_dims.empty()) apply_input_dims(v, shape);
    if (!s_.options.fixed_sizes.empty()) fix_sizes(shape);
    return shape;
  }

  /// Profile::fixed_sizes: the declared symbols given a size become that integer.
  void fix_sizes(ValueShape& shape) {
    if (fixed_.empty()) {
      for (const auto& [name, value] : s_.options.fixed_sizes) {
        fixed_.emplace(name, s_.pool->integer(value));
      }
    }
    for (Expr& d : shape.dims) d = s_.pool->substitute(d, fixed_);
  }

  void seed_initializer(ValueId v) {
    const onnx::TensorProto& t = *s_.graph->value(v).initializer;
    ValueShape shape;
    shape.kind = ValueKind::kTensor;
    shape.dtype = t.data_type();
    shape.known_rank = true;
    for (std::int64_t d : t.dims()) shape.dims.push_back(s_.pool->integer(d));
    std::vector<std::int64_t> ints;
    if (sdk::dtype::carries_values(shape.dtype) && tensor_int_values(t, kMaxValueElements, &ints)) {
      shape.has_value = true;
      for (std::int64_t k : ints) shape.value.push_back(s_.pool->integer(k));
    }
    std::vector<double> floats;
    if (tensor_float_values(t, kMaxValueElements, &floats))
      out_.float_values[v] = std::move(floats);
    out_.values[v] = std::move(shape);
  }

  std::string identify(NodeId n) const {
    const NodeEntry& node = s_.graph->node(n);
    return describe_node(*s_.graph, n) + " [domain '" +
           (node.domain.empty() ? std::string("ai.onnx") : std::string(node.domain)) + "', opset " +
           std::to_string(node.opset) + "]";
  }

  void infer_node(NodeId n) {
    const NodeEntry& node = s_.graph->node(n);
    const ResolvedRules& rules = s_.rules_of(n);
    record_constant_floats(n);
    bool rule_failed = refused_by_schema(n);
    std::string rule_error;
    NodeFlags done(node.outputs.size());
    if (rules.shape != nullptr && !rule_failed) {
      HostNodeView view(s_, out_, bridge_, n);
      HostShapeSink sink(*this, bridge_, s_, out_, n);
      const std::string_view origin = rules.entry(RuleKind::kShape)->origin;
      sdk::Status status;
      {
        RunningRule running(origin, "shape", node.domain, node.op_type);
        status = rules.shape->infer(view, sink);
      }
      // Taken after every rule call, so that each one starts clear (infer_body keeps the
      // enclosing call's apart while a body runs).
      const InvalidHandle invalid =
          bridge_.has_invalid() ? bridge_.take_invalid() : InvalidHandle{};
      if (parked_) std::rethrow_exception(std::exchange(parked_, nullptr));
      for (const std::string& e : bridge_.take_errors()) {
        s_.warn(n, describe_node(*s_.graph, n) + ": expression error: " + e);
      }
      if (const std::string slips = view.attribute_slips(); !slips.empty()) {
        s_.warn(n, describe_node(*s_.graph, n) + ": the shape rule of " + std::string(origin) +
                       " asked for " + slips + "; its default was used");
      }
      if (status == sdk::Status::kOk && !invalid && !set_nothing(node, sink)) {
        for (std::size_t k = 0; k < node.outputs.size(); ++k) done.set(k, sink.output_set(k));
        sink.commit_fractions();
      } else {
        rule_failed = true;
        const std::string by = " (shape rule " + std::string(origin) + ")";
        if (invalid) {
          rule_error = invalid_handle_error(invalid);
        } else if (status == sdk::Status::kOk) {
          // Not "no shape rule": there is one, and it said it had answered.
          rule_error = "the shape rule returned OK but set no output";
        } else {
          rule_error = sink.error().empty() ? "shape rule failed" : sink.error();
        }
        // The warning names the plugin; a strict error does too when the plugin broke the
        // boundary's contract rather than refused a model.
        if (s_.options.shapes.strict) {
          throw AnalysisError(identify(n) + ": " + rule_error + (invalid ? by : std::string()));
        }
        if (status == sdk::Status::kInvalidArgument && !invalid) ++refusals_;
        s_.rule_failed(RuleFailure::Kind::kShape, n, origin, rule_error);
        s_.warn(n, describe_node(*s_.graph, n) + ": " + rule_error + by + "; using the fallbacks");
      }
    }
    if (!all_done(node, done)) fall_back(n, rule_failed, done);
    apply_declarations(n);
    check_dims(n);
  }

  /// Checks node n against its operator's declared contract (SDK 1.9) before any rule of it
  /// runs: true when the node breaks it, which then counts as its shape rule refusing the node
  /// (a warning and the fallbacks; an error under shapes.strict). Attributes the schema does not
  /// declare are warnings.
  bool refused_by_schema(NodeId n) {
    const OpSchema* schema = s_.rules_of(n).schema;
    if (schema == nullptr) return false;
    const HostNodeView view(s_, out_, bridge_, n);
    SchemaFindings found = check_schema(*schema, view, s_.registry.get());
    const std::string by = " (schema of " + schema->origin + ")";
    for (const std::string& w : found.undeclared_attributes) {
      s_.warn(n, describe_node(*s_.graph, n) + ": " + w + by);
    }
    if (found.violation.empty()) return false;
    if (s_.options.shapes.strict) throw AnalysisError(identify(n) + ": " + found.violation + by);
    ++refusals_;
    s_.warn(n, describe_node(*s_.graph, n) + ": " + found.violation + by + "; using the fallbacks");
    s_.rule_failed(RuleFailure::Kind::kShape, n, "schema of " + schema->origin,
                   std::move(found.violation));
    return true;
  }

  /// semantics.md "Sizes are never negative": every dim of node n's outputs, and of the graph
  /// inputs it is the first to read (their dim_params), is checked once the node's shapes are
  /// final. A dim that is negative wherever it is defined (a Split size of -2, a dim_param `-1`
  /// or `0-N`) is an error: the model cannot run and a negative byte count would lower its own
  /// peak. A dim that may be negative (`N-10`) is a requirement of the node, `0 <= N-10`: it
  /// narrows the symbol's bounds when it mentions one symbol (semantics.md "Bounds derived from
  /// the model"), and an evaluation where it fails is refused naming it.
  void check_dims(NodeId n) {
    const NodeEntry& node = s_.graph->node(n);
    for (ValueId v : node.inputs) {
      if (v == kNoValue || !s_.graph->value(v).is_input()) continue;
      if (inputs_checked_.empty()) inputs_checked_.assign(out_.values.size(), false);
      if (inputs_checked_[v]) continue;
      inputs_checked_[v] = true;
      check_value_dims(n, v, DimOf::kGraphInput);
    }
    for (ValueId v : node.outputs) {
      if (v != kNoValue) check_value_dims(n, v, DimOf::kNodeOutput);
    }
  }

  /// Whose dim check_dim looks at: a graph input's declared one, or a node's computed one.
  enum class DimOf : std::uint8_t { kGraphInput, kNodeOutput };

  void check_value_dims(NodeId n, ValueId v, DimOf of) {
    const ValueShape& shape = out_.values[v];
    if (shape.kind == ValueKind::kUnknown) return;
    for (const Expr d : shape.dims) check_dim(n, v, d, of);
    if (shape.elements) {
      for (const ElementShape& e : *shape.elements) {
        for (const Expr d : e.dims) check_dim(n, v, d, of);
      }
    }
  }

  void check_dim(NodeId n, ValueId v, Expr d, DimOf of) {
    ExprPool& pool = *s_.pool;
    const Interval range = pool.interval(d);
    if (range.lo >= 0) return;
    const std::string name(s_.graph->value(v).name);
    if (range.hi < 0) {
      const bool read = of == DimOf::kGraphInput;
      throw ModelError(
          s_.model->source() + ": " +
          (read ? "value '" + name + "'" : describe_node(*s_.graph, n) + ": '" + name + "'") + " " +
          (read ? "has" : "would get") + " a negative dim " + pool.print(d) +
          (pool.has_symbols(d) ? " (negative for every value of its symbols)" : "") +
          "; the model cannot run");
    }
    if (pool.prove_nonneg(d)) return;
    if (of == DimOf::kGraphInput) {
      // A graph input's declared dim: the model itself says it exists, so it is a requirement.
      out_.constraints.push_back(
          Constraint{Constraint::Kind::kLe, pool.integer(0), d, Expr{}, n, true});
      derive_bounds(pool, *s_.graph, out_.constraints.back(), out_.derived_bounds);
      return;
    }
    // A rule's formula, valid where its assumptions hold: checked at evaluation only.
    if (s_.graph->node(n).graph == 0 && signed_seen_.insert(d.id).second) {
      out_.signed_dims.push_back(ShapeResult::SignedDim{n, v, d});
    }
  }

  /// A rule that returned OK and set none of the node's outputs (it has some) answered nothing.
  static bool set_nothing(const NodeEntry& node, const HostShapeSink& sink) {
    bool any = false;
    for (std::size_t k = 0; k < node.outputs.size(); ++k) {
      if (node.outputs[k] == kNoValue) continue;
      if (sink.output_set(k)) return false;
      any = true;
    }
    return any;
  }

  static bool all_done(const NodeEntry& node, const NodeFlags& done) {
    for (std::size_t k = 0; k < node.outputs.size(); ++k) {
      if (node.outputs[k] != kNoValue && !done[k]) return false;
    }
    return true;
  }

  // semantics.md "Shapes: Dispatch and fallbacks": schema inference (only without a rule), declared
  // shapes, unknown rank.
  void fall_back(NodeId n, bool rule_failed, NodeFlags& done) {
    const NodeEntry& node = s_.graph->node(n);
    std::string reasons;
    for (const std::string& step : s_.options.shapes.fallback) {
      if (all_done(node, done)) return;
      if (step == "onnx_schema" && !rule_failed) {
        std::string why;
        if (onnx_schema_inference(s_, out_, n, &why)) {
          s_.warn(n,
                  describe_node(*s_.graph, n) + ": no cctx shape rule; used ONNX schema inference");
          done.set_all();
          return;
        }
        reasons += (reasons.empty() ? "" : "; ") + std::string("ONNX schema inference: ") + why;
      } else if (step == "declared") {
        bool any = false;
        for (std::size_t k = 0; k < node.outputs.size(); ++k) {
          ValueId v = node.outputs[k];
          if (v == kNoValue || done[k]) continue;
          const onnx::ValueInfoProto* decl = declaration(v);
          if (decl == nullptr || !decl->has_type() || !has_declared_shape(*decl)) continue;
          out_.values[v] = declared_shape(v, *decl);
          done.set(k);
          any = true;
        }
        if (any) {
          s_.warn(n, describe_node(*s_.graph, n) + ": " + missing_rule(n, rule_failed) +
                         "; used the declared output shapes");
        }
      } else if (step == "unknown_rank") {
        std::string names;
        for (std::size_t k = 0; k < node.outputs.size(); ++k) {
          ValueId v = node.outputs[k];
          if (v == kNoValue || done[k]) continue;
          ValueShape shape;
          shape.kind = ValueKind::kTensor;
          if (const onnx::ValueInfoProto* decl = declaration(v); decl && decl->has_type()) {
            shape = declared_shape(v, *decl);
          }
          shape.known_rank = false;
          shape.dims.clear();
          out_.values[v] = std::move(shape);
          done.set(k);
          names += (names.empty() ? "'" : ", '") + std::string(s_.graph->value(v).name) + "'";
        }
        if (s_.options.shapes.strict) {
          throw AnalysisError(identify(n) + ": no shape rule and no declared shape for " + names);
        }
        s_.warn(n, describe_node(*s_.graph, n) + ": " + missing_rule(n, rule_failed) +
                       (reasons.empty() ? std::string() : " (" + reasons + ")") +
                       " and no declared shape; " + names + " get an unknown rank");
      }
    }
    if (!all_done(node, done) && s_.options.shapes.strict) {
      throw AnalysisError(identify(n) + ": no shape rule and the fallbacks gave no shape");
    }
  }

  /// Why the fallbacks ran: no rule at all, or a rule that failed (named, as the failure's own
  /// warning names it, so that each warning explains itself).
  std::string missing_rule(NodeId n, bool rule_failed) const {
    if (!rule_failed) {
      const NodeEntry& node = s_.graph->node(n);
      const std::string near = s_.registry->closest_op(RuleKind::kShape, node.domain, node.op_type);
      return near.empty() ? std::string("no shape rule")
                          : "no shape rule (did you mean '" + near + "'?)";
    }
    const RuleFailure* f = s_.shape_failure(n);
    if (f == nullptr) return "the shape rule failed";
    // refused_by_schema() records the contract's plugin as "schema of <origin>".
    if (f->rule.rfind("schema of ", 0) == 0) return "the node breaks the " + f->rule;
    return "the shape rule of " + f->rule + " failed";
  }

  /// The declaration that says most: a graph output declared without a shape defers to a
  /// value_info entry that has one.
  const onnx::ValueInfoProto* declaration(ValueId v) const {
    const ValueEntry& e = s_.graph->value(v);
    if (e.graph_output && e.value_info && !has_declared_shape(*e.graph_output)) return e.value_info;
    return e.graph_output ? e.graph_output : e.value_info;
  }

  static bool has_declared_shape(const onnx::ValueInfoProto& decl) {
    const onnx::TypeProto& t = decl.type();
    if (t.has_tensor_type()) return t.tensor_type().has_shape();
    if (t.has_sequence_type()) return t.sequence_type().elem_type().tensor_type().has_shape();
    return t.value_case() != onnx::TypeProto::VALUE_NOT_SET;
  }

  // semantics.md "Shapes: Declarations": declarations refine inferred shapes, never widen them.
  void apply_declarations(NodeId n) {
    const NodeEntry& node = s_.graph->node(n);
    for (ValueId v : node.outputs) {
      if (v == kNoValue) continue;
      const onnx::ValueInfoProto* decl = declaration(v);
      if (decl == nullptr || !decl->has_type()) continue;
      ValueShape& inferred = out_.values[v];
      ValueShape declared = declared_shape(v, *decl);
      const std::string_view name = s_.graph->value(v).name;
      if (inferred.dtype == 0) {
        inferred.dtype = declared.dtype;
        if (inferred.kind == ValueKind::kUnknown) inferred.kind = declared.kind;
      } else if (declared.dtype != 0 && declared.dtype != inferred.dtype) {
        conflict(n, "'" + std::string(name) + "' is declared " + dtype_name(declared.dtype) +
                        " but inferred " + dtype_name(inferred.dtype));
      }
      if (!declared.known_rank) continue;
      // An element count that holds whichever branch of an If runs says more than a declared
      // rank of unknown dims, which an exporter took from the one branch its trace ran.
      if (!inferred.known_rank && inferred.element_count &&
          !std::all_of(declared.dims.begin(), declared.dims.end(),
                       [&](Expr d) { return s_.pool->as_int(d).has_value(); })) {
        continue;
      }
      if (!inferred.known_rank) {
        inferred.known_rank = true;
        inferred.dims = declared.dims;
        continue;
      }
      if (declared.dims.size() != inferred.dims.size()) {
        conflict(n, "'" + std::string(name) + "' is declared with rank " +
                        std::to_string(declared.dims.size()) + " but inferred with rank " +
                        std::to_string(inferred.dims.size()));
        continue;
      }
      for (std::size_t k = 0; k < declared.dims.size(); ++k) {
        Expr d = declared.dims[k], i = inferred.dims[k];
        if (d == i) continue;
        auto dk = s_.pool->as_int(d), ik = s_.pool->as_int(i);
        if (dk && ik) {
          conflict(n, "'" + std::string(name) + "' dim " + std::to_string(k) + " is declared " +
                          std::to_string(*dk) + " but inferred " + std::to_string(*ik));
        } else if (dk) {
          out_.constraints.push_back(Constraint{Constraint::Kind::kEq, i, d, Expr{}, n});
          inferred.dims[k] = d;
        } else if (is_fresh(i) && !is_fresh(d) && !bounded_for_declared_only(i, d)) {
          inferred.dims[k] = d;
        }
      }
    }
  }

  /// A data-dependent size with an upper bound (NonZero, TopK, NMS: kit::fresh_upto) keeps its
  /// name against a dim_param that no graph input has (an exporter's `Gather4150_dim_0` on an
  /// output): the bound lets `--eval` take the worst case from the input symbols alone, the
  /// declared name could only be asked for (semantics.md "Declarations").
  bool bounded_for_declared_only(Expr inferred, Expr declared) {
    if (out_.dim_bound_index.count(inferred.id) == 0 || !s_.pool->is_symbol(declared)) {
      return false;
    }
    if (!input_symbols_) {
      input_symbols_.emplace();
      for (ValueId v : s_.graph->graphs()[0].inputs) {
        for (Expr e : out_.values[v].dims) {
          if (s_.pool->is_symbol(e)) input_symbols_->insert(e.id);
        }
      }
    }
    return input_symbols_->count(declared.id) == 0;
  }

  bool is_fresh(Expr e) const {
    if (!s_.pool->is_symbol(e)) return false;
    const SymbolInfo* info = s_.pool->find_symbol(s_.pool->print(e));
    return info != nullptr && info->kind == SymbolKind::kFresh;
  }

  void conflict(NodeId n, const std::string& message) {
    if (s_.options.shapes.strict) throw AnalysisError(describe_node(*s_.graph, n) + ": " + message);
    s_.warn(n, describe_node(*s_.graph, n) + ": " + message + "; keeping the inferred shape");
  }

  // Constant outputs with small floating payloads feed rules that read float constants (Resize
  // scales); integer payloads travel as values set by the Constant shape rule.
  void record_constant_floats(NodeId n) {
    const NodeEntry& node = s_.graph->node(n);
    if (node.op_type != "Constant" || !node.domain.empty() || node.outputs.empty() ||
        node.outputs[0] == kNoValue) {
      return;
    }
    for (const onnx::AttributeProto& a : node.proto->attribute()) {
      std::vector<double> floats;
      if (a.name() == "value" && a.has_t() &&
          tensor_float_values(a.t(), kMaxValueElements, &floats)) {
        out_.float_values[node.outputs[0]] = std::move(floats);
      } else if (a.name() == "value_float") {
        out_.float_values[node.outputs[0]] = {static_cast<double>(a.f())};
      } else if (a.name() == "value_floats" &&
                 a.floats_size() <= static_cast<int>(kMaxValueElements)) {
        out_.float_values[node.outputs[0]].assign(a.floats().begin(), a.floats().end());
      }
    }
  }

  Analysis& s_;
  ShapeResult& out_;
  ExprBridge bridge_;
  std::exception_ptr parked_;  ///< an error a body raised inside a rule's call (park)
  /// Shape rules that refused their node's inputs so far, but in bodies that do not run
  /// (IShapeSink::body_refusals), and per body the count of its last inference.
  std::uint32_t refusals_ = 0;
  std::unordered_map<GraphId, std::uint32_t> refusals_of_;
  /// Profile::fixed_sizes as expressions, made on first use.
  std::map<std::string, Expr, std::less<>> fixed_;
  std::vector<bool> inputs_checked_;               ///< graph inputs whose dims check_dims has seen
  std::unordered_set<std::uint32_t> signed_seen_;  ///< dims already in out_.signed_dims
  /// The symbols of the main graph's declared inputs, gathered on first use.
  std::optional<std::unordered_set<std::uint32_t>> input_symbols_;

 public:
  void park(std::exception_ptr e) {
    if (!parked_) parked_ = std::move(e);
  }
  /// Body g does not run: its working memory is not counted, and its refusals do not make the
  /// body around it one that cannot run.
  void skip_body(GraphId g) {
    if (!out_.skipped_bodies.insert(g).second) return;
    auto it = refusals_of_.find(g);
    if (it != refusals_of_.end()) refusals_ -= it->second;
  }
};

sdk::Status HostShapeSink::skip_body(sdk::StringRef attr) noexcept {
  const std::string name = text(attr);
  for (const BodyRef& b : node_.bodies) {
    if (b.attribute == name) {
      stage_.skip_body(b.graph);
      return sdk::Status::kOk;
    }
  }
  message_ = "skip_body: the node has no graph attribute '" + name + "'";
  return fail(sdk::Status::kInvalidArgument, sdk::StringRef(message_.data(), message_.size()));
}

sdk::Status HostShapeSink::infer_body(sdk::StringRef attr, std::uint32_t input_count,
                                      const sdk::ValueDesc* inputs,
                                      sdk::IBodyOutputs& outputs) noexcept {
  for (std::uint32_t k = 0; k < input_count; ++k) {
    const sdk::ValueDesc& d = inputs[k];
    for (std::int32_t a = 0; a < d.rank; ++a) {
      if (!bridge_.valid(d.dims[a])) return refuse(d.dims[a], "IShapeSink::infer_body");
    }
    for (std::int32_t a = 0; a < d.value_size; ++a) {
      if (!bridge_.valid(d.values[a])) return refuse(d.values[a], "IShapeSink::infer_body");
    }
  }
  try {
    sdk::Status st = stage_.infer_body(n_, text(attr), input_count, inputs, outputs, &body_counts_,
                                       &body_refusals_);
    if (st != sdk::Status::kOk) {
      std::string m = "node has no graph attribute '" + text(attr) + "'";
      return fail(st, sdk::StringRef(m.data(), m.size()));
    }
    return st;
  } catch (const Error& e) {
    // Strict mode inside a body, or a model error there (a negative dim), ends the analysis; the
    // error cannot cross the plugin, so it is parked and rethrown once the rule has returned.
    stage_.park(std::current_exception());
    return fail(sdk::Status::kInternal, sdk::StringRef::from_c_str(e.what()));
  } catch (const std::exception& e) {
    return fail(sdk::Status::kInternal, sdk::StringRef::from_c_str(e.what()));
  }
}

}  // namespace

ShapeResult run_shape_stage(Analysis& s) {
  ShapeResult result;
  ShapeStage(s, result).run();
  return result;
}

}  // namespace cctx
