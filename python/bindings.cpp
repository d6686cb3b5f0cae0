// The Python extension `cctx._cctx`: ComputeContext with the seed's API and value types
// (amounts are int when concrete, else the canonical expression str), expression helpers and
// the compact model listing. Every framework error becomes `cctx.Error` (a ValueError).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "cctx/compute_context.hpp"
#include "cctx/errors.hpp"
#include "cctx/host.hpp"
#include "cctx/large_stack.hpp"
#include "cctx/model.hpp"
#include "cctx/report.hpp"
#include "cctx/safe_text.hpp"
#include "module_common.hpp"
#include "shape_inference.hpp"

namespace cctx::python {
namespace {

py::object amount(ExprPool& pool, Expr e) {
  if (auto v = pool.as_int(e)) return py::int_(*v);
  return py_text(pool.print(e));
}

py::dict bucket(ExprPool& pool, const Bucket& b) {
  py::dict d;
  for (const auto& [tag, value] : b) d[py::str(tag_name(tag))] = amount(pool, value);
  return d;
}

Assignment to_assignment(const py::dict& d) {
  Assignment a;
  for (auto [key, value] : d) a[py::cast<std::string>(key)] = py::cast<std::int64_t>(value);
  return a;
}

class PyComputeContext {
 public:
  explicit PyComputeContext(const py::object& profile) {
    host_ = host_for(profile);
    ctx_ = std::make_unique<ComputeContext>(*host_);
  }

  void compute(const py::object& model) {
    auto parsed = std::make_unique<Model>(to_model(model));
    {
      py::gil_scoped_release release;
      // Nested bodies recurse: analyse on a stack of known size, not the interpreter's thread's.
      run_with_large_stack(kAnalysisStackBytes, [&] { ctx_->compute(*parsed); });
    }
    model_ = std::move(parsed);
  }

  void write_to_model(py::object model) {
    require_computed();
    ctx_->write_to_model(*model_);
    const std::string bytes = model_->serialize();
    if (py::hasattr(model, "ParseFromString")) {
      model.attr("ParseFromString")(py::bytes(bytes));  // clears, then parses: in place
    } else if (py::isinstance<py::str>(model) || py::hasattr(model, "__fspath__")) {
      model_->save(py::cast<std::string>(py::module_::import("os").attr("fspath")(model)));
    } else {
      throw Error("write_to_model expects an onnx.ModelProto or a path", ExitCode::kUsage);
    }
  }

  py::list memory() const {
    require_computed();
    py::list out;
    for (NodeId n = 0; n < ctx_->node_count(); ++n) out.append(node_memory(n));
    return out;
  }

  py::dict node_memory(std::size_t n) const {
    require_node(n);
    ExprPool& pool = ctx_->pool();
    const MemoryProfile& p = ctx_->memory(static_cast<NodeId>(n));
    py::dict d;  // the seven keys in sorted order, as the seed's dicts
    d["already_allocated_bytes"] = amount(pool, p.already_allocated);
    d["initializers"] = bucket(pool, p.initializers);
    d["inputs"] = bucket(pool, p.inputs);
    d["intermediates"] = bucket(pool, p.intermediates);
    d["output_allocation_bytes"] = amount(pool, p.output_allocation);
    d["outputs"] = bucket(pool, p.outputs);
    d["total_bytes"] = amount(pool, p.total);
    return d;
  }

  py::object node_peak_memory(std::size_t n) const {
    require_node(n);
    return amount(ctx_->pool(), ctx_->node_peak_memory(static_cast<NodeId>(n)));
  }

  py::dict shapes() const {
    require_computed();
    py::dict d;
    const GraphView& g = ctx_->graph();
    for (ValueId v = 0; v < g.values().size(); ++v) {
      if (g.value(v).graph != 0) continue;
      const ValueShape& s = ctx_->shape(v);
      if (!s.known_rank) {
        d[py_text(g.value(v).name)] = py::none();
        continue;
      }
      py::list dims;
      for (Expr e : s.dims) dims.append(amount(ctx_->pool(), e));
      d[py_text(g.value(v).name)] = dims;
    }
    return d;
  }

  py::dict value_tags() const {
    require_computed();
    py::dict d;
    const GraphView& g = ctx_->graph();
    for (ValueId v = 0; v < g.values().size(); ++v) {
      if (g.value(v).graph == 0) d[py_text(g.value(v).name)] = tag_name(ctx_->value_tag(v));
    }
    return d;
  }

  py::list node_tags() const {
    require_computed();
    py::list out;
    for (NodeId n = 0; n < ctx_->node_count(); ++n) out.append(tag_name(ctx_->node_tag(n)));
    return out;
  }

