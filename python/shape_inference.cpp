// Shape inference for Python callers. The model crosses once each way: a ModelProto is
// serialized by protobuf and parsed here straight from the bytes object, without a copy; the
// result goes back serialized into a Python bytes object of the right size. When the caller can
// merge (a ModelProto with no subgraph and no local function), only the graph's outputs and
// value_info go back, and Python replaces those two lists in its copy of the proto: the
// initializers, which are most of a model's bytes, are not sent back at all.
//
// The analysis runs on a thread of its own (`_InferShapes` starts it, `result()` waits), with
// the GIL released, so that Python can copy the caller's ModelProto meanwhile: on two cores the
// copy costs no wall time.
#include "shape_inference.hpp"

#include <onnx/onnx_pb.h>

#include <future>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <thread>

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

/// The analysis of one model under `profile` (None: the default), strict mode forced on when
/// asked, and only the stages shapes need. `host` keeps the plugins loaded while the context lives.
struct Inference {
  std::shared_ptr<Host> host;
  std::unique_ptr<ComputeContext> ctx;

  Inference(const py::object& profile, bool strict) : host(host_for(profile)) {
    Profile options = host->profile();
    if (strict) options.shapes.strict = true;
    // The stages after the shapes (tags, in-place, memory, scratch) have nothing to add to
    // value_info, and skipping them is a third of the pipeline's time.
    options.tags.enabled = false;
    options.inplace.enabled = false;
    options.memory.enabled = false;
    options.scratch.enabled = false;
    ctx = std::make_unique<ComputeContext>(host->registry(), std::move(options));
  }

  /// Without the GIL. Nested bodies recurse: analysed on a stack of known size.
  void run(Model& model) {
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

/// `_cctx._InferShapes(model, profile, strict, merge)`: starts inferring; `result()` returns
/// (bytes, merged, warnings): the inferred model serialized, or with `merge` and when the model
/// allows it, a ModelProto holding only graph.output and graph.value_info (merged is then True),
/// which replace the caller's lists of the same name.
class InferShapesJob {
 public:
  InferShapesJob(const py::object& model, const py::object& profile, bool strict, bool merge)
      : inference_(profile, strict), merge_(merge) {
    // With the GIL: the bytes to parse are taken (a ModelProto serialized by protobuf, a bytes
    // object as it is: immutable, so the thread may read it), or the model read from its path.
    if (py::isinstance<py::bytes>(model)) {
      bytes_ = py::reinterpret_borrow<py::bytes>(model);
    } else if (py::hasattr(model, "SerializeToString") && !py::isinstance<py::str>(model)) {
      bytes_ = model.attr("SerializeToString")();
      source_ = "<onnx.ModelProto>";
    } else {
      model_.emplace(to_model(model));  // a path, or a mutable buffer (copied once)
    }
    std::string_view view;
    if (bytes_) {
      char* data = nullptr;
      Py_ssize_t size = 0;
      if (PyBytes_AsStringAndSize(bytes_.ptr(), &data, &size) != 0) throw py::error_already_set();
      view = std::string_view(data, static_cast<std::size_t>(size));
    }
    done_ = std::async(std::launch::async, [this, view] {
      if (!model_) model_.emplace(Model::parse(view, source_));
      had_functions_ = model_->proto().functions_size() != 0;
      inference_.run(*model_);
    });
  }

  ~InferShapesJob() {
    if (done_.valid()) {
      py::gil_scoped_release release;
      done_.wait();
    }
    // Freeing a parsed 10k-node model is a few milliseconds of free() calls nobody waits for:
    // a thread of its own does it (only protobuf objects, nothing of the host or its plugins).
    if (model_) {
      try {
        std::thread([model = std::move(model_)]() mutable { model.reset(); }).detach();
      } catch (const std::system_error&) {  // no thread: freed here
      }
    }
  }

  py::tuple result() {
    if (!done_.valid()) throw Error("_InferShapes.result() called twice", ExitCode::kUsage);
    {
      py::gil_scoped_release release;
      done_.wait();
    }
    done_.get();  // rethrows what the analysis threw, with the GIL held
    const onnx::ModelProto& result = model_->proto();
    if (merge_ && !had_functions_ && inference_.ctx->graph().graphs().size() == 1) {
      onnx::ModelProto lists;
      *lists.mutable_graph()->mutable_output() = result.graph().output();
      *lists.mutable_graph()->mutable_value_info() = result.graph().value_info();
      return py::make_tuple(to_bytes(lists), true, inference_.warnings());
    }
    if (model_->payloads_skipped()) {  // loaded from a path: the weights come from the file
      return py::make_tuple(py::bytes(model_->serialize()), false, inference_.warnings());
    }
    return py::make_tuple(to_bytes(result), false, inference_.warnings());
  }

 private:
  Inference inference_;
  bool merge_;
  py::object bytes_;
  std::string source_ = "<bytes>";
  std::optional<Model> model_;
  bool had_functions_ = false;
  std::future<void> done_;
};

/// Reads `in_path`, writes the inferred model to `out_path` (by the rules of output files: a
/// failure leaves the target as it was); returns the warnings. No Python proto is involved.
py::list infer_shapes_path(const std::string& in_path, const std::string& out_path,
                           const py::object& profile, bool strict) {
  Model model = Model::load(in_path, {}, StreamPayloads::kKeep);
  Inference inference(profile, strict);
  {
    py::gil_scoped_release release;
    inference.run(model);
    model.save(out_path);
  }
  return inference.warnings();
}

}  // namespace

void add_shape_inference(py::module_& m) {
  py::class_<InferShapesJob>(m, "_InferShapes")
      .def(py::init<const py::object&, const py::object&, bool, bool>(), py::arg("model"),
           py::arg("profile"), py::arg("strict"), py::arg("merge"))
      .def("result", &InferShapesJob::result);
  m.def("_infer_shapes_path", &infer_shapes_path, py::arg("in_path"), py::arg("out_path"),
        py::arg("profile"), py::arg("strict"));
}

}  // namespace cctx::python
