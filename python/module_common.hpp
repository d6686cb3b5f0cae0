// Pieces shared by the files of the `cctx._cctx` extension: model and profile arguments as
// Python gives them, and the process-wide host of the default profile.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <string_view>

#include "cctx/host.hpp"
#include "cctx/model.hpp"

namespace cctx::python {

namespace py = pybind11;

/// Text from the model as a Python str: names may hold any bytes, and pybind11's own conversion
/// raises UnicodeDecodeError on a malformed one; invalid bytes become U+FFFD instead.
py::str py_text(std::string_view s);

/// A model given as onnx.ModelProto, serialized bytes (bytes, bytearray, memoryview) or a path.
/// Bytes are parsed where Python keeps them, without a copy; a ModelProto is serialized once by
/// protobuf (its C++ implementation), as onnx.shape_inference does.
Model to_model(const py::object& model);

/// One process-wide host for the default profile: plugins are loaded once.
std::shared_ptr<Host> default_host();

/// A profile given as a path, the name of a shipped profile, or YAML text.
Profile to_profile(const py::object& profile);

/// The profile's host: the shared default one for None, else a new host.
std::shared_ptr<Host> host_for(const py::object& profile);

}  // namespace cctx::python
