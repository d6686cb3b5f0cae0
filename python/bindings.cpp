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
#include "cctx/fit.hpp"
#include "cctx/fit_report.hpp"
#include "cctx/host.hpp"
#include "cctx/large_stack.hpp"
#include "cctx/memory_plan.hpp"
#include "cctx/model.hpp"
#include "cctx/plan_report.hpp"
#include "cctx/report.hpp"
#include "cctx/safe_text.hpp"
#include "cctx/session.hpp"
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

/// {symbol: int} from Python, checked: a wrong type is a TypeError that names the entry, not
/// pybind11's "Unable to cast" RuntimeError.
Assignment to_assignment(const py::handle& given, const char* what = "assignment") {
  if (!py::isinstance<py::dict>(given)) {
    throw py::type_error(std::string(what) + " must be a dict {symbol: int}, not " +
                         py::str(py::type::handle_of(given).attr("__name__")).cast<std::string>());
  }
  Assignment a;
  for (auto [key, value] : py::reinterpret_borrow<py::dict>(given)) {
    if (!py::isinstance<py::str>(key)) {
      throw py::type_error(std::string(what) + ": symbol names must be str, not " +
                           py::str(py::type::handle_of(key).attr("__name__")).cast<std::string>());
    }
    const std::string name = py::cast<std::string>(key);
    // bool is an int in Python; True as a size is a mistake, not 1.
    if (!py::isinstance<py::int_>(value) || py::isinstance<py::bool_>(value)) {
      throw py::type_error(
          std::string(what) + ": the value of '" + name + "' must be an int, not " +
          py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>());
    }
    try {
      a[name] = py::cast<std::int64_t>(value);
    } catch (const py::cast_error&) {
      throw Error(std::string(what) + ": the value of '" + name + "' does not fit a 64-bit integer",
                  ExitCode::kUsage);
    }
  }
  return a;
}

/// A list of {symbol: int} dicts; `what` names the method in the TypeError otherwise.
std::vector<Assignment> assignment_list(const py::object& given, const char* what) {
  if (!py::isinstance<py::iterable>(given) || py::isinstance<py::dict>(given)) {
    throw py::type_error(std::string(what) + ": evaluate must be a list of {symbol: int} dicts");
  }
  std::vector<Assignment> out;
  for (const py::handle item : given) out.push_back(to_assignment(item));
  return out;
}

/// The profile with input_dims {name: [dim, ...]} (ints or expression text), as the command
/// line's --input NAME=D0,D1,... gives them (Profile::input_dims).
std::shared_ptr<Host> host_with_inputs(const py::object& profile, const py::object& input_dims) {
  if (!py::isinstance<py::dict>(input_dims)) {
    throw py::type_error("input_dims must be a dict {input name: [dim, ...]}");
  }
  Profile p = profile.is_none() ? Host::default_profile() : to_profile(profile);
  for (auto [name, dims] : py::reinterpret_borrow<py::dict>(input_dims)) {
    if (!py::isinstance<py::str>(name) || !py::isinstance<py::sequence>(dims) ||
        py::isinstance<py::str>(dims)) {
      throw py::type_error("input_dims must map an input's name to a list of dims");
    }
    std::vector<std::string> texts;
    for (const py::handle d : py::reinterpret_borrow<py::sequence>(dims)) {
      if (!py::isinstance<py::int_>(d) && !py::isinstance<py::str>(d)) {
        throw py::type_error("input_dims: a dim is an int or an expression text");
      }
      texts.push_back(py::str(d).cast<std::string>());
    }
    p.input_dims[name.cast<std::string>()] = std::move(texts);
  }
  return std::make_shared<Host>(p);
}

class PyComputeContext {
 public:
  PyComputeContext(const py::object& profile, const py::object& input_dims)
      : host_(input_dims.is_none() ? host_for(profile) : host_with_inputs(profile, input_dims)) {}

  void compute(const py::object& model) {
    auto next = std::make_shared<Session>(host_, to_model(model));
    {
      py::gil_scoped_release release;
      // Nested bodies recurse: analyse on a stack of known size, not the interpreter's thread's.
      run_with_large_stack(kAnalysisStackBytes, [&] { next->analyse(); });
    }
    // Only a finished analysis replaces the current one (under the GIL, which every reader
    // holds): a compute that raised leaves the context as it was.
    current_ = std::move(next);
  }

