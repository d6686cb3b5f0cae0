#!/usr/bin/python3
"""Per-node check: each node's output bytes as ONNX Runtime's profiler reports them, next to cctx's.

    /usr/bin/python3 tests/validate/per_node.py --build BUILD MODEL --inputs '{"x": [1, 3, 9, 9]}'
        [--eval batch=1,height=9] [--profile P]

ONNX Runtime (onnxruntime-node, profiling on, graph optimisation off: ort_nodes.mjs) runs the
model once; for each main-graph node of the run, the bytes of its outputs (the profiler's
output_size: elements x element size of every output) are compared with the sum of cctx's byte
sizes of the same node's outputs (`cctx analyze --format json`, values[name].bytes, evaluated at
--eval for a symbolic model). The profiler counts tensors only: outputs that are sequences (which
cctx leaves unsized) are left out on both sides. Nodes are matched by name; ONNX Runtime turns Constant nodes into
initializers, so they have no event, and the nodes of subgraph bodies (reported by the profiler
once per iteration) are not compared. Prints the mismatches and one summary line; exit status 1
when a node differs or cannot be matched.
"""
import argparse
import json
import pathlib
import subprocess
import sys
import tempfile
from typing import Dict, List

HERE = pathlib.Path(__file__).resolve().parent


def ort_nodes(build: pathlib.Path, model: pathlib.Path, shapes: dict, timeout: int = 900) -> List[dict]:
    with tempfile.TemporaryDirectory(prefix="cctx-per-node-") as tmp:
        spec = {"model": str(model.resolve()), "inputs": shapes,
                "ort": str((build / "validate" / "node_modules").resolve()), "work": tmp}
        proc = subprocess.run(["node", str(HERE / "ort_nodes.mjs"), json.dumps(spec)],
                              capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"ort_nodes exit {proc.returncode}: {proc.stderr.strip()[-400:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])["nodes"]


def cctx_report(build: pathlib.Path, model: pathlib.Path, profile: str = "") -> dict:
    cmd = [str(build / "bin" / "cctx"), "analyze", str(model), "--format", "json"]
    if profile:
        cmd += ["--profile", profile]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"cctx exit {proc.returncode}: {proc.stderr.strip()[-400:]}")
    return json.loads(proc.stdout)


def compare(ort: List[dict], report: dict, symbols: Dict[str, int], build: pathlib.Path) -> dict:
    """{"compared", "equal", "skipped", "mismatches": [text]} for the main graph's nodes."""
    sys.path.insert(0, str(build / "python"))
    import cctx  # the build's own module: evaluates cctx's canonical expressions

    by_name: Dict[str, List[dict]] = {}
    for node in report["nodes"]:
        by_name.setdefault(node["name"], []).append(node)
    values = report["values"]
    result = {"compared": 0, "equal": 0, "skipped": 0, "mismatches": []}
    seen = set()
    for event in ort:
        matches = by_name.get(event["name"], [])
        if len(matches) != 1 or event["name"] in seen:
            # A body's node (not in the main graph, or run once per iteration) or a name two
            # nodes share: nothing to match it with for sure.
            result["skipped"] += 1
            continue
        seen.add(event["name"])
        node = matches[0]
        total = 0
        problem = None
        present = [out for out in node["outputs"] if out]
        # The profiler lists tensor outputs only; cctx gives sequences and maps no size. A node
        # whose unsized outputs are as many as the profiler leaves out is compared on the rest.
        unsized = [out for out in present if values.get(out, {}).get("bytes") is None]
        non_tensors = len(present) - len(event["output_shapes"])
        for out in present:
            b = values.get(out, {}).get("bytes")
            if b is None and len(unsized) == non_tensors:
                continue
            if b is None:
                problem = f"output {out} has no size in cctx"
                break
            if isinstance(b, str):
                try:
                    b = cctx.evaluate_expression(b, symbols)
                except cctx.Error as e:
                    problem = f"output {out}: {e}"
                    break
            total += b
        result["compared"] += 1
        if problem is None and total == event["output_bytes"]:
            result["equal"] += 1
        else:
            result["mismatches"].append(
                f"node {node['index']} {node['op_type']} '{node['name']}': ONNX Runtime "
                f"{event['output_bytes']} bytes {event['output_shapes']}, cctx "
                f"{problem or str(total) + ' bytes'}")
    return result


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", type=pathlib.Path, default=pathlib.Path("build"))
    p.add_argument("model", type=pathlib.Path)
    p.add_argument("--inputs", required=True, help="JSON object: input name -> shape")
    p.add_argument("--eval", default="", help="symbol values, e.g. batch=1,seq=7")
    p.add_argument("--profile", default="")
    args = p.parse_args()
    symbols = {k: int(v) for k, v in (kv.split("=") for kv in args.eval.split(",") if kv)}
    result = compare(ort_nodes(args.build, args.model, json.loads(args.inputs)),
                     cctx_report(args.build, args.model, args.profile), symbols, args.build)
    for m in result["mismatches"]:
        print(m)
    print(f"{args.model.name}: {result['equal']}/{result['compared']} nodes' output bytes equal "
          f"({result['skipped']} profiler events of bodies or shared names not compared)")
    return 0 if result["compared"] and result["equal"] == result["compared"] else 1


if __name__ == "__main__":
    sys.exit(main())
