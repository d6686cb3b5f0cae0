#!/usr/bin/python3
"""ctest validate_tiny_model: the harness on a model whose memory can be counted by hand.

    tiny_model_test.py --build BUILD --work DIR

The model (made here with onnx.helper) is X[N] -> Relu -> A -> Sigmoid -> Y, float32.
(b) Under ONNX Runtime without the arena, one run allocates A (4N bytes) and Y (4N): Sigmoid does
    not write into A because Y is a graph output, which ONNX Runtime always allocates on its own;
    Y's copy into a JS buffer (4N) comes once A is freed. So the run's heap peak is 8N, and the
    aligned family (ONNX Runtime's allocator) also peaks at 8N; the input's JS buffer is 4N. What
    comes on top is the run's bookkeeping: 1.5-2.5 KB measured at N = 2^18 and 2^20 (70-80 small
    blocks: shapes, kernel contexts), plus at most a page of rounding per large block. The
    tolerance is 16 KiB, a fraction of a percent at N = 2^20, while a counter that missed
    ONNX Runtime's posix_memalign (4N off) or node's calloc would be far off. Checked at two
    sizes, so that a constant cannot pass for 8N, with the dim symbolic and fixed.
(c) validate.py runs end to end on this model (both kinds, both modes, two sizes) and prints its
    table and summary; with the default profile cctx predicts X + A (Sigmoid in place) minus the
    input, 4N, so the no-arena ratio is 0.50 — the in-place difference the ONNX Runtime profiles
    are to model; the test checks the ratio is what the two sides compute, not that it is good.
(d) The onnxruntime-cpu-unoptimized-no-arena profile's run_bytes is the hand count, 8N, plus the
    profile's count of that bookkeeping (memory.run_overhead_*: 1,740 + 3 values x 28 + 2 nodes
    x 90 = 2,004 bytes), symbolic and fixed; and ONNX Runtime's measured heap is within 1 KiB of
    it.
(e) With the arena (the onnxruntime-cpu-unoptimized profile), run 1 puts A in a first region and Y in a
    second; run 2 asks for the memory pattern's block (A's size), which the first region holds.
    At N = 2^18 (1 MiB tensors) the regions are 1 + 2 MiB, at N = 2^20 (4 MiB) 4 + 4 MiB: the
    profile's run_bytes is that count and the 2,004 bytes of bookkeeping beside it, and what ONNX Runtime's allocator keeps after two runs
    (the aligned family) is within the slack of it.
"""
import argparse
import json
import pathlib
import subprocess
import sys

import onnx
from onnx import TensorProto, helper

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import validate  # noqa: E402

SIZES = [1 << 18, 1 << 20]
SLACK = 16 * 1024
FRAME = 1740 + 3 * 28 + 2 * 90  # the profiles' run_overhead_* for 3 values and 2 nodes
failures = []


def check(cond: bool, message: str) -> None:
    print(("ok   " if cond else "FAIL ") + message, flush=True)
    if not cond:
        failures.append(message)


