#!/usr/bin/python3
"""Writes the seed model of docs/design/semantics.md section 13 (compute_context_memory_demo).

Run with Debian's interpreter (python3-onnx): /usr/bin/python3 examples/seed/make_seed_model.py
The committed seed.onnx was made by this script; CI does not need Python to use it.
"""
import pathlib

import onnx
import onnx.helper as oh


def build() -> onnx.ModelProto:
    return oh.make_model(
        oh.make_graph(
            [
                oh.make_node("MatMul", ["X", "W"], ["M"]),
                oh.make_node("Concat", ["M", "X"], ["C"], axis=0),
                oh.make_node("Shape", ["C"], ["S"]),
                oh.make_node("Abs", ["C"], ["A"]),
                oh.make_node("Reshape", ["A", "S"], ["Z"]),
            ],
            "compute_context_memory_demo",
            inputs=[oh.make_tensor_value_info("X", onnx.TensorProto.FLOAT, ["N", 4])],
            outputs=[oh.make_tensor_value_info("Z", onnx.TensorProto.FLOAT, None)],
            initializer=[
                oh.make_tensor(
                    "W",
                    onnx.TensorProto.FLOAT,
                    [4, 4],
                    [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0],
                )
            ],
        ),
        opset_imports=[oh.make_opsetid("", 18)],
        ir_version=8,
    )


if __name__ == "__main__":
    out = pathlib.Path(__file__).with_name("seed.onnx")
    out.write_bytes(build().SerializeToString())
    print(f"wrote {out}")
