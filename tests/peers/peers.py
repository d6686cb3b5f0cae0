"""cctx side by side with the tools people would otherwise pick (issue 44): shapes, memory figures,
time and peak RSS, on the same models at the same points, in one run. `make peers` runs it with
the peers installed in BUILD/peers/venv; README.md here says what is compared.

    BUILD/peers/venv/bin/python tests/peers/peers.py --build BUILD [--doc docs/peers.md]
        [--only NAME,...] [--sources repo,torch,npm,testdata,decoders,bench]
        [--scale 10000[,100000]] [--rounds 3] [--jobs 2] [--json OUT] [--no-memory]

The work is split by purpose: models.py (which models, which points: the suites' own),
tools.py (one peer on one model, in a process of its own), timing.py (whole-process time and
RSS), compare.py (verdicts, ratios, counts: pure functions, unit-tested), doc.py (the page),
runtime.py (a snapshot of cctx's runtime, since the build tree may be rebuilt during a run).
This file runs them in order and keeps the results.
"""
import argparse
import concurrent.futures
import datetime
import json
import os
import pathlib
import re
import subprocess
import sys
import threading

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "tests" / "validate"))
import compare  # noqa: E402
import models as catalog_mod  # noqa: E402
import runtime as runtime_mod  # noqa: E402
import timing  # noqa: E402
import tools as tools_mod  # noqa: E402

suite = catalog_mod.suite
SYMBOLIC = ["onnx", "onnx-shape-inference", "ort-symbolic", "onnxslim"]
CONCRETE = list(tools_mod.CONCRETE)
PEERS = SYMBOLIC + CONCRETE
PROFILE = "onnxruntime-cpu-unoptimized-no-arena"
PRINT_LOCK = threading.Lock()


def say(text):
    with PRINT_LOCK:
        print(text, flush=True)


def safe(name):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


class Context:
    def __init__(self, args, runtime):
        self.args = args
        self.runtime = runtime
        self.cctx = runtime / "bin" / "cctx"
        self.python = sys.executable
        self.work = args.build / "peers" / "work"
        self.vtools = None
        if not args.no_memory:
            import validate  # tests/validate/validate.py: make validate's heap measurement
            self.vtools = validate.Tools(runtime, self.cctx)
            self.validate = validate


def tool_cmd(ctx, tool, path, out, feeds=None):
    cmd = [ctx.python, HERE / "tools.py", tool, path, out]
    return cmd + ([feeds] if feeds else [])


def run_tool(ctx, tool, path, mwork, tag, feeds_path=None, timeout=None):
    """({name: dims} or None, timing dict, extra result keys) of one tool child."""
    out = mwork / f"{safe(tool)}{tag}.json"
    t = timing.run(tool_cmd(ctx, tool, path, out, feeds_path), out.with_suffix(".stdout"),
                   timeout or ctx.args.timeout)
    if t["rc"] != 0 or not out.exists():
        last = (t["stderr"].splitlines() or ["killed at the timeout" if t["rc"] == -9 else
                                             f"exit {t['rc']}"])[-1]
        t["error"] = last[:240]
        return None, t, {}
    result = json.loads(out.read_text())
    out.unlink()
    out.with_suffix(".stdout").unlink(missing_ok=True)
    return result.pop("values"), t, result


def cctx_timed(ctx, args, out, timeout=None):
    t = timing.run([ctx.cctx, *args], out, timeout or ctx.args.timeout)
    if t["rc"] != 0:
        t["error"] = (t["stderr"].splitlines() or [f"exit {t['rc']}"])[-1][:240]
    return t


def tool_feeds(a, feeds, proto):
    """The concrete tools' inputs of one point (tools.py's FEEDS.json)."""
    if "testdata" in a:
        inits = {i.name for i in proto.graph.initializer}
        names = [i.name for i in proto.graph.input if i.name not in inits]
        folder = pathlib.Path(a["testdata"])
        return {n: {"pb": str(folder / f"input_{k}.pb")} for k, n in enumerate(names)
                if (folder / f"input_{k}.pb").exists()}
    return {n: (f if isinstance(f, dict) else {"shape": f}) for n, f in feeds.items()}


