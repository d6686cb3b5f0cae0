#!/usr/bin/python3
"""Writes declarative_model.onnx: the com.example.simple operators of declarative.yaml, between
ai.onnx ones (run with /usr/bin/python3).

The committed model was made by this script; `tests/cli/declarative_ops_test.cpp` analyses it with
declarative.yaml through the real `cctx` binary.
"""
import pathlib

import onnx
import onnx.helper as oh

F = onnx.TensorProto.FLOAT
SIMPLE = "com.example.simple"


def build() -> onnx.ModelProto:
    nodes = [
        oh.make_node("Relu", ["x"], ["r"], name="relu"),
        # r dies here: h may take over its buffer (may_reuse); the bias is tagged a weight.
        oh.make_node("ScaledAdd", ["r", "bias"], ["h"], domain=SIMPLE, name="scaled_add"),
        # [batch, seq, 64] -> [batch, seq, 4, 16], a view of h (alias).
        oh.make_node("SplitHeads", ["h"], ["hs"], domain=SIMPLE, name="split_heads", num_heads=4),
        oh.make_node("Transpose", ["hs"], ["q"], name="to_heads", perm=[0, 2, 1, 3]),
        # block=32 overrides the profile's default of 64: scratch 4*batch*4*seq*32 bytes.
        oh.make_node("TiledAttention", ["q", "q", "q"], ["o"], domain=SIMPLE, name="attention",
                     block=32),
        # `to` is omitted: the profile's default, int8.
        oh.make_node("QuantizeRows", ["o"], ["oq", "scales"], domain=SIMPLE, name="quantize"),
    ]
    graph = oh.make_graph(
        nodes,
        "example_declarative_model",
        inputs=[oh.make_tensor_value_info("x", F, ["batch", "seq", 64])],
        outputs=[
            oh.make_tensor_value_info("oq", onnx.TensorProto.INT8, None),
            oh.make_tensor_value_info("scales", F, None),
        ],
        initializer=[oh.make_tensor("bias", F, [64], [0.0] * 64)],
    )
    return oh.make_model(
        graph,
        opset_imports=[oh.make_opsetid("", 18), oh.make_opsetid(SIMPLE, 1)],
        ir_version=8,
    )


if __name__ == "__main__":
    out = pathlib.Path(__file__).with_name("declarative_model.onnx")
    out.write_bytes(build().SerializeToString())
    print(f"wrote {out}")
