#!/usr/bin/python3
"""The real-model suite: every main-graph value's dims and bytes, cctx against ONNX Runtime's run,
and cctx's symbolic analysis evaluated at an assignment against its analysis of the same model
with the inputs fixed (self-consistency). README.md here says what is compared and how.

    /usr/bin/python3 tests/realmodels/suite.py --build BUILD [--quick] [--only NAME,...]
        [--sources repo,torch,npm,testdata] [--doc docs/real-models.md] [--update-expected]

Models: tests/models (committed PyTorch exports, source "repo"), BUILD/realmodels/torch
(export_torch.py), BUILD/realmodels/npm (fetch_npm.sh: .onnx files shipped inside npm packages,
listed in npm_models.json) and Debian's libonnx-testdata (/usr/share/libonnx-testdata). Exit
status 1 when a comparison differs and is not listed in expected_failures.json.
"""
import argparse
import copy
import json
import math
import pathlib
import re
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Tuple

import onnx
from onnx import numpy_helper

from report_doc import numeric_peak

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent
TESTDATA = pathlib.Path("/usr/share/libonnx-testdata/data")

ELEMENT_BYTES = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2, "int64": 8, "int32": 4,
                 "int16": 2, "int8": 1, "uint64": 8, "uint32": 4, "uint16": 2, "uint8": 1,
                 "bool": 1}
# Whether a value's dims depend on run-time data (shape_depends_on_data): ops whose output size
# is data by definition, and the inputs (by position) of other ops that are sizes or indices.
INTRINSIC_DATA_OPS = {"NonZero", "NonMaxSuppression", "Unique", "Compress", "StringNormalizer",
                      "Loop", "Scan", "SequenceAt", "ConcatFromSequence", "SplitToSequence"}
SIZE_INPUTS = {"Reshape": [1], "Expand": [1], "Tile": [1], "Slice": [1, 2, 3, 4],
               "Resize": [2, 3], "Upsample": [1], "ConstantOfShape": [0], "Range": [0, 1, 2],
               "TopK": [1], "Pad": [1, 3], "OneHot": [1], "Squeeze": [1], "Unsqueeze": [1],
               "Split": [1], "ReduceSum": [1], "ReduceMean": [1], "ReduceMax": [1],
               "ReduceMin": [1], "ReduceProd": [1], "ReduceL1": [1], "ReduceL2": [1],
               "ReduceLogSum": [1], "ReduceLogSumExp": [1], "ReduceSumSquare": [1],
               "CenterCropPad": [1], "MaxUnpool": [2], "Col2Im": [1, 2], "STFT": [1, 3],
               "DFT": [1], "If": [0]}
FUNCTIONS = {"max", "min", "float32", "float64", "floor", "ceil", "trunc", "round", "abs", "sqrt"}
# Floating-point literals of the definitions of floating-point sizes (expressions.md 4.5), left
# out when the symbols of a text are collected: `1e-05f` names no symbol `e` or `f`.
FLOAT_LITERAL = re.compile(r"\b\d+(?:\.\d*)?(?:[eE][-+]?\d+)?f?\b|\b\d+\.\d*f?")


# ---------------------------------------------------------------------------- the models

def img(b, h, w):
    return {"batch": b, "height": h, "width": w}


def seq(b, s):
    return {"batch": b, "seq": s}


# tests/models: ordinary, odd, edge (symbols).
REPO_MODELS = {
    "cnn": ("classification", [img(2, 32, 32), img(3, 97, 123), img(1, 17, 31)]),
    "gpt_decoder": ("transformer", [seq(2, 16), seq(3, 97), seq(1, 1)]),
    "lstm_gru": ("RNN", [seq(2, 16), seq(3, 97), seq(1, 1)]),
    "transformer_encoder": ("transformer", [seq(2, 16), seq(3, 97), seq(1, 1)]),
    "functions": ("local functions", [seq(2, 16), seq(3, 97), seq(1, 1)]),
    "control_flow": ("control flow", [seq(2, 16), seq(3, 97), seq(1, 1)]),
}
# Models generated with onnx.helper for the suite, in this folder: name -> (task, assignments).
SUITE_MODELS = {
    # torchvision's detection resize, computed in float32 (resize_transform_model.py): at 11x25
    # the rounding gives 639 where the exact quotient's floor is 640.
    "resize_transform": ("detection transform", [{"height": 128, "width": 128},
                                                 {"height": 11, "width": 25},
                                                 {"height": 1, "width": 1}]),
}
LABELS = ["ordinary", "odd", "edge"]
# libonnx-testdata: which folders (all fixed-shape; fed their test_data_set_0).
TESTDATA_GROUPS = ["pytorch-converted", "pytorch-operator", "simple"]
TESTDATA_NODE = re.compile(r"^test_(loop|if|scan|nonmaxsuppression|nonzero|range|unique|compress|"
                           r"topk|sequence|split_to_sequence|concat_from_sequence|expand|tile|"
                           r"reshape|resize|constantofshape|onehot|optional|identity_sequence)")
