#!/usr/bin/python3
"""Writes resize_transform.onnx: torchvision's GeneralizedRCNNTransform resize, as PyTorch 1.13
exports it for fasterrcnn_mobilenet_v3_large_320_fpn (min_size 320, max_size 640), followed by a
strided convolution. The resized size is computed in float32 from the image's shape:

    scale = min((1 / float(min(h, w))) * 320, (1 / float(max(h, w))) * 640)
    size  = floor(float(h) * scale), floor(float(w) * scale)

each operation rounded to float32 (Reciprocal, Mul, Min, Mul, Floor), so the size is not the
floor of the exact quotient: 11x25 resizes to 281x639, not 281x640. Written with onnx.helper
(no torch needed); the node sequence is the exporter's, numbering aside.

    /usr/bin/python3 tests/realmodels/resize_transform_model.py [OUT]
"""
import pathlib
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = pathlib.Path(__file__).resolve().parent


def const(name, value, dtype):
    return helper.make_node("Constant", [], [name],
                            value=numpy_helper.from_array(np.array(value, dtype=dtype), name))


def build() -> onnx.ModelProto:
    n = []
    n.append(helper.make_node("Shape", ["image"], ["shape"]))
    n.append(const("start", [-2], np.int64))
    n.append(const("end", [9223372036854775807], np.int64))
    n.append(helper.make_node("Slice", ["shape", "start", "end"], ["hw"]))
    n.append(helper.make_node("ReduceMin", ["hw"], ["short"], keepdims=0))
    n.append(helper.make_node("Cast", ["short"], ["short_f"], to=TensorProto.FLOAT))
    n.append(helper.make_node("ReduceMax", ["hw"], ["long"], keepdims=0))
    n.append(helper.make_node("Cast", ["long"], ["long_f"], to=TensorProto.FLOAT))
    n.append(helper.make_node("Reciprocal", ["short_f"], ["inv_short"]))
    n.append(const("min_size", 320.0, np.float32))
    n.append(helper.make_node("Mul", ["inv_short", "min_size"], ["by_short"]))
    n.append(helper.make_node("Reciprocal", ["long_f"], ["inv_long"]))
    n.append(const("max_size", 640.0, np.float32))
    n.append(helper.make_node("Mul", ["inv_long", "max_size"], ["by_long"]))
    n.append(helper.make_node("Min", ["by_short", "by_long"], ["scale"]))
    n.append(const("zero", [0], np.int64))
    n.append(helper.make_node("Unsqueeze", ["image", "zero"], ["batched"]))
    sizes = []
    for axis, name in ((2, "h"), (3, "w")):
        n.append(helper.make_node("Shape", ["batched"], [f"shape_{name}"]))
        n.append(const(f"axis_{name}", axis, np.int64))
        n.append(helper.make_node("Gather", [f"shape_{name}", f"axis_{name}"], [f"{name}_i"], axis=0))
        n.append(helper.make_node("Cast", [f"{name}_i"], [f"{name}_f"], to=TensorProto.FLOAT))
        n.append(helper.make_node("Mul", [f"{name}_f", "scale"], [f"{name}_scaled"]))
        n.append(helper.make_node("Floor", [f"{name}_scaled"], [f"{name}_floor"]))
        n.append(const(f"unsq_{name}", [0], np.int64))
        n.append(helper.make_node("Unsqueeze", [f"{name}_floor", f"unsq_{name}"], [f"{name}_1d"]))
        sizes.append(f"{name}_1d")
    n.append(helper.make_node("Concat", sizes, ["hw_f"], axis=0))
    n.append(helper.make_node("Shape", ["batched"], ["shape_nc"]))
    n.append(const("nc_start", [0], np.int64))
    n.append(const("nc_end", [2], np.int64))
    n.append(helper.make_node("Slice", ["shape_nc", "nc_start", "nc_end"], ["nc"]))
    n.append(helper.make_node("Cast", ["hw_f"], ["hw_i"], to=TensorProto.INT64))
    n.append(helper.make_node("Concat", ["nc", "hw_i"], ["sizes"], axis=0))
    n.append(helper.make_node("Resize", ["batched", "", "", "sizes"], ["resized"],
                              mode="linear", coordinate_transformation_mode="half_pixel"))
    weight = numpy_helper.from_array(
        np.random.default_rng(0).standard_normal((8, 3, 3, 3)).astype(np.float32), "weight")
    n.append(helper.make_node("Conv", ["resized", "weight"], ["features"], kernel_shape=[3, 3],
                              strides=[2, 2], pads=[1, 1, 1, 1]))
    graph = helper.make_graph(
        n, "resize_transform",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [3, "height", "width"])],
        [helper.make_tensor_value_info("features", TensorProto.FLOAT, [1, 8, "out_h", "out_w"])],
        initializer=[weight])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="cctx tests/validate/resize_transform_model.py")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


if __name__ == "__main__":
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "resize_transform.onnx"
    onnx.save(build(), str(out))
    print(f"wrote {out}")
