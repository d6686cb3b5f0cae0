#!/usr/bin/python3
"""ctest validate_accuracy: cctx's runtime profiles against ONNX Runtime, as CI enforces it.

    accuracy_bands.py --build BUILD --work DIR

The committed PyTorch exports (tests/models, and two of them as ONNX Runtime's dynamic
quantization writes them: tests/models/dynamic_quantized) at two sizes each, symbolic, measured by
validate.py under the allocation counter in both of ONNX Runtime's settings: its defaults
(graph optimisation level all, profiles onnxruntime-cpu-no-arena / onnxruntime-cpu) and the lab
setting (optimisations off, the -unoptimized profiles), arena off and on, one thread. Every
point must be within 10% without the arena and 25% with it, but the points listed in
KNOWN_MISSES with their reasons (a listed point that hits fails too, so the list stays true),
and 90% of the sessions within 10%.
"""
import argparse
import json
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
MODELS = HERE.parent / "models"

# (model, input, dims with symbols, sizes as {symbol: value})
SPECS = [
    ("cnn", "image", ["batch", 3, "height", "width"],
     [{"batch": 2, "height": 96, "width": 96}, {"batch": 8, "height": 224, "width": 224}]),
    ("gpt_decoder", "ids", ["batch", "seq"], [{"batch": 2, "seq": 96}, {"batch": 4, "seq": 128}]),
    ("transformer_encoder", "x", ["batch", "seq", 32],
     [{"batch": 1, "seq": 64}, {"batch": 4, "seq": 128}]),
    ("lstm_gru", "x", ["batch", "seq", 8], [{"batch": 4, "seq": 64}, {"batch": 8, "seq": 128}]),
    ("control_flow", "x", ["batch", "seq", 8], [{"batch": 4, "seq": 64}, {"batch": 8, "seq": 128}]),
    # As onnxruntime.quantization.quantize_dynamic writes them (tests/models/dynamic_quantized).
    ("dynamic_quantized/transformer_encoder_dyn", "x", ["batch", "seq", 32],
     [{"batch": 1, "seq": 64}, {"batch": 4, "seq": 128}]),
    ("dynamic_quantized/lstm_gru_dyn", "x", ["batch", "seq", 8],
     [{"batch": 4, "seq": 64}, {"batch": 8, "seq": 128}]),
]
DTYPES = {"ids": "int64"}


def manifest(work: pathlib.Path) -> None:
    work.mkdir(parents=True, exist_ok=True)
    models = []
    for name, input_name, dims, sizes in SPECS:
        link = work / f"{pathlib.Path(name).name}.onnx"
        if not link.exists():
            link.symlink_to(MODELS / f"{name}.onnx")
        entries = []
        for symbols in sizes:
            shape = [symbols[d] if isinstance(d, str) else d for d in dims]
            entries.append({"label": "_".join(f"{k}{v}" for k, v in symbols.items()),
                            "symbols": symbols, "shapes": {input_name: shape}})
        models.append({"name": pathlib.Path(name).name, "family": "committed",
                       "inputs": {input_name: {"dtype": DTYPES.get(input_name, "float32"),
                                               "dims": dims}},
                       "symbolic": link.name, "sizes": entries})
    (work / "manifest.json").write_text(json.dumps({"models": models, "failed": []}, indent=1))


# The points each setting misses today, and why: listed so that a new miss fails the test and a
# fixed one is seen (it then fails too, until it is taken off the list). Empty since the LSTM's and
# GRU's workspaces are replayed block by block (lstm_gru at batch 8, seq 128 with the arena was
# 0.32x: ONNX Runtime's arena took a second region the one-block replay did not).
KNOWN_MISSES: set = set()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", type=pathlib.Path, required=True)
    p.add_argument("--work", type=pathlib.Path, required=True)
    args = p.parse_args()
    manifest(args.work)
    failures = []
    for optimization in ("all", "disabled"):
        print(f"== ONNX Runtime with graph optimisation {optimization} ==", flush=True)
        out = args.work / f"points_{optimization}.json"
        cmd = [sys.executable, str(HERE / "validate.py"), "--build", str(args.build),
               "--models", str(args.work), "--kinds", "symbolic", "--no-per-node",
               "--history", "none", "--optimization", optimization, "--json", str(out)]
        if subprocess.run(cmd, check=False).returncode != 0:
            failures.append(f"validate.py failed with optimisation {optimization}")
            continue
        for r in json.loads(out.read_text()):
            key = (optimization, r["model"], r["size"], r["mode"])
            known = key in KNOWN_MISSES
            if r["hit"] and known:
                failures.append(f"{key} is listed as a miss but is within tolerance now "
                                f"({r['ratio']:.2f}x): take it off KNOWN_MISSES")
            elif not r["hit"] and not known:
                failures.append(f"{key}: predicted {r['ratio']:.2f}x the measure, outside the "
                                "band (10% without the arena, 25% with it)")
        # The session's heap varies by up to a megabyte from one process to the next (ONNX
        # Runtime's own start-up): at least 90% of the points within 10%, as the issue asks.
        rows = json.loads(out.read_text())
        hits = sum(bool(r["session_hit"]) for r in rows)
        if hits < 0.9 * len(rows):
            failures.append(f"optimisation {optimization}: sessions within 10% at {hits} of "
                            f"{len(rows)} points, below 90%")
    for f in failures:
        print("band failed:", f)
    print(f"\n{len(failures)} band failures; known misses: {len(KNOWN_MISSES)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