QUICK = {"repo": ["repo_cnn", "repo_lstm_gru", "repo_control_flow", "repo_functions",
                  "repo_resize_transform"],
         "npm": ["silero_vad_v5", "wakeword_hello_deepa", "ppocr_cls"],
         "testdata": ["test_loop11", "test_if", "test_scan_sum", "test_nonmaxsuppression_two_batches",
                      "test_nonzero_example", "test_range_float_type_positive_delta_expanded",
                      "test_Conv2d_strided", "test_PixelShuffle", "test_sequence_model1",
                      "test_operator_chunk", "test_unique_sorted_with_axis", "test_resize_upsample_scales_nearest"]}


def catalog(build: pathlib.Path, sources: List[str], quick: bool) -> List[dict]:
    """[{name, source, task, path, assignments: [{label, symbols | shapes, fill?, data?}]}]"""
    models = []
    if "repo" in sources:
        for name, (task, sizes) in REPO_MODELS.items():
            # "repo_": torch's exports reuse some of these names at other sizes.
            models.append({"name": f"repo_{name}", "source": "repo", "task": task,
                           "path": REPO / "tests" / "models" / f"{name}.onnx",
                           "assignments": [{"label": l, "symbols": s} for l, s in zip(LABELS, sizes)]})
        for name, (task, sizes) in SUITE_MODELS.items():
            models.append({"name": f"repo_{name}", "source": "repo", "task": task,
                           "path": HERE / f"{name}.onnx",
                           "assignments": [{"label": l, "symbols": s} for l, s in zip(LABELS, sizes)]})
    if "torch" in sources:
        manifest = build / "realmodels" / "torch" / "torch.json"
        if manifest.exists():
            for m in json.loads(manifest.read_text())["models"]:
                models.append({"name": m["name"], "source": "torch", "task": m["task"],
                               "path": manifest.parent / m["model"],
                               "assignments": [{"label": l, "symbols": s}
                                               for l, s in zip(LABELS, m["assignments"])]})
        else:
            print(f"note: {manifest} missing (export_torch.py): torch models left out")
    if "npm" in sources:
        spec = json.loads((HERE / "npm_models.json").read_text())
        for m in spec["models"]:
            path = build / "realmodels" / "npm" / m["file"]
            if not path.exists():
                print(f"note: {path} missing (fetch_npm.sh): {m['name']} left out")
                continue
            models.append({"name": m["name"], "source": f"npm {m['package']}", "task": m["task"],
                           "path": path, "assignments": m["assignments"]})
    if "testdata" in sources:
        dirs = []
        for group in TESTDATA_GROUPS:
            dirs += sorted((TESTDATA / group).glob("test_*"))
        dirs += sorted(d for d in (TESTDATA / "node").glob("test_*") if TESTDATA_NODE.match(d.name))
        for d in dirs:
            if not (d / "model.onnx").exists() or not (d / "test_data_set_0").exists():
                continue
            models.append({"name": d.name, "source": f"onnx testdata {d.parent.name}",
                           "task": d.parent.name, "path": d / "model.onnx",
                           "assignments": [{"label": "fixed", "testdata": str(d / "test_data_set_0")}]})
    if quick:
        keep = {n for names in QUICK.values() for n in names}
        models = [m for m in models if m["name"] in keep]
    return models


# ---------------------------------------------------------------------------- cctx

def cctx_json(build: pathlib.Path, model: pathlib.Path, extra: List[str] = ()) -> Tuple[dict, float]:
    cmd = [str(build / "bin" / "cctx"), "analyze", str(model), "--format", "json", "-q", *extra]
    started = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    elapsed = time.time() - started
    if proc.returncode != 0:
        raise RuntimeError(f"cctx exit {proc.returncode}: {proc.stderr.strip()[-600:]}")
    return json.loads(proc.stdout), elapsed


