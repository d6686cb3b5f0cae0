"""The command line and Python evaluate through one Session (cctx/session.hpp), so they agree by
construction; this checks it on every model at hand: the repository's, ONNX's backend test models
with symbolic inputs, the real-model suite's npm models and PyTorch exports when present. For each
model and two assignments of its input symbols (1 and 7), `cctx analyze --eval ... --format json`
and `ComputeContext.evaluate_runtime` must give the same bytes, run bytes, session bytes and peak
node, or both refuse the assignment.

  session_agreement.py --cctx build/bin/cctx [--models DIR]...
"""
import argparse
import glob
import json
import os
import pathlib
import re
import subprocess
import sys

import cctx

IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def input_symbols(report: dict) -> list:
    """Symbols that stand alone as a dim of a graph input: what a user assigns."""
    names = set()
    for value in report["values"].values() if isinstance(report["values"], dict) else report["values"]:
        if value.get("kind") != "input":
            continue
        for dim in value.get("shape") or []:
            if isinstance(dim, str) and IDENT.match(dim):
                names.add(dim)
    return sorted(names)


def cli(binary: str, model: str, assignment: dict):
    args = [binary, "analyze", model, "--format", "json", "--quiet"]
    for name, value in sorted(assignment.items()):
        args += ["--eval", f"{name}={value}"]
    run = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        return ("refused", run.returncode, run.stderr.strip())
    e = json.loads(run.stdout)["peak"]["evaluations"][0]
    return ("ok", e["bytes"], e["run_bytes"], e["session_bytes"], e["node"])


def python(model: str, assignment: dict):
    ctx = cctx.ComputeContext()
    try:
        ctx.compute(model)
        r = ctx.evaluate_runtime(assignment)
    except cctx.Error as e:
        return ("refused", e.exit_code, str(e))
    return ("ok", r["bytes"], r["run_bytes"], r["session_bytes"], r["node"])


def models(extra_dirs: list) -> list:
    repo = pathlib.Path(os.environ["CCTX_SOURCE_DIR"])
    found = sorted(str(p) for root in ("examples", "tests") for p in (repo / root).rglob("*.onnx"))
    found += sorted(glob.glob("/usr/share/libonnx-testdata/data/node/*/model.onnx"))
    # A model next to onnxruntime-genai's genai_config.json is analysed by the command line for
    # that configuration (its bounds, its shared KV buffer; README "onnxruntime-genai models"),
    # while Python's ComputeContext analyses the file as given: not the same question.
    found = [m for m in found if not (pathlib.Path(m).parent / "genai_config.json").exists()]
    for d in extra_dirs:
        found += sorted(str(p) for p in pathlib.Path(d).rglob("*.onnx"))
    return found


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cctx", required=True)
    parser.add_argument("--models", action="append", default=[])
    args = parser.parse_args()
    compared = refused = skipped = 0
    disagreements = []
    for model in models(args.models):
        run = subprocess.run([args.cctx, "analyze", model, "--format", "json", "--quiet"],
                             capture_output=True, text=True, timeout=300)
        if run.returncode != 0:
            skipped += 1  # a model the analysis itself refuses: nothing to evaluate
            continue
        symbols = input_symbols(json.loads(run.stdout))
        if not symbols:
            skipped += 1
            continue
        for value in (1, 7):
            assignment = {s: value for s in symbols}
            a, b = cli(args.cctx, model, assignment), python(model, assignment)
            if a[0] == "refused" and b[0] == "refused":
                refused += 1
                if a[1] != b[1]:
                    disagreements.append((model, assignment, a, b))
                continue
            compared += 1
            if a != b:
                disagreements.append((model, assignment, a, b))
    for model, assignment, a, b in disagreements:
        print(f"DISAGREE {model} {assignment}\n  cli:    {a}\n  python: {b}")
    print(f"{compared} evaluations equal, {refused} refused by both, {skipped} models without "
          f"input symbols or refused, {len(disagreements)} disagreements")
    print(f"{compared + refused} passed, {len(disagreements)} failed")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
