#!/usr/bin/python3
"""The graph cctx plans against the graph ONNX Runtime really runs (docs/design/rewrites.md).

    ort_rewrites_check.py --build BUILD [--models FILE_OR_DIR ...] [--min-equal N] [--json OUT]

For every model: ONNX Runtime (onnxruntime-node from BUILD/validate/node_modules) saves the graph
it runs at graph optimisation level `all` (session option optimizedModelFilePath,
ort_save_optimized.mjs), and `cctx analyze --profile onnxruntime-cpu-optimized-no-arena` gives
the graph cctx plans after the onnxruntime plugin's rewrites. Their operators are counted by
domain and type (Constant nodes left out: ONNX Runtime holds them as initializers). A model is
"equal" when every count is. Prints one row per model with the operators that differ, and exits
1 when fewer than --min-equal models are equal (or a tool fails), 0 otherwise.
"""
import argparse
import collections
import json
import pathlib
import subprocess
import sys
import tempfile

import onnx

HERE = pathlib.Path(__file__).resolve().parent
PROFILE = "onnxruntime-cpu-optimized-no-arena"


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", type=pathlib.Path, default=pathlib.Path("build"))
    p.add_argument("--models", nargs="*", type=pathlib.Path,
                   help="files or folders (default: tests/models and BUILD/realmodels/npm)")
    p.add_argument("--min-equal", type=int, default=0)
    p.add_argument("--json", type=pathlib.Path)
    return p.parse_args()


def model_files(args):
    roots = args.models or [HERE.parent / "models", args.build / "realmodels" / "npm"]
    files = []
    for root in roots:
        if root.is_file():
            files.append(root)
        elif root.is_dir():
            files.extend(sorted(root.rglob("*.onnx")))
    return files


def counts(ops):
    return collections.Counter(op for op in ops if op != "Constant")


def ort_ops(build, model, work):
    out = work / (model.stem + ".all.onnx")
    spec = {"model": str(model), "out": str(out), "level": "all",
            "ort": str((build / "validate" / "node_modules").resolve())}
    r = subprocess.run(["node", str(HERE / "ort_save_optimized.mjs"), json.dumps(spec)],
                       capture_output=True, text=True, timeout=600, check=False)
    if r.returncode != 0 or not out.exists():
        raise RuntimeError("ONNX Runtime: " + (r.stderr.strip().splitlines() or ["failed"])[-1])
    m = onnx.load(str(out), load_external_data=False)
    return counts((n.domain + ":" if n.domain else "") + n.op_type for n in m.graph.node)


def cctx_ops(build, model):
    r = subprocess.run([str(build / "bin" / "cctx"), "analyze", str(model), "--profile", PROFILE,
                        "--format", "json"], capture_output=True, text=True, timeout=600,
                       check=False)
    if r.returncode != 0:
        raise RuntimeError("cctx: " + (r.stderr.strip().splitlines() or ["failed"])[-1])
    nodes = json.loads(r.stdout)["nodes"]
    return counts((n["domain"] + ":" if n["domain"] else "") + n["op_type"] for n in nodes)


def main() -> int:
    args = parse_args()
    rows, failures, equal = [], 0, 0
    with tempfile.TemporaryDirectory(prefix="cctx-rewrites-") as tmp:
        for model in model_files(args):
            try:
                ort, ours = ort_ops(args.build, model, pathlib.Path(tmp)), cctx_ops(args.build, model)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                failures += 1
                rows.append({"model": model.name, "error": str(e)[:200]})
                print(f"{model.name:40s} FAILED: {str(e)[:200]}")
                continue
            differ = {op: [ort[op], ours[op]] for op in sorted(set(ort) | set(ours))
                      if ort[op] != ours[op]}
            equal += not differ
            rows.append({"model": model.name, "ort_nodes": sum(ort.values()),
                         "cctx_nodes": sum(ours.values()), "differ": differ})
            shown = ", ".join(f"{op} {a}/{b}" for op, (a, b) in list(differ.items())[:6])
            more = f" (+{len(differ) - 6})" if len(differ) > 6 else ""
            print(f"{model.name:40s} ORT {sum(ort.values()):4d}  cctx {sum(ours.values()):4d}  "
                  f"{'equal' if not differ else 'ORT/cctx: ' + shown + more}")
    print(f"\n{equal} of {len(rows)} models equal operator for operator "
          f"(floor {args.min_equal}); {failures} failed")
    if args.json:
        args.json.write_text(json.dumps({"equal": equal, "models": rows}, indent=1))
    return 1 if failures or equal < args.min_equal else 0


if __name__ == "__main__":
    sys.exit(main())
