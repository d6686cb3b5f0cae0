"""ONNX Runtime loads and runs what cctx.infer_shapes returns (ctest `python_infer_shapes_ort`,
label `runtime`): for each model of tests/models and the seed, the inferred model and the original
run under onnxruntime-node on the same inputs; the outputs must be equal, and each output's dims
must be cctx's inferred dims evaluated at the input sizes used.

    ort_runs_inferred.py --ort BUILD/validate/node_modules --work DIR
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys

import onnx

import cctx

SOURCE = pathlib.Path(os.environ["CCTX_SOURCE_DIR"])
SIZES = {"batch": 2, "seq": 5, "height": 20, "width": 24, "N": 3}
TYPES = {onnx.TensorProto.FLOAT: "float32", onnx.TensorProto.DOUBLE: "float64",
         onnx.TensorProto.INT64: "int64", onnx.TensorProto.INT32: "int32", onnx.TensorProto.BOOL: "bool"}


def dims_of(value_info, sizes):
    return [d.dim_value if d.HasField("dim_value") else cctx.evaluate_expression(d.dim_param, sizes)
            for d in value_info.type.tensor_type.shape.dim]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ort", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    models = sorted((SOURCE / "tests" / "models").glob("*.onnx")) + [SOURCE / "examples" / "seed" / "seed.onnx"]
    runs, expected = [], {}
    for path in models:
        inferred = cctx.infer_shapes(onnx.load(str(path)))
        out = work / f"{path.stem}.inferred.onnx"
        onnx.save(inferred, str(out))
        initializers = {t.name for t in inferred.graph.initializer}
        inputs = {i.name: {"type": TYPES[i.type.tensor_type.elem_type], "shape": dims_of(i, SIZES)}
                  for i in inferred.graph.input if i.name not in initializers}
        runs.append({"model": str(out), "reference": str(path), "inputs": inputs})
        expected[str(out)] = {o.name: dims_of(o, SIZES) for o in inferred.graph.output}
    here = pathlib.Path(__file__).resolve().parent
    done = subprocess.run(["node", str(here / "run_models.mjs"), json.dumps({"ort": args.ort, "runs": runs})],
                          capture_output=True, text=True)
    if done.returncode != 0:
        print(done.stderr, file=sys.stderr)
        return 1
    failures = 0
    for r in json.loads(done.stdout):
        name = pathlib.Path(r["model"]).name
        ok = r["same_as_reference"] and r["outputs"] == expected[r["model"]]
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: ran under ONNX Runtime; outputs {r['outputs']}, "
              f"cctx inferred {expected[r['model']]}; equal to the original's: {r['same_as_reference']}")
    print(f"{len(runs) - failures} of {len(runs)} inferred models ran with the inferred shapes")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