  void write_to_model(const py::object& model) {
    const std::shared_ptr<Session> a = computed();
    const bool proto = py::hasattr(model, "ParseFromString");
    if (!proto && !py::isinstance<py::str>(model) && !py::hasattr(model, "__fspath__")) {
      throw py::type_error(
          "write_to_model expects an onnx.ModelProto or a path, not " +
          py::str(py::type::handle_of(model).attr("__name__")).cast<std::string>());
    }
    a->symbolic().write_to_model(a->model());
    if (proto) {
      model.attr("ParseFromString")(py::bytes(a->model().serialize()));  // clears, then parses
    } else {
      a->model().save(py::cast<std::string>(py::module_::import("os").attr("fspath")(model)));
    }
  }

  py::list memory() const {
    const std::shared_ptr<Session> a = computed();
    py::list out;
    for (NodeId n = 0; n < a->symbolic().node_count(); ++n)
      out.append(node_memory_of(a->symbolic(), n));
    return out;
  }

  py::dict node_memory(std::int64_t n) const {
    const std::shared_ptr<Session> a = computed();
    require_node(a->symbolic(), n);
    return node_memory_of(a->symbolic(), static_cast<NodeId>(n));
  }

  py::object node_peak_memory(std::int64_t n) const {
    const std::shared_ptr<Session> a = computed();
    require_node(a->symbolic(), n);
    return amount(a->symbolic().pool(), a->symbolic().node_peak_memory(static_cast<NodeId>(n)));
  }

  py::dict shapes() const {
    const std::shared_ptr<Session> a = computed();
    const ComputeContext& ctx = a->symbolic();
    py::dict d;
    const GraphView& g = ctx.graph();
    for (ValueId v = 0; v < g.values().size(); ++v) {
      if (g.value(v).graph != 0) continue;
      const ValueShape& s = ctx.shape(v);
      if (!s.known_rank) {
        d[py_text(g.value(v).name)] = py::none();
        continue;
      }
      py::list dims;
      for (Expr e : s.dims) dims.append(amount(ctx.pool(), e));
      d[py_text(g.value(v).name)] = dims;
    }
    return d;
  }

  py::dict value_tags() const {
    const std::shared_ptr<Session> a = computed();
    py::dict d;
    const GraphView& g = a->symbolic().graph();
    for (ValueId v = 0; v < g.values().size(); ++v) {
      if (g.value(v).graph == 0) d[py_text(g.value(v).name)] = tag_name(a->symbolic().value_tag(v));
    }
    return d;
  }

  py::list node_tags() const {
    const std::shared_ptr<Session> a = computed();
    py::list out;
    for (NodeId n = 0; n < a->symbolic().node_count(); ++n)
      out.append(tag_name(a->symbolic().node_tag(n)));
    return out;
  }

  py::list reuse() const {
    const std::shared_ptr<Session> a = computed();
    py::list out;
    for (NodeId n = 0; n < a->symbolic().node_count(); ++n) {
      py::list decisions;
      for (const InplaceDecision& d : a->symbolic().inplace(n)) {
        py::dict e;
        e["output"] = d.output;
        e["input"] = d.input;
        e["kind"] = reuse_kind_name(d.kind);
        e["mode"] = reuse_mode_name(d.mode);
        decisions.append(e);
      }
      out.append(decisions);
    }
    return out;
  }

  py::list names_per_node(ValueIds (ComputeContext::*list)(NodeId) const) const {
    const std::shared_ptr<Session> a = computed();
    const ComputeContext& ctx = a->symbolic();
    py::list out;
    for (NodeId n = 0; n < ctx.node_count(); ++n) {
      py::list names;
      for (ValueId v : (ctx.*list)(n)) names.append(py_text(ctx.graph().value(v).name));
      out.append(names);
    }
    return out;
  }

  py::dict peak() const {
    const std::shared_ptr<Session> a = computed();
    py::dict d;
    d["total_bytes"] = amount(a->symbolic().pool(), a->symbolic().peak_total_bytes());
    if (auto n = a->symbolic().peak_node()) {
      d["node"] = *n;
    } else {
      d["node"] = py::none();
    }
    return d;
  }

  py::tuple evaluate_peak(const py::object& assignment) const {
    const std::shared_ptr<Session> a = computed();
    const Evaluation ev = a->evaluate({to_assignment(assignment)}, "assignment");
    const PeakEvaluation e = ev.context->evaluate_peak(ev.assignments[0]);
    return py::make_tuple(e.bytes, e.node);
  }