def shape_depends_on_data(model: onnx.ModelProto) -> set:
    """Main-graph values whose dims depend on the contents (not the shapes) of the graph inputs:
    "tainted" values carry input data; a value's dims depend on data when its op is
    INTRINSIC_DATA_OPS, a size input of its op is tainted, or an input's dims depend on data."""
    g = model.graph
    inits = {i.name for i in g.initializer}
    tainted = {i.name for i in g.input if i.name not in inits}
    dd = set()
    for node in g.node:
        ins = [i for i in node.input if i]
        if node.op_type in ("Shape", "Size"):
            t = any(i in dd for i in ins)
        else:
            t = any(i in tainted for i in ins) or (
                node.op_type in ("Loop", "Scan", "If") and bool(tainted))
        # Shape and Size have dims of their own (the rank, a scalar), whatever their input's.
        d = node.op_type not in ("Shape", "Size") and any(i in dd for i in ins)
        if node.op_type in INTRINSIC_DATA_OPS and node.op_type not in ("SequenceAt",):
            d = d or node.op_type not in ("Loop", "Scan") or t
        for k in SIZE_INPUTS.get(node.op_type, []):
            if k < len(node.input) and node.input[k] in tainted:
                d = True
        for out in node.output:
            if t:
                tainted.add(out)
            if d:
                dd.add(out)
    return dd


class Evaluator:
    """cctx's own expression evaluator (the build's Python module)."""

    def __init__(self, build: pathlib.Path):
        sys.path.insert(0, str(build / "python"))
        import cctx
        self.cctx = cctx

        self.names: List[str] = []
        self.name_set: set = set()
        self.definitions: Dict[str, str] = {}

    def know(self, report: dict) -> None:
        """The report's symbols (opaque ones may hold any character)."""
        self.names = [s["name"] for s in report.get("symbols", [])]
        self.name_set = set(self.names)
        # Size caps (expressions.md 4.4) and floating-point sizes (4.5) stand for their
        # definitions.
        self.definitions = {s["name"]: s["definition"] for s in report.get("symbols", [])
                            if s.get("definition") is not None}
        # Data-dependent sizes' upper bounds: `--eval` takes them where no value is given.
        self.upper = {s["name"]: s["upper_bound"] for s in report.get("symbols", [])
                      if s.get("upper_bound") is not None}

    def worst_case(self, symbols: Dict[str, int]) -> Dict[str, int]:
        """`symbols` with every data-dependent size that has an upper bound at its bound (a bound
        in terms of another such size takes that one's first), as `cctx analyze --eval` does."""
        out = dict(symbols)
        visiting = set()

        def assign(name: str) -> bool:
            if name in out:
                return True
            if name not in self.upper or name in visiting:
                return False
            visiting.add(name)
            value, missing = self(self.upper[name], out)
            if value is None and missing and all(assign(m) for m in missing):
                value, missing = self(self.upper[name], out)
            visiting.discard(name)
            if value is None:
                return False
            out[name] = max(value, 0)
            return True

        for name in self.upper:
            assign(name)
        return out

    def __call__(self, amount, symbols: Dict[str, int]):
        """(int, None) or (None, [missing symbols])"""
        if amount is None:
            return None, ["<none>"]
        if isinstance(amount, int):
            return amount, None
        if amount in symbols:  # a lone symbol, opaque ones included
            return symbols[amount], None
        # Symbols: identifiers, and opaque names between backticks (or alone, as a dim).
        quoted = re.findall(r"`([^`]*)`", amount)
        bare = FLOAT_LITERAL.sub(" ", re.sub(r"`[^`]*`", " ", amount))
        tokens = set(quoted) | set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", bare))
        if amount in self.name_set:
            tokens = {amount}
        missing = sorted(t for t in tokens if t not in symbols and t not in FUNCTIONS)
        caps = [m for m in missing if m in self.definitions]
        if caps:
            symbols = dict(symbols)
            for cap in caps:
                value, _ = self(self.definitions[cap], symbols)
                if value is not None:
                    symbols[cap] = value
            missing = [m for m in missing if m not in symbols]
        if missing:
            return None, sorted(missing)
        try:
            return self.cctx.evaluate_expression(amount, symbols), None
        except self.cctx.Error as e:
            return None, [f"<{e}>"]


# ---------------------------------------------------------------------------- ONNX Runtime