def cctx_run_bytes(ctx, path, report, symbols, mwork):
    """cctx's run_bytes under the no-arena ONNX Runtime profile at the point."""
    known = {s["name"] for s in report.get("symbols", [])}
    cmd = ["analyze", path, "--profile", PROFILE, "--format", "json", "-q"]
    for k, v in sorted(symbols.items()):
        if k in known:
            cmd += ["--eval", f"{k}={v}"]
            if v < 1:  # cctx's default bounds start at 1; a prefill's past is 0
                cmd += ["--bounds", f"{k}={v}:inf"]
    out = mwork / "cctx_memory.json"
    t = cctx_timed(ctx, cmd, out)
    if "error" in t:
        return None, t["error"]
    peak = json.loads(out.read_text())["peak"]
    evs = peak.get("evaluations") or []
    value = evs[0].get("run_bytes") if evs else peak.get("run_bytes")
    return (value if isinstance(value, int) else None), None


def cctx_evaluator(ev):
    def evaluate(dim, symbols):
        value, missing = ev(dim, symbols)
        if value is None:
            raise compare.Unknown(str(missing))
        return int(value)
    return evaluate


def load_floor(ctx, path):
    exe = ctx.runtime / "bin" / "bench_load_floor"
    if not exe.exists():
        return None
    p = subprocess.run([str(exe), "--rounds", "3", str(path)], capture_output=True, text=True)
    try:
        return json.loads(p.stdout.strip().splitlines()[-1])["parse_s"]
    except (IndexError, ValueError, KeyError):
        return None


def run_model(ctx, m):
    import onnx
    row = {"name": m["name"], "family": m["family"], "path": str(m["path"]), "time": {},
           "tool_errors": {}, "points": []}
    mwork = ctx.work / "models" / safe(m["name"])
    mwork.mkdir(parents=True, exist_ok=True)
    path = m["path"]
    # Time and RSS: every tool once on the model, interleaved (floor, cctx, peers in turn).
    row["time"]["floor"] = run_tool(ctx, "floor", path, mwork, "")[1]
    row["time"]["cctx"] = cctx_timed(ctx, ["shapes", path, "--format", "json", "-q"],
                                     mwork / "cctx_shapes.json")
    t = cctx_timed(ctx, ["analyze", path, "--format", "json", "-q"], mwork / "cctx.json")
    row["time"]["cctx analyze"] = t
    row["load_floor_s"] = load_floor(ctx, path)
    values = {}
    extras = {}
    for tool in SYMBOLIC:
        values[tool], row["time"][tool], extras[tool] = run_tool(ctx, tool, path, mwork, "")
        if values[tool] is None:
            row["tool_errors"][tool] = row["time"][tool]["error"]
    if "error" in t:
        row["error"] = f"cctx: {t['error']}"
        row["tool_errors"]["cctx"] = t["error"]
        return row
    report = json.loads((mwork / "cctx.json").read_text())
    row["nodes"] = len(report["nodes"])
    values["cctx"] = {n: v.get("shape") for n, v in report["values"].items()}
    ev = suite.Evaluator(ctx.runtime)
    ev.know(report)
    proto = onnx.load(str(path))
    inits = {i.name for i in proto.graph.initializer}
    if any(i.type.WhichOneof("value") != "tensor_type" for i in proto.graph.input
           if i.name not in inits):
        row["skipped"] = "a graph input is a sequence or an optional: ONNX Runtime's node API feeds tensors only"
        return row
    data_dims = suite.shape_depends_on_data(proto)
    all_path = mwork / "all_outputs.onnx"
    names = suite.tensor_outputs_model(proto, all_path, report)
    names += [o for o in (out for n in report["nodes"] for out in n["outputs"])
              if o and report["values"].get(o, {}).get("kind") == "output"]
    row["values"] = len(names)
    evaluators = {"cctx": cctx_evaluator(ev)}
    for k, a in enumerate(m["assignments"]):
        point = {"label": a["label"]}
        row["points"].append(point)
        try:
            symbols, feeds, shapes = suite.resolve_assignment(a, report, proto, ev)
        except Exception as e:  # noqa: BLE001 -- an assignment the harness cannot make
            point["error"] = f"assignment: {e}"[:240]
            continue
        point["symbols"] = symbols
        try:
            ort = suite.ort_values(ctx.runtime, all_path, feeds)
        except Exception as e:  # noqa: BLE001
            point["error"] = f"ONNX Runtime harness: {e}"[:240]
            continue
        if "error" in ort:
            point["ort_error"] = ort["error"][:240]
            continue
        ort_dims = {n: ort["values"][n]["dims"] for n in names if n in ort["values"]}
        # A tool that failed on the model gives no value: all count as absent (its failure is
        # counted once per model in tool_errors too).
        point_values = {t: (v if v is not None else {}) for t, v in values.items()}
        fpath = mwork / f"feeds{k}.json"
        fpath.write_text(json.dumps(tool_feeds(a, feeds, proto)))
        point_extras = {}
        for tool in CONCRETE:
            v, t, extra = run_tool(ctx, tool, path, mwork, f"_{k}", fpath)
            point_values[tool], point_extras[tool] = (v if v is not None else {}), extra
            if k == 0:
                row["time"][tool] = t
            if v is None:
                point.setdefault("tool_errors", {})[tool] = t["error"]
                row["tool_errors"].setdefault(tool, t["error"])
        counts, wrong, verdicts = compare.compare_point(ort_dims, point_values, symbols,
                                                        data_dims, evaluators)
        point["counts"] = counts
        point["wrong"] = {t: w[:20] for t, w in wrong.items() if w}
        point["gaps"] = compare.gaps(verdicts)[:40]
        point["unresolved_cctx"] = [n for n, by in verdicts.items()
                                    if by.get("cctx") == compare.UNRESOLVED][:20]
        if ctx.vtools is not None and m["family"] != "onnx testdata":
            point["memory"] = memory_point(ctx, m, path, report, symbols, feeds, mwork,
                                           point_extras.get("onnx-tool") or {})
    all_path.unlink(missing_ok=True)
    return row