  py::dict evaluate_runtime(const py::object& assignment) const {
    const std::shared_ptr<Session> a = computed();
    const Evaluation ev = a->evaluate({to_assignment(assignment)}, "assignment");
    const PeakEvaluation e = ev.context->evaluate_peak(ev.assignments[0]);
    py::dict out;
    out["bytes"] = e.bytes;
    out["node"] = e.node;
    out["run_bytes"] = e.run_bytes;
    out["run_node"] = e.run_node;
    out["session_bytes"] = e.session_bytes;
    out["input_bytes"] = e.input_bytes;
    out["reserve_bytes"] = e.reserve_bytes;
    out["weight_bytes"] = e.weight_bytes;
    out["run_scratch_bytes"] = e.run_scratch_bytes;
    if (e.threads > 0) out["threads"] = e.threads;
    py::dict at_bound;
    for (const BoundedSymbol& b : ev.at_upper_bound[0]) at_bound[py::str(b.symbol)] = b.value;
    out["at_upper_bound"] = at_bound;
    return out;
  }

  /// The cctx.fit/1 document of one varied symbol (fit_report.hpp), as Python objects.
  py::object fit(const std::string& vary, std::int64_t budget, const py::object& fixed) const {
    const std::shared_ptr<Session> a = computed();
    if (budget < 0) throw py::value_error("fit: budget must be a number of bytes >= 0");
    const Profile::Memory& memory = a->host().profile().memory;
    FitRequest request{vary,
                       budget,
                       fixed.is_none() ? Assignment{} : to_assignment(fixed, "fixed"),
                       "fixed",
                       memory.headroom_bytes,
                       memory.headroom_percent};
    FitReport report{a->model().source(), a->host().profile().name, "", {}};
    report.fits.push_back(cctx::fit(*a, request));
    nlohmann::ordered_json doc = fit_json(report);
    return py::module_::import("json").attr("loads")(doc["fits"][0].dump());
  }

  /// The cctx.memory_plan/1 document (`cctx plan --format json`), as Python objects.
  py::object plan(const py::object& evaluate, int check, std::int64_t alignment,
                  bool scratch) const {
    const std::shared_ptr<Session> a = computed();
    if (check < 0) throw py::value_error("plan: check must be a number of assignments >= 0");
    if (alignment < 1 || alignment > (std::int64_t{1} << 30)) {
      throw py::value_error("plan: alignment must be a number of bytes from 1 to 2^30");
    }
    const ComputeContext& ctx = a->symbolic();
    const MemoryPlan plan = make_memory_plan(ctx, PlanOptions{alignment, scratch});
    PlanReport report{a->model().source(), a->host().profile().name, &plan, {}, std::nullopt};
    if (!evaluate.is_none()) {
      const std::vector<Assignment> given = py::isinstance<py::dict>(evaluate)
                                                ? std::vector<Assignment>{to_assignment(evaluate)}
                                                : assignment_list(evaluate, "plan");
      report.evaluations =
          evaluate_plan(ctx, plan, a->evaluate(given, "assignment").assignments, true);
    }
    if (check > 0) {
      PlanCheckOptions options;
      options.assignments = check;
      report.check = check_memory_plan(ctx, plan, options);
    }
    return py::module_::import("json").attr("loads")(safe_text::json(plan_json(ctx, report)));
  }

  py::list warnings() const {
    const std::shared_ptr<Session> a = computed();
    py::list out;
    for (const Diagnostic& d : a->symbolic().diagnostics()) out.append(py_text(d.message));
    return out;
  }

  std::string to_json(const py::object& evaluate) const {
    const std::shared_ptr<Session> a = computed();
    ReportOptions options;
    options.model_path = a->model().source();
    const ComputeContext* report = &a->symbolic();
    if (!evaluate.is_none()) {
      Evaluation ev = a->evaluate(assignment_list(evaluate, "to_json"), "assignment");
      report = ev.context;
      options.evaluate = std::move(ev.assignments);
      options.at_upper_bound = std::move(ev.at_upper_bound);
      options.fixed_sizes = std::move(ev.fixed_sizes);
      options.fixed_because = std::move(ev.fixed_because);
    }
    const ComputeContext& ctx = *report;
    std::string text;
    append_json_report(text, ctx, options);
    return text;
  }

