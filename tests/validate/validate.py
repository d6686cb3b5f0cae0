#!/usr/bin/python3
"""Measures models under the real ONNX Runtime and compares cctx's predictions with the numbers.

    /usr/bin/python3 tests/validate/validate.py --build build [--models DIR] [--only a,b]
        [--kinds symbolic,fixed] [--modes no-arena,arena]
        [--profile-no-arena P] [--profile-arena P] [--history FILE|none] [--json OUT]
        [--no-per-node]

For each model of DIR/manifest.json (written by export_models.py), each of its sizes, each input
kind (symbolic: the export with dynamic axes, evaluated at the size; fixed: the export with its
inputs fixed to the size) and each mode (no-arena: ONNX Runtime's CPU arena and memory pattern
off; arena: both on, its defaults), it
  - measures with run_ort.mjs under the allocation counter (LD_PRELOAD);
  - predicts with `cctx analyze MODEL --format json [--eval SYM=V ...] --profile P`, P being
    onnxruntime-cpu-unoptimized-no-arena and onnxruntime-cpu-unoptimized with --optimization
    disabled (the default: the lab setting), onnxruntime-cpu-no-arena and onnxruntime-cpu with
    any other level (ONNX Runtime's defaults; onnxruntime-cpu-python-no-arena and
    onnxruntime-cpu-python with --binding python), unless said otherwise.
The prediction is peak.evaluations[i].run_bytes when the report has it (and session_bytes for the
session), else the seed's accounting: the peak minus the bytes of the graph inputs and the
initializers (the session is then predicted as the initializers). The measurement it is compared
with is run_ort's run_bytes in no-arena mode (the heap a run allocates above what is held before
it) and arena_growth_bytes in arena mode (what the arena holds after two runs).

With the per-node check (on unless --no-per-node), each no-arena point also runs once under
ONNX Runtime's profiler, and every main-graph node's output bytes are compared with cctx's
(per_node.py): the row ends with "nodes EQUAL/COMPARED" and the mismatches follow it.

Prints one row per point, a summary of hit rates (within 10% in no-arena mode, within 25% in
arena mode, session within 10%) and appends one line per point to the history file
(tests/validate/history.tsv by default; "none" to skip). Exit status: 0 when every point was
measured and predicted (whatever the ratios), 1 when some point failed.
"""
import argparse
import datetime
import json
import os
import pathlib
import subprocess
import sys
import tempfile
from typing import Dict, List, Optional

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import per_node  # noqa: E402
DTYPE_BYTES = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2, "int64": 8, "int32": 4,
               "int16": 2, "uint16": 2, "int8": 1, "uint8": 1, "bool": 1}
TOLERANCE = {"no-arena": 0.10, "arena": 0.25}
SESSION_TOLERANCE = 0.10
HISTORY_HEADER = "date\tcommit\tmodel\tsize\tkind\tmode\tprofile\tmeasured\tpredicted\ttensors\n"


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", type=pathlib.Path, default=pathlib.Path("build"))
    p.add_argument("--models", type=pathlib.Path, help="default: BUILD/validate/models")
    p.add_argument("--cctx", type=pathlib.Path, help="default: BUILD/bin/cctx")
    p.add_argument("--only", default="", help="comma-separated model names")
    p.add_argument("--kinds", default="symbolic,fixed")
    p.add_argument("--modes", default="no-arena,arena")
    p.add_argument("--sizes", type=int, default=0, help="only the first N sizes of each model")
    p.add_argument("--profile-no-arena", default=None,
                   help="cctx profile for no-arena points (a shipped name or a file; "
                        "'default' for the seed's accounting)")
    p.add_argument("--profile-arena", default=None,
                   help="cctx profile for arena points")
    p.add_argument("--history", default=str(HERE / "history.tsv"))
    p.add_argument("--json", type=pathlib.Path, help="write every point's numbers here")
    p.add_argument("--timeout", type=int, default=900, help="seconds per ONNX Runtime run")
    p.add_argument("--optimization", default="disabled",
                   choices=["disabled", "basic", "extended", "all"],
                   help="ONNX Runtime's graph optimisation level (its default: all)")
    p.add_argument("--threads", type=int, default=1, help="ONNX Runtime's intra-op threads")
    p.add_argument("--binding", choices=["node", "python"], default="node",
                   help="onnxruntime-node (run_ort.mjs) or ONNX Runtime's Python API (run_ort.py)")
    p.add_argument("--python", type=pathlib.Path,
                   help="the interpreter with onnxruntime for --binding python "
                        "(default: BUILD/peers/venv/bin/python, which `make peers` makes)")
    p.add_argument("--min-hits-no-arena", type=float, default=0.0,
                   help="fail unless this share of no-arena points is within 10%%")
    p.add_argument("--min-hits-arena", type=float, default=0.0,
                   help="fail unless this share of arena points is within 25%%")
    p.add_argument("--max-under", type=float, default=None,
                   help="fail when a point is predicted more than this share under the measure")
    p.add_argument("--no-per-node", dest="per_node", action="store_false",
                   help="skip the per-node check against ONNX Runtime's profiler")
    return p.parse_args()