def memory_point(ctx, m, path, report, symbols, feeds, mwork, onnx_tool):
    """ONNX Runtime's measured run heap (validate.py's run_ort.mjs under the allocation counter,
    no arena) and each tool's figure for it."""
    res = {"figures": {}}
    try:
        measured = ctx.validate.measure(ctx.vtools, path, feeds, "no-arena", ctx.args.timeout)
        res["measured"] = measured["run_bytes"]
    except Exception as e:  # noqa: BLE001
        res["error"] = f"measure: {e}"[:240]
        return res
    value, err = cctx_run_bytes(ctx, path, report, symbols, mwork)
    res["figures"]["cctx"] = value
    if err:
        res["cctx_error"] = err
    if "memory_plan" in onnx_tool:
        # Its plan holds the graph inputs too, which the caller holds before a run.
        res["figures"]["onnx-tool plan"] = onnx_tool["memory_plan"] - onnx_tool["input_bytes"]
    if "memory_sum" in onnx_tool:
        # The sum of its per-node column without the weights: every activation, no reuse.
        res["figures"]["onnx-tool sum"] = onnx_tool["memory_sum"] - onnx_tool["params_bytes"]
    res["closest"] = compare.closest(res["figures"], res.get("measured"))
    return res


def time_rounds(ctx, m, rounds):
    """The tools again on one model, `rounds` times in turn, alone on the machine: best time and
    its RSS per tool (the VM's speed drifts; the best of interleaved rounds compares like with
    like)."""
    mwork = ctx.work / "models" / safe(m["name"])
    path = m["path"]
    best = {}
    feeds_path = mwork / "feeds0.json"
    for _ in range(rounds):
        runs = {"floor": run_tool(ctx, "floor", path, mwork, "_t")[1],
                "cctx": cctx_timed(ctx, ["shapes", path, "--format", "json", "-q"],
                                   mwork / "cctx_t.json"),
                "cctx analyze": cctx_timed(ctx, ["analyze", path, "--format", "json", "-q"],
                                           mwork / "cctx_t.json")}
        for tool in SYMBOLIC:
            runs[tool] = run_tool(ctx, tool, path, mwork, "_t")[1]
        if feeds_path.exists():
            for tool in CONCRETE:
                runs[tool] = run_tool(ctx, tool, path, mwork, "_t", feeds_path)[1]
        for tool, t in runs.items():
            if "error" in t:
                best.setdefault(tool, t)
            elif tool not in best or "error" in best[tool] or t["seconds"] < best[tool]["seconds"]:
                best[tool] = t
    return best


