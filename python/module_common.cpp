#include "module_common.hpp"

#include <filesystem>
#include <mutex>
#include <string>

#include "cctx/errors.hpp"
#include "cctx/safe_text.hpp"

namespace cctx::python {

py::str py_text(std::string_view s) {
  const std::string valid = safe_text::utf8(s);
  return py::str(valid.data(), valid.size());
}

namespace {

std::string fspath(const py::object& path) {
  return py::cast<std::string>(py::module_::import("os").attr("fspath")(path));
}

/// Parses the bytes of a buffer in place (the GIL is held and `buffer` stays referenced).
Model parse_buffer(const py::object& buffer, std::string source) {
  Py_buffer view;
  if (PyObject_GetBuffer(buffer.ptr(), &view, PyBUF_SIMPLE) != 0) throw py::error_already_set();
  struct Release {
    Py_buffer* v;
    ~Release() { PyBuffer_Release(v); }
  } release{&view};
  return Model::parse(
      std::string_view(static_cast<const char*>(view.buf), static_cast<std::size_t>(view.len)),
      std::move(source));
}

}  // namespace

Model to_model(const py::object& model) {
  if (py::isinstance<py::bytes>(model) || py::isinstance<py::bytearray>(model) ||
      py::isinstance<py::memoryview>(model)) {
    return parse_buffer(model, "<bytes>");
  }
  if (py::isinstance<py::str>(model) || py::hasattr(model, "__fspath__")) {
    return Model::load(fspath(model));
  }
  if (py::hasattr(model, "SerializeToString")) {
    return parse_buffer(model.attr("SerializeToString")(), "<onnx.ModelProto>");
  }
  throw py::type_error("expected an onnx.ModelProto, serialized bytes or a path, not " +
                       py::str(py::type::handle_of(model).attr("__name__")).cast<std::string>());
}

std::shared_ptr<Host> default_host() {
  static std::mutex mutex;
  static std::shared_ptr<Host> host;
  std::lock_guard<std::mutex> lock(mutex);
  if (!host) host = std::make_shared<Host>(Host::default_profile());
  return host;
}

Profile to_profile(const py::object& profile) {
  if (!py::isinstance<py::str>(profile) && !py::hasattr(profile, "__fspath__")) {
    throw py::type_error(
        "profile must be None, a path, a shipped profile's name or YAML text, not " +
        py::str(py::type::handle_of(profile).attr("__name__")).cast<std::string>());
  }
  std::string text = fspath(profile);
  // YAML text when it looks like a document, a file path otherwise.
  if (text.find('\n') != std::string::npos || text.find(": ") != std::string::npos ||
      (!text.empty() && text.front() == '{')) {
    return parse_profile(text, "<profile string>", std::filesystem::current_path());
  }
  return load_profile(Host::profile_path(text));  // a path, or a shipped profile's name
}

std::shared_ptr<Host> host_for(const py::object& profile) {
  return profile.is_none() ? default_host() : std::make_shared<Host>(to_profile(profile));
}

}  // namespace cctx::python
