#!/usr/bin/python3
"""ctest validate_squeeze_if (and validate_squeeze_if_ort): an If whose branches differ in rank
(issue 19 item 4), through the cctx CLI and, with --ort, against ONNX Runtime.

    squeeze_if_test.py --build BUILD [--ort]

squeeze_if.onnx (squeeze_if_model.py: a torch.jit.script export of `if y.shape[1] == 1:
y = y.squeeze(1)`) maps x[batch, n, width] to y, which is [batch, width] when n == 1 and
[batch, n, width] otherwise. cctx cannot give y a rank, but its element count is the same
whichever branch runs, so:
- the JSON report gives y no shape, `elements` and a byte count without `bytes_y`, and a warning
  says that the rank depends on which branch runs;
- at n = 1 and n = 3 the byte count evaluated equals the fixed model's (the model with x's dims
  given, where the If is decided) and, with --ort, what ONNX Runtime's run holds;
- `cctx analyze --eval` gives a numeric peak equal to the fixed model's.
"""
import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

import onnx

HERE = pathlib.Path(__file__).resolve().parent
MODEL = HERE / "squeeze_if.onnx"
ASSIGNMENTS = [{"batch": 2, "n": 1, "width": 5}, {"batch": 2, "n": 3, "width": 5},
               {"batch": 1, "n": 1, "width": 1}]
failures = []


def check(cond: bool, message: str) -> None:
    print(("ok   " if cond else "FAIL ") + message, flush=True)
    if not cond:
        failures.append(message)


def cctx_json(build: pathlib.Path, model: pathlib.Path, *extra: str) -> dict:
    proc = subprocess.run([str(build / "bin" / "cctx"), "analyze", str(model), "--format", "json",
                           *extra], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"cctx exit {proc.returncode}: {proc.stderr}")
    return json.loads(proc.stdout)


def fixed(dst: pathlib.Path, a: dict) -> None:
    m = onnx.load(str(MODEL))
    for d, name in zip(m.graph.input[0].type.tensor_type.shape.dim, ["batch", "n", "width"]):
        d.Clear()
        d.dim_value = a[name]
    onnx.save(m, str(dst))


def ort_bytes(build: pathlib.Path, a: dict) -> int:
    spec = {"model": str(MODEL), "inputs": {"x": [a["batch"], a["n"], a["width"]]},
            "ort": str((build / "validate" / "node_modules").resolve())}
    proc = subprocess.run(["node", str(HERE.parent / "realmodels" / "ort_values.mjs"),
                           json.dumps(spec)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"ort_values exit {proc.returncode}: {proc.stderr}")
    dims = json.loads(proc.stdout)["values"]["y"]["dims"]
    count = 1
    for d in dims:
        count *= d
    print(f"     ONNX Runtime: y {dims}")
    return 4 * count


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True, type=pathlib.Path)
    ap.add_argument("--ort", action="store_true", help="also compare with ONNX Runtime")
    args = ap.parse_args()
    sys.path.insert(0, str(args.build / "python"))
    import cctx

    report = cctx_json(args.build, MODEL)
    y = report["values"]["y"]
    check(y["shape"] is None, f"y has no rank ({y['shape']})")
    check("elements" in y, f"y has an element count ({y.get('elements')})")
    check(isinstance(y["bytes"], (int, str)) and "bytes_" not in str(y["bytes"]),
          f"y's bytes are known: {y['bytes']}")
    warned = [w for w in report.get("warnings", []) if "depends on which branch runs" in str(w)]
    check(len(warned) >= 1, "a warning says the rank depends on which branch runs")

    with tempfile.TemporaryDirectory() as work:
        for a in ASSIGNMENTS:
            label = ",".join(f"{k}={v}" for k, v in a.items())
            got = cctx.evaluate_expression(str(y["bytes"]), a)
            path = pathlib.Path(work) / "fixed.onnx"
            fixed(path, a)
            fixed_report = cctx_json(args.build, path)
            want = fixed_report["values"]["y"]["bytes"]
            check(got == want, f"{label}: y bytes {got} == fixed model's {want}")
            spec = [x for k, v in a.items() for x in ("--eval", f"{k}={v}")]
            peak = cctx_json(args.build, MODEL, *spec)["peak"]["evaluations"][0]["bytes"]
            check(peak == fixed_report["peak"]["total_bytes"],
                  f"{label}: --eval peak {peak} == fixed model's {fixed_report['peak']['total_bytes']}")
            if args.ort:
                ort = ort_bytes(args.build, a)
                check(got == ort, f"{label}: y bytes {got} == ONNX Runtime's {ort}")
    if failures:
        raise SystemExit(f"{len(failures)} check(s) failed")


if __name__ == "__main__":
    main()
