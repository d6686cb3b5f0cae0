"""The figures of a peers run, summed up: per family and tool (shapes), per tool (memory), per
tool and model (time), and docs/peers.md written from them. Nothing is measured here: everything
comes from the rows peers.py collected (or an earlier run's JSON, --from-json).
"""
import math
import statistics

import compare

TOOLS = ["cctx", "onnx", "onnx-shape-inference", "ort-symbolic", "onnxslim", "onnx-tool",
         "onnxsim"]
SYMBOLIC_PEERS = ["onnx", "onnx-shape-inference", "ort-symbolic", "onnxslim"]
FAMILIES = ["repo", "npm", "torch", "onnx testdata", "decoders", "bench export"]
WHAT = {
    "cctx": "`cctx shapes` / `cctx analyze` (symbolic, evaluated at the point)",
    "onnx": "`onnx.shape_inference.infer_shapes(data_prop=True, strict_mode=False)` (symbolic)",
    "onnx-shape-inference": "`infer_symbolic_shapes` on an onnx-ir model (symbolic)",
    "ort-symbolic": "ONNX Runtime's `SymbolicShapeInference.infer_shapes(auto_merge=True)` (symbolic)",
    "onnxslim": "`onnxslim.core.shape_infer` (its symbolic engine, ONNX's when that throws)",
    "onnx-tool": "`Model.graph.shape_infer` + `profile` + `compress_memory` (inputs fixed at the point)",
    "onnxsim": "`simplify(overwrite_input_shapes=...)` (inputs fixed at the point; values it folds into initializers keep their shape, values it removes are absent)",
}


def summary_line(row):
    if "error" in row:
        return f"FAIL {row['name']}: {row['error']}"
    if "skipped" in row:
        return f"skip {row['name']}: {row['skipped']}"
    parts = []
    for p in row["points"]:
        if "counts" not in p:
            parts.append(f"{p['label']}: {p.get('error') or 'ORT: ' + p.get('ort_error', '?')}"[:90])
            continue
        eq = " ".join(f"{t}={p['counts'][t]['equal']}" for t in TOOLS if t in p["counts"])
        mem = p.get("memory", {})
        m = ""
        if mem.get("measured"):
            m = " mem " + " ".join(f"{t}={f / mem['measured']:.2f}" for t, f in mem["figures"].items()
                                   if f) + f" ({mem.get('closest')})"
        parts.append(f"{p['label']}: /{p['counts']['cctx']['values']} {eq}{m}")
    errs = ",".join(sorted(row.get("tool_errors", {})))
    return f"{row['name']} [{row['family']}] " + " | ".join(parts) + (f" errors: {errs}" if errs else "")


def summarise(data):
    rows = data["rows"]
    shapes = {f: {t: compare.new_counts() for t in TOOLS} for f in FAMILIES}
    crashes = {f: {t: 0 for t in TOOLS} for f in FAMILIES}
    models = {f: 0 for f in FAMILIES}
    gaps, wrong_cctx = [], []
    mem_points = {f: [] for f in FAMILIES}
    not_closest = []
    times = {f: {t: [] for t in TOOLS + ["floor", "cctx analyze"]} for f in FAMILIES}
    harness = []
    for r in rows:
        f = r["family"]
        models.setdefault(f, 0)
        models[f] += 1
        for t in r.get("tool_errors", {}):
            crashes.setdefault(f, {}).setdefault(t, 0)
            crashes[f][t] += 1
        if "error" in r and not r.get("tool_errors"):
            harness.append((r["name"], r["error"]))
        for t, tm in r.get("time", {}).items():
            if "error" not in tm and t in times.get(f, {}):
                times[f][t].append((tm["seconds"], tm["rss_mb"]))
        for p in r["points"]:
            if "error" in p:
                harness.append((f"{r['name']} {p['label']}", p["error"]))
            for t, c in p.get("counts", {}).items():
                compare.add_counts(shapes[f].setdefault(t, compare.new_counts()), c)
            for name, verdict, right in p.get("gaps", []):
                gaps.append((r["name"], p["label"], name, verdict, right))
            for w in p.get("wrong", {}).get("cctx", []):
                wrong_cctx.append((r["name"], p["label"], w))
            mem = p.get("memory")
            if mem and mem.get("measured"):
                pt = {"model": r["name"], "label": p["label"], "measured": mem["measured"],
                      "figures": {k: v for k, v in mem["figures"].items() if v}}
                mem_points[f].append(pt)
                c = compare.closest(pt["figures"], pt["measured"])
                if c is not None and c != "cctx":
                    not_closest.append(pt)
    causes, peer_wrong = {}, {}
    for r in rows:
        for t, e in r.get("tool_errors", {}).items():
            key = (t, e[:110])
            causes.setdefault(key, []).append(r["name"])
        for p in r["points"]:
            for t, ws in p.get("wrong", {}).items():
                if t != "cctx" and ws:
                    peer_wrong.setdefault((t, r["name"]), [0, ws[0]])[0] += len(ws)
    all_mem = [p for ps in mem_points.values() for p in ps]
    mem = {f: compare.memory_summary(ps) for f, ps in mem_points.items() if ps}
    mem["all"] = compare.memory_summary(all_mem)
    bench = {r["name"]: r.get("time_rounds", {}) for r in rows if r["family"] == "bench export"}
    return {"shapes": shapes, "crashes": crashes, "models": models, "gaps": gaps,
            "wrong_cctx": wrong_cctx, "memory": mem, "memory_points": all_mem,
            "not_closest": not_closest, "times": times, "bench": bench, "harness": harness,
            "causes": causes, "peer_wrong": peer_wrong,
            "paths": {r["name"]: r.get("path") for r in rows}}