def tensor_outputs_model(model: onnx.ModelProto, dst: pathlib.Path, report: dict) -> List[str]:
    """Writes a copy of model where every main-graph node output that cctx sees as a tensor is
    a graph output (value_info cleared for them); returns the names added."""
    model_copy = onnx.ModelProto()
    model_copy.CopyFrom(model)
    model = model_copy
    g = model.graph
    have = {o.name for o in g.output}
    taken = {i.name for i in g.input} | {i.name for i in g.initializer}
    added = []
    values = report["values"]
    unsized = set(report.get("unsized_values", []))
    # onnx's own inference says which values are sequences, optionals or maps.
    inferred = {}
    if any("Sequence" in n.op_type or "Optional" in n.op_type or n.op_type in ("Loop", "If", "Scan")
           for n in g.node):
        try:
            for vi in onnx.shape_inference.infer_shapes(model).graph.value_info:
                inferred[vi.name] = vi.type.WhichOneof("value")
        except Exception:  # noqa: BLE001 -- inference is a hint here
            pass
    for node in g.node:
        for out in node.output:
            if not out or out in have or out in taken or out in added:
                continue
            v = values.get(out, {})
            if (v.get("dtype") not in ELEMENT_BYTES and v.get("dtype") != "string") or \
                    out in unsized or inferred.get(out, "tensor_type") != "tensor_type":
                continue  # sequences, optionals, maps: ONNX Runtime's node API gives tensors only
            added.append(out)
    keep = [vi for vi in g.value_info if vi.name not in set(added)]
    del g.value_info[:]
    g.value_info.extend(keep)
    for name in added:
        g.output.append(onnx.helper.make_empty_tensor_value_info(name))
    dst.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(dst))
    return added


def testdata_feeds(model: onnx.ModelProto, folder: pathlib.Path) -> Dict[str, dict]:
    inits = {i.name for i in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in inits]
    feeds = {}
    for k, name in enumerate(names):
        pb = folder / f"input_{k}.pb"
        if not pb.exists():
            continue
        t = onnx.TensorProto()
        t.ParseFromString(pb.read_bytes())
        arr = numpy_helper.to_array(t)
        data = [x.decode() if isinstance(x, bytes) else x for x in arr.flatten().tolist()]
        feeds[name] = {"shape": list(arr.shape), "data": data}
    return feeds


def ort_values(build: pathlib.Path, model: pathlib.Path, inputs: dict) -> dict:
    spec = {"model": str(model), "inputs": inputs,
            "ort": str((build / "validate" / "node_modules").resolve())}
    with tempfile.NamedTemporaryFile("w", suffix=".json", prefix="cctx-ort-") as f:
        json.dump(spec, f)
        f.flush()
        proc = subprocess.run(["node", str(HERE / "ort_values.mjs"), "@" + f.name],
                              capture_output=True, text=True, timeout=900)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode not in (0, 3) or not lines:
        raise RuntimeError(f"ort_values exit {proc.returncode}: {proc.stderr.strip()[-300:]}")
    return json.loads(lines[-1])


# ---------------------------------------------------------------------------- one model

def input_names(report: dict) -> List[str]:
    return [n for n, v in report["values"].items() if v.get("kind") == "input"]


def resolve_assignment(a: dict, report: dict, proto: onnx.ModelProto, ev: Evaluator):
    """(symbols, ORT inputs {name: shape | {shape, fill | data}}) of one assignment."""
    names = input_names(report)
    if "testdata" in a:
        feeds = testdata_feeds(proto, pathlib.Path(a["testdata"]))
        shapes = {n: f["shape"] for n, f in feeds.items()}
    elif "symbols" in a:
        symbols = dict(a["symbols"])
        shapes = {}
        for n in names:
            dims = []
            for d in report["values"][n]["shape"]:
                v, missing = ev(d, symbols)
                if v is None:
                    raise RuntimeError(f"input {n} dim {d}: no value ({missing})")
                dims.append(v)
            shapes[n] = dims
        feeds = {n: ({"shape": s, "fill": a["fill"][n]} if n in a.get("fill", {}) else s)
                 for n, s in shapes.items()}
    else:
        shapes = a["shapes"]
        feeds = {n: ({"shape": s, "fill": a["fill"][n]} if n in a.get("fill", {}) else s)
                 for n, s in shapes.items()}
    # Symbols from the inputs' declared dims: a dim that is a lone symbol takes its value.
    symbols = dict(a.get("symbols", {}))
    known = {s["name"] for s in report.get("symbols", [])}
    for n in names:
        declared = report["values"][n].get("shape") or []
        for d, v in zip(declared, shapes.get(n, [])):
            # A lone symbol; opaque names (any character) print between backticks.
            if isinstance(d, str) and d.strip("`") in known:
                symbols.setdefault(d.strip("`"), v)
    return symbols, feeds, shapes