class Tools:
    def __init__(self, build: pathlib.Path, cctx: Optional[pathlib.Path]):
        self.cctx = cctx or build / "bin" / "cctx"
        self.counter = build / "lib" / "libcctx_alloc_counter.so"
        self.node_modules = build / "validate" / "node_modules"
        self.run_ort = HERE / "run_ort.mjs"
        missing = [str(p) for p in (self.cctx, self.counter) if not p.exists()]
        if not (self.node_modules / "onnxruntime-node").is_dir():
            missing.append(f"{self.node_modules}/onnxruntime-node (run `make validate`, which "
                           "installs it with npm)")
        if missing:
            sys.exit("validate.py: missing " + ", ".join(missing))


# Set from the command line in main(): ONNX Runtime's session options and the binding.
SESSION = {"optimization": "disabled", "threads": 1}
BINDING = {"python": None}


def measure(tools: Tools, model: pathlib.Path, shapes: dict, mode: str, timeout: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="cctx-validate-") as tmp:
        env = dict(os.environ, LD_PRELOAD=str(tools.counter.resolve()),
                   CCTX_ALLOC_REPORT=os.path.join(tmp, "readings"))
        spec = {"model": str(model), "inputs": shapes, "mode": mode,
                "ort": str(tools.node_modules.resolve()), **SESSION}
        if BINDING["python"]:
            command = [str(BINDING["python"]), str(HERE / "run_ort.py"), json.dumps(spec)]
        else:
            command = ["node", "--expose-gc", str(tools.run_ort), json.dumps(spec)]
        proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"run_ort exit {proc.returncode}: {proc.stderr.strip()[-400:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


_predictions: Dict[tuple, dict] = {}