def median(xs):
    return statistics.median(xs) if xs else None


def bench_ratios(rounds):
    """cctx's best time against the fastest symbolic peer's on one export."""
    ok = {t: v["seconds"] for t, v in rounds.items() if "error" not in v}
    peers = {t: ok[t] for t in SYMBOLIC_PEERS if t in ok}
    if not peers or "cctx" not in ok:
        return None
    fastest = min(peers, key=peers.get)
    return {"fastest": fastest, "fastest_s": peers[fastest], "cctx": ok["cctx"] / peers[fastest],
            "cctx analyze": ok.get("cctx analyze", math.nan) / peers[fastest]}


def text_summary(s):
    lines = ["shapes (equal/complete/values per family):"]
    for f in FAMILIES:
        if not s["models"].get(f):
            continue
        cells = [f"{t} {c['equal']}/{compare.complete(c)}/{c['values']} w{c['wrong']}"
                 for t, c in s["shapes"][f].items() if c["values"]]
        lines.append(f"  {f} ({s['models'][f]} models): " + "; ".join(cells))
    lines.append(f"values a peer gets right and cctx does not: {len(s['gaps'])}; "
                 f"cctx wrong: {len(s['wrong_cctx'])}")
    m = s["memory"].get("all", {})
    if m.get("_points"):
        lines.append(f"memory: {m['_points']} points, cctx closest on "
                     f"{m.get('cctx', {}).get('closest', 0)} ({m['_reference_closest_share']:.0%})")
    for name, rounds in s["bench"].items():
        b = bench_ratios(rounds)
        if b:
            lines.append(f"{name}: cctx shapes {b['cctx']:.3f}x, analyze {b['cctx analyze']:.3f}x "
                         f"the fastest symbolic peer ({b['fastest']}, {b['fastest_s']:.2f} s)")
    return "\n".join(lines)


def pct(a, b):
    return f"{a / b:.1%}" if b else "-"


def fmt_bytes(b):
    return f"{b:,}" if isinstance(b, int) else "-"