def compare_values(report: dict, ort: dict, names: List[str], symbols: Dict[str, int],
                   ev: Evaluator, data_dims: set) -> dict:
    producer = {}
    for node in report["nodes"]:
        for out in node["outputs"]:
            producer.setdefault(out, node)
    res = {"values": 0, "equal": 0, "differ": [], "data_dependent": 0, "unresolved": [],
           "bounds": [], "not_in_ort": 0, "roots": []}
    unknown = set()  # symbols earlier values lacked, to find where sizes are lost (roots)
    for name in names:
        got = ort["values"].get(name)
        if got is None:
            res["not_in_ort"] += 1
            continue
        res["values"] += 1
        v = report["values"].get(name, {})
        node = producer.get(name, {})
        where = f"{name} ({node.get('op_type', '?')} #{node.get('index', '?')})"
        shape = v.get("shape")
        if shape is None:
            res["unresolved"].append(f"{where}: unknown rank, ORT {got['dims']}")
            continue
        dims, missing = [], []
        for d in shape:
            x, m = ev(d, symbols)
            dims.append(x if x is not None else d)
            missing += m or []
        size = ELEMENT_BYTES.get(got["type"])
        ort_bytes = math.prod(got["dims"]) * size if size else None
        b, mb = ev(v.get("bytes"), symbols)
        if missing or (size and b is None):
            if name in data_dims:
                res["data_dependent"] += 1
            else:
                res["unresolved"].append(f"{where}: cctx {shape}, ORT {got['dims']} "
                                         f"(symbols {sorted(set(missing or mb))[:4]})")
                if set(missing or mb) - unknown:
                    # A symbol no earlier value lacked: this is where cctx loses the size.
                    res["roots"].append(f"{where}: cctx {shape}, ORT {got['dims']}")
            unknown.update(missing or mb or [])
            continue
        if dims == got["dims"] and (size is None or b == ort_bytes):
            res["equal"] += 1
        elif name in data_dims and len(dims) == len(got["dims"]) and \
                all(x >= y for x, y in zip(dims, got["dims"])) and (size is None or b >= ort_bytes):
            # Dims that depend on data, where cctx gives an upper bound (an If's max over its
            # branches, NonMaxSuppression's most boxes): right for memory, not the run's size.
            res["data_dependent"] += 1
            res["bounds"].append(f"{where}: cctx {dims} (bound), ORT {got['dims']}")
        else:
            res["differ"].append({"value": name, "op": node.get("op_type", "?"),
                                  "node": node.get("index"), "cctx_dims": dims,
                                  "ort_dims": got["dims"], "cctx_bytes": b,
                                  "ort_bytes": ort_bytes, "dtype": got["type"]})
    return res


def fixed_model(src: onnx.ModelProto, dst: pathlib.Path, shapes: Dict[str, List[int]]) -> None:
    model = onnx.ModelProto()
    model.CopyFrom(src)
    for i in model.graph.input:
        if i.name in shapes and i.type.HasField("tensor_type"):
            dims = i.type.tensor_type.shape.dim
            if len(dims) != len(shapes[i.name]):
                continue
            for d, v in zip(dims, shapes[i.name]):
                d.Clear()
                d.dim_value = v
    onnx.save(model, str(dst))


