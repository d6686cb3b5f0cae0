#!/usr/bin/python3
"""`make bench` (issue 23): an MLP whose weights are ~1 GB of inline float initializers, and its
weightless twin: the same graph, the same initializers' names, types and dims, but each marked
`data_location: EXTERNAL` with a location that does not exist, so the twin holds no bytes.

    weights_models.py OUT_DIR [--layers 16] [--width 4000]

writes OUT_DIR/mlp_inline.onnx and OUT_DIR/mlp_twin.onnx (kept when present with the same
layers and width). The graph is `layers` blocks of MatMul -> Add -> Relu on a [batch, width]
input (3 nodes per block: 48 nodes by default), with W_k [width, width] and b_k [width] as
initializers in raw_data: 16 x 4000 x 4000 x 4 bytes = 1.02 GB, under the default
limits.file_bytes of 1 GiB.

The inline file is written a tensor at a time (the graph's wire format by hand around each
serialized TensorProto, fields in protobuf's own order), so the generator never holds more than
one weight; the result is what onnx.save would write. Never run by ctest.
"""
import argparse
import pathlib
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

GRAPH_FIELD = 7  # ModelProto.graph
INITIALIZER_FIELD = 5  # GraphProto.initializer


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field(number: int, payload: bytes) -> bytes:
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def weight_specs(layers: int, width: int):
    for k in range(layers):
        yield f"W{k}", [width, width]
        yield f"b{k}", [width]


def graph_parts(layers: int, width: int, name: str):
    """The graph's nodes and name (fields 1-2) and its inputs and outputs (11-12), serialized."""
    nodes = []
    x = "x"
    for k in range(layers):
        nodes.append(helper.make_node("MatMul", [x, f"W{k}"], [f"mm{k}"], name=f"matmul{k}"))
        nodes.append(helper.make_node("Add", [f"mm{k}", f"b{k}"], [f"add{k}"], name=f"add{k}"))
        x = f"relu{k}"
        nodes.append(helper.make_node("Relu", [f"add{k}"], [x], name=f"relu{k}"))
    head = helper.make_graph(nodes, name, [], [])
    tail = onnx.GraphProto()
    tail.input.append(helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", width]))
    tail.output.append(helper.make_tensor_value_info(x, TensorProto.FLOAT, ["batch", width]))
    return head.SerializeToString(), tail.SerializeToString()


def model_parts():
    """The model's fields before the graph (1-2) and after it (opset_import, 8), serialized."""
    head = onnx.ModelProto()
    head.ir_version = 8
    head.producer_name = "cctx tests/bench/weights_models.py"
    tail = onnx.ModelProto()
    tail.opset_import.append(helper.make_opsetid("", 17))
    return head.SerializeToString(), tail.SerializeToString()


def tensor_meta(name: str, dims, inline: bool) -> bytes:
    """A tensor's fields but raw_data; for the twin, its EXTERNAL mark and absent location."""
    t = onnx.TensorProto()
    t.name = name
    t.data_type = TensorProto.FLOAT
    t.dims.extend(dims)
    if not inline:
        t.data_location = TensorProto.EXTERNAL
        entry = t.external_data.add()
        entry.key, entry.value = "location", "mlp_twin.weights.absent"
    return t.SerializeToString()


RAW_DATA_FIELD = 9  # TensorProto.raw_data: after dims (1), data_type (2) and name (8)


def write(path: pathlib.Path, layers: int, width: int, inline: bool) -> None:
    head, tail = graph_parts(layers, width, "mlp")
    specs = list(weight_specs(layers, width))
    # Every initializer's size is known without its bytes: the graph's length goes first.
    sizes = []
    for name, dims in specs:
        body = len(tensor_meta(name, dims, inline))
        if inline:
            n = int(np.prod(dims)) * 4
            body += len(varint(RAW_DATA_FIELD << 3 | 2)) + len(varint(n)) + n
        sizes.append(len(varint(INITIALIZER_FIELD << 3 | 2)) + len(varint(body)) + body)
    rng = np.random.default_rng(23)
    model_head, model_tail = model_parts()
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as out:
        out.write(model_head)
        out.write(varint(GRAPH_FIELD << 3 | 2) + varint(len(head) + sum(sizes) + len(tail)))
        out.write(head)
        for (name, dims), size in zip(specs, sizes):
            body = tensor_meta(name, dims, inline)
            if inline:
                data = (rng.standard_normal(dims, dtype=np.float32) * 0.01).tobytes()
                body += field(RAW_DATA_FIELD, data)
            piece = field(INITIALIZER_FIELD, body)
            assert len(piece) == size, (name, len(piece), size)
            out.write(piece)
        out.write(tail)
        out.write(model_tail)
    tmp.rename(path)


def main_args(argv) -> int:
    parser = argparse.ArgumentParser(prog="weights_models.py")
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--layers", type=int, default=16)
    parser.add_argument("--width", type=int, default=4000)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    stamp = args.out / "mlp_models.stamp"
    want = f"{args.layers} {args.width}\n"
    inline, twin = args.out / "mlp_inline.onnx", args.out / "mlp_twin.onnx"
    if stamp.exists() and stamp.read_text() == want and inline.exists() and twin.exists():
        return 0
    write(twin, args.layers, args.width, inline=False)
    write(inline, args.layers, args.width, inline=True)
    stamp.write_text(want)
    return 0


if __name__ == "__main__":
    sys.exit(main_args(sys.argv[1:]))