  py::list reuse() const {
    require_computed();
    py::list out;
    for (NodeId n = 0; n < ctx_->node_count(); ++n) {
      py::list decisions;
      for (const InplaceDecision& d : ctx_->inplace(n)) {
        py::dict e;
        e["output"] = d.output;
        e["input"] = d.input;
        e["kind"] = reuse_kind_name(d.kind);
        e["mode"] = d.mode == ReuseMode::kAlias ? "alias" : "may_reuse";
        decisions.append(e);
      }
      out.append(decisions);
    }
    return out;
  }

  py::list names_per_node(ValueIds (ComputeContext::*list)(NodeId) const) const {
    require_computed();
    py::list out;
    for (NodeId n = 0; n < ctx_->node_count(); ++n) {
      py::list names;
      for (ValueId v : (ctx_.get()->*list)(n)) names.append(py_text(ctx_->graph().value(v).name));
      out.append(names);
    }
    return out;
  }

  py::dict peak() const {
    require_computed();
    py::dict d;
    d["total_bytes"] = amount(ctx_->pool(), ctx_->peak_total_bytes());
    if (auto n = ctx_->peak_node()) {
      d["node"] = *n;
    } else {
      d["node"] = py::none();
    }
    return d;
  }

  py::tuple evaluate_peak(const py::dict& assignment) const {
    require_computed();
    std::vector<BoundedSymbol> bounded;
    PeakEvaluation e = ctx_->evaluate_peak(complete(assignment, &bounded));
    return py::make_tuple(e.bytes, e.node);
  }

  py::dict evaluate_runtime(const py::dict& assignment) const {
    require_computed();
    std::vector<BoundedSymbol> bounded;
    PeakEvaluation e = ctx_->evaluate_peak(complete(assignment, &bounded));
    py::dict out;
    out["bytes"] = e.bytes;
    out["node"] = e.node;
    out["run_bytes"] = e.run_bytes;
    out["run_node"] = e.run_node;
    out["session_bytes"] = e.session_bytes;
    py::dict at_bound;
    for (const BoundedSymbol& b : bounded) at_bound[py::str(b.symbol)] = b.value;
    out["at_upper_bound"] = at_bound;
    return out;
  }

  py::list warnings() const {
    require_computed();
    py::list out;
    for (const Diagnostic& d : ctx_->diagnostics()) out.append(py_text(d.message));
    return out;
  }

  std::string to_json(const py::object& evaluate) const {
    require_computed();
    ReportOptions options;
    options.model_path = model_->source();
    if (!evaluate.is_none()) {
      const std::set<std::string> needed =
          ctx_->dim_bounds().empty() ? std::set<std::string>{} : symbols_to_evaluate(*ctx_);
      for (const py::handle a : evaluate) {
        options.at_upper_bound.emplace_back();
        options.evaluate.push_back(
            complete(py::cast<py::dict>(a), &options.at_upper_bound.back(), &needed));
      }
    }
    std::string text;
    append_json_report(text, *ctx_, options);
    return text;
  }

 private:
  /// The assignment with every data-dependent size it needs and lacks at its upper bound (the
  /// CLI's worst case), those listed in `*bounded`.
  /// (`needed`: symbols_to_evaluate, when the caller completes several assignments.)
  Assignment complete(const py::dict& given, std::vector<BoundedSymbol>* bounded,
                      const std::set<std::string>* needed = nullptr) const {
    Assignment a = to_assignment(given);
    if (ctx_->dim_bounds().empty()) return a;  // no walk over the graph when nothing is bounded
    *bounded = needed != nullptr ? assign_upper_bounds(*ctx_, *needed, a)
                                 : assign_upper_bounds(*ctx_, symbols_to_evaluate(*ctx_), a);
    return a;
  }

  void require_computed() const {
    if (!model_) throw Error("ComputeContext: call compute(model) first", ExitCode::kUsage);
  }
  void require_node(std::size_t n) const {
    require_computed();
    if (n >= ctx_->node_count()) {
      throw py::index_error("node index " + std::to_string(n) + " out of range (" +
                            std::to_string(ctx_->node_count()) + " nodes)");
    }
  }

  std::shared_ptr<Host> host_;  // declared first: destroyed after the context (teardown order)
  std::unique_ptr<ComputeContext> ctx_;
  std::unique_ptr<Model> model_;
};

py::object evaluate(const py::object& expr, const py::dict& assignment) {
  if (py::isinstance<py::int_>(expr)) return expr;
  return py::int_(evaluate_expression(py::cast<std::string>(expr), to_assignment(assignment)));
}

py::object simplify(const py::object& expr, const py::object& bounds) {
  if (py::isinstance<py::int_>(expr)) return expr;
  ExprPool pool;
  if (!bounds.is_none()) {
    for (auto [name, range] : py::cast<py::dict>(bounds)) {
      auto pair = py::cast<py::tuple>(range);
      if (pair.size() != 2) throw Error("bounds must map a symbol to (lo, hi)", ExitCode::kUsage);
      Interval i{py::cast<std::int64_t>(pair[0]),
                 pair[1].is_none() ? kPosInf : py::cast<std::int64_t>(pair[1])};
      pool.declare_symbol(py::cast<std::string>(name), i);
    }
  }
  return amount(pool, pool.parse(py::cast<std::string>(expr)));
}

}  // namespace
}  // namespace cctx::python

