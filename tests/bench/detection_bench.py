#!/usr/bin/python3
"""`make bench`, issue 19 item 7 ("linear on detection graphs"): cctx on a generated graph shaped
like a torchvision detection head's postprocessing (ssdlite320_mobilenet_v3_large: 3,503 nodes,
~100 per-class NonZero/TopK branches), at --classes and at twice as many, against ONNX's Python
`onnx.load` + `onnx.shape_inference.infer_shapes` on the same file (the peer, timed inside this
process) and bench_load_floor's structure-only parse (the floor).

Each class c (as torchvision's postprocess_detections does per class): the scores of class c,
a threshold mask, NonZero, the kept scores, TopK with k = min(#kept, 300), the kept boxes and
their class label; the per-class results are concatenated, and a final TopK keeps the best 300.
Every per-class count is a data-dependent symbol, so the graph has ~2 per class.

Targets (issue 19): under 0.5 s and 200 MB at ~100 classes (~3,500 nodes), and time growing at
most linearly: twice the classes, at most ~2x the time (printed, never asserted; not in ctest).
"""
import argparse
import json
import pathlib
import subprocess
import sys
import time

import os
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from weights_bench import onnx_python, verdict  # noqa: E402


def run_cctx(cctx: str, path: pathlib.Path) -> float:
    """Seconds of one `cctx analyze PATH --format json`, spawn to exit (its warnings dropped)."""
    with open(os.devnull, "wb") as null:
        start = time.perf_counter()
        subprocess.run([cctx, "analyze", str(path), "--format", "json"], stdout=null, stderr=null,
                       check=True)
        return time.perf_counter() - start


def peak_rss_mb(cctx: str, path: pathlib.Path) -> float:
    """cctx's own peak RSS on `path`, from /usr/bin/time (weights_bench.peak_rss_mb says why)."""
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as report, open(os.devnull, "wb") as null:
        subprocess.run(["/usr/bin/time", "-f", "%M", "-o", report.name, cctx, "analyze", str(path),
                        "--format", "json"], stdout=null, stderr=null, check=True)
        return int(report.read().split()[-1]) / 1024.0


def const(name: str, values, dtype=np.int64) -> onnx.TensorProto:
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