def markdown(data, s):
    v = data["versions"]
    out = ["# cctx and its peers, side by side",
           "",
           f"Generated by `make peers` (tests/peers/peers.py) on {data['date']}, cctx at "
           f"{v.get('commit')}, in {data.get('seconds', 0) / 60:.0f} minutes on this machine. Do "
           "not edit by hand: rerun instead (`make peers`, or `make peers PEERS_ARGS='--only "
           "repo_cnn,silero_vad_v5'` for a few models; tests/peers/README.md says what is "
           "compared and how).",
           "",
           "## The tools",
           "",
           "| tool | version | what runs |",
           "|---|---|---|",
           f"| cctx | {v.get('cctx')} | {WHAT['cctx']} |"]
    pkg = {"onnx": "onnx", "onnx-shape-inference": "onnx-shape-inference",
           "ort-symbolic": "onnxruntime", "onnxslim": "onnxslim", "onnx-tool": "onnx-tool",
           "onnxsim": "onnxsim"}
    for t in TOOLS[1:]:
        extra = f" (onnx-ir {v.get('onnx-ir')})" if t == "onnx-shape-inference" else ""
        out.append(f"| {t} | {pkg[t]} {v.get(pkg[t])}{extra} | {WHAT[t]} |")
    out += ["",
            f"Python {v.get('python')}, numpy {v.get('numpy')}, sympy {v.get('sympy')}. The "
            f"reference: ONNX Runtime {v.get('onnxruntime-node')} (onnxruntime-node, CPU, graph "
            "optimisation off), as in the real-model suite and `make validate`.",
            "",
            "Neither onnxsim nor onnxslim reports a memory footprint or an activation plan in "
            f"these versions (onnxslim {v.get('onnxslim')} prints the model's size and its "
            f"initializers'; onnxsim {v.get('onnxsim')} is the newest with a wheel for Python "
            "3.11, 0.8 ships sources only): they are compared on shapes and time, not memory.",
            "",
            ""]
    out += targets_section(s)
    out += ["## Shapes",
            "",
            "Every main-graph node output that ONNX Runtime returns at a point (the real-model "
            "suite's assignments; the decoders at check.py's points; the bench exports at two), "
            "counted once per point. **equal**: the tool's dims, evaluated at the point, are ONNX "
            "Runtime's; **complete**: the tool gives numbers (right or wrong); **wrong**: numbers "
            "that differ; **open**: a symbol left or no rank, where the size follows from the "
            "input shapes; **data**: a value whose size depends on the inputs' contents, left "
            "open or given an upper bound; **absent**: the tool lists no such value (removed "
            "by a simplifier, or the tool failed on the model). **failed**: models the tool "
            "crashed on or refused.",
            ""]
    for f in FAMILIES:
        if not s["models"].get(f):
            continue
        out += [f"### {f} ({s['models'][f]} models)", "",
                "| tool | values | equal | complete | wrong | open | data | absent | failed |",
                "|---|---|---|---|---|---|---|---|---|"]
        for t in TOOLS:
            c = s["shapes"][f].get(t)
            if not c or not c["values"]:
                continue
            out.append(f"| {t} | {c['values']} | {c['equal']} ({pct(c['equal'], c['values'])}) | "
                       f"{compare.complete(c)} ({pct(compare.complete(c), c['values'])}) | "
                       f"{c['wrong']} | {c['unresolved']} | {c['data-dependent']} | "
                       f"{c['absent']} | {s['crashes'].get(f, {}).get(t, 0)} |")
        out.append("")
    out += gap_section(s)
    out += peers_section(s)
    out += memory_section(data, s)
    out += time_section(data, s)
    out += ["## Rerunning", "",
            "```sh",
            "make peers                                  # everything: installs the pinned peers into build/peers/venv",
            "make peers PEERS_ARGS='--only repo_cnn,decoder_torch-kv --no-memory'",
            "make peers PEERS_ARGS='--scale 10000,100000'  # the 100k-node export too",
            "build/peers/venv/bin/python tests/peers/peers.py --build build --from-json build/peers/results.json --doc docs/peers.md",
            "# cctx's memory figures again (a profile changed), ONNX Runtime's measurements kept:",
            "build/peers/venv/bin/python tests/peers/peers.py --build build --from-json build/peers/results.json --refigure --doc docs/peers.md",
            "```", ""]
    return "\n".join(out)