def predict(tools: Tools, model: pathlib.Path, symbols: dict, shapes: dict,
            profile: str) -> dict:
    key = (str(model), tuple(sorted(symbols.items())), profile)
    if key in _predictions:
        return _predictions[key]
    cmd = [str(tools.cctx), "analyze", str(model), "--format", "json"]
    for name, value in symbols.items():
        cmd += ["--eval", f"{name}={value}"]
    if profile:
        cmd += ["--profile", profile]
        if "onnxruntime" in profile:  # the runtime parameter of ONNX Runtime's profiles
            cmd += ["--eval", "threads=%d" % SESSION["threads"]]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"cctx exit {proc.returncode}: {proc.stderr.strip()[-400:]}")
    report = json.loads(proc.stdout)
    evaluations = report["peak"]["evaluations"]
    if evaluations:
        ev = evaluations[0]
    elif isinstance(report["peak"]["total_bytes"], int):  # no symbols: nothing to evaluate
        # A fixed model has no assignment; take the peak's own keys (run_bytes and session_bytes
        # too, should the report put them there for a model without symbols).
        ev = {k: v for k, v in report["peak"].items() if k in ("run_bytes", "session_bytes")}
        ev.update(bytes=report["peak"]["total_bytes"], node=report["peak"].get("node"))
    else:
        raise RuntimeError(f"peak not evaluable: {report['peak']['total_bytes']}")
    # The graph inputs as fed (their shapes are known here, whatever the model declares).
    inputs = 0
    for name, shape in shapes.items():
        count = 1
        for d in shape:
            count *= d
        inputs += count * DTYPE_BYTES[report["values"][name]["dtype"]]
    initializers = 0
    for value in report["values"].values():
        if value["kind"] == "initializer":
            if not isinstance(value["bytes"], int):
                raise RuntimeError("an initializer with symbolic bytes")
            initializers += value["bytes"]
    node = ev.get("node")
    result = {
        "peak_bytes": ev["bytes"],
        "peak_node": (f"{node}:{report['nodes'][node]['op_type']}" if isinstance(node, int)
                      else None),
        "input_bytes": inputs,
        "initializer_bytes": initializers,
        "run_bytes": ev.get("run_bytes", ev["bytes"] - inputs - initializers),
        "run_source": "run_bytes" if "run_bytes" in ev else "peak-inputs-initializers",
        "session_bytes": ev.get("session_bytes", initializers),
        "session_source": "session_bytes" if "session_bytes" in ev else "initializers",
    }
    _predictions[key] = result
    return result


def points(manifest: dict, args: argparse.Namespace):
    only = {n for n in args.only.split(",") if n}
    for model in manifest["models"]:
        if only and model["name"] not in only:
            continue
        sizes = model["sizes"][: args.sizes] if args.sizes else model["sizes"]
        for size in sizes:
            for kind in args.kinds.split(","):
                for mode in args.modes.split(","):
                    yield model, size, kind, mode


def git_commit() -> str:
    try:
        out = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(HERE), "status", "--porcelain", "--", "."],
                               capture_output=True, text=True).stdout.strip()
        return out + ("-dirty" if dirty else "")
    except (subprocess.CalledProcessError, FileNotFoundError):
        return "unknown"


def mb(n: Optional[int]) -> str:
    return "-" if n is None else f"{n / 1e6:.2f}"


def ratio(pred: Optional[int], meas: Optional[int]) -> Optional[float]:
    if pred is None or not meas:
        return None
    return pred / meas


