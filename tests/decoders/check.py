"""Check cctx on the decoders of tests/decoders/models/ against ONNX Runtime.

Run with the venv of generate.py (onnxruntime, onnx, numpy), from anywhere:

    PYTHONPATH=build/python build/decoders/venv/bin/python tests/decoders/check.py [--build build] [--no-heap]

For every model, and for the genai models in two settings ("standalone": past caches of
past_sequence_length, as a plain ONNX Runtime caller feeds them; "shared": the folder with its
genai_config.json, whose past_present_share_buffer makes the past caches max_length long and
each present bound to its past's buffer, as onnxruntime-genai feeds and binds them), at each
point (batch, sequence, past):

  (i)   shapes: ONNX Runtime (CPU, graph optimisations off, one thread) runs the model with every
        node output made a graph output; each actual shape is compared with `cctx shapes`'s
        symbolic shape evaluated at the point (cctx.evaluate_expression). A value ORT returns
        that cctx does not list, or a dim cctx leaves with an unassigned symbol, counts as a
        difference.
  (ii)  peak: `cctx analyze PATH --profile P --format json --scenarios ...` (P: the profile of the
        setting measured: onnxruntime-cpu-unoptimized-python-no-arena by default,
        onnxruntime-cpu-python-no-arena with --optimization all, the arena ones with --arena)
        must give a numeric peak.evaluations[i].reserve_bytes at every point; peak.kv_cache is
        recorded (bytes per token, past and present bytes per point).
  (iii) heap: a child process with build/lib/libcctx_alloc_counter.so preloaded runs the
        unmodified model (no arena, no memory pattern, graph optimisations off unless
        --optimization all, one thread, sequential) three times; run_bytes is the heap peak during
        run 3 above the heap held before it (with --arena: what the arena kept after two runs,
        above the heap held once the inputs exist),
        session_bytes the heap the session creation kept (as run_ort.mjs measures them; the numpy
        arrays share ONNX Runtime's output buffers, node copies them). Compared with cctx's
        run_bytes: the last lines give the share within 10% (25% with the arena) and the points
        more than that under.

Exit status 1 on any shape difference, a missing numeric peak, or an ORT run that fails.
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MODELS = os.path.join(HERE, "models")

sys.path.insert(0, HERE)
from suite import dim_values, input_facts, kind_points, POINTS  # noqa: E402

KIND_POINTS = kind_points(POINTS)
# ORT's refusals that are the runtime's limit, not a cctx failure (reported, not counted)
ORT_LIMITS = ("batch_size must be 1 when sequence_length > 1 and past context is given",)


def genai_max_length(folder):
    path = os.path.join(folder, "genai_config.json")
    if not os.path.exists(path):
        return None
    cfg = json.load(open(path))
    if not cfg.get("search", {}).get("past_present_share_buffer"):
        return None
    return cfg["search"].get("max_length") or cfg["model"]["context_length"]


def feeds_for(session, b, s, p, past_len, seed=0):
    rng = np.random.default_rng(seed)
    values = dim_values(b, s, p, past_len)
    feeds = {}
    for i in session.get_inputs():
        n = i.name
        try:
            shape = [d if isinstance(d, int) else values[d] for d in i.shape]
        except KeyError as e:
            raise SystemExit("check.py: no size for dim %s of input %s" % (e, n))
        if n == "input_ids":
            feeds[n] = rng.integers(0, 128, shape, dtype=np.int64)
        elif n == "attention_mask":
            feeds[n] = np.ones(shape, np.int64)
        elif n == "write_indices":  # a static cache: the new rows go after the past
            feeds[n] = np.full(shape, p, np.int64)
        elif n == "nonpad_kv_seqlen":
            feeds[n] = np.full(shape, p + s, np.int64)
        elif n in ("position_ids", "cache_position"):
            feeds[n] = np.broadcast_to(np.arange(p, p + s, dtype=np.int64), shape).copy()
        elif i.type == "tensor(float)":
            feeds[n] = rng.random(shape, dtype=np.float32)
        else:
            raise SystemExit("check.py: no feed rule for input %s %s" % (n, i.shape))
    return feeds


LEVELS = {"disabled": "ORT_DISABLE_ALL", "all": "ORT_ENABLE_ALL"}
# The profile that models each setting: the lab one (graph as in the file) or the Python
# binding at ONNX Runtime's default level (outputs not copied, Python's session).
PROFILES = {("disabled", False): "onnxruntime-cpu-unoptimized-python-no-arena",
            ("disabled", True): "onnxruntime-cpu-unoptimized-python",
            ("all", False): "onnxruntime-cpu-python-no-arena",
            ("all", True): "onnxruntime-cpu-python"}


def session_options(ort, arena=False, level="disabled", threads=1):
    so = ort.SessionOptions()
    so.graph_optimization_level = getattr(ort.GraphOptimizationLevel, LEVELS[level])
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.enable_cpu_mem_arena = arena
    so.enable_mem_pattern = arena
    so.log_severity_level = 3
    return so


def ort_shapes(model_path, b, s, p, past_len):
    """Every node output's actual shape at the point."""
    import onnx
    import onnxruntime as ort

    m = onnx.load(model_path)  # loads the external data next to it
    have = {o.name for o in m.graph.output}
    for node in m.graph.node:
        for o in node.output:
            if o and o not in have:
                m.graph.output.append(onnx.ValueInfoProto(name=o))
                have.add(o)
    sess = ort.InferenceSession(m.SerializeToString(), session_options(ort),
                                providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    outs = sess.run(names, feeds_for(sess, b, s, p, past_len))
    return {n: list(np.asarray(v).shape) for n, v in zip(names, outs)}


def cctx_json(build, args):
    r = subprocess.run([os.path.join(build, "bin", "cctx")] + args, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def compare_shapes(cctx_values, actual, assignment):
    import cctx

    diffs = []
    for name, shape in actual.items():
        v = cctx_values.get(name)
        if v is None:
            diffs.append("%s: not in cctx's values (ORT %s)" % (name, shape))
            continue
        sym = v.get("shape")
        if sym is None:
            diffs.append("%s: cctx has no shape (ORT %s)" % (name, shape))
            continue
        try:
            got = [d if isinstance(d, int) else int(cctx.evaluate_expression(str(d), assignment))
                   for d in sym]
        except Exception as e:  # an unassigned (fresh) symbol
            diffs.append("%s: cctx %s not evaluable (%s); ORT %s" % (name, sym, e, shape))
            continue
        if got != shape:
            diffs.append("%s: cctx %s = %s, ORT %s" % (name, sym, got, shape))
    return diffs


def measure_child(model_path, b, s, p, past_len, report, level, arena, bind=False, threads=1):
    """Runs under the preloaded allocation counter; prints a JSON line. With the arena the run's
    figure is what the arena kept after two runs (validate.py's arena_growth_bytes). With `bind`
    (the shared setting), each present output is bound to its past input's buffer, as
    onnxruntime-genai binds them with past_present_share_buffer."""
    import onnxruntime as ort

    def reading():
        os.kill(os.getpid(), signal.SIGUSR2)
        line = open(report).read().strip().split("\n")[-1].split()
        return {"live": int(line[1]), "peak": int(line[2])}

    r0 = reading()
    sess = ort.InferenceSession(model_path, session_options(ort, arena, level, threads),
                                providers=["CPUExecutionProvider"])
    r1 = reading()
    feeds = feeds_for(sess, b, s, p, past_len)
    # The caller's inputs are not the run's: with the arena the run is read as the heap the arena
    # keeps after two runs, above what is held once the feeds exist.
    r_fed = reading()
    if bind:
        binding = sess.io_binding()
        values = {n: ort.OrtValue.ortvalue_from_numpy(a) for n, a in feeds.items()}
        for n, v in values.items():
            binding.bind_ortvalue_input(n, v)
        for o in sess.get_outputs():
            past = o.name.replace("present", "past_key_values")
            if o.name.startswith("present") and past in values:
                binding.bind_ortvalue_output(o.name, values[past])
            else:
                binding.bind_output(o.name, "cpu")

        def run():
            sess.run_with_iobinding(binding)
            return binding.get_outputs()
    else:
        def run():
            return sess.run(None, feeds)
    for _ in range(2):
        out = run()
        del out
    r2 = reading()
    out = run()
    r3 = reading()
    print(json.dumps({"session_bytes": r1["live"] - r0["live"],
                      "run_bytes": (r2["live"] - r_fed["live"]) if arena else r3["peak"] - r2["live"],
                      "output_bytes": int(sum(o.numpy().nbytes if bind else o.nbytes
                                              for o in out))}))


def measure(build, model_path, b, s, p, past_len, level="disabled", arena=False, bind=False,
            threads=1):
    lib = os.path.join(build, "lib", "libcctx_alloc_counter.so")
    fd, report = tempfile.mkstemp(prefix="cctx-alloc-", suffix=".txt")
    os.close(fd)
    env = dict(os.environ, LD_PRELOAD=lib, CCTX_ALLOC_REPORT=report)
    try:
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--measure-child", model_path,
                            str(b), str(s), str(p), str(past_len), report, level,
                            "arena" if arena else "no-arena", "bind" if bind else "plain", str(threads)],
                           capture_output=True, text=True, env=env)
        if r.returncode != 0:
            return {"error": r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "rc %d" % r.returncode}
        return json.loads(r.stdout.strip().splitlines()[-1])
    finally:
        os.remove(report)


