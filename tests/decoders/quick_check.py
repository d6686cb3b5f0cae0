#!/usr/bin/python3
"""The quick subset of the decoder suite that `make test` runs (ctest decoders_quick): every
committed decoder of tests/decoders/models, at the suite's points (prefill, decode at three context
lengths, odd sizes), through the real binary with Debian's python alone (no ONNX Runtime):

- `cctx analyze` gives a numeric reserve at every point under every ONNX Runtime profile, with no
  operator left without a shape rule;
- the KV cache is found (its pairs, bytes per token) and its past bytes are exactly the past
  tensors' bytes at the point (elements x 4 bytes, float32 caches);
- Optimum's models with the `--input` their attention mask's declaration needs, and the
  encoder-decoder's three files at their own points;
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
sys.path.insert(0, HERE)
from suite import dim_values, input_facts, kind_points, QUICK_POINTS, STATIC_CACHE  # noqa: E402

KIND_POINTS = kind_points(QUICK_POINTS)
PROFILES = ["onnxruntime-cpu-unoptimized-no-arena", "onnxruntime-cpu-unoptimized"]


def model_facts(cctx, path):
    """suite.input_facts of the model, from `cctx shapes` (Debian's python has no onnx module)."""
    r = subprocess.run([cctx, "shapes", path, "--format", "json"], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"quick_check.py: cctx shapes {path}: {r.stderr.strip()}")
    return input_facts(json.loads(r.stdout)["values"])


def scenarios(points, symbols, shared_length=None):
    lines = []
    for name, b, s, p in points:
        values = dim_values(b, s, p, shared_length if shared_length is not None else p)
        lines.append(f"{name}: {{" + ", ".join(f"{k}: {values[k]}" for k in sorted(symbols)
                                                if k in values) + "}")
    return "\n".join(lines) + "\n"


def analyze(cctx, target, profile, scenario_file, inputs):
    r = subprocess.run([cctx, "analyze", target, "--profile", profile, "--format", "json",
                        "--scenarios", scenario_file] + inputs, capture_output=True, text=True)
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
            if not os.path.exists(model):
                for file, kind in (("encoder_model.onnx", "encoder"),
                                   ("decoder_model.onnx", "first"),
                                   ("decoder_with_past_model.onnx", "with_past")):
                    path = os.path.join(folder, file)
                    if os.path.exists(path):
                        targets.append((f"{name} {file[:-11]}", path, None, kind, path))
            elif os.path.exists(config):
                with open(config) as f:
                    max_length = json.load(f)["search"]["max_length"]
                # The folder (the configuration applies: shared buffer of max_length) ...
                targets.append((name + " (folder)", folder, max_length, "causal", model))
                # ... and the model alone, copied without its configuration.
                alone = os.path.join(tmp, name)
                os.makedirs(alone)
                for f in os.listdir(folder):
                    if f != "genai_config.json":
                        os.symlink(os.path.join(folder, f), os.path.join(alone, f))
                targets.append((name, os.path.join(alone, "model.onnx"), None, "causal", model))
            else:
                targets.append((name, model, None, "causal", model))
            for label, target, shared, kind, file_path in targets:
                symbols, inputs, row_bytes = model_facts(args.cctx, file_path)
                if shared is not None:
                    symbols.discard("past_sequence_length")  # the configuration sets it
                points = KIND_POINTS[kind]
                file = os.path.join(tmp, label.replace(" ", "_") + ".yaml")
                with open(file, "w") as f:
                    f.write(scenarios(points, symbols, shared))
                for profile in PROFILES:
                    r = analyze(args.cctx, target, profile, file, inputs)
                    if r.returncode != 0:
                        failures.append(f"{label} {profile}: exit {r.returncode}: {r.stderr.strip()}")
                        continue
                    for bad in ("no shape rule", "unknown rank", "no cctx shape rule"):
                        if bad in r.stderr:
                            failures.append(f"{label} {profile}: {bad}: {r.stderr.strip()}")
                    peak = json.loads(r.stdout)["peak"]
                    kv = peak.get("kv_cache")
                    caches = kind in ("causal", "with_past")
                    if caches and (not kv or len(kv["pairs"]) != 4
                                   or kv.get("bytes_per_token") is None):
                        failures.append(f"{label} {profile}: KV cache not found: {kv}")
                        continue
                    for e, (point, b, s, p) in zip(peak["evaluations"], points):
                        rows += 1
                        past_len = shared if shared is not None else p
                        if "max_cache_length" in symbols:  # a static cache: always full length
                            past_len = STATIC_CACHE
                        if not isinstance(e.get("reserve_bytes"), int):
                            failures.append(f"{label} {profile} {point}: no numeric reserve")
                        if caches and e.get("kv_past_bytes") != row_bytes * b * past_len:
                            failures.append(f"{label} {profile} {point}: KV past "
                                            f"{e.get('kv_past_bytes')} != "
                                            f"{row_bytes * b * past_len}")
                        print(f"{label:34s} {profile:26s} {point:11s} reserve "
                              f"{e.get('reserve_bytes'):>10} kv past "
                              f"{str(e.get('kv_past_bytes')):>8} "
                              f"present {str(e.get('kv_present_bytes')):>8}")
    for f in failures:
        print("FAIL:", f)
    print(f"{rows} points, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