def self_consistency(build: pathlib.Path, model_path: pathlib.Path, proto: onnx.ModelProto,
                     work: pathlib.Path, report: dict, symbols: Dict[str, int],
                     shapes: Dict[str, List[int]], ev: Evaluator) -> dict:
    """The symbolic report evaluated at `symbols` against the report of the model with its
    inputs fixed at `shapes`: every node's total and scratch, and the peak.

    An amount the symbolic report gives in the assignment's symbols alone must equal the fixed
    report's. One that needs more symbols (fresh ones: data-dependent counts, or sizes cctx did
    not infer) is compared with every such symbol at 3 on both sides when the fixed report needs
    them too (same node indices, same fresh names); when the fixed report has a number there,
    the node is counted as "unresolved" (the symbolic analysis knows less; the values table
    lists why), not as a difference."""
    fixed_path = work / "fixed.onnx"
    fixed_model(proto, fixed_path, shapes)
    # --eval SYM=V once per symbol: one assignment (a list of values would sweep).
    known = {s["name"] for s in report.get("symbols", [])}
    spec = [a for k, v in sorted(symbols.items()) if k in known for a in ("--eval", f"{k}={v}")]
    # cctx's default bounds [1, inf) exclude empty tensors, which ONNX allows (ONNX's test data
    # feeds n = 0): an assignment with a 0 widens that symbol's bounds, as a user would.
    spec += [a for k, v in sorted(symbols.items()) if k in known and v < 1
             for a in ("--bounds", f"{k}={v}:inf")]
    refused = None
    try:
        fixed, _ = cctx_json(build, fixed_path)
        try:
            sym_eval, _ = cctx_json(build, model_path, spec)
            sym_peak = (sym_eval["peak"].get("evaluations") or [{}])[0].get("bytes")
        except RuntimeError as e:
            # The model cannot run at the assignment: a requirement fails there (semantics.md
            # "Bounds derived from the model"), and cctx refuses to evaluate it.
            if "cannot run there" in str(e) or "(required by " in str(e):
                refused = str(e)
            elif "no value for symbol" not in str(e):
                raise
            sym_peak = None
    finally:
        fixed_path.unlink(missing_ok=True)
    res = {"nodes": 0, "equal": 0, "differ": [], "unresolved": 0, "peak": None}
    if refused is not None:
        # Consistent when the fixed analysis finds the model cannot run either: a rule failed
        # where the operator refuses the sizes.
        res["invalid"] = refused[refused.find("cctx exit"):][:300]
        res["peak"] = {"symbolic": None, "fixed": None, "verdict": "invalid"}
        if not fixed.get("rule_failures"):
            res["differ"].append("peak: the symbolic analysis refuses the assignment, the fixed "
                                 "one gives figures")
            res["peak"]["verdict"] = "differ"
        return res
    fixed_nodes = {n["index"]: n for n in fixed["nodes"]}
    ev_fixed = copy.copy(ev)
    ev_fixed.know(fixed)

    def filled(amount, extra, e):
        rest = {n: 3 for n in e.names if n not in extra and n not in e.definitions}
        x, _ = e(amount, {**rest, **extra})
        return x

    def compare(a, b):
        """'equal', 'unresolved' or a text saying how they differ"""
        x, _ = ev(a, symbols)
        y, _ = ev_fixed(b, {})
        if x is not None:
            return "equal" if x == y else f"{x} vs fixed {y if y is not None else b}"
        if y is not None:
            return "unresolved"
        x, y = filled(a, symbols, ev), filled(b, {}, ev_fixed)
        if x == y:
            return "equal"
        # The symbolic amount needs a symbol the fixed amount does without (a Shape of a value
        # whose rank depends on which branch of an If runs, where the fixed analysis has decided
        # the If): the symbolic analysis knows less there, and 3 is no value that symbol takes.
        # Unresolved, not different.
        _, need = ev(a, symbols)
        _, need_fixed = ev_fixed(b, {})
        if set(need or []) - set(need_fixed or []):
            return "unresolved"
        return f"{x} vs fixed {y} (symbols left at 3)"

    for node in report["nodes"]:
        other = fixed_nodes.get(node["index"])
        res["nodes"] += 1
        if other is None or other["op_type"] != node["op_type"]:
            res["differ"].append(f"#{node['index']} missing in the fixed analysis")
            continue
        verdicts = {what: compare(a, b) for what, a, b in [
            ("total", node["memory"]["total_bytes"], other["memory"]["total_bytes"]),
            ("scratch", node.get("peak_scratch_bytes"), other.get("peak_scratch_bytes"))]}
        bad = [f"{what} {v} (symbolic {str(a)[:70]})" for what, v, a in
               [("total", verdicts["total"], node["memory"]["total_bytes"]),
                ("scratch", verdicts["scratch"], node.get("peak_scratch_bytes"))]
               if v not in ("equal", "unresolved")]
        if bad:
            res["differ"].append(f"#{node['index']} {node['op_type']} '{node['name']}': "
                                 + "; ".join(bad))
        elif "unresolved" in verdicts.values():
            res["unresolved"] += 1
        else:
            res["equal"] += 1
    # The symbolic `--eval` takes data-dependent sizes at their upper bounds: so does the fixed
    # report's peak here.
    fixed_peak, _ = ev_fixed(fixed["peak"]["total_bytes"], ev_fixed.worst_case({}))
    res["peak"] = {"symbolic": sym_peak, "fixed": fixed_peak, "verdict": "equal"}
    if sym_peak is None:
        v = compare(report["peak"]["total_bytes"], fixed["peak"]["total_bytes"])
        if v == "unresolved":
            res["peak"]["verdict"] = "unresolved"
        elif v != "equal":
            res["peak"]["verdict"] = "differ"
            res["differ"].append(f"peak: symbolic {v}")
    elif sym_peak != fixed_peak:
        res["peak"]["verdict"] = "differ"
        res["differ"].append(f"peak: symbolic evaluated {sym_peak} vs fixed {fixed_peak}")
    return res