def targets_section(s):
    """The issue's targets, one line each, met or not."""
    out = ["## The targets", "",
           "| target | family | cctx | best peer | met |", "|---|---|---|---|---|"]
    for f in FAMILIES:
        c = s["shapes"].get(f, {})
        if not s["models"].get(f) or not c.get("cctx", {}).get("values"):
            continue
        peers = {t: x for t, x in c.items() if t != "cctx" and x["values"]}
        if not peers:
            continue
        for what, key in (("values resolved (complete)", compare.complete),
                          ("values equal to ONNX Runtime's", lambda x: x["equal"])):
            best = max(peers, key=lambda t: key(peers[t]))
            mine, theirs = key(c["cctx"]), key(peers[best])
            out.append(f"| {what} >= best peer | {f} | {mine} | {theirs} ({best}) | "
                       f"{'yes' if mine >= theirs else '**no**'} |")
    kinds = {}
    for g in s["gaps"]:
        kinds[g[3]] = kinds.get(g[3], 0) + 1
    wrong_where_right = kinds.get(compare.WRONG, 0)
    out.append(f"| never wrong where a peer is right | all | {wrong_where_right} value-points wrong "
               f"where a peer is right ({len(s['gaps'])} not equal where a peer is) | - | "
               f"{'yes' if not wrong_where_right else '**no**'} |")
    m = s["memory"].get("all", {})
    if m.get("_points"):
        share = m["_reference_closest_share"]
        out.append(f"| memory figure closest to ONNX Runtime's on >= 90% of points | all | "
                   f"{m.get('cctx', {}).get('closest', 0)} of {m['_points']} ({share:.0%}) | - | "
                   f"{'yes' if share >= 0.9 else '**no**'} |")
    # The target is on the 10k-node export; larger ones are measured, not held to it.
    for name, rounds in sorted(s["bench"].items()):
        b = bench_ratios(rounds)
        if b and name == "bench_export_10k":
            out.append(f"| time <= 0.3x the fastest symbolic peer | {name} | {b['cctx']:.3f}x "
                       f"(`cctx shapes`), {b['cctx analyze']:.3f}x (`cctx analyze`) | "
                       f"{b['fastest_s']:.3f} s ({b['fastest']}) | "
                       f"{'yes' if b['cctx'] <= 0.3 else '**no**'} |")
    return out + [""]


def gap_section(s):
    out = ["### Where a peer is right and cctx is not", ""]
    if not s["gaps"]:
        out += ["Nowhere: at every point, every value some peer gets right, cctx gets right too.", ""]
    else:
        by_kind = {}
        for g in s["gaps"]:
            by_kind.setdefault(g[3], []).append(g)
        out.append(f"{len(s['gaps'])} value-points ("
                   + ", ".join(f"cctx {k}: {len(v)}" for k, v in sorted(by_kind.items()))
                   + "). By model (first values):")
        out.append("")
        per_model = {}
        for model, label, name, verdict, right in s["gaps"]:
            per_model.setdefault(model, []).append((label, name, verdict, right))
        for model, items in sorted(per_model.items()):
            names = sorted({f"`{n}` ({vd}; right: {', '.join(r)})" for _, n, vd, r in items})
            out.append(f"- {model}: {len(items)} at {len({i[0] for i in items})} points: "
                       + "; ".join(names[:4]) + (" ..." if len(names) > 4 else ""))
        out.append("")
    if s["wrong_cctx"]:
        out += [f"cctx gives wrong numbers for {len(s['wrong_cctx'])} value-points:", ""]
        for model, label, w in s["wrong_cctx"][:30]:
            out.append(f"- {model} {label}: `{w['value']}` cctx {w['tool']}, ONNX Runtime {w['ort']}")
        out.append("")
    if s["harness"]:
        out += [f"Points the harness could not run ({len(s['harness'])}; not counted above):", ""]
        for name, err in s["harness"][:20]:
            out.append(f"- {name}: {err[:160]}")
        out.append("")
    return out


def peers_section(s):
    out = ["### What the peers get wrong, and where they fail", "",
           "A peer's symbolic text is evaluated as written, with the usual precedence (`a + 1/2` "
           "is a + 0.5); a declared shape a peer keeps (a graph output's or value_info's) is "
           "its answer. Wrong values per peer and model (count over points, one example):", ""]
    if s["peer_wrong"]:
        out += ["| peer | model | wrong | example: value, peer, ONNX Runtime |", "|---|---|---|---|"]
        for (t, model), (n, w) in sorted(s["peer_wrong"].items(), key=lambda kv: -kv[1][0])[:30]:
            out.append(f"| {t} | {model} | {n} | `{w['value']}`: {w['tool']} vs {w['ort']} |")
        out.append("")
    out += ["Failures and refusals (models; the message's last line):", "",
            "| tool | models | message | e.g. |", "|---|---|---|---|"]
    for (t, msg), names in sorted(s["causes"].items(), key=lambda kv: (kv[0][0], -len(kv[1]))):
        clean = msg.replace("|", "/").replace("`", "'")
        out.append(f"| {t} | {len(names)} | {clean}{opsets(s, names, msg)} | {names[0]} |")
    return out + [""]