PYBIND11_MODULE(_cctx, m) {
  using namespace cctx;
  using namespace cctx::python;
  m.doc() = "cctx: per-node memory of ONNX graphs as formulas in their symbolic dimensions";
  m.attr("__version__") = CCTX_VERSION;

  static py::exception<Error> error(m, "Error", PyExc_ValueError);
  // The exception carries the command line's exit code as `exit_code` (3 bad input, 4 a strict
  // analysis error...), so that Python code can tell the kinds apart as scripts do.
  py::register_exception_translator([](std::exception_ptr p) {
    auto raise = [](const char* message, ExitCode code) {
      py::object value =
          py::reinterpret_borrow<py::object>(error)(py::str(safe_text::utf8(message)));
      value.attr("exit_code") = static_cast<int>(code);
      PyErr_SetObject(error.ptr(), value.ptr());
    };
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      raise(e.what(), e.exit_code());
    } catch (const ExprError& e) {
      raise(e.what(), ExitCode::kBadInput);
    }
  });

  m.attr("NODE_MEMORY_ALREADY_ALLOCATED_BYTES_KEY") = "already_allocated_bytes";
  m.attr("NODE_MEMORY_OUTPUT_ALLOCATION_BYTES_KEY") = "output_allocation_bytes";
  m.attr("NODE_MEMORY_TOTAL_BYTES_KEY") = "total_bytes";
  m.attr("NODE_MEMORY_INPUTS_KEY") = "inputs";
  m.attr("NODE_MEMORY_INITIALIZERS_KEY") = "initializers";
  m.attr("NODE_MEMORY_INTERMEDIATES_KEY") = "intermediates";
  m.attr("NODE_MEMORY_OUTPUTS_KEY") = "outputs";

  py::class_<PyComputeContext>(m, "ComputeContext",
                               "Runs shapes, tags, lifetimes, in-place, memory, scratch and peak")
      .def(py::init<const py::object&>(), py::arg("profile") = py::none(),
           "profile: None (the default profile), a path to a YAML profile, or YAML text")
      .def("compute", &PyComputeContext::compute, py::arg("model"),
           "Analyses an onnx.ModelProto, serialized bytes or a path")
      .def("write_to_model", &PyComputeContext::write_to_model, py::arg("model"),
           "Writes inferred shapes and annotations into an onnx.ModelProto (in place) or a path")
      .def_property_readonly("memory", &PyComputeContext::memory)
      .def("node_memory", &PyComputeContext::node_memory, py::arg("node_index"))
      .def("node_peak_memory", &PyComputeContext::node_peak_memory, py::arg("node_index"))
      .def_property_readonly("shapes", &PyComputeContext::shapes)
      .def_property_readonly("value_tags", &PyComputeContext::value_tags)
      .def_property_readonly("node_tags", &PyComputeContext::node_tags)
      .def_property_readonly("reuse", &PyComputeContext::reuse)
      .def_property_readonly("release_after",
                             [](const PyComputeContext& c) {
                               return c.names_per_node(&ComputeContext::release_after);
                             })
      .def_property_readonly("not_used_after",
                             [](const PyComputeContext& c) {
                               return c.names_per_node(&ComputeContext::not_used_after);
                             })
      .def_property_readonly("peak", &PyComputeContext::peak)
      .def("evaluate_peak", &PyComputeContext::evaluate_peak, py::arg("assignment"),
           "(bytes, node) of the whole-graph peak under an assignment")
      .def("evaluate_runtime", &PyComputeContext::evaluate_runtime, py::arg("assignment"),
           "the peak under an assignment with what a runtime holds: {bytes, node, run_bytes, "
           "run_node, session_bytes, at_upper_bound}; a data-dependent size the assignment "
           "lacks is taken at its upper bound, listed in at_upper_bound {symbol: value}")
      .def_property_readonly("warnings", &PyComputeContext::warnings)
      .def("to_json", &PyComputeContext::to_json, py::arg("evaluate") = py::none(),
           "The cctx.analysis/1 report as a JSON string");

  m.def("evaluate_expression", &evaluate, py::arg("expr"), py::arg("assignment"),
        "Evaluates an expression (floor //, % with the divisor's sign) under {symbol: int}");
  m.def("simplify_expression", &simplify, py::arg("expr"), py::arg("bounds") = py::none(),
        "Canonical form of an expression; bounds: {symbol: (lo, hi or None)}");
  m.def(
      "pretty_onnx",
      [](const py::object& model) {
        std::string text = model_listing(to_model(model));
        if (!text.empty() && text.back() == '\n') text.pop_back();  // print() adds one
        return text;
      },
      py::arg("model"), "Compact text listing of a model");
  m.def("_load_default_plugins", [] { default_host(); });
  add_shape_inference(m);
}