def run_model(build: pathlib.Path, m: dict, ev: Evaluator, work: pathlib.Path) -> dict:
    row = {"name": m["name"], "source": m["source"], "task": m["task"], "points": []}
    mwork = work / m["name"]
    mwork.mkdir(parents=True, exist_ok=True)
    try:
        report, elapsed = cctx_json(build, m["path"])
    except Exception as e:  # noqa: BLE001 -- a model cctx rejects is a result
        row["error"] = f"cctx: {e}"
        return row
    row["cctx_seconds"] = elapsed
    row["nodes"] = len(report["nodes"])
    ev.know(report)
    proto = onnx.load(str(m["path"]))
    data_dims = shape_depends_on_data(proto)
    all_path = mwork / "all_outputs.onnx"
    names = tensor_outputs_model(proto, all_path, report)
    names += [o for o in (out for n in report["nodes"] for out in n["outputs"])
              if o and report["values"].get(o, {}).get("kind") == "output"]
    row["values"] = len(names)
    fixed_shape = all(not isinstance(d, str) for n in input_names(report)
                      for d in (report["values"][n].get("shape") or []))
    row["fixed_shape"] = fixed_shape
    inits = {i.name for i in proto.graph.initializer}
    non_tensor = [i.name for i in proto.graph.input
                  if i.name not in inits and i.type.WhichOneof("value") != "tensor_type"]
    if non_tensor:
        # onnxruntime-node feeds tensors only: nothing to compare with, and not cctx's fault.
        row["skipped"] = f"inputs {non_tensor} are sequences or optionals: onnxruntime-node feeds tensors only"
        return row
    # Issue 19: `cctx analyze --eval` gives a number for every model. A fixed-shape model needs
    # no symbol; its data-dependent sizes take their bounds with --worst-case.
    if fixed_shape:
        row["numeric_peak"] = isinstance(report["peak"]["total_bytes"], int)
        if not row["numeric_peak"]:
            try:
                worst, _ = cctx_json(build, m["path"], ["--worst-case"])
                bytes_ = (worst["peak"].get("evaluations") or [{}])[0].get("bytes")
                row["numeric_peak"] = isinstance(bytes_, int)
            except RuntimeError as e:
                row["numeric_peak_error"] = str(e)[-200:]
    for a in m["assignments"]:
        point = {"label": a["label"]}
        row["points"].append(point)
        try:
            symbols, feeds, shapes = resolve_assignment(a, report, proto, ev)
        except Exception as e:  # noqa: BLE001
            point["error"] = f"assignment: {e}"
            continue
        point["shapes"] = shapes
        try:
            ort = ort_values(build, all_path, feeds)
        except Exception as e:  # noqa: BLE001 -- the harness failed on this point: say so
            point["error"] = f"ONNX Runtime harness: {e}"[:300]
            continue
        if "error" in ort:
            point["ort_error"] = ort["error"][:300]
        else:
            point["ort_ms"] = ort["ms"]
            point.update(compare_values(report, ort, names, symbols, ev, data_dims))
        if not fixed_shape:
            try:
                point["self"] = self_consistency(build, m["path"], proto, mwork, report, symbols,
                                                 shapes, ev)
            except Exception as e:  # noqa: BLE001
                point["self_error"] = str(e)[:300]
    all_path.unlink(missing_ok=True)
    return row


# ---------------------------------------------------------------------------- verdicts

