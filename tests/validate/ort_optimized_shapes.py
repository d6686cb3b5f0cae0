#!/usr/bin/env python3
"""The graph ONNX Runtime really runs, against cctx's shapes (opsets/microsoft, com.microsoft.nchwc).

ONNX Runtime saves its optimised graph (session option optimized_model_filepath); at level `all`
a CNN becomes com.microsoft.nchwc operators (blocked NCHWc Conv, pools, Upsample, Reorder*). This
script saves that graph for a model, runs it in ONNX Runtime with every node output as a graph
output (optimisation off, so the saved graph runs as written) and compares each output's dims with
those cctx infers for the same graph with the input dims fixed. It needs the onnxruntime Python
package (not the onnxruntime-node of the other validate tests), hence no ctest registration.

Usage: ort_optimized_shapes.py --cctx build/bin/cctx --model tests/models/cnn.onnx \
         --work DIR --dims batch=2,height=64,width=64
Exit status 1 when a shape differs or a value has no shape in cctx.
"""
import argparse
import collections
import json
import pathlib
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort


def optimise(model, out):
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.optimized_model_filepath = str(out)
    ort.InferenceSession(str(model), so, providers=["CPUExecutionProvider"])


def fixed(model_path, sizes, out):
    """The model with its inputs' symbolic dims replaced by `sizes` (for cctx's shapes)."""
    m = onnx.load(str(model_path))
    for i in m.graph.input:
        for d in i.type.tensor_type.shape.dim:
            if d.HasField("dim_param") and d.dim_param in sizes:
                d.dim_value = sizes[d.dim_param]
    onnx.save(m, str(out))


def ort_shapes(model_path, sizes, out):
    """Every node output's dims when ONNX Runtime runs the saved graph."""
    m = onnx.load(str(model_path))
    outputs = {o.name for o in m.graph.output}
    for n in m.graph.node:
        for name in n.output:
            if name and name not in outputs:
                m.graph.output.append(onnx.ValueInfoProto(name=name))
                outputs.add(name)
    onnx.save(m, str(out))
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(str(out), so, providers=["CPUExecutionProvider"])
    feeds = {}
    for i in sess.get_inputs():
        dims = [d if isinstance(d, int) else sizes[d] for d in i.shape]
        feeds[i.name] = np.random.default_rng(0).standard_normal(dims).astype(np.float32)
    names = [o.name for o in sess.get_outputs()]
    return {n: list(v.shape) for n, v in zip(names, sess.run(names, feeds))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cctx", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--dims", required=True, help="SYM=N,... for the inputs' symbolic dims")
    args = ap.parse_args()
    sizes = {k: int(v) for k, v in (kv.split("=") for kv in args.dims.split(","))}
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    saved = work / "optimized.onnx"
    optimise(args.model, saved)
    graph = onnx.load(str(saved))
    ops = collections.Counter(f"{n.domain or 'ai.onnx'}:{n.op_type}" for n in graph.graph.node)
    print("ONNX Runtime's graph:", ", ".join(f"{k} x{v}" for k, v in sorted(ops.items())))

    runtime = ort_shapes(saved, sizes, work / "all_outputs.onnx")
    fixed(saved, sizes, work / "fixed.onnx")
    report = subprocess.run([args.cctx, "shapes", str(work / "fixed.onnx"), "--format", "json",
                             "-q"], check=True, capture_output=True, text=True)
    values = json.loads(report.stdout)["values"]
    bad = 0
    for name, dims in runtime.items():
        got = values.get(name, {}).get("shape")
        ok = got == dims
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} {name}: onnxruntime {dims}, cctx {got}")
    print(f"{len(runtime) - bad} of {len(runtime)} node outputs agree")
    subprocess.run([args.cctx, "analyze", str(saved), "--eval", args.dims], check=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
