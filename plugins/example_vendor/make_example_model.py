#!/usr/bin/python3
"""Writes example_model.onnx: one node of every com.example operator (run with /usr/bin/python3).

The committed model was made by this script; the SDK consumer test analyses it with the plugin
built out of tree against the installed SDK.
"""
import pathlib

import onnx
import onnx.helper as oh

F = onnx.TensorProto.FLOAT


def build() -> onnx.ModelProto:
    nodes = [
        oh.make_node("Relu", ["x"], ["h"]),
        oh.make_node("FusedGelu", ["h"], ["g"], domain="com.example"),
        oh.make_node("Transpose", ["g4"], ["v4"], perm=[0, 2, 1, 3]),
        oh.make_node("Reshape", ["g", "shape4"], ["g4"]),
        oh.make_node("FlashAttention", ["q", "k", "v4"], ["o"], domain="com.example", block=32),
        oh.make_node("View", ["o"], ["flat"], domain="com.example"),
        oh.make_node("Compact", ["flat"], ["c"], domain="com.example"),
        oh.make_node("Pack", ["o"], ["p"], domain="com.example", factor=4),
    ]
    graph = oh.make_graph(
        nodes,
        "example_vendor_model",
        inputs=[
            oh.make_tensor_value_info("x", F, ["batch", "seq", 64]),
            oh.make_tensor_value_info("q", F, ["batch", 4, "seq", 16]),
            oh.make_tensor_value_info("k", F, ["batch", 4, "seq", 16]),
        ],
        outputs=[
            oh.make_tensor_value_info("c", F, None),
            oh.make_tensor_value_info("p", F, None),
        ],
        initializer=[
            oh.make_tensor("shape4", onnx.TensorProto.INT64, [4], [0, 0, 4, 16]),
        ],
    )
    # Nodes are listed out of order on purpose (Reshape after its consumer): cctx sorts them.
    return oh.make_model(
        graph,
        opset_imports=[oh.make_opsetid("", 18), oh.make_opsetid("com.example", 2)],
        ir_version=8,
    )


if __name__ == "__main__":
    out = pathlib.Path(__file__).with_name("example_model.onnx")
    out.write_bytes(build().SerializeToString())
    print(f"wrote {out}")