def versions(ctx):
    code = ("import importlib.metadata as m, json, sys\n"
            "out = {'python': sys.version.split()[0]}\n"
            "for p in ['onnx', 'onnxruntime', 'onnx-shape-inference', 'onnx-ir', 'onnx-tool', "
            "'onnxsim', 'onnxslim', 'numpy', 'sympy']:\n"
            "    try: out[p] = m.version(p)\n"
            "    except Exception: out[p] = None\n"
            "print(json.dumps(out))")
    out = json.loads(subprocess.run([ctx.python, "-c", code], capture_output=True, text=True,
                                    check=True).stdout)
    out["cctx"] = subprocess.run([str(ctx.cctx), "--version"], capture_output=True,
                                 text=True).stdout.strip()
    pkg = ctx.runtime / "validate" / "node_modules" / "onnxruntime-node" / "package.json"
    out["onnxruntime-node"] = json.loads(pkg.read_text())["version"] if pkg.exists() else None
    out["commit"] = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                                   capture_output=True, text=True).stdout.strip()
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", type=pathlib.Path, default=REPO / "build")
    p.add_argument("--doc", type=pathlib.Path)
    p.add_argument("--json", type=pathlib.Path, help="default: BUILD/peers/results.json")
    p.add_argument("--from-json", help="write the doc from earlier runs' results (A[,B...])")
    p.add_argument("--only", default="")
    p.add_argument("--sources", default="repo,torch,npm,testdata,decoders,bench")
    p.add_argument("--scale", default="10000", help="bench_pipeline_scale exports (node counts)")
    p.add_argument("--rounds", type=int, default=3, help="timing rounds on the bench exports")
    p.add_argument("--jobs", type=int, default=2, help="models at a time (not the bench exports)")
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--no-memory", action="store_true", help="skip ONNX Runtime's heap")
    p.add_argument("--retime", action="store_true",
                   help="with --from-json: measure time and RSS again, keep the rest")
    p.add_argument("--history", type=pathlib.Path, default=HERE / "history.tsv",
                   help="append one line per run ('none' to skip)")
    p.add_argument("--refigure", action="store_true",
                   help="with --from-json: cctx's memory figures again from the build tree, "
                        "ONNX Runtime's measured heap and the peers' figures kept")
    args = p.parse_args()
    args.build = args.build.resolve()
    out_json = args.json or args.build / "peers" / "results.json"
    import doc
    if args.from_json:
        # Several runs' results (A,B: e.g. the 100k export run on its own) make one page: the
        # first run's date and versions, every run's rows.
        files = [pathlib.Path(f) for f in str(args.from_json).split(",")]
        data = json.loads(files[0].read_text())
        for f in files[1:]:
            more = json.loads(f.read_text())
            data["rows"] += more["rows"]
            data["seconds"] = data.get("seconds", 0) + more.get("seconds", 0)
    else:
        # The snapshot already there when it is whole (the tree may be mid-rebuild now).
        runtime = args.build / "peers" / "runtime"
        if not (runtime / "bin" / "cctx").exists():
            runtime = runtime_mod.snapshot(args.build, runtime)
        ctx = Context(args, runtime)
        scale = [int(x) for x in args.scale.split(",") if x]
        ms = catalog_mod.catalog(args.build, runtime, ctx.work, args.sources.split(","), scale)
        if args.only:
            wanted = set(args.only.split(","))
            ms = [m for m in ms if m["name"] in wanted]
        started = datetime.datetime.now(datetime.timezone.utc)
        data = {"date": started.strftime("%Y-%m-%d %H:%M UTC"), "versions": versions(ctx),
                "args": {k: str(v) for k, v in vars(args).items()}, "rows": []}
        say(f"peers: {len(ms)} models, versions {data['versions']}")
        ordinary = [m for m in ms if m["family"] != "bench export"]
        big = [m for m in ms if m["family"] == "bench export"]
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            for row in pool.map(lambda m: safe_run(ctx, m), ordinary):
                data["rows"].append(row)
                say(doc.summary_line(row))
        for m in big:  # alone, then timed again in rounds
            row = safe_run(ctx, m)
            row["time_rounds"] = time_rounds(ctx, m, args.rounds)
            row["rounds"] = args.rounds
            data["rows"].append(row)
            say(doc.summary_line(row))
        data["seconds"] = (datetime.datetime.now(datetime.timezone.utc) - started).total_seconds()
        out_json.parent.mkdir(parents=True, exist_ok=True)
        out_json.write_text(json.dumps(data, indent=1, default=str) + "\n")
    if args.retime:
        # Time and RSS again for the rows of --from-json, everything else kept (a run whose
        # time figures need measuring again without repeating ONNX Runtime's runs).
        runtime = runtime_mod.snapshot(args.build, args.build / "peers" / "runtime")
        ctx = Context(args, runtime)
        scale = [int(x) for x in args.scale.split(",") if x]
        ms = {m["name"]: m for m in catalog_mod.catalog(args.build, runtime, ctx.work,
                                                        args.sources.split(","), scale)}
        rows = [r for r in data["rows"] if r["name"] in ms]
        ordinary = [r for r in rows if r["family"] != "bench export"]

        def again(r):
            r["time"] = time_rounds(ctx, ms[r["name"]], 1)
            return r
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            for r in pool.map(again, ordinary):
                say(f"retimed {r['name']}")
        for r in rows:
            if r["family"] == "bench export":
                r["time_rounds"] = time_rounds(ctx, ms[r["name"]], args.rounds)
                say(f"retimed {r['name']} ({args.rounds} rounds)")
        data["retimed"] = {"date": datetime.datetime.now(datetime.timezone.utc).strftime(
            "%Y-%m-%d %H:%M UTC"), "versions": versions(ctx)}
        out_json.write_text(json.dumps(data, indent=1, default=str) + "\n")
    if args.refigure:
        refigure(args, data)
        out_json.write_text(json.dumps(data, indent=1, default=str) + "\n")
    summary = doc.summarise(data)
    print(doc.text_summary(summary))
    if args.doc:
        args.doc.write_text(doc.markdown(data, summary))
    if str(args.history) != "none" and not args.from_json and not args.only:  # once per run
        doc.append_history(args.history, data, summary)
    return 0