def main() -> int:
    args = parse_args()
    SESSION.update(optimization=args.optimization, threads=args.threads)
    if args.binding == "python":
        BINDING["python"] = args.python or args.build / "peers" / "venv" / "bin" / "python"
        if not pathlib.Path(BINDING["python"]).exists():
            sys.exit(f"validate.py: {BINDING['python']} not found (make peers makes it, or say "
                     "--python)")
    # The profiles that model the session measured: ONNX Runtime's defaults (level all) or the
    # lab setting (graph optimisations off).
    # The Python binding at level all has its own pair (outputs not copied, a smaller session).
    unoptimized = args.optimization == "disabled"
    python = "-python" if args.binding == "python" and not unoptimized else ""
    if args.profile_no_arena is None:
        args.profile_no_arena = ("onnxruntime-cpu-unoptimized-no-arena" if unoptimized
                                 else f"onnxruntime-cpu{python}-no-arena")
    if args.profile_arena is None:
        args.profile_arena = ("onnxruntime-cpu-unoptimized" if unoptimized
                              else f"onnxruntime-cpu{python}")
    tools = Tools(args.build, args.cctx)
    models_dir = args.models or args.build / "validate" / "models"
    manifest = json.loads((models_dir / "manifest.json").read_text())
    profiles = {"no-arena": args.profile_no_arena, "arena": args.profile_arena}
    rows: List[dict] = []
    # measured: the heap (run_bytes, or arena_growth_bytes with the arena); tensors: the same for
    # ONNX Runtime's allocator alone (without node's buffers and the outputs' JS copies).
    header = (f"{'model':<22} {'size':<26} {'kind':<8} {'mode':<8} {'measured MB':>11} "
              f"{'predicted MB':>12} {'ratio':>6} {'hit':>3} {'tensors MB':>10}  "
              f"{'session MB':>10} {'pred MB':>8} {'ratio':>6}  peak node")
    print(header)
    print("-" * len(header))
    for model, size, kind, mode in points(manifest, args):
        path = models_dir / (model["symbolic"] if kind == "symbolic" else size["fixed"])
        symbols = size["symbols"] if kind == "symbolic" else {}
        row = {"model": model["name"], "family": model["family"], "size": size["label"],
               "kind": kind, "mode": mode, "profile": profiles[mode] or "default"}
        try:
            m = measure(tools, path, size["shapes"], mode, args.timeout)
            p = predict(tools, path, symbols, size["shapes"], profiles[mode])
            row["measured"] = m["run_bytes"] if mode == "no-arena" else m["arena_growth_bytes"]
            row["predicted"] = p["run_bytes"]
            row["tensors"] = (m["run_tensor_bytes"] if mode == "no-arena"
                              else m["arena_tensor_growth_bytes"])
            row["session_measured"] = m["session_bytes"]
            row["session_predicted"] = p["session_bytes"]
            row["ort"], row["cctx"] = m, p
            if args.per_node and mode == "no-arena":
                # Each node's output bytes as ONNX Runtime's profiler saw them in one run.
                nodes = per_node.compare(
                    per_node.ort_nodes(args.build, path, size["shapes"], args.timeout),
                    per_node.cctx_report(args.build, path, profiles[mode]), symbols, args.build)
                row["nodes_compared"], row["nodes_equal"] = nodes["compared"], nodes["equal"]
                row["node_mismatches"] = nodes["mismatches"]
        except (RuntimeError, subprocess.TimeoutExpired, json.JSONDecodeError, KeyError) as e:
            row["error"] = str(e).replace("\n", " ")
        r = ratio(row.get("predicted"), row.get("measured"))
        sr = ratio(row.get("session_predicted"), row.get("session_measured"))
        row["ratio"], row["session_ratio"] = r, sr
        row["hit"] = r is not None and abs(r - 1) <= TOLERANCE[mode]
        tr = ratio(row.get("predicted"), row.get("tensors"))
        row["tensor_ratio"] = tr
        row["tensor_hit"] = tr is not None and abs(tr - 1) <= TOLERANCE[mode]
        row["session_hit"] = sr is not None and abs(sr - 1) <= SESSION_TOLERANCE
        rows.append(row)
        if "error" in row:
            print(f"{row['model']:<22} {row['size']:<26} {kind:<8} {mode:<8} FAILED: "
                  f"{row['error'][:200]}", flush=True)
            continue
        tensors = row["tensors"]
        print(f"{row['model']:<22} {row['size']:<26} {kind:<8} {mode:<8} "
              f"{mb(row['measured']):>11} {mb(row['predicted']):>12} {r:>6.2f} "
              f"{'yes' if row['hit'] else 'no':>3} {mb(tensors):>10}  "
              f"{mb(row['session_measured']):>10} {mb(row['session_predicted']):>8} {sr:>6.2f}  "
              f"{p['peak_node'] or '-'}"
              + (f"  nodes {row['nodes_equal']}/{row['nodes_compared']}"
                 if "nodes_compared" in row else ""), flush=True)
        for mismatch in row.get("node_mismatches", [])[:5]:
            print(f"    per node: {mismatch}")
    summarize(rows, manifest)
    if args.history != "none":
        append_history(pathlib.Path(args.history), rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 1 if any("error" in r for r in rows) or not within_bands(rows, args) else 0


def within_bands(rows: List[dict], args: argparse.Namespace) -> bool:
    """The accuracy bands asked for on the command line; prints each one that fails."""
    ok = True
    for mode, least in (("no-arena", args.min_hits_no_arena), ("arena", args.min_hits_arena)):
        done = [r for r in rows if r["mode"] == mode and "error" not in r]
        if done and sum(r["hit"] for r in done) < least * len(done):
            print(f"band failed: {mode} {sum(r['hit'] for r in done)}/{len(done)} within "
                  f"tolerance, below {least:.0%}")
            ok = False
    if args.max_under is not None:
        for r in rows:
            if r.get("ratio") is not None and r["ratio"] < 1 - args.max_under:
                print(f"band failed: {r['model']} {r['size']} {r['mode']} predicted "
                      f"{r['ratio']:.2f}x the measure, more than {args.max_under:.0%} under")
                ok = False
    return ok


def summarize(rows: List[dict], manifest: dict) -> None:
    print()
    for mode in ("no-arena", "arena"):
        done = [r for r in rows if r["mode"] == mode and "error" not in r]
        if not done:
            continue
        parts = []
        for kind in ("symbolic", "fixed"):
            k = [r for r in done if r["kind"] == kind]
            if k:
                parts.append(f"{kind} {sum(r['hit'] for r in k)}/{len(k)}")
        hits = sum(r["hit"] for r in done)
        ratios = sorted(r["ratio"] for r in done)
        print(f"{mode} (profile {done[0]['profile']}): {hits}/{len(done)} points within "
              f"{TOLERANCE[mode]:.0%} ({hits / len(done):.0%}; {', '.join(parts)}); "
              f"ratio predicted/measured {ratios[0]:.2f} to {ratios[-1]:.2f}, "
              f"median {ratios[len(ratios) // 2]:.2f}")
        t_hits = sum(r["tensor_hit"] for r in done)
        print(f"  against ONNX Runtime's allocator alone (tensors MB, without node's copies of the "
              f"outputs): {t_hits}/{len(done)} within {TOLERANCE[mode]:.0%}")
    checked = [r for r in rows if "nodes_compared" in r]
    if checked:
        equal = sum(r["nodes_equal"] for r in checked)
        compared = sum(r["nodes_compared"] for r in checked)
        exact = sum(r["nodes_equal"] == r["nodes_compared"] for r in checked)
        print(f"per node (ONNX Runtime's profiler, no-arena points): {equal}/{compared} nodes' "
              f"output bytes equal; {exact}/{len(checked)} points with every node equal")
    done = [r for r in rows if "error" not in r]
    if done:
        s = sum(r["session_hit"] for r in done)
        print(f"session: {s}/{len(done)} points within {SESSION_TOLERANCE:.0%} "
              f"(predicted from {done[0]['cctx']['session_source']})")
        seed = sum(1 for r in done if r["profile"] != "default"
                   and r["cctx"]["run_source"] != "run_bytes")
        if seed:
            print(f"warning: {seed} points under a named profile had no run_bytes in the report; "
                  "they were predicted with the seed's accounting (peak - inputs - initializers)")
    failed = [r for r in rows if "error" in r]
    if failed:
        print(f"{len(failed)} points failed (listed above)")
    for f in manifest.get("failed", []):
        print(f"not exported: {f['name']}: {f['error'][:160]}")


def append_history(path: pathlib.Path, rows: List[dict]) -> None:
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    commit = git_commit()
    new = not path.exists()
    with path.open("a") as f:
        if new:
            f.write(HISTORY_HEADER)
        for r in rows:
            if "error" in r:
                continue
            f.write(f"{date}\t{commit}\t{r['model']}\t{r['size']}\t{r['kind']}\t{r['mode']}\t"
                    f"{r['profile']}\t{r['measured']}\t{r['predicted']}\t{r['tensors']}\n")


if __name__ == "__main__":
    sys.exit(main())
