#!/usr/bin/env python3
"""run_ort.py: run_ort.mjs through ONNX Runtime's Python API, the binding most users run.

    LD_PRELOAD=.../libcctx_alloc_counter.so CCTX_ALLOC_REPORT=/tmp/r.txt \\
    VENV/bin/python run_ort.py '{"model": "m.onnx", "inputs": {"x": [1, 3, 224, 224]},
                                 "mode": "no-arena", "optimization": "all", "threads": 1}'

Same protocol and the same JSON keys as run_ort.mjs (see there): the session, then three runs,
readings of alloc_counter between them (SIGUSR2, whose handler alloc_counter installs; it
appends its line before kill() returns, which is checked). Inputs: floats in [0, 1) from a
fixed seed, integers 0, booleans false. The Python binding, like the Node one, hands the
outputs back as copies (numpy arrays), counted in output_bytes.
"""
import gc
import json
import os
import signal
import sys

import numpy as np
import onnxruntime as ort

LEVELS = {"disabled": ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
          "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
          "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
          "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL}
DTYPES = {"tensor(float)": np.float32, "tensor(double)": np.float64,
          "tensor(float16)": np.float16, "tensor(int64)": np.int64, "tensor(int32)": np.int32,
          "tensor(int8)": np.int8, "tensor(uint8)": np.uint8, "tensor(bool)": np.bool_}


def fail(message):
    sys.stderr.write(f"run_ort.py: {message}\n")
    sys.exit(2)


class Counter:
    def __init__(self, path):
        self.path, self.readings = path, 0
        if os.path.exists(path):
            os.remove(path)

    def read(self):
        os.kill(os.getpid(), signal.SIGUSR2)
        self.readings += 1
        with open(self.path, encoding="utf-8") as f:
            lines = f.read().strip().split("\n")
        if len(lines) != self.readings:
            fail(f"alloc_counter wrote {len(lines)} readings, want {self.readings}")
        _, live, peak, allocs, aligned_live, aligned_peak, lost = map(int, lines[-1].split())
        if lost:
            fail(f"alloc_counter lost track of {lost} aligned blocks")
        return {"live": live, "peak": peak, "allocs": allocs, "aligned_live": aligned_live,
                "aligned_peak": aligned_peak}


def feeds(session, shapes):
    rng = np.random.default_rng(0)
    out = {}
    for i in session.get_inputs():
        spec = shapes.get(i.name)
        if spec is None:
            fail(f"no shape for input '{i.name}'")
        shape, fill = (spec["shape"], spec.get("fill")) if isinstance(spec, dict) else (spec, None)
        dtype = DTYPES.get(i.type)
        if dtype is None:
            fail(f"input '{i.name}' has type {i.type}, which this runner does not make")
        if fill is not None:
            out[i.name] = np.full(shape, fill, dtype=dtype)
        elif np.issubdtype(dtype, np.floating):
            out[i.name] = rng.random(shape, dtype=np.float64).astype(dtype)
        else:
            out[i.name] = np.zeros(shape, dtype=dtype)
    return out


def main():
    spec = json.loads(sys.argv[1] if len(sys.argv) > 1 else "{}")
    report = os.environ.get("CCTX_ALLOC_REPORT")
    if not spec.get("model") or "inputs" not in spec or spec.get("mode") not in ("arena",
                                                                                  "no-arena"):
        fail('usage: run_ort.py \'{"model": M, "inputs": {NAME: SHAPE}, "mode": "arena"|"no-arena"}\'')
    if not report or "alloc_counter" not in os.environ.get("LD_PRELOAD", ""):
        fail("run under LD_PRELOAD=libcctx_alloc_counter.so with CCTX_ALLOC_REPORT set")
    counter = Counter(report)
    options = ort.SessionOptions()
    options.graph_optimization_level = LEVELS[spec.get("optimization", "disabled")]
    options.intra_op_num_threads = int(spec.get("threads", 1))
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.enable_cpu_mem_arena = spec["mode"] == "arena"
    options.enable_mem_pattern = spec["mode"] == "arena"

    gc.collect()
    baseline = counter.read()
    session = ort.InferenceSession(spec["model"], options, providers=["CPUExecutionProvider"])
    gc.collect()
    after_session = counter.read()
    inputs = feeds(session, spec["inputs"])
    before_run1 = counter.read()

    def run():
        outputs = session.run(None, inputs)
        reading = counter.read()
        size = sum(o.nbytes for o in outputs if isinstance(o, np.ndarray))
        del outputs
        gc.collect()
        return reading, size

    run1, _ = run()
    after_run1 = counter.read()
    run()
    after_run2 = counter.read()
    run3, output_bytes = run()
    print(json.dumps({
        "model": spec["model"], "mode": spec["mode"], "binding": "python",
        "ort_version": ort.__version__,
        "baseline_bytes": baseline["live"],
        "session_bytes": after_session["live"] - baseline["live"],
        "session_tensor_bytes": after_session["aligned_live"] - baseline["aligned_live"],
        "input_bytes": before_run1["live"] - after_session["live"],
        "first_run_peak_bytes": run1["peak"] - before_run1["live"],
        "arena_after_run1_bytes": after_run1["live"] - before_run1["live"],
        "arena_growth_bytes": after_run2["live"] - before_run1["live"],
        "arena_tensor_growth_bytes": after_run2["aligned_live"] - before_run1["aligned_live"],
        "run_bytes": run3["peak"] - after_run2["live"],
        "run_tensor_bytes": run3["aligned_peak"] - after_run2["aligned_live"],
        "output_bytes": output_bytes,
        "run_allocations": run3["allocs"],
    }))


if __name__ == "__main__":
    main()
