#!/usr/bin/python3
"""Checks `cctx fit` against ONNX Runtime: is the batch it returns for a budget within the budget?

    /usr/bin/python3 tests/validate/fit_check.py --build build [--models DIR] [--only a,b]
        [--profiles no-arena,arena] [--batches 2,5,12] [--size N] [--no-repo-models]
        [--json OUT] [--timeout S] [--repeat N] [--headroom profile|0|...]

The models: those of DIR/manifest.json (written by export_models.py, default
BUILD/validate/models), their symbolic exports, with every symbol other than `batch` at the
model's validation size number N (--size, default 0: the manifest's first, smallest size); and,
unless --no-repo-models, the PyTorch exports in tests/models with a `batch` symbol (cnn,
gpt_decoder, transformer_encoder, lstm_gru; named repo:NAME) at their recorded sizes.

For each model, each profile (no-arena: cctx profile onnxruntime-cpu-unoptimized-no-arena against ONNX
Runtime without its CPU arena and memory pattern; arena: onnxruntime-cpu-unoptimized against ONNX Runtime's
defaults, both on) and each B of --batches:
  1. the budget is placed on cctx's own reserve at batch=B (`cctx analyze --eval batch=B,...
     --profile P`, peak.evaluations[0].reserve_bytes = session_bytes + input_bytes + run_bytes).
     With the profile's headroom (the default, as users run `cctx fit`) it is that reserve plus
     the headroom at B (memory.headroom_bytes + headroom_percent of the reserve): the smallest
     budget for which cctx says B fits. With `--headroom 0` it is exactly the reserve, the
     strictest place: the returned V passes only if the prediction at V is not below what ONNX
     Runtime takes;
  2. `cctx fit MODEL --budget BUDGET --vary batch --eval OTHERS --profile P --format json`
     returns V (fits[0].value) and its reserve (fits[0].at.reserve_bytes);
  3. run_ort.mjs (validate.py's measure(): the allocation counter preloaded into node) measures
     ONNX Runtime at batch=V and batch=V+1, and the measured process figure is
         no-arena: session_bytes + input_bytes + run_bytes
         arena:    session_bytes + input_bytes + arena_growth_bytes
     i.e. the heap the session holds after its creation (weights, constants, ONNX Runtime's
     fixed per-session overhead), plus the inputs as node creates them, plus the figure
     validate.py compares cctx's run_bytes with in that mode (no-arena: the peak of run 3 above
     the heap held before it; arena: what the arena keeps after two runs). It leaves out the
     heap of node and ONNX Runtime's library before any session (baseline_bytes, about 2.7 MB),
     which cctx does not model. For the arena the table also shows, for information only,
     the whole peak of run 3: session + inputs + arena_growth + run_bytes (run 3's peak above
     the arena, e.g. the outputs' JS copies and the allocations that bypass the arena).
A case passes when measured(V) <= budget, and is tight when also measured(V+1) > budget (the
next batch really would not have fitted). A V of null (not even batch 1 fits) passes when
measured(1) > budget.

Prints one row per case and, per profile, the share of cases within the budget (target >= 90%),
the number of returned values over the budget (target 0) and the share of tight cases, then the
worst cases (highest measured(V)/budget) with the measured and predicted parts. Exit status: 0
when every case ran and every profile met both targets, 1 otherwise.
"""
import argparse
import json
import pathlib
import subprocess
import sys
import time
from typing import Dict, List, Optional

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
import validate  # noqa: E402  (measure(), Tools, mb())