def opsets(s, names, msg):
    """The ai.onnx opsets of the models a tool returned nothing for (ONNX Runtime's symbolic
    inference returns None below opset 7, and onnxslim's entry then fails on None)."""
    if "returned nothing" not in msg and "'NoneType' object has no attribute 'graph'" not in msg:
        return ""
    try:
        import onnx
    except ImportError:
        return ""
    found = set()
    for n in names:
        path = s["paths"].get(n)
        try:
            m = onnx.load(path, load_external_data=False)
            found |= {o.version for o in m.opset_import if o.domain in ("", "ai.onnx")}
        except Exception:  # noqa: BLE001 -- a hint only
            continue
    return f" (the models' opsets: {', '.join(map(str, sorted(found)))})" if found else ""


def memory_section(data, s):
    out = ["## Memory figures", "",
           "ONNX Runtime's heap during one run (no arena, no memory pattern; `make validate`'s "
           "allocation counter under run_ort.mjs: the peak during the third run above the heap "
           "held before it, the inputs being held by the caller) against each tool's figure for "
           "it: cctx's `run_bytes` (`cctx analyze --profile onnxruntime-cpu-unoptimized-no-arena --eval "
           "...`), onnx-tool's `compress_memory` plan minus the graph inputs (**onnx-tool plan**) "
           "and the sum of its per-node memory column minus the weights (**onnx-tool sum**: every "
           "activation, no reuse). Every point of every model with a symbolic input or an npm "
           "model, the decoders and the bench exports; ONNX's test data (a few hundred bytes "
           "per run, below the runtime's own noise) is left out. Closest: the smallest |log "
           "ratio|.", ""]
    if data.get("refigured"):
        rv = data["refigured"]["versions"]
        out += [f"cctx's figures were computed again on {data['refigured']['date']} "
                f"(`--refigure`: the repository at {rv.get('commit')}, cctx as built then), "
                "against the same measurements.", ""]
    m = s["memory"]
    if not m.get("all", {}).get("_points"):
        return out + ["No point was measured.", ""]
    out += ["| family | points | tool | median ratio | range | within 10% | closest |",
            "|---|---|---|---|---|---|---|"]
    for f in FAMILIES + ["all"]:
        if f not in m:
            continue
        for t, x in m[f].items():
            if t.startswith("_") or not x["points"]:
                continue
            out.append(f"| {f} | {m[f]['_points']} | {t} | {x['median']:.3f} | {x['min']:.3f} to "
                       f"{x['max']:.3f} | {x['within10']} | {x['closest']} |")
    share = m["all"]["_reference_closest_share"]
    out += ["", f"cctx is the closest on {m['all'].get('cctx', {}).get('closest', 0)} of "
            f"{m['all']['_points']} points ({share:.0%}; target: 90%).", ""]
    if s["not_closest"]:
        out += ["Points where another figure is closer:", "",
                "| model | point | measured | " + " | ".join(["cctx", "onnx-tool plan", "onnx-tool sum"]) + " |",
                "|---|---|---|---|---|---|"]
        for p in s["not_closest"][:40]:
            cells = [f"{p['figures'][t] / p['measured']:.3f}" if p["figures"].get(t) else "-"
                     for t in ["cctx", "onnx-tool plan", "onnx-tool sum"]]
            out.append(f"| {p['model']} | {p['label']} | {fmt_bytes(p['measured'])} | "
                       + " | ".join(cells) + " |")
        out.append("")
    return out


