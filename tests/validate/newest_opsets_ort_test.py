#!/usr/bin/python3
"""ai.onnx opsets 26 and 27 (docs/opsets-24-27.md) against ONNX Runtime (onnxruntime-node).

Opset 26 (BitCast, CumProd, with TopK and Relu around them): every node's output bytes in ONNX
Runtime's profile equal cctx's (per_node.py's comparison). Opset 27 (LinearAttention,
CausalConvWithState, Range): ONNX Runtime 1.30 supports it only with
ALLOW_RELEASED_ONNX_OPSET_ONLY=0 and runs the two new operators as their function bodies, so
the graph outputs' dims and types are compared with cctx's shapes at the same sizes. ONNX Runtime
1.30 has no Swish-24 kernel, so Swish is not part of it.

Usage: newest_opsets_ort_test.py --build BUILD --work DIR
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys

import onnx
from onnx import helper, TensorProto as T

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import per_node  # noqa: E402

NAMES = {T.FLOAT: "float32", T.INT32: "int32", T.INT64: "int64"}


def save(path, nodes, inputs, outputs, inits, opset):
    graph = helper.make_graph(nodes, path.stem, inputs, outputs, initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 13
    onnx.save(model, str(path))
    return path


def vi(name, dtype, dims):
    return helper.make_tensor_value_info(name, dtype, dims)


def opset26(build, work):
    model = save(work / "ort_opset26.onnx", [
        helper.make_node("Relu", ["X"], ["r"], name="relu"),
        helper.make_node("BitCast", ["r"], ["bits"], to=T.INT32, name="bitcast"),
        helper.make_node("CumProd", ["X", "axis"], ["cp"], exclusive=1, name="cumprod"),
        helper.make_node("TopK", ["X", "k"], ["tv", "ti"], axis=1, name="topk"),
    ], [vi("X", T.FLOAT, ["N", 64])],
        [vi("bits", T.INT32, None), vi("cp", T.FLOAT, None), vi("tv", T.FLOAT, None),
         vi("ti", T.INT64, None)],
        [helper.make_tensor("axis", T.INT64, [], [1]), helper.make_tensor("k", T.INT64, [1], [5])],
        26)
    result = per_node.compare(per_node.ort_nodes(build, model, {"X": [3, 64]}),
                              per_node.cctx_report(build, model), {"N": 3}, build)
    for m in result["mismatches"]:
        print(m)
    print(f"opset 26: {result['equal']}/{result['compared']} nodes' output bytes equal")
    return result["compared"] == 4 and result["equal"] == 4


def opset27(build, work):
    sizes = {"B": 2, "T": 5, "L": 7}
    inputs = {"q": ["B", "T", 8 * 16], "k": ["B", "T", 2 * 16], "v": ["B", "T", 2 * 32],
              "state": ["B", 2, 16, 32], "x": ["B", 64, "L"], "conv": ["B", 64, 3]}
    model = save(work / "ort_opset27.onnx", [
        helper.make_node("LinearAttention", ["q", "k", "v", "state"], ["o", "ns"], q_num_heads=8,
                         kv_num_heads=2, update_rule="linear", name="la"),
        helper.make_node("CausalConvWithState", ["x", "w", "b", "conv"], ["y", "nc"], name="ccs"),
        helper.make_node("Range", ["s", "l", "d"], ["rng"], name="range"),
    ], [vi(n, T.FLOAT, d) for n, d in inputs.items()],
        [vi(n, T.FLOAT, None) for n in ("o", "ns", "y", "nc", "rng")],
        [helper.make_tensor("w", T.FLOAT, [64, 1, 4], [0.1] * 256),
         helper.make_tensor("b", T.FLOAT, [64], [0.0] * 64),
         helper.make_tensor("s", T.FLOAT, [], [0.0]), helper.make_tensor("l", T.FLOAT, [], [10.0]),
         helper.make_tensor("d", T.FLOAT, [], [2.0])], 27)
    feeds = {n: [sizes.get(d, d) for d in dims] for n, dims in inputs.items()}
    spec = {"model": str(model), "inputs": feeds,
            "ort": str((build / "validate" / "node_modules").resolve())}
    env = dict(os.environ, ALLOW_RELEASED_ONNX_OPSET_ONLY="0")
    run = subprocess.run(["node", str(HERE / "ort_outputs.mjs"), json.dumps(spec)],
                         capture_output=True, text=True, env=env, timeout=300)
    if run.returncode != 0:
        print("ONNX Runtime failed:", run.stderr[-600:])
        return False
    ort = json.loads(run.stdout.strip().splitlines()[-1])["outputs"]
    report = per_node.cctx_report(build, model)
    ok = True
    for name, got in ort.items():
        value = report["values"][name]
        shape = [sizes.get(d, d) for d in value["shape"]]
        same = shape == got["dims"] and value["dtype"] == got["type"]
        ok &= same
        print(f"opset 27 {name}: ONNX Runtime {got['dims']} {got['type']}, cctx {value['shape']} "
              f"{value['dtype']}{'' if same else '  MISMATCH'}")
    return ok and len(ort) == 5


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", type=pathlib.Path, required=True)
    p.add_argument("--work", type=pathlib.Path, required=True)
    args = p.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    ok26 = opset26(args.build, args.work)
    ok27 = opset27(args.build, args.work)
    return 0 if ok26 and ok27 else 1


if __name__ == "__main__":
    sys.exit(main())
