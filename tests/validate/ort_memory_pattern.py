#!/usr/bin/env python3
"""ONNX Runtime's memory pattern for one model at one size, read from outside.

With the arena off and the memory pattern on, ONNX Runtime's second run allocates the pattern's
block in one malloc: its size is the pattern's peak. The first run allocates every traced tensor
and the kernels' scratch one by one; the second, only the scratch (and outputs) beside the block.
So the first run's allocations less the second run's, in order, are the tensors the pattern
planner traced, and its layout replayed on them (best fit between live blocks, else after the
highest; docs/design/onnxruntime-memory.md section 2.2) shows where each one went. Compare with
cctx's replay of the same pattern (the `onnxruntime-cpu` profile).

  python3 tests/validate/ort_memory_pattern.py --build build MODEL.onnx image=2,3,160,160 \
      [--optimization all] [--layout] [--tolerance 0.01]

Prints the block's size, the replay's peak, and with --layout each traced allocation's offset.
With --tolerance, exits 1 when the replay is further than that share from the block (ctest
validate_ort_pattern: the reading still holds for the ONNX Runtime installed). Needs
onnxruntime-node (`make validate` installs it) and the allocation counter.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent


def trace(build: pathlib.Path, model: str, inputs: dict, optimization: str) -> list:
    spec = {"model": os.path.abspath(model), "inputs": inputs, "mode": "no-arena",
            "pattern": True, "optimization": optimization,
            "ort": str(build / "validate" / "node_modules")}
    env = dict(os.environ, LD_PRELOAD=str(build / "lib" / "libcctx_alloc_counter.so"),
               CCTX_ALLOC_REPORT=str(build / "ort_memory_pattern.report"), CCTX_ALLOC_TRACE="1")
    run = subprocess.run(["node", "--expose-gc", str(HERE / "run_ort.mjs"), json.dumps(spec)],
                         env=env, capture_output=True, text=True, check=False)
    if run.returncode != 0:
        sys.exit(f"{model}: ONNX Runtime failed: {run.stdout.strip()} {run.stderr[-400:]}")
    # Each run, from its mark to the reading after it; each event is (sign, usable bytes,
    # address).
    runs, current = [], None
    for line in run.stderr.splitlines():
        if line.startswith("# run"):
            current = []
        elif line.startswith("# read"):
            if current is not None:
                runs.append(current)
            current = None
        elif current is not None:
            parts = line.split()
            if len(parts) == 3 and parts[0] in ("A", "+", "-"):
                current.append((parts[0], int(parts[1]), parts[2]))
    if len(runs) < 2:
        sys.exit(f"{model}: no two runs in the allocation trace")
    return runs


def replay(sizes: list) -> tuple:
    """ONNX Runtime's MemPatternPlanner on (alloc, bytes, key) / (free, key) events."""
    blocks, peak, layout = [], 0, []  # blocks: (offset, size, key), by offset
    for event in sizes:
        if event[0] == "free":
            blocks = [b for b in blocks if b[2] != event[1]]
            continue
        _, size, key = event
        current, best, waste = 0, None, None
        for offset, length, _ in blocks:
            if offset >= current:
                gap = offset - current
                if gap >= size and (waste is None or gap - size < waste):
                    best, waste = current, gap - size
            current = max(current, offset + length)
        if current < peak and peak - current >= size and (waste is None or
                                                           peak - current - size < waste):
            best = current
        if best is None:
            best = current
        peak = max(peak, best + size)
        blocks.append((best, size, key))
        blocks.sort(key=lambda b: (b[0], b[1]))
        layout.append((size, best))
    return peak, layout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build", type=pathlib.Path)
    parser.add_argument("--optimization", default="all")
    parser.add_argument("--layout", action="store_true", help="print every traced block's offset")
    parser.add_argument("--tolerance", type=float, default=None,
                        help="exit 1 when the replay differs from the block by more than this share")
    parser.add_argument("model")
    parser.add_argument("inputs", nargs="+", help="NAME=D0,D1,...")
    args = parser.parse_args()
    inputs = {}
    for item in args.inputs:
        name, _, dims = item.partition("=")
        inputs[name] = [int(d) for d in dims.split(",")]
    first, second = trace(args.build.resolve(), args.model, inputs, args.optimization)[:2]
    aligned = [e[1] for e in second if e[0] == "A"]
    block = max(aligned)
    aligned.remove(block)
    # The second run's other blocks are the scratch: take them out of the first run, in order.
    events, k = [], 0
    for sign, usable, address in first:
        if sign == "A":
            if k < len(aligned) and abs(usable - aligned[k]) <= 64:
                k += 1
                continue
            # The counter reports usable sizes; the planner traced 256-byte multiples.
            events.append(("alloc", (usable - 8 + 255) // 256 * 256, address))
        elif sign == "-":
            events.append(("free", address))
    peak, layout = replay(events)
    print(f"pattern block (the second run's malloc, usable bytes): {block}")
    print(f"replayed from the first run's {len(layout)} traced tensors: {peak}")
    if args.layout:
        for size, offset in layout:
            print(f"{size:>12} @ {offset}")
    if args.tolerance is not None and abs(peak / block - 1) > args.tolerance:
        sys.exit(f"{args.model}: the replay ({peak}) is {peak / block:.3f}x the block ({block}), "
                 f"beyond {args.tolerance}")


if __name__ == "__main__":
    main()