PROFILES = {"no-arena": "onnxruntime-cpu-unoptimized-no-arena", "arena": "onnxruntime-cpu-unoptimized"}
PASS_TARGET = 0.90
REPO_MODELS = ["cnn", "gpt_decoder", "transformer_encoder", "lstm_gru"]
BATCH = "batch"


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", type=pathlib.Path, default=pathlib.Path("build"))
    p.add_argument("--models", type=pathlib.Path, help="default: BUILD/validate/models")
    p.add_argument("--cctx", type=pathlib.Path, help="default: BUILD/bin/cctx")
    p.add_argument("--only", default="", help="comma-separated model names (repo:NAME for "
                   "tests/models)")
    p.add_argument("--profiles", default="no-arena,arena",
                   help="comma-separated: no-arena (onnxruntime-cpu-unoptimized-no-arena), arena "
                        "(onnxruntime-cpu-unoptimized)")
    p.add_argument("--batches", default="2,5,12",
                   help="the budgets: cctx's reserve at each of these batches")
    p.add_argument("--size", type=int, default=0,
                   help="which manifest size gives the other symbols (0: the first)")
    p.add_argument("--no-repo-models", dest="repo_models", action="store_false",
                   help="leave out tests/models")
    p.add_argument("--json", type=pathlib.Path, help="write every case's numbers here")
    p.add_argument("--timeout", type=int, default=300, help="seconds per ONNX Runtime run")
    p.add_argument("--headroom", default="profile",
                   help="'profile' (default): the runtime profile's headroom, as users run cctx "
                        "fit, the budget being reserve(B) plus that headroom; or a value for "
                        "cctx fit --headroom, e.g. 0: the budget exactly on reserve(B)")
    p.add_argument("--repeat", type=int, default=3,
                   help="measure each point N times and take each field's median (a rare "
                        "reading has about 1 MB more session heap)")
    return p.parse_args()


def models(args: argparse.Namespace) -> List[dict]:
    """Each model: name, path, dims of each input ({name: [int | symbol]}), the other symbols."""
    out = []
    models_dir = args.models or args.build / "validate" / "models"
    manifest = json.loads((models_dir / "manifest.json").read_text())
    for m in manifest["models"]:
        size = m["sizes"][min(args.size, len(m["sizes"]) - 1)]
        if BATCH not in size["symbols"]:
            continue
        out.append({"name": m["name"], "path": models_dir / m["symbolic"],
                    "dims": {n: i["dims"] for n, i in m["inputs"].items()},
                    "others": {k: v for k, v in size["symbols"].items() if k != BATCH}})
    if args.repo_models:
        import onnx  # Debian's python3-onnx; only the inputs' dims are read
        for name in REPO_MODELS:
            path = REPO / "tests" / "models" / f"{name}.onnx"
            recorded = json.loads(path.with_suffix(".json").read_text())
            graph = onnx.load(str(path), load_external_data=False).graph
            inits = {i.name for i in graph.initializer}
            dims = {i.name: [d.dim_param or d.dim_value for d in i.type.tensor_type.shape.dim]
                    for i in graph.input if i.name not in inits}
            if BATCH not in recorded["symbols"]:
                continue
            out.append({"name": f"repo:{name}", "path": path, "dims": dims,
                        "others": {k: v for k, v in recorded["symbols"].items() if k != BATCH}})
    only = {n for n in args.only.split(",") if n}
    return [m for m in out if not only or m["name"] in only]


def shapes(model: dict, batch: int) -> Dict[str, List[int]]:
    symbols = dict(model["others"], **{BATCH: batch})
    return {n: [symbols[d] if isinstance(d, str) else d for d in dims]
            for n, dims in model["dims"].items()}


def cctx(args: argparse.Namespace, cmd: List[str]) -> dict:
    exe = args.cctx or args.build / "bin" / "cctx"
    for attempt in range(60):  # the binary may be being relinked by a build: wait for it
        try:
            proc = subprocess.run([str(exe)] + cmd + ["--format", "json", "--quiet"],
                                  capture_output=True, text=True, timeout=600)
            break
        except OSError:
            if attempt == 59:
                raise
            time.sleep(5)
    if proc.returncode != 0:
        raise RuntimeError(f"cctx {cmd[0]} exit {proc.returncode}: {proc.stderr.strip()[-400:]}")
    return json.loads(proc.stdout)


def eval_args(model: dict, batch: Optional[int]) -> List[str]:
    symbols = dict(model["others"])
    if batch is not None:
        symbols[BATCH] = batch
    if not symbols:
        return []
    return ["--eval", ",".join(f"{k}={v}" for k, v in symbols.items())]