def discrepancies(row: dict) -> List[str]:
    """Keys of everything that is wrong in a row: 'model:value' for a dim/byte difference,
    'model:self:<node or peak>' for a self-consistency difference, 'model:error', and
    'model:peak-not-numeric' when `--eval` gives no number."""
    out = []
    if "error" in row:
        out.append(f"{row['name']}:error")
    if "skipped" not in row and "error" not in row and not numeric_peak(row):
        out.append(f"{row['name']}:peak-not-numeric")
    for p in row["points"]:
        if "error" in p or "self_error" in p:
            out.append(f"{row['name']}:error")
        for d in p.get("differ", []):
            out.append(f"{row['name']}:{d['value']}")
        for u in p.get("roots", []):  # "VALUE (Op #k): ...": where cctx first loses a size
            out.append(f"{row['name']}:unresolved:{u.split(' (')[0]}")
        for d in p.get("self", {}).get("differ", []):
            out.append(f"{row['name']}:self:{d.split(':')[0]}")
    return sorted(set(out))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", type=pathlib.Path, required=True)
    p.add_argument("--quick", action="store_true", help="the ctest subset")
    p.add_argument("--only", default="")
    p.add_argument("--sources", default="repo,torch,npm,testdata")
    p.add_argument("--doc", type=pathlib.Path, help="write the markdown table here")
    p.add_argument("--json", type=pathlib.Path, help="write every result here")
    p.add_argument("--expected", type=pathlib.Path, default=HERE / "expected_failures.json")
    p.add_argument("--update-expected", action="store_true")
    p.add_argument("--from-json", type=pathlib.Path,
                   help="take the results of an earlier --json instead of running")
    args = p.parse_args()
    build = args.build.resolve()
    models = catalog(build, args.sources.split(","), args.quick)
    if args.only:
        wanted = set(args.only.split(","))
        models = [m for m in models if m["name"] in wanted]
    if args.from_json:  # verdicts, table and list again from a run's results, nothing run
        wanted = {m["name"] for m in models}
        rows = [r for r in json.loads(args.from_json.read_text()) if r["name"] in wanted]
    else:
        ev = Evaluator(build)
        work = build / "realmodels" / "work"
        rows = []
        for m in models:
            started = time.time()
            row = run_model(build, m, ev, work)
            row["seconds"] = time.time() - started
            rows.append(row)
            print(summary_line(row), flush=True)
    expected = json.loads(args.expected.read_text()) if args.expected.exists() else {}
    known = {k for keys in expected.get("failures", {}).values() for k in keys}
    found = {k for row in rows for k in discrepancies(row)}
    new = sorted(found - known)
    ran = {r["name"] for r in rows}
    gone = sorted(k for k in known if k.split(":")[0] in ran and k not in found)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, default=str) + "\n")
    if args.doc:
        import report_doc
        args.doc.write_text(report_doc.markdown(rows, expected))
    if args.update_expected:
        failures = dict(expected.get("failures", {}))
        for row in rows:
            keys = discrepancies(row)
            if keys:
                failures[row["name"]] = keys
            else:
                failures.pop(row["name"], None)
        expected["failures"] = dict(sorted(failures.items()))
        args.expected.write_text(json.dumps(expected, indent=1) + "\n")
    for k in gone:
        print(f"note: expected failure {k} no longer happens: remove it from {args.expected.name}")
    for k in new:
        print(f"NEW DISCREPANCY {k}")
    print(f"{len(rows)} models, {len(found)} discrepancies ({len(found & known)} expected, "
          f"{len(new)} new)")
    compared = sum(p.get("values", 0) for r in rows for p in r["points"])
    if args.quick and not args.only:
        wanted = {n for names in QUICK.values() for n in names}
        absent = sorted(wanted - {r["name"] for r in rows})
        if absent or not compared:
            print(f"FAIL: the quick subset is incomplete (missing {absent}, {compared} values)")
            return 1
        # Each model on its own: one that errs or compares nothing fails the check by name, even
        # when the others compare plenty.
        empty = [r["name"] for r in rows if r["name"] in wanted and
                 ("error" in r or not sum(p.get("values", 0) for p in r.get("points", [])))]
        if empty:
            print(f"FAIL: the quick subset compared no value of {', '.join(sorted(empty))}")
            return 1
    return 1 if new and not args.update_expected else 0


def summary_line(row: dict) -> str:
    if "error" in row:
        return f"FAIL {row['name']}: {row['error']}"
    if "skipped" in row:
        return f"skip {row['name']}: {row['skipped']}"
    parts = []
    for p in row["points"]:
        if "error" in p:
            parts.append(f"{p['label']}: {p['error']}")
            continue
        text = f"{p['label']}: " + (f"ORT fails ({p['ort_error'][:80]})" if "ort_error" in p else
                                    f"{p['equal']}/{p['values']} equal, {len(p['differ'])} differ, "
                                    f"{p['data_dependent']} data-dep, {len(p['unresolved'])} unres")
        if "self" in p and "invalid" in p["self"]:
            text += f", self: cannot run ({p['self']['peak']['verdict']})"
        elif "self" in p:
            s = p["self"]
            text += (f", self {s['equal']}/{s['nodes']} ({s['unresolved']} unres), "
                     f"peak {s['peak']['verdict']}")
        elif "self_error" in p:
            text += f", self error {p['self_error'][:80]}"
        parts.append(text)
    bad = discrepancies(row)
    return (f"{'ok  ' if not bad else 'DIFF'} {row['name']} ({row['nodes']} nodes, "
            f"{row['cctx_seconds']:.2f} s): " + " | ".join(parts))


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    sys.exit(main())