def detection_graph(classes: int, anchors: int = 3234) -> onnx.ModelProto:
    nodes, inits = [], [const("zero", [0]), const("one", [1]), const("k300", [300]),
                        const("ax0", [0]), const("thr", 0.05, np.float32)]
    n = nodes.append
    n(helper.make_node("Squeeze", ["boxes", "ax0"], ["b0"]))          # [A, 4]
    n(helper.make_node("Squeeze", ["scores", "ax0"], ["s0"]))         # [A, C]
    parts_scores, parts_boxes, parts_labels = [], [], []
    for c in range(classes):
        p = f"c{c}_"
        inits.append(const(p + "idx", c))
        inits.append(const(p + "label", [c]))
        n(helper.make_node("Gather", ["s0", p + "idx"], [p + "s"], axis=1))       # [A]
        n(helper.make_node("Greater", [p + "s", "thr"], [p + "m"]))
        n(helper.make_node("NonZero", [p + "m"], [p + "nz"]))                     # [1, K]
        n(helper.make_node("Squeeze", [p + "nz", "ax0"], [p + "keep"]))           # [K]
        n(helper.make_node("Gather", [p + "s", p + "keep"], [p + "ks"], axis=0))  # [K]
        n(helper.make_node("Gather", ["b0", p + "keep"], [p + "kb"], axis=0))     # [K, 4]
        n(helper.make_node("Shape", [p + "ks"], [p + "shape"]))
        n(helper.make_node("Min", [p + "shape", "k300"], [p + "k"]))
        n(helper.make_node("TopK", [p + "ks", p + "k"], [p + "ts", p + "ti"], axis=0))
        n(helper.make_node("Gather", [p + "kb", p + "ti"], [p + "tb"], axis=0))   # [k, 4]
        n(helper.make_node("Shape", [p + "ts"], [p + "tshape"]))
        n(helper.make_node("Expand", [p + "label", p + "tshape"], [p + "tl"]))    # [k]
        # The box decoding torchvision does per class: clip and scale (element-wise).
        n(helper.make_node("Relu", [p + "tb"], [p + "rb"]))
        n(helper.make_node("Mul", [p + "rb", p + "ts_col"], [p + "sb"]))
        n(helper.make_node("Unsqueeze", [p + "ts", "one"], [p + "ts_col"]))
        parts_scores.append(p + "ts")
        parts_boxes.append(p + "sb")
        parts_labels.append(p + "tl")
    n(helper.make_node("Concat", parts_scores, ["all_s"], axis=0))
    n(helper.make_node("Concat", parts_boxes, ["all_b"], axis=0))
    n(helper.make_node("Concat", parts_labels, ["all_l"], axis=0))
    n(helper.make_node("Shape", ["all_s"], ["all_shape"]))
    n(helper.make_node("Min", ["all_shape", "k300"], ["final_k"]))
    n(helper.make_node("TopK", ["all_s", "final_k"], ["det_scores", "det_i"], axis=0))
    n(helper.make_node("Gather", ["all_b", "det_i"], ["det_boxes"], axis=0))
    n(helper.make_node("Gather", ["all_l", "det_i"], ["det_labels"], axis=0))
    # Topological order: each Unsqueeze must come before the Mul that reads it.
    order, produced = [], {"boxes", "scores"} | {t.name for t in inits}
    pending = list(nodes)
    while pending:
        rest = []
        for node in pending:
            if all(i in produced for i in node.input):
                order.append(node)
                produced.update(node.output)
            else:
                rest.append(node)
        pending = rest
    graph = helper.make_graph(
        order, "detection_postprocess",
        [helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, anchors, 4]),
         helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, anchors, classes])],
        [helper.make_tensor_value_info(o, TensorProto.UNDEFINED, None)
         for o in ("det_scores", "det_boxes", "det_labels")], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cctx", required=True)
    parser.add_argument("--floor", required=True, help="bench_load_floor")
    parser.add_argument("--out", required=True, type=pathlib.Path)
    parser.add_argument("--classes", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    files = []
    for classes in (args.classes, 2 * args.classes):
        path = args.out / f"detection_{classes}.onnx"
        onnx.save(detection_graph(classes), str(path))
        files.append(path)
    floor_out = subprocess.run([args.floor, "--rounds", str(args.rounds)] + [str(f) for f in files],
                               check=True, capture_output=True, text=True).stdout
    floor = {pathlib.Path(r["file"]): r for r in map(json.loads, floor_out.splitlines())}
    best = {f: float("inf") for f in files}
    peer = {f: float("inf") for f in files}
    rss = {f: 0.0 for f in files}
    for _ in range(args.rounds):
        for f in files:
            best[f] = min(best[f], run_cctx(args.cctx, f))
            rss[f] = max(rss[f], peak_rss_mb(args.cctx, f))
            peer[f] = min(peer[f], onnx_python(f))
    print(f"{'file':22} {'nodes':>6} {'floor s':>8} {'cctx s':>8} {'onnx s':>8} {'ratio':>6} "
          f"{'RSS MB':>7}")
    for f in files:
        nodes = len(onnx.load(str(f)).graph.node)
        print(f"{f.name:22} {nodes:6} {floor[f]['parse_s']:8.4f} {best[f]:8.3f} {peer[f]:8.3f} "
              f"{best[f] / peer[f]:6.2f} {rss[f]:7.0f}")
    print("  floor: the structure-only parse (bench_load_floor); cctx: the whole `cctx analyze FILE "
          "--format json` process; onnx: onnx.load + infer_shapes in Python; best of "
          f"{args.rounds} interleaved rounds")
    small, large = files
    growth = best[large] / best[small]
    print(f"{small.name}: {best[small]:.3f} s (target < 0.5 s: {verdict(best[small] < 0.5)}), "
          f"{rss[small]:.0f} MB (target < 200 MB: {verdict(rss[small] < 200)}); twice the classes: "
          f"{growth:.2f}x the time (linear: ~2x, {verdict(growth <= 2.5)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
