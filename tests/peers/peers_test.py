"""ctest peers_logic: the peers run's comparisons, ratios and page on data made here, and tools.py
and cctx on a tiny model whose shapes are known by construction (no ONNX Runtime, no network).
Runs with Debian's python; a peer that is not importable here is skipped and named.

    /usr/bin/python3 tests/peers/peers_test.py [--cctx BUILD/bin/cctx]
"""
import argparse
import importlib.util
import json
import pathlib
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import compare  # noqa: E402
import doc  # noqa: E402
import timing  # noqa: E402

FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print(f"FAIL {what}")


def raises_unknown(dim, symbols):
    try:
        compare.evaluate_dim(dim, symbols)
    except compare.Unknown:
        return True
    return False


def test_evaluate():
    s = {"batch": 3, "height": 97, "Sequence Length": 5, "N": 7}
    cases = [(16, 16), ("batch", 3), ("Sequence Length", 5), ("2*batch", 6),
             ("floor(height/2)", 48), ("floor(floor(height/2)/2 - 1/2) + 1", 24),
             ("ceiling(height/8)", 13), ("Max(batch, 4)", 4), ("max(batch,N)", 7),
             ("Mod(height, 10)", 7), ("height // 2 + 1", 49), ("N**2", 49), ("N^2", 49),
             # sympy's N is a function; a tool's symbol N must stay a symbol
             ("N", 7), ("-batch + 10", 7)]
    for dim, want in cases:
        try:
            got = compare.evaluate_dim(dim, s)
        except compare.Unknown as e:
            got = f"Unknown({e})"
        check(got == want, f"evaluate_dim({dim!r}) = {got}, want {want}")
    for dim in [None, "unk__3", "height/2", "batch + seq", "foo(batch)", "1e9999*0"]:
        check(raises_unknown(dim, s), f"evaluate_dim({dim!r}) should be Unknown")


def test_classify():
    s = {"n": 4}
    vals = {"a": ["n", 8], "b": [4, 9], "c": ["m", 8], "d": None, "e": [16], "f": ["k"]}
    data = {"e", "f"}
    want = {"a": compare.EQUAL, "b": compare.WRONG, "c": compare.UNRESOLVED,
            "d": compare.UNRESOLVED, "e": compare.DATA, "f": compare.DATA,
            "g": compare.ABSENT}
    ort = {"a": [4, 8], "b": [4, 8], "c": [4, 8], "d": [2], "e": [5], "f": [3], "g": [1]}
    for name, v in want.items():
        got, _ = compare.classify(name, vals, ort[name], s, data)
        check(got == v, f"classify {name}: {got}, want {v}")
    # a data-dependent value given numbers below the run's is wrong, not a bound
    got, _ = compare.classify("e", {"e": [2]}, [5], s, data)
    check(got == compare.WRONG, f"classify below the actual: {got}")

    tools = {"cctx": {"a": ["n", 8], "b": [4, 8], "c": ["m", 8]},
             "peer": {"a": [4, 8], "b": [4, 9], "c": [4, 8]},
             "broken": None}
    counts, wrong, verdicts = compare.compare_point({k: ort[k] for k in "abc"}, tools, s, set())
    check(counts["cctx"][compare.EQUAL] == 2 and counts["cctx"][compare.UNRESOLVED] == 1,
          f"cctx counts {counts['cctx']}")
    check(counts["peer"][compare.EQUAL] == 2 and counts["peer"][compare.WRONG] == 1,
          f"peer counts {counts['peer']}")
    check("broken" not in counts, "a tool without values is not counted at the point")
    check(wrong["peer"] == [{"value": "b", "tool": [4, 9], "ort": [4, 8]}], f"wrong {wrong}")
    check(compare.gaps(verdicts) == [("c", compare.UNRESOLVED, ["peer"])],
          f"gaps {compare.gaps(verdicts)}")
    check(compare.complete(counts["peer"]) == 3, "complete = equal + wrong")


def test_memory():
    check(compare.closest({"a": 200, "b": 60}, 100) == "b", "0.6x is closer than 2x")
    check(compare.closest({"a": 200, "b": 50}, 100) == "a", "2x and 0.5x tie: the first name")
    check(compare.closest({"a": None, "b": 0}, 100) is None, "no usable figure")
    pts = [{"measured": 100, "figures": {"cctx": 101, "peer": 130}},
           {"measured": 100, "figures": {"cctx": 150, "peer": 95}},
           {"measured": 1000, "figures": {"cctx": 990}}]
    m = compare.memory_summary(pts)
    check(m["cctx"]["closest"] == 2 and m["peer"]["closest"] == 1, f"closest counts {m}")
    check(m["cctx"]["within10"] == 2 and m["_points"] == 3, f"within 10% {m}")
    check(abs(m["_reference_closest_share"] - 2 / 3) < 1e-9, "share")
    check(m["cctx"]["median"] == 1.01, f"median {m['cctx']['median']}")


