// Shape inference for Python callers. The model crosses once each way: a ModelProto is
// serialized by protobuf and parsed here straight from Python's buffer; the result goes back
// serialized into a Python bytes object of the right size (no intermediate std::string). When the
// caller can merge (a ModelProto with no subgraph and no local function), only the graph's
// outputs and value_info go back, and Python replaces those two lists in its own proto: the
// initializers, which are most of a model's bytes, are not sent back at all.
#include "shape_inference.hpp"

#include <onnx/onnx_pb.h>

#include <memory>
#include <string>

#include "cctx/compute_context.hpp"
#include "cctx/errors.hpp"
#include "cctx/large_stack.hpp"
#include "module_common.hpp"

namespace cctx::python {
namespace {

/// Serializes `message` into a new Python bytes object; the GIL is released while writing.
py::bytes to_bytes(const google::protobuf::MessageLite& message) {
  const std::size_t size = message.ByteSizeLong();
  if (size > static_cast<std::size_t>(INT32_MAX)) {
    throw Error("the inferred model is " + std::to_string(size) +
                " bytes, above protobuf's 2 GiB limit");
  }
  PyObject* raw = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(size));
  if (raw == nullptr) throw py::error_already_set();
  py::bytes out = py::reinterpret_steal<py::bytes>(raw);
  auto* data = reinterpret_cast<std::uint8_t*>(PyBytes_AS_STRING(raw));
  {
    py::gil_scoped_release release;
    message.SerializeWithCachedSizesToArray(data);
  }
  return out;
}

/// The analysis of `model` under `profile` (None: the default), strict mode forced on when asked.
/// `host` keeps the plugins loaded while the context lives.
struct Inference {
  std::shared_ptr<Host> host;
  std::unique_ptr<ComputeContext> ctx;

  Inference(const py::object& profile, bool strict) : host(host_for(profile)) {
    Profile options = host->profile();
    if (strict) options.shapes.strict = true;
    // Only the shapes are asked for: the stages after them (tags, in-place, memory, scratch)
    // have nothing to add to value_info, and skipping them is a third of the pipeline's time.
    options.tags.enabled = false;
    options.inplace.enabled = false;
    options.memory.enabled = false;
    options.scratch.enabled = false;
    ctx = std::make_unique<ComputeContext>(host->registry(), std::move(options));
  }

  void run(Model& model) {
    py::gil_scoped_release release;
    // Nested bodies recurse: analyse on a stack of known size, not the interpreter's thread's.
    run_with_large_stack(kAnalysisStackBytes, [&] {
      ctx->compute(model);
      ctx->write_shapes_to_model(model);
    });
  }

  py::list warnings() const {
    py::list out;
    for (const Diagnostic& d : ctx->diagnostics()) out.append(py_text(d.message));
    return out;
  }
};

/// (bytes, merged, warnings): the inferred model serialized, or with `merge` and when the
/// model allows it, a ModelProto holding only graph.output and graph.value_info (merged is then
/// True), which replace the caller's lists of the same name.
py::tuple infer_shapes(const py::object& model, const py::object& profile, bool strict,
                       bool merge) {
  Model parsed = to_model(model);
  const bool had_functions = parsed.proto().functions_size() != 0;
  Inference inference(profile, strict);
  inference.run(parsed);
  const onnx::ModelProto& result = parsed.proto();
  if (merge && !had_functions && inference.ctx->graph().graphs().size() == 1) {
    onnx::ModelProto lists;
    *lists.mutable_graph()->mutable_output() = result.graph().output();
    *lists.mutable_graph()->mutable_value_info() = result.graph().value_info();
    return py::make_tuple(to_bytes(lists), true, inference.warnings());
  }
  return py::make_tuple(to_bytes(result), false, inference.warnings());
}

/// Reads `in_path`, writes the inferred model to `out_path` (by the rules of output files: a
/// failure leaves the target as it was); returns the warnings. No Python proto is involved.
py::list infer_shapes_path(const std::string& in_path, const std::string& out_path,
                           const py::object& profile, bool strict) {
  Model model = Model::load(in_path);
  Inference inference(profile, strict);
  inference.run(model);
  {
    py::gil_scoped_release release;
    model.save(out_path);
  }
  return inference.warnings();
}

}  // namespace

void add_shape_inference(py::module_& m) {
  m.def("_infer_shapes", &infer_shapes, py::arg("model"), py::arg("profile"), py::arg("strict"),
        py::arg("merge"));
  m.def("_infer_shapes_path", &infer_shapes_path, py::arg("in_path"), py::arg("out_path"),
        py::arg("profile"), py::arg("strict"));
}

}  // namespace cctx::python
