#!/usr/bin/env python3
"""`cctx plan` in `make bench`: planning time on the 10k- and 100k-node decoder exports against
the analysis alone (`cctx analyze --format json` of the same model, measured in the same run,
interleaved: the floor a plan is made on top of), and the arena against the live-bytes floor and
against a best-fit layout per assignment on the repository's models and decoders."""
import argparse
import json
import pathlib
import statistics
import subprocess
import sys
import time


def timed(cmd):
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cctx", required=True)
    p.add_argument("--generator", required=True, help="bench_pipeline_scale")
    p.add_argument("--out", type=pathlib.Path, required=True)
    p.add_argument("--source", type=pathlib.Path, required=True)
    p.add_argument("--sizes", default="10000,100000")
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    print(f"{'nodes':>8} {'analysis s':>11} {'plan s':>8} {'plan - analysis':>16} {'buffers':>8}")
    for size in (int(s) for s in args.sizes.split(",")):
        model = args.out / f"plan_llama_{size}.onnx"
        if not model.exists():
            subprocess.run([args.generator, "--generate", str(size), str(model)], check=True,
                           stdout=subprocess.DEVNULL)
        analysis, plan = [], []
        for _ in range(args.rounds):
            analysis.append(timed([args.cctx, "analyze", str(model), "--format", "json", "-q"]))
            plan.append(timed([args.cctx, "plan", str(model), "--format", "json", "-q"]))
        doc = json.loads(subprocess.run([args.cctx, "plan", str(model), "--format", "json", "-q"],
                                        check=True, capture_output=True, text=True).stdout)
        a, b = statistics.median(analysis), statistics.median(plan)
        print(f"{size:>8} {a:>11.3f} {b:>8.3f} {b - a:>16.3f} {len(doc['buffers']):>8}")

    models = sorted((args.source / "tests" / "models").glob("*.onnx"))
    models += sorted((args.source / "tests" / "decoders" / "models").glob("*/model.onnx"))
    print()
    print(f"{'model':<40} {'profile':<26} {'checked':>7} {'arena/floor median':>18} "
          f"{'p90':>6} {'worst':>6} {'within 1.10':>11} {'best fit p90':>12}")
    for model in models:
        for profile in ("default", "onnxruntime-cpu-unoptimized-no-arena"):
            r = subprocess.run([args.cctx, "plan", str(model), "--profile", profile, "--check",
                                "2000", "--format", "json", "-q"], capture_output=True, text=True)
            if r.returncode != 0:
                print(f"{model.name:<40} {profile:<26} FAILED: {r.stderr.strip()[:80]}")
                continue
            c = json.loads(r.stdout)["check"]
            name = model.parent.name if model.name == "model.onnx" else model.stem
            ratio, fit = c["arena_over_floor"], c["best_fit_over_floor"]
            print(f"{name:<40} {profile:<26} {c['checked']:>7} {ratio['median']:>18.3f} "
                  f"{ratio['p90']:>6.3f} {ratio['worst']:>6.3f} {ratio['within_1_10']:>10.1f}% "
                  f"{fit['p90']:>12.3f}")
    print("floor: the live-bytes floor (largest sum of buffers alive at one node); no layout beats "
          "it, and a best-fit layout made for each assignment alone is the peer")
    return 0


if __name__ == "__main__":
    sys.exit(main())