 private:
  static py::dict node_memory_of(const ComputeContext& ctx, NodeId n) {
    ExprPool& pool = ctx.pool();
    const MemoryProfile& p = ctx.memory(n);
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

  /// The current analysis, held by the caller for as long as it reads it.
  std::shared_ptr<Session> computed() const {
    if (!current_) throw Error("ComputeContext: call compute(model) first", ExitCode::kUsage);
    return current_;
  }
  static void require_node(const ComputeContext& ctx, std::int64_t n) {
    if (n < 0 || static_cast<std::size_t>(n) >= ctx.node_count()) {
      throw py::index_error("node index " + std::to_string(n) + " out of range (" +
                            std::to_string(ctx.node_count()) + " nodes)");
    }
  }

  std::shared_ptr<Host> host_;
  std::shared_ptr<Session> current_;  ///< replaced whole by a compute() that succeeds
};

py::object evaluate(const py::object& expr, const py::object& assignment) {
  if (py::isinstance<py::int_>(expr)) return expr;
  if (!py::isinstance<py::str>(expr)) {
    throw py::type_error("evaluate_expression: expr must be a str or an int");
  }
  return py::int_(evaluate_expression(py::cast<std::string>(expr), to_assignment(assignment)));
}

py::object simplify(const py::object& expr, const py::object& bounds) {
  if (py::isinstance<py::int_>(expr)) return expr;
  if (!py::isinstance<py::str>(expr)) {
    throw py::type_error("simplify_expression: expr must be a str or an int");
  }
  ExprPool pool;
  if (!bounds.is_none()) {
    if (!py::isinstance<py::dict>(bounds)) {
      throw py::type_error("simplify_expression: bounds must be a dict {symbol: (lo, hi)}");
    }
    auto integer = [](const py::handle& v) {
      if (!py::isinstance<py::int_>(v) || py::isinstance<py::bool_>(v)) {
        throw py::type_error("simplify_expression: bounds must map a symbol to (lo, hi) ints");
      }
      return py::cast<std::int64_t>(v);
    };
    for (auto [name, range] : py::reinterpret_borrow<py::dict>(bounds)) {
      if (!py::isinstance<py::str>(name) || !py::isinstance<py::tuple>(range) ||
          py::len(range) != 2) {
        throw py::type_error("simplify_expression: bounds must map a symbol to (lo, hi)");
      }
      auto pair = py::reinterpret_borrow<py::tuple>(range);
      Interval i{integer(pair[0]), pair[1].is_none() ? kPosInf : integer(pair[1])};
      if (i.lo > i.hi) throw Error("simplify_expression: bounds with lo > hi", ExitCode::kUsage);
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
  // NOLINTNEXTLINE(performance-unnecessary-value-param): pybind11's translator type takes it so
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
    } catch (const std::bad_alloc&) {
      PyErr_SetString(PyExc_MemoryError, "cctx: out of memory");
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
      .def(py::init<const py::object&, const py::object&>(), py::arg("profile") = py::none(),
           py::arg("input_dims") = py::none(),
           "profile: None (the default profile), a path to a YAML profile, or YAML text; "
           "input_dims: {input name: [dim, ...]}, an input's dims as the caller feeds them "
           "(the command line's --input)")
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
           "run_node, session_bytes, at_upper_bound, threads}; a data-dependent size the "
           "assignment lacks is taken at its upper bound, listed in at_upper_bound "
           "{symbol: value}; threads (profiles with memory.threads): the runtime's intra-op "
           "threads the figures are for, the assignment's `threads` or the profile's default")
      .def("fit", &PyComputeContext::fit, py::arg("vary"), py::arg("budget"),
           py::arg("fixed") = py::none(),
           "The largest value of the symbol `vary` whose reserve (session + inputs + run bytes) "
           "stays within `budget` bytes, the other symbols at `fixed` {symbol: int}: a dict "
           "{value, at, next, limited_by, proved_monotone, method, ...} (cctx fit's JSON)")
      .def("plan", &PyComputeContext::plan, py::arg("evaluate") = py::none(), py::arg("check") = 0,
           py::arg("alignment") = 64, py::arg("scratch") = true,
           "The static memory plan (cctx plan's JSON, format cctx.memory_plan/1): every "
           "intermediate buffer's offset in one arena as formulas valid for every size; "
           "`evaluate` (a dict or a list of dicts) adds the concrete offsets there, `check` N "
           "verifies the plan at N assignments")
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
  m.def(
      "_parse_byte_size",
      [](const std::string& text, const std::string& what) { return parse_byte_size(text, what); },
      py::arg("text"), py::arg("what"),
      "Bytes from text such as '2GiB', '512 MiB', '1.5G' (cctx fit --budget's parser)");
  add_shape_inference(m);
}