def test_doc():
    point = {"label": "odd", "counts": {"cctx": dict(compare.new_counts(), values=2, equal=2),
                                        "onnx": dict(compare.new_counts(), values=2, equal=1,
                                                     unresolved=1)},
             "gaps": [], "wrong": {},
             "memory": {"measured": 1000, "figures": {"cctx": 1010, "onnx-tool plan": 1500}}}
    row = {"name": "tiny", "family": "repo", "time": {"cctx": {"seconds": 0.01, "rss_mb": 9},
                                                     "onnx": {"seconds": 0.5, "rss_mb": 50}},
           "tool_errors": {"onnxsim": "boom"}, "points": [point]}
    bench = {"name": "bench_export_10k", "family": "bench export", "nodes": 10000,
             "time": {}, "tool_errors": {}, "points": [],
             "time_rounds": {"cctx": {"seconds": 0.1, "rss_mb": 60},
                             "cctx analyze": {"seconds": 0.2, "rss_mb": 70},
                             "onnx": {"seconds": 0.5, "rss_mb": 80},
                             "ort-symbolic": {"seconds": 5, "rss_mb": 300},
                             "onnxslim": {"error": "x", "seconds": 1, "rss_mb": 1}}}
    data = {"date": "today", "versions": {"commit": "abc"}, "args": {"rounds": "3"},
            "rows": [row, bench], "seconds": 60}
    s = doc.summarise(data)
    check(s["shapes"]["repo"]["onnx"]["equal"] == 1, "summarise counts")
    check(s["crashes"]["repo"]["onnxsim"] == 1, "summarise crashes")
    b = doc.bench_ratios(bench["time_rounds"])
    check(b["fastest"] == "onnx" and abs(b["cctx"] - 0.2) < 1e-9, f"bench ratio {b}")
    page = doc.markdown(data, s)
    for text in ["### repo (1 models)", "| cctx | 2 | 2 (100.0%)", "cctx is the closest on 1 of 1",
                 "0.200x the fastest symbolic peer (onnx)"]:
        check(text in page, f"page lacks {text!r}")
    with tempfile.TemporaryDirectory() as tmp:
        hist = pathlib.Path(tmp) / "h.tsv"
        doc.append_history(hist, data, s)
        doc.append_history(hist, data, s)
        lines = hist.read_text().splitlines()
        check(len(lines) == 3 and lines[0].startswith("date\t"), f"history {lines}")


def tiny_model(path):
    import onnx
    from onnx import TensorProto, helper
    # X[N, 4] -> Relu -> Concat(axis 0 with itself) -> Y[2N, 4]; shapes known by construction.
    g = helper.make_graph(
        [helper.make_node("Relu", ["X"], ["r"]),
         helper.make_node("Concat", ["r", "r"], ["Y"], axis=0)], "tiny",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [None, 4])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    onnx.save(m, str(path))


def test_tools(cctx):
    if importlib.util.find_spec("onnx") is None:
        print("skip tools: onnx is not importable here")
        return
    actual = {"r": [3, 4], "Y": [6, 4]}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        model = tmp / "tiny.onnx"
        tiny_model(model)
        feeds = tmp / "feeds.json"
        feeds.write_text(json.dumps({"X": {"shape": [3, 4]}}))
        need = {"onnx": "onnx", "onnx-shape-inference": "onnx_shape_inference",
                "ort-symbolic": "onnxruntime", "onnxslim": "onnxslim", "onnx-tool": "onnx_tool",
                "onnxsim": "onnxsim", "floor": "onnx"}
        ran = []
        for tool, module in need.items():
            if importlib.util.find_spec(module) is None:
                print(f"skip {tool}: {module} is not installed for {sys.executable}")
                continue
            out = tmp / f"{tool}.json"
            cmd = [sys.executable, HERE / "tools.py", tool, model, out]
            if tool in ("onnx-tool", "onnxsim"):
                cmd.append(feeds)
            t = timing.run(cmd, tmp / f"{tool}.stdout", timeout=120)
            check(t["rc"] == 0, f"tools.py {tool} exit {t['rc']}: {t['stderr'][-300:]}")
            check(t["seconds"] > 0 and t["rss_mb"] > 1, f"timing of {tool}: {t}")
            if t["rc"] != 0:
                continue
            values = json.loads(out.read_text())["values"]
            ran.append(tool)
            if tool == "floor":
                continue
            counts, wrong, _ = compare.compare_point(actual, {tool: values}, {"N": 3}, set())
            # ONNX 1.12 gives Concat's axis unknown without data propagation of dims: a tool may
            # leave values open, but none may be wrong.
            check(not wrong[tool], f"{tool} wrong on the tiny model: {wrong[tool]}")
            check(counts[tool][compare.EQUAL] >= 1, f"{tool} resolves nothing: {counts[tool]}")
        print(f"tools run: {', '.join(ran)}")
    if cctx:
        with tempfile.TemporaryDirectory() as tmp:
            tmp = pathlib.Path(tmp)
            model = tmp / "tiny.onnx"
            tiny_model(model)
            t = timing.run([cctx, "shapes", model, "--format", "json", "-q"], tmp / "c.json", 60)
            check(t["rc"] == 0, f"cctx shapes exit {t['rc']}: {t['stderr']}")
            if t["rc"] == 0:
                values = {n: v.get("shape") for n, v in
                          json.loads((tmp / "c.json").read_text())["values"].items()}
                counts, wrong, _ = compare.compare_point(actual, {"cctx": values}, {"N": 3}, set())
                check(counts["cctx"][compare.EQUAL] == 2, f"cctx on the tiny model: {counts}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cctx", help="the cctx binary (optional)")
    args = p.parse_args()
    test_evaluate()
    test_classify()
    test_memory()
    test_doc()
    test_tools(args.cctx)
    if FAILURES:
        print(f"{len(FAILURES)} failures")
        return 1
    print("peers_logic: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
