// `cctx._cctx._infer_shapes` and `_infer_shapes_path`: the C++ half of cctx.infer_shapes
// (python/cctx/shape_inference.py holds the keyword arguments of onnx's and ONNX Runtime's).
#pragma once

#include <pybind11/pybind11.h>

namespace cctx::python {

void add_shape_inference(pybind11::module_& m);

}  // namespace cctx::python
