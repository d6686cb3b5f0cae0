#!/usr/bin/python3
"""The quick subset of the decoder suite that `make test` runs (ctest decoders_quick): every
committed decoder of tests/decoders/models, at the suite's points (prefill, decode at three context
lengths, odd sizes), through the real binary with Debian's python alone (no ONNX Runtime):

- `cctx analyze` gives a numeric reserve at every point under every ONNX Runtime profile, with no
  operator left without a shape rule;
- the KV cache is found (its pairs, bytes per token) and its past/present bytes are exactly the
  past/present tensors' bytes at the point (elements x 4 bytes, float32 caches);
- a genai folder answers for its configuration (max_length bounds, the shared buffer).

check.py (the venv with ONNX Runtime) compares the shapes and the heap with ONNX Runtime itself.

    /usr/bin/python3 tests/decoders/quick_check.py --cctx build/bin/cctx
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "models")
POINTS = [("prefill", 1, 16, 0), ("decode_15", 1, 1, 15), ("decode_127", 1, 1, 127),
          ("decode_511", 1, 1, 511), ("odd", 3, 7, 33)]
PROFILES = ["onnxruntime-cpu-unoptimized-no-arena", "onnxruntime-cpu-unoptimized"]
# The caches of the suite: 2 layers x (key, value), [batch, 2 KV heads, length, 16] float32.
CACHE_ROW_BYTES = 2 * 2 * 2 * 16 * 4


def scenarios(points, shared_length=None):
    lines = []
    for name, b, s, p in points:
        past = shared_length if shared_length is not None else p
        lines.append(f"{name}: {{batch_size: {b}, sequence_length: {s}, "
                     f"past_sequence_length: {past}, total_sequence_length: {p + s}}}")
    return "\n".join(lines) + "\n"


def analyze(cctx, target, profile, scenario_file):
    r = subprocess.run([cctx, "analyze", target, "--profile", profile, "--format", "json",
                        "--scenarios", scenario_file], capture_output=True, text=True)
    return r


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cctx", required=True)
    args = ap.parse_args()
    failures = []
    rows = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(os.listdir(MODELS)):
            folder = os.path.join(MODELS, name)
            model = os.path.join(folder, "model.onnx")
            config = os.path.join(folder, "genai_config.json")
            targets = []
            if os.path.exists(config):
                with open(config) as f:
                    max_length = json.load(f)["search"]["max_length"]
                # The folder (the configuration applies: shared buffer of max_length) ...
                targets.append((name + " (folder)", folder, max_length))
                # ... and the model alone, copied without its configuration.
                alone = os.path.join(tmp, name)
                os.makedirs(alone)
                for f in os.listdir(folder):
                    if f != "genai_config.json":
                        os.symlink(os.path.join(folder, f), os.path.join(alone, f))
                targets.append((name, os.path.join(alone, "model.onnx"), None))
            else:
                targets.append((name, model, None))
            for label, target, shared in targets:
                file = os.path.join(tmp, label.replace(" ", "_") + ".yaml")
                with open(file, "w") as f:
                    f.write(scenarios(POINTS, shared))
                for profile in PROFILES:
                    r = analyze(args.cctx, target, profile, file)
                    if r.returncode != 0:
                        failures.append(f"{label} {profile}: exit {r.returncode}: {r.stderr.strip()}")
                        continue
                    for bad in ("no shape rule", "unknown rank", "no cctx shape rule"):
                        if bad in r.stderr:
                            failures.append(f"{label} {profile}: {bad}: {r.stderr.strip()}")
                    peak = json.loads(r.stdout)["peak"]
                    kv = peak.get("kv_cache")
                    if not kv or len(kv["pairs"]) != 4 or kv.get("bytes_per_token") is None:
                        failures.append(f"{label} {profile}: KV cache not found: {kv}")
                        continue
                    for e, (point, b, s, p) in zip(peak["evaluations"], POINTS):
                        rows += 1
                        past_len = shared if shared is not None else p
                        want_past = CACHE_ROW_BYTES * b * past_len
                        if not isinstance(e.get("reserve_bytes"), int):
                            failures.append(f"{label} {profile} {point}: no numeric reserve")
                        if e.get("kv_past_bytes") != want_past:
                            failures.append(f"{label} {profile} {point}: KV past "
                                            f"{e.get('kv_past_bytes')} != {want_past}")
                        print(f"{label:28s} {profile:26s} {point:11s} reserve "
                              f"{e.get('reserve_bytes'):>10} kv past {e.get('kv_past_bytes'):>8} "
                              f"present {e.get('kv_present_bytes'):>8}")
    for f in failures:
        print("FAIL:", f)
    print(f"{rows} points, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