def variants():
    """(label, path for analyze, model file, past buffer length or None, kind)."""
    out = []
    tmp = tempfile.mkdtemp(prefix="cctx-decoders-check-")
    for name in sorted(os.listdir(MODELS)):
        folder = os.path.join(MODELS, name)
        model = os.path.join(folder, "model.onnx")
        if not os.path.exists(model):
            for file, kind in (("encoder_model.onnx", "encoder"), ("decoder_model.onnx", "first"),
                               ("decoder_with_past_model.onnx", "with_past")):
                path = os.path.join(folder, file)
                if os.path.exists(path):
                    label = "%s %s" % (name, file.replace("_model.onnx", ""))
                    out.append((label, path, path, None, kind))
            continue
        maxlen = genai_max_length(folder)
        if maxlen is None:
            out.append((name, model, model, None, "causal"))
            continue
        # standalone: the model without its genai_config.json (cctx would apply the shared buffer)
        alone = os.path.join(tmp, name)
        os.makedirs(alone)
        for f in os.listdir(folder):
            if f != "genai_config.json":
                shutil.copy(os.path.join(folder, f), alone)
        path = os.path.join(alone, "model.onnx")
        out.append((name + " standalone", path, path, None, "causal"))
        out.append((name + " shared", folder, model, maxlen, "causal"))
    return out, tmp


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--measure-child":
        a = sys.argv[2:]
        measure_child(a[0], int(a[1]), int(a[2]), int(a[3]), int(a[4]), a[5], a[6],
                      a[7] == "arena", a[8] == "bind", int(a[9]))
        return 0
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--no-heap", action="store_true", help="skip (iii)")
    ap.add_argument("--json", help="write every figure to this file")
    ap.add_argument("--only", help="the models whose label contains this text")
    ap.add_argument("--optimization", choices=sorted(LEVELS), default="disabled",
                    help="ONNX Runtime's graph optimisation level for the heap (default: the lab "
                         "setting; 'all' is what InferenceSession(path) runs)")
    ap.add_argument("--arena", action="store_true",
                    help="the heap with the CPU arena and memory pattern on (ONNX Runtime's "
                         "defaults); the run figure is what the arena keeps")
    ap.add_argument("--threads", type=int, default=1,
                    help="ONNX Runtime's intra-op threads for the heap (default 1)")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    profile = PROFILES[(args.optimization, args.arena)]
    band = 0.25 if args.arena else 0.10
    print("heap: ONNX Runtime at level %s, arena %s; cctx --profile %s" % (
        args.optimization, "on" if args.arena else "off", profile))
    sys.path.insert(0, os.path.join(build, "python"))

    failures, notes, warnings_seen, rows, kv = [], [], {}, [], {}
    vs, tmp = variants()
    if args.only:
        vs = [v for v in vs if args.only in v[0]]
    try:
        for label, apath, model, maxlen, kind in vs:
            rc, out, err = cctx_json(build, ["shapes", model, "--format", "json"])
            if rc == 0:
                symbols, inputs, _ = input_facts(json.loads(out)["values"])
                if inputs:  # the shapes as the inputs are really fed
                    rc, out, err = cctx_json(build, ["shapes", model, "--format", "json"] + inputs)
            if rc != 0:
                failures.append("%s: cctx shapes failed: %s" % (label, err.strip()))
                continue
            values = json.loads(out)["values"]
            for line in err.splitlines():
                warnings_seen.setdefault(line, set()).add(label.split()[0])
            assigns = []
            for pname, b, s, p in KIND_POINTS[kind]:
                past_len = p if maxlen is None else maxlen
                assigns.append((pname, b, s, p, past_len, dim_values(b, s, p, past_len)))
            # one named scenario per point (--eval lists would form a product), over the
            # symbols the model declares (the folder's configuration fixes a shared past)
            keys = sorted(k for k in symbols if k in assigns[0][5]
                          and not (maxlen is not None and k == "past_sequence_length"))
            scen = os.path.join(tmp, "scenarios.yaml")
            with open(scen, "w") as f:
                for pname, b, s, p, past_len, a in assigns:
                    f.write("%s: {%s}\n" % (pname, ", ".join(["%s: %d" % (k, a[k]) for k in keys]
                                                             + ["threads: %d" % args.threads])))
            rc, out, err = cctx_json(build, ["analyze", apath, "--profile", profile,
                                             "--format", "json", "--scenarios", scen] + inputs)
            for line in err.splitlines():
                warnings_seen.setdefault(line, set()).add(label.split()[0])
            report = None
            if rc != 0:
                failures.append("%s: cctx analyze exit %d: %s" % (label, rc, err.strip().splitlines()[-1:]))
            else:
                report = json.loads(out)
                kv[label] = report["peak"].get("kv_cache")
            for i, (pname, b, s, p, past_len, a) in enumerate(assigns):
                row = {"model": label, "point": pname, "batch": b, "seq": s, "past": p, "past_buffer": past_len}
                try:
                    actual = ort_shapes(model, b, s, p, past_len)
                    diffs = compare_shapes(values, actual,
                                           {k: v for k, v in a.items() if k.isidentifier()})
                    row["values"] = len(actual)
                    row["shape_diffs"] = len(diffs)
                    for d in diffs:
                        failures.append("%s %s: %s" % (label, pname, d))
                except Exception as e:
                    row["shape_diffs"] = None
                    if any(lim in str(e) for lim in ORT_LIMITS):
                        row["ort_refused"] = True
                        notes.append("%s %s: ORT refused: %s" % (label, pname, [l for l in ORT_LIMITS if l in str(e)][0]))
                    else:
                        failures.append("%s %s: ORT run failed: %s" % (label, pname, str(e).splitlines()[0]))
                ev = None
                if report is not None:
                    evs = report["peak"].get("evaluations") or []
                    ev = next((e for e in evs if e.get("scenario") == pname), None)
                reserve = ev.get("reserve_bytes") if ev else None
                row["reserve_bytes"] = reserve if isinstance(reserve, int) else None
                if row["reserve_bytes"] is None:
                    failures.append("%s %s: no numeric peak (reserve_bytes %r)" % (label, pname, reserve))
                if ev:
                    for k in ("run_bytes", "session_bytes", "kv_past_bytes", "kv_present_bytes"):
                        row["cctx_" + k] = ev.get(k)
                if not args.no_heap and not row.get("ort_refused"):
                    # shared: onnxruntime-genai binds the presents to the pasts' buffers.
                    m = measure(build, model, b, s, p, past_len, args.optimization, args.arena,
                                bind=label.endswith(" shared"), threads=args.threads)
                    if "error" in m:
                        failures.append("%s %s: heap measurement failed: %s" % (label, pname, m["error"]))
                    row.update({"ort_" + k: v for k, v in m.items()})
                rows.append(row)
                print_row(row, first=(len(rows) == 1))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print("\nKV cache (cctx peak.kv_cache):")
    for label, k in kv.items():
        if k:
            print("  %-26s pairs %d  per token %s  past %s" % (label, len(k.get("pairs", [])),
                                                          k.get("bytes_per_token"), k.get("past_bytes")))
        else:
            print("  %-26s none found" % label)
    print("\ncctx stderr lines (models):")
    for line, models in sorted(warnings_seen.items()):
        print("  [%s] %s" % (",".join(sorted(models)), line))
    rules = [l for l in warnings_seen if "no shape rule" in l]
    print("\n'no shape rule' warnings: %d" % len(rules))
    if args.json:
        json.dump({"rows": rows, "kv_cache": kv, "stderr": {k: sorted(v) for k, v in warnings_seen.items()},
                   "failures": failures}, open(args.json, "w"), indent=1)
    if notes:
        print("\nNotes (%d):" % len(notes))
        for n in notes:
            print("  " + n)
    if failures:
        print("\nFAILURES (%d):" % len(failures))
        for f in failures:
            print("  " + f)
    measured = [r for r in rows if r.get("cctx_run_bytes") and r.get("ort_run_bytes")]
    if measured:
        ratios = [r["cctx_run_bytes"] / r["ort_run_bytes"] for r in measured]
        hits = sum(abs(x - 1) <= band for x in ratios)
        under = [(r["model"], r["point"], round(x, 2)) for r, x in zip(measured, ratios)
                 if x < 1 - band]
        print("\nrun within %d%% (%s): %d/%d; ratios %.2f-%.2f; more than %d%% under: %s" % (
            band * 100, profile, hits, len(measured), min(ratios), max(ratios), band * 100,
            under or "none"))
    n_ok = sum(1 for r in rows if (r.get("shape_diffs") == 0 or r.get("ort_refused"))
               and r.get("reserve_bytes") is not None)
    print("\n%d passed, %d failed" % (n_ok, len(rows) - n_ok))
    return 1 if failures else 0