def predicted_reserve(args, model: dict, batch: int, profile: str) -> dict:
    report = cctx(args, ["analyze", str(model["path"]), "--profile", profile]
                  + eval_args(model, batch))
    return report["peak"]["evaluations"][0]


def fit(args, model: dict, budget: int, profile: str) -> dict:
    headroom = [] if args.headroom == "profile" else ["--headroom", args.headroom]
    report = cctx(args, ["fit", str(model["path"]), "--budget", str(budget), "--vary", BATCH,
                         "--profile", profile] + headroom + eval_args(model, None))
    return report["fits"][0]


def budget_for(args, model: dict, b: int, profile: str) -> int:
    """The budget placed on cctx's reserve at batch b: exactly on it with --headroom 0; with the
    profile's headroom (kept free under any budget), the smallest budget for which cctx says b
    fits: reserve(b) plus the headroom's bytes and its percent of reserve(b)."""
    reserve = predicted_reserve(args, model, b, profile)["reserve_bytes"]
    if args.headroom != "profile":
        return reserve
    h = fit(args, model, reserve, profile)["headroom"]
    return reserve + h["bytes"] + -(-reserve * h["percent"] // 100)


_measured: Dict[tuple, dict] = {}


def measure(args, tools, model: dict, batch: int, mode: str) -> dict:
    """validate.py's measurement at this batch; the process figure as the docstring says."""
    key = (model["name"], batch, mode)
    if key not in _measured:
        runs = [validate.measure(tools, model["path"], shapes(model, batch), mode, args.timeout)
                for _ in range(max(1, args.repeat))]
        m = dict(runs[0])
        for k, v in runs[0].items():
            if isinstance(v, int):
                m[k] = sorted(r[k] for r in runs)[len(runs) // 2]
        tail = m["run_bytes"] if mode == "no-arena" else m["arena_growth_bytes"]
        m["process_bytes"] = m["session_bytes"] + m["input_bytes"] + tail
        m["process_peak_bytes"] = (m["process_bytes"] if mode == "no-arena"
                                   else m["process_bytes"] + m["run_bytes"])
        _measured[key] = m
    return _measured[key]


def check(args, tools, model: dict, mode: str, b: int) -> dict:
    profile = PROFILES[mode]
    row = {"model": model["name"], "mode": mode, "profile": profile, "at_batch": b,
           "others": model["others"]}
    try:
        row["budget"] = budget = budget_for(args, model, b, profile)
        f = fit(args, model, budget, profile)
        row["fit"] = f
        v = row["value"] = f["value"]
        row["predicted_at"] = f["at"]["reserve_bytes"] if v is not None else None
        row["predicted_next"] = f["next"]["reserve_bytes"] if f.get("next") else None
        at = measure(args, tools, model, v, mode) if v is not None else None
        nxt = measure(args, tools, model, (v or 0) + 1, mode)
        row["ort_at"], row["ort_next"] = at, nxt
        row["measured_at"] = at["process_bytes"] if at else None
        row["measured_next"] = nxt["process_bytes"]
        row["pass"] = (at["process_bytes"] <= budget if at is not None
                       else nxt["process_bytes"] > budget)
        row["tight"] = row["pass"] and nxt["process_bytes"] > budget
    except (RuntimeError, subprocess.TimeoutExpired, json.JSONDecodeError, KeyError,
            IndexError, TypeError, OSError) as e:
        row["error"] = f"{type(e).__name__}: {e}".replace("\n", " ")
    return row


HEADER = (f"{'model':<26} {'profile':<8} {'B':>3} {'budget MB':>10} {'V':>5} "
          f"{'pred(V) MB':>10} {'meas(V) MB':>10} {'meas/bud':>8} {'meas(V+1) MB':>12} "
          f"{'pass':>4} {'tight':>5}  {'arena peak(V) MB':>16}")


def print_row(r: dict) -> None:
    if "error" in r:
        print(f"{r['model']:<26} {r['mode']:<8} {r['at_batch']:>3} FAILED: {r['error'][:200]}",
              flush=True)
        return
    share = r["measured_at"] / r["budget"] if r["measured_at"] else float("nan")
    peak = (validate.mb(r["ort_at"]["process_peak_bytes"])
            if r["mode"] == "arena" and r["ort_at"] else "")
    print(f"{r['model']:<26} {r['mode']:<8} {r['at_batch']:>3} {validate.mb(r['budget']):>10} "
          f"{str(r['value']):>5} {validate.mb(r['predicted_at']):>10} "
          f"{validate.mb(r['measured_at']):>10} {share:>8.3f} {validate.mb(r['measured_next']):>12} "
          f"{'yes' if r['pass'] else 'NO':>4} {'yes' if r['tight'] else 'no':>5}  {peak:>16}",
          flush=True)


def parts(r: dict) -> str:
    """Measured and predicted session, inputs and run at V, to tell where a miss comes from."""
    m, p = r["ort_at"], r["fit"]["at"]
    tail = "run_bytes" if r["mode"] == "no-arena" else "arena_growth_bytes"
    return (f"session {validate.mb(m['session_bytes'])} (pred {validate.mb(p['session_bytes'])}), "
            f"inputs {validate.mb(m['input_bytes'])} (pred {validate.mb(p['input_bytes'])}), "
            f"run {validate.mb(m[tail])} [{tail}] (pred {validate.mb(p['run_bytes'])}); "
            f"ONNX Runtime's allocator alone: session {validate.mb(m['session_tensor_bytes'])}, "
            f"run {validate.mb(m['run_tensor_bytes' if r['mode'] == 'no-arena' else 'arena_tensor_growth_bytes'])}")


def summarize(rows: List[dict]) -> bool:
    ok = True
    print()
    for mode in PROFILES:
        done = [r for r in rows if r["mode"] == mode and "error" not in r]
        if not done:
            continue
        n = len(done)
        passed = sum(r["pass"] for r in done)
        over = sum(1 for r in done if not r["pass"])
        tight = sum(r["tight"] for r in done)
        shares = sorted(r["measured_at"] / r["budget"] for r in done if r["measured_at"])
        if not shares:  # no value fitted anywhere: nothing to compare with ONNX Runtime
            shares = [float("nan")]
        models = len({r["model"] for r in done})
        print(f"{mode} (profile {PROFILES[mode]}, {models} models, {n} cases): measured(V) within "
              f"the budget {passed}/{n} ({passed / n:.0%}, target >= {PASS_TARGET:.0%}); "
              f"returned values over the budget: {over} (target 0); tight {tight}/{n} "
              f"({tight / n:.0%}); measured(V)/budget {shares[0]:.3f} to {shares[-1]:.3f}, "
              f"median {shares[len(shares) // 2]:.3f}")
        ok = ok and passed / n >= PASS_TARGET and over == 0
        worst = sorted((r for r in done if r["measured_at"]),
                       key=lambda r: -r["measured_at"] / r["budget"])[:5]
        for r in worst:
            print(f"  worst: {r['model']} B={r['at_batch']} V={r['value']}: measured/budget "
                  f"{r['measured_at'] / r['budget']:.3f}; {parts(r)}")
    failed = [r for r in rows if "error" in r]
    if failed:
        print(f"{len(failed)} cases failed (listed above)")
    return ok and not failed


def main() -> int:
    args = parse_args()
    tools = validate.Tools(args.build, args.cctx)
    batches = [int(b) for b in args.batches.split(",") if b]
    modes = [m for m in args.profiles.split(",") if m]
    for m in modes:
        if m not in PROFILES:
            sys.exit(f"fit_check.py: unknown profile {m!r} (no-arena, arena)")
    started = time.time()
    exe = args.cctx or args.build / "bin" / "cctx"
    print(f"cctx: {exe} of {time.ctime(exe.stat().st_mtime)}")
    print(HEADER)
    print("-" * len(HEADER))
    rows = []
    for model in models(args):
        for mode in modes:
            for b in batches:
                row = check(args, tools, model, mode, b)
                rows.append(row)
                print_row(row)
    ok = summarize(rows)
    print(f"{time.time() - started:.0f} s")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, default=str) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
