#!/usr/bin/python3
"""`make bench`: cctx.infer_shapes against onnx.shape_inference.infer_shapes (always) and ONNX
Runtime's SymbolicShapeInference.infer_shapes (only with --ssi PATH/symbolic_shape_infer.py, a file
of ONNX Runtime's that Debian does not package; it is loaded from there, never copied), in one
process, on a GPT-style decoder of about --nodes nodes exported by PyTorch 1.13
(tests/models/export_models.py's GptDecoder with more blocks; cached in --out). Without torch the
Llama-style model of bench_pipeline_scale --generate is used.

The machine's speed drifts: the tools run interleaved for --rounds rounds on the same loaded
ModelProto, and the best and median of each are printed, with the fraction of values each one
leaves with a complete shape. Never run by ctest: no timing is asserted anywhere.
"""
import argparse
import importlib.util
import pathlib
import statistics
import sys
import time

import onnx

import cctx

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from gpt_export import model_file  # noqa: E402


def shaped_fraction(model: onnx.ModelProto) -> float:
    """Node outputs of the main graph whose type has a shape with every dim known or named."""
    g = model.graph
    typed = {vi.name: vi.type for vi in list(g.value_info) + list(g.output)}
    produced = [o for n in g.node for o in n.output if o]

    def complete(t):
        s = t.tensor_type
        return s.elem_type != 0 and s.HasField("shape") and all(
            d.HasField("dim_value") or d.HasField("dim_param") for d in s.shape.dim)

    return sum(1 for o in produced if o in typed and complete(typed[o])) / max(1, len(produced))


def load_ssi(path: str):
    spec = importlib.util.spec_from_file_location("symbolic_shape_infer", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.SymbolicShapeInference


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True, type=pathlib.Path)
    parser.add_argument("--nodes", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--generator", default="bench_pipeline_scale")
    parser.add_argument("--ssi", help="path of ONNX Runtime's symbolic_shape_infer.py")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    path = model_file(args.out, args.nodes, args.generator)
    model = onnx.load(str(path))
    print(f"model: {path} ({len(model.graph.node)} nodes, {path.stat().st_size} bytes)")

    tools = {
        "cctx.infer_shapes": lambda m: cctx.infer_shapes(m),
        "onnx.shape_inference.infer_shapes": lambda m: onnx.shape_inference.infer_shapes(m),
        "onnx ... (data_prop=True)": lambda m: onnx.shape_inference.infer_shapes(m, data_prop=True),
    }
    if args.ssi:
        ssi = load_ssi(args.ssi)
        tools["SymbolicShapeInference (auto_merge)"] = lambda m: ssi.infer_shapes(m, auto_merge=True)
    times = {name: [] for name in tools}
    coverage = {}
    cctx.infer_shapes(model)  # plugins loaded once per process, as any user's first call does
    for _ in range(args.rounds):
        for name, run in tools.items():
            start = time.perf_counter()
            result = run(model)
            times[name].append(time.perf_counter() - start)
            coverage[name] = shaped_fraction(result)
    # Where cctx's time goes: the one serialization a ModelProto needs to cross into C++.
    start = time.perf_counter()
    model.SerializeToString()
    serialize = time.perf_counter() - start

    base = min(times["cctx.infer_shapes"])
    print(f"{'tool':40} {'best s':>8} {'median s':>9} {'x cctx':>7} {'values shaped':>14}")
    for name, t in times.items():
        print(f"{name:40} {min(t):8.3f} {statistics.median(t):9.3f} {min(t) / base:7.1f} "
              f"{100 * coverage[name]:13.1f}%")
    print(f"(of cctx's time, model.SerializeToString() alone: {serialize:.3f} s)")
    if not args.ssi:
        print("SymbolicShapeInference not measured: give SSI_PY=path/to/symbolic_shape_infer.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