def time_section(data, s):
    out = ["## Time and peak RSS of the tools", "",
           "Whole process (wall clock around the child: interpreter, imports, load, inference, "
           "writing the result), each tool in turn on each model. **floor**: a fresh Python "
           "process that imports onnx and parses the structure (`onnx.load(..., "
           "load_external_data=False)`); `bench_load_floor`'s in-process parse of the same "
           "file is in the JSON results (`load_floor_s`). `cctx` is `cctx shapes --format json`, "
           "`cctx analyze` the whole analysis to JSON. The concrete tools' time is their first "
           "point's. Peak RSS is GNU time's `%M` of the tool's process.", ""]
    if data.get("retimed"):
        rv = data["retimed"]["versions"]
        out += [f"Time and RSS were measured again on {data['retimed']['date']} (`--retime`: the "
                "first run's RSS figures carried the driver's own RSS across exec), the "
                f"repository at {rv.get('commit')} and cctx as built in the tree then, which may "
                "hold uncommitted work (the shapes and memory figures above: "
                f"{data['versions'].get('commit')}).", ""]
    for name, rounds in sorted(s["bench"].items()):
        if not rounds:
            continue
        row = next((r for r in data["rows"] if r["name"] == name), {})
        count = row.get("rounds", data["args"].get("rounds", "?"))
        where = row.get("timed_while", "alone on the machine")
        out += [f"### {name} ({row.get('nodes', '?')} nodes), best of {count} interleaved "
                f"round{'s' if str(count) != '1' else ''}, {where}", "",
                "| tool | seconds | peak RSS MB | / fastest symbolic peer |", "|---|---|---|---|"]
        b = bench_ratios(rounds)
        for t in ["floor", "cctx", "cctx analyze"] + TOOLS[1:]:
            x = rounds.get(t)
            if not x:
                continue
            if "error" in x:
                out.append(f"| {t} | failed: {x['error'][:80]} | - | - |")
                continue
            r = f"{x['seconds'] / b['fastest_s']:.3f}" if b else "-"
            out.append(f"| {t} | {x['seconds']:.3f} | {x['rss_mb']:.0f} | {r} |")
        if b:
            target = " (target: 0.3x)" if name == "bench_export_10k" else ""
            out += ["", f"cctx: {b['cctx']:.3f}x the fastest symbolic peer ({b['fastest']}) with "
                    f"`cctx shapes`, {b['cctx analyze']:.3f}x with `cctx analyze`{target}.", ""]
    out += ["### Median per model, by family", "",
            "(models run two at a time on two cores, on a machine that may be busy with "
            "other work, so these are comparable within a row, not with the table above)", "",
            "| family | " + " | ".join(["floor", "cctx", "cctx analyze"] + TOOLS[1:]) + " |",
            "|---|" + "---|" * (len(TOOLS) + 2)]
    for f in FAMILIES:
        if f == "bench export" or not s["models"].get(f):
            continue
        cells = []
        for t in ["floor", "cctx", "cctx analyze"] + TOOLS[1:]:
            xs = s["times"][f].get(t, [])
            cells.append(f"{median([x[0] for x in xs]):.2f} s, {median([x[1] for x in xs]):.0f} MB"
                         if xs else "-")
        out.append(f"| {f} | " + " | ".join(cells) + " |")
    out.append("")
    return out


HISTORY_HEADER = ("date\tcommit\tmodels\tvalues\tcctx_equal\tbest_peer\tbest_peer_equal\tgaps\t"
                  "cctx_wrong\tmemory_points\tcctx_closest\texport_10k_ratio\tfastest_peer\n")


def append_history(path, data, s):
    """One line per run: the headline figures (tests/bench/history.csv's columns are the
    pipeline benchmark's and do not fit)."""
    tot = {t: compare.new_counts() for t in TOOLS}
    for f in s["shapes"].values():
        for t, c in f.items():
            compare.add_counts(tot.setdefault(t, compare.new_counts()), c)
    best = max((t for t in TOOLS[1:]), key=lambda t: tot[t]["equal"])
    m = s["memory"].get("all", {})
    b = bench_ratios(s["bench"].get("bench_export_10k", {})) or {}
    new = not path.exists()
    with open(path, "a") as f:
        if new:
            f.write(HISTORY_HEADER)
        f.write("\t".join(str(x) for x in [
            data["date"], data["versions"].get("commit"), len(data["rows"]),
            tot["cctx"]["values"], tot["cctx"]["equal"], best, tot[best]["equal"],
            len(s["gaps"]), len(s["wrong_cctx"]), m.get("_points", 0),
            m.get("cctx", {}).get("closest", 0),
            f"{b['cctx']:.4f}" if b else "-", b.get("fastest", "-")]) + "\n")