def fmt(v):
    return "-" if v is None else str(v)


def print_row(r, first):
    cols = ["model", "point", "batch", "seq", "past", "values", "shape_diffs", "reserve_bytes",
            "cctx_kv_past_bytes", "cctx_kv_present_bytes", "cctx_run_bytes", "ort_run_bytes", "ratio", "ort_run_plus_outputs", "ratio_out",
            "cctx_session_bytes", "ort_session_bytes"]
    if r.get("cctx_run_bytes") and r.get("ort_run_bytes"):
        r["ratio"] = "%.2f" % (r["cctx_run_bytes"] / r["ort_run_bytes"])
        # The no-arena profile counts one copy of the outputs (output_copies: 1, onnxruntime-node
        # copies them into JS buffers); Python's binding hands ORT's own buffers over, so add
        # the outputs once to compare like with like.
        r["ort_run_plus_outputs"] = r["ort_run_bytes"] + r.get("ort_output_bytes", 0)
        r["ratio_out"] = "%.2f" % (r["cctx_run_bytes"] / r["ort_run_plus_outputs"])
    widths = [23, 10, 2, 2, 4, 4, 4, 8, 7, 7, 7, 7, 5, 7, 5, 8, 8]
    heads = ["model", "point", "b", "s", "past", "vals", "diff", "reserve", "kv_past", "kv_pres",
             "run", "ORTrun", "ratio", "ORT+out", "ratio", "session", "ORTsess"]
    if first:
        print(" ".join(h.ljust(w) for h, w in zip(heads, widths)))
    print(" ".join(fmt(r.get(c)).ljust(w) for c, w in zip(cols, widths)), flush=True)


if __name__ == "__main__":
    sys.exit(main())