def refigure(args, data):
    """cctx's run_bytes again at every measured memory point of `data` (a profile change needs
    no new ONNX Runtime runs: the runtime, its settings and the models are the same). The run's
    date stays; data["refigured"] says when and with which cctx."""
    runtime = runtime_mod.snapshot(args.build, args.build / "peers" / "runtime")
    args.no_memory = True
    ctx = Context(args, runtime)
    for row in data["rows"]:
        points = [p for p in row.get("points", []) if "measured" in p.get("memory", {})]
        if not points:
            continue
        mwork = ctx.work / "models" / safe(row["name"])
        mwork.mkdir(parents=True, exist_ok=True)
        report_path = mwork / "cctx_refigure.json"
        t = cctx_timed(ctx, ["analyze", row["path"], "--format", "json", "-q"], report_path)
        report = json.loads(report_path.read_text()) if "error" not in t else {}
        for point in points:
            mem = point["memory"]
            value, err = cctx_run_bytes(ctx, row["path"], report, point["symbols"], mwork)
            mem["figures"]["cctx"] = value
            mem.pop("cctx_error", None)
            if err:
                mem["cctx_error"] = err
            mem["closest"] = compare.closest(mem["figures"], mem.get("measured"))
        say(f"refigured {row['name']}")
    data["refigured"] = {"date": datetime.datetime.now(datetime.timezone.utc).strftime(
        "%Y-%m-%d %H:%M UTC"), "versions": versions(ctx)}


def safe_run(ctx, m):
    try:
        return run_model(ctx, m)
    except Exception as e:  # noqa: BLE001 -- one model's harness failure is reported, not fatal
        return {"name": m["name"], "family": m["family"], "path": str(m["path"]),
                "error": f"harness: {type(e).__name__}: {e}"[:300], "time": {},
                "tool_errors": {}, "points": []}


if __name__ == "__main__":
    sys.exit(main())