def make_model(path: pathlib.Path, dim) -> None:
    graph = helper.make_graph(
        [helper.make_node("Relu", ["X"], ["A"]), helper.make_node("Sigmoid", ["A"], ["Y"])],
        "tiny_chain", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [dim])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [dim])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--build", type=pathlib.Path, required=True)
    p.add_argument("--work", type=pathlib.Path, required=True)
    args = p.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    tools = validate.Tools(args.build, None)

    make_model(args.work / "tiny_chain.onnx", "N")
    sizes = []
    for n in SIZES:
        make_model(args.work / f"tiny_chain_fixed_N{n}.onnx", n)
        sizes.append({"label": f"N{n}", "symbols": {"N": n}, "fixed": f"tiny_chain_fixed_N{n}.onnx",
                      "shapes": {"X": [n]}})
    manifest = {"models": [{"name": "tiny_chain", "family": "handmade", "symbolic":
                            "tiny_chain.onnx", "inputs": {"X": {"dtype": "float32", "dims": ["N"]}},
                            "sizes": sizes}], "failed": []}
    (args.work / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")

    # (b) the measurement against the hand count
    for n in SIZES:
        for kind, model in (("symbolic", "tiny_chain.onnx"), ("fixed", f"tiny_chain_fixed_N{n}.onnx")):
            m = validate.measure(tools, args.work / model, {"X": [n]}, "no-arena", 60)
            what = f"N={n} {kind} no-arena"
            check(abs(m["run_bytes"] - 8 * n) <= SLACK,
                  f"{what}: run bytes {m['run_bytes']}, hand count 8N = {8 * n}")
            check(abs(m["run_tensor_bytes"] - 8 * n) <= SLACK,
                  f"{what}: ONNX Runtime tensor bytes {m['run_tensor_bytes']}, want 8N")
            check(abs(m["input_bytes"] - 4 * n) <= SLACK,
                  f"{what}: input bytes {m['input_bytes']}, want 4N = {4 * n}")
            check(m["output_bytes"] == 4 * n, f"{what}: output bytes {m['output_bytes']}")

    # (c) the driver end to end
    rows_file = args.work / "rows.json"
    (args.work / "history.tsv").unlink(missing_ok=True)  # this run's lines only
    proc = subprocess.run([sys.executable, str(HERE / "validate.py"), "--build", str(args.build),
                           "--models", str(args.work), "--history", str(args.work / "history.tsv"),
                           "--profile-no-arena", "default", "--profile-arena", "default",
                           "--json", str(rows_file)], capture_output=True, text=True, timeout=100)
    print(proc.stdout, end="")
    print(proc.stderr, end="", file=sys.stderr)
    check(proc.returncode == 0, f"validate.py exit status {proc.returncode}")
    if proc.returncode == 0:
        rows = json.loads(rows_file.read_text())
        check(len(rows) == 8, f"{len(rows)} rows, want 2 sizes x 2 kinds x 2 modes")
        check("measured MB" in proc.stdout and "no-arena (profile default):" in proc.stdout
              and "arena (profile default):" in proc.stdout, "table and summary printed")
        for r in rows:
            n = int(r["size"][1:])
            if r["mode"] == "no-arena":
                check(abs(r["measured"] - 8 * n) <= SLACK and r["predicted"] == 4 * n,
                      f"{r['size']} {r['kind']}: measured {r['measured']} (8N), "
                      f"predicted {r['predicted']} (4N), ratio {r['ratio']:.3f}")
        history = (args.work / "history.tsv").read_text().splitlines()
        check(history[0] == validate.HISTORY_HEADER.strip() and len(history) == 9,
              f"history file has its header and {len(history) - 1} lines")
    # (d) the ONNX Runtime profile predicts the hand count: A and Y both held at Sigmoid (a graph
    # output is never written in place), then Y and its JS copy after the run: 8N, and the run's
    # bookkeeping at Sigmoid.
    for n in SIZES:
        for kind, model, symbols in (("symbolic", "tiny_chain.onnx", {"N": n}),
                                     ("fixed", f"tiny_chain_fixed_N{n}.onnx", {})):
            p = validate.predict(tools, args.work / model, symbols, {"X": [n]},
                                 "onnxruntime-cpu-unoptimized-no-arena")
            check(p["run_source"] == "run_bytes" and p["run_bytes"] == 8 * n + FRAME,
                  f"N={n} {kind} onnxruntime-cpu-unoptimized-no-arena: run_bytes {p['run_bytes']}, "
                  f"want 8N + {FRAME}")
            m = validate.measure(tools, args.work / model, {"X": [n]}, "no-arena", 60)
            check(abs(m["run_bytes"] - p["run_bytes"]) <= 1024,
                  f"N={n} {kind}: ONNX Runtime's run {m['run_bytes']}, predicted {p['run_bytes']}")
    # (e) the arena's regions over two runs
    regions = {1 << 18: 3 << 20, 1 << 20: 8 << 20}
    for n in SIZES:
        for kind, model, symbols in (("symbolic", "tiny_chain.onnx", {"N": n}),
                                     ("fixed", f"tiny_chain_fixed_N{n}.onnx", {})):
            p = validate.predict(tools, args.work / model, symbols, {"X": [n]}, "onnxruntime-cpu-unoptimized")
            m = validate.measure(tools, args.work / model, {"X": [n]}, "arena", 60)
            what = f"N={n} {kind} onnxruntime-cpu-unoptimized"
            check(p["run_bytes"] == regions[n] + FRAME,
                  f"{what}: run_bytes {p['run_bytes']}, hand count {regions[n]} + {FRAME}")
            check(abs(m["arena_tensor_growth_bytes"] - regions[n]) <= SLACK,
                  f"{what}: ONNX Runtime's arena kept {m['arena_tensor_growth_bytes']}")
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
