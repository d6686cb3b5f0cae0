#!/usr/bin/python3
"""The graph cctx plans against the graph ONNX Runtime really runs (docs/design/rewrites.md).

    ort_rewrites_check.py --build BUILD [--models FILE_OR_DIR ...] [--min-equal N] [--json OUT]

For every model (two small CNNs made here first, then the given ones): ONNX Runtime (onnxruntime-node from BUILD/validate/node_modules) saves the graph
it runs at graph optimisation level `all` (session option optimizedModelFilePath,
ort_save_optimized.mjs), and `cctx analyze --profile onnxruntime-cpu-no-arena` gives
the graph cctx plans after the onnxruntime plugin's rewrites. Their operators are counted by
domain and type (Constant nodes left out: ONNX Runtime holds them as initializers; so are the
nodes cctx's profile folds as the session loads, JSON `folded_at_load`). A model is
"equal" when every count is. Prints one row per model with the operators that differ, and exits
1 when fewer than --min-equal models are equal, when a --must-equal model is not, or when a tool
fails; 0 otherwise.
"""
import argparse
import collections
import json
import pathlib
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = pathlib.Path(__file__).resolve().parent
PROFILE = "onnxruntime-cpu-no-arena"


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", type=pathlib.Path, default=pathlib.Path("build"))
    p.add_argument("--models", nargs="*", type=pathlib.Path,
                   help="files or folders (default: tests/models and BUILD/realmodels/npm)")
    p.add_argument("--min-equal", type=int, default=0)
    p.add_argument("--must-equal", nargs="*", default=[],
                   help="model names (file stems) that must be equal")
    p.add_argument("--json", type=pathlib.Path)
    return p.parse_args()


def model_files(args):
    roots = args.models or [HERE.parent / "models", args.build / "realmodels" / "npm"]
    files = []
    for root in roots:
        if root.is_file():
            files.append(root)
        elif root.is_dir():
            files.extend(sorted(root.rglob("*.onnx")))
    return files


def generated_models(work):
    """Small CNNs made here whose rewritten graphs must equal ONNX Runtime's: a ResNet stem and
    two residual blocks (Conv+BatchNormalization+Relu, MaxPool, Sum fusions, a strided 1x1
    downsample, GlobalAveragePool, Gemm), a MobileNet-v2 block (Clip 0..6, depthwise Conv,
    a channel count that is no whole block), an inception block with a dense layer (NCHWc
    Concat, pools and BatchNormalization of blocked values, a zero Pad) and an EfficientNet
    block (SiLU, squeeze-and-excitation, the reshaped residual Add, ReshapeFusion), and a
    MobileNet-v2 block in QDQ form (the quantized kernels, NHWC)."""
    def w(name, shape):
        return numpy_helper.from_array(np.random.default_rng(0).standard_normal(shape)
                                       .astype(np.float32) * 0.1, name)

    def conv(nodes, inits, x, y, cin, cout, k, stride=1, group=1, bn=True, act=None):
        inits.append(w(y + "_w", [cout, cin // group, k, k]))
        c = y + "_c" if (bn or act) else y
        nodes.append(helper.make_node("Conv", [x, y + "_w"], [c], kernel_shape=[k, k],
                                      strides=[stride, stride], pads=[k // 2] * 4, group=group))
        if bn:
            for p in "sbmv":
                inits.append(numpy_helper.from_array(np.full([cout], 1.0 if p in "sv" else 0.0,
                                                             np.float32), f"{y}_{p}"))
            b = y + "_bn" if act else y
            nodes.append(helper.make_node("BatchNormalization",
                                          [c, y + "_s", y + "_b", y + "_m", y + "_v"], [b]))
            c = b
        if act == "relu":
            nodes.append(helper.make_node("Relu", [c], [y]))
        elif act == "relu6":
            nodes.append(helper.make_node("Clip", [c, "zero", "six"], [y]))

    models = []
    nodes, inits = [], []
    conv(nodes, inits, "image", "stem", 3, 16, 3, stride=2, act="relu")
    nodes.append(helper.make_node("MaxPool", ["stem"], ["pool"], kernel_shape=[3, 3],
                                  strides=[2, 2], pads=[1, 1, 1, 1]))
    conv(nodes, inits, "pool", "b1a", 16, 16, 3, act="relu")
    conv(nodes, inits, "b1a", "b1b", 16, 16, 3)
    nodes += [helper.make_node("Add", ["b1b", "pool"], ["b1s"]),
              helper.make_node("Relu", ["b1s"], ["b1"])]
    conv(nodes, inits, "b1", "b2a", 16, 32, 3, stride=2, act="relu")
    conv(nodes, inits, "b2a", "b2b", 32, 32, 3)
    conv(nodes, inits, "b1", "b2d", 16, 32, 1, stride=2)
    nodes += [helper.make_node("Add", ["b2b", "b2d"], ["b2s"]),
              helper.make_node("Relu", ["b2s"], ["b2"]),
              helper.make_node("GlobalAveragePool", ["b2"], ["gap"]),
              helper.make_node("Flatten", ["gap"], ["flat"]),
              helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], transB=1)]
    inits += [w("fc_w", [10, 32]), w("fc_b", [10])]
    models.append(("generated_resnet_blocks", nodes, inits))

    nodes, inits = [], []
    inits += [numpy_helper.from_array(np.array(0.0, np.float32), "zero"),
              numpy_helper.from_array(np.array(6.0, np.float32), "six")]
    conv(nodes, inits, "image", "stem", 3, 32, 3, stride=2, act="relu6")
    conv(nodes, inits, "stem", "dw", 32, 32, 3, group=32, act="relu6")
    conv(nodes, inits, "dw", "proj", 32, 24, 1)
    conv(nodes, inits, "proj", "exp", 24, 144, 1, act="relu6")
    conv(nodes, inits, "exp", "dw2", 144, 144, 3, group=144, act="relu6")
    conv(nodes, inits, "dw2", "proj2", 144, 24, 1)
    nodes += [helper.make_node("Add", ["proj2", "proj"], ["res"]),
              helper.make_node("GlobalAveragePool", ["res"], ["gap"]),
              helper.make_node("Flatten", ["gap"], ["logits"])]
    models.append(("generated_mobilenet_block", nodes, inits))

    # An inception block: four branches (a 1x1 Conv, 1x1 then 3x3, a pool then 1x1) concatenated
    # along channels, then a MaxPool and a dense layer's BatchNormalization + Relu on the
    # concatenation (NCHWc Concat, pool, BatchNormalization as a Conv, the Relu fused), a zero
    # Pad before an AveragePool (PyTorch's export; PadFusion), and a head of MatMul + Add + Relu
    # (MatMulAddFusion, then GemmActivationFusion: one FusedGemm).
    nodes, inits = [], []
    conv(nodes, inits, "image", "stem", 3, 32, 3, stride=2, act="relu")
    conv(nodes, inits, "stem", "i1", 32, 16, 1, act="relu")
    conv(nodes, inits, "stem", "i2a", 32, 16, 1, act="relu")
    conv(nodes, inits, "i2a", "i2", 16, 32, 3, act="relu")
    nodes.append(helper.make_node("MaxPool", ["stem"], ["i3p"], kernel_shape=[3, 3],
                                  strides=[1, 1], pads=[1, 1, 1, 1]))
    conv(nodes, inits, "i3p", "i3", 32, 16, 1, act="relu")
    nodes.append(helper.make_node("Concat", ["i1", "i2", "i3"], ["cat"], axis=1))
    nodes.append(helper.make_node("MaxPool", ["cat"], ["catp"], kernel_shape=[2, 2],
                                  strides=[2, 2]))
    for p in "sbmv":
        inits.append(numpy_helper.from_array(np.full([64], 1.0 if p in "sv" else 0.0,
                                                     np.float32), "dn_" + p))
    nodes += [helper.make_node("BatchNormalization",
                               ["catp", "dn_s", "dn_b", "dn_m", "dn_v"], ["dn_bn"]),
              helper.make_node("Relu", ["dn_bn"], ["dn"])]
    conv(nodes, inits, "dn", "tr", 64, 32, 1, bn=False)
    inits.append(numpy_helper.from_array(np.zeros([8], np.int64), "no_pads"))
    nodes += [helper.make_node("Pad", ["tr", "no_pads"], ["trp"], mode="constant"),
              helper.make_node("AveragePool", ["trp"], ["avg"], kernel_shape=[2, 2],
                               strides=[2, 2]),
              helper.make_node("GlobalAveragePool", ["avg"], ["gap"]),
              helper.make_node("Flatten", ["gap"], ["flat"]),
              helper.make_node("MatMul", ["flat", "head_w"], ["head_m"]),
              helper.make_node("Add", ["head_m", "head_b"], ["head_a"]),
              helper.make_node("Relu", ["head_a"], ["logits"])]
    inits += [w("head_w", [32, 10]), w("head_b", [10])]
    models.append(("generated_inception_block", nodes, inits))

    # An EfficientNet block with symbolic height and width: SiLU (x * sigmoid(x): QuickGelu,
    # kept on the blocked layout), a squeeze-and-excitation Mul of [N,C,H,W] by [N,C,1,1] (read
    # through ReorderOutput), a projection Conv after it, and the residual Add whose dims the
    # NCHWc transformer cannot show equal through the plain Mul (both inputs reshaped to
    # [N, C/block, H, W, block]); then a head whose Flatten is a Reshape to
    # Concat(Shape -> Gather -> Unsqueeze, Cast of a constant) (ReshapeFusion: [0, 32]).
    nodes, inits = [], []
    conv(nodes, inits, "image", "stem", 3, 32, 3, stride=2, bn=False)
    nodes += [helper.make_node("Sigmoid", ["stem"], ["stem_s"]),
              helper.make_node("Mul", ["stem", "stem_s"], ["x0"])]
    conv(nodes, inits, "x0", "exp", 32, 96, 1, bn=False)
    nodes += [helper.make_node("Sigmoid", ["exp"], ["exp_s"]),
              helper.make_node("Mul", ["exp", "exp_s"], ["exp_a"])]
    conv(nodes, inits, "exp_a", "dw", 96, 96, 3, group=96, bn=False)
    nodes += [helper.make_node("GlobalAveragePool", ["dw"], ["se_p"])]
    conv(nodes, inits, "se_p", "se_r", 96, 8, 1, bn=False, act="relu")
    conv(nodes, inits, "se_r", "se_e", 8, 96, 1, bn=False)
    nodes += [helper.make_node("Sigmoid", ["se_e"], ["se_s"]),
              helper.make_node("Mul", ["dw", "se_s"], ["se"])]
    conv(nodes, inits, "se", "proj", 96, 32, 1, bn=False)
    nodes += [helper.make_node("Add", ["proj", "x0"], ["res"]),
              helper.make_node("GlobalAveragePool", ["res"], ["gap"]),
              helper.make_node("Shape", ["gap"], ["gap_shape"]),
              helper.make_node("Gather", ["gap_shape", "zero_index"], ["batch"], axis=0),
              helper.make_node("Unsqueeze", ["batch", "axis0"], ["batch1"]),
              helper.make_node("Cast", ["width32"], ["width"], to=TensorProto.INT64),
              helper.make_node("Concat", ["batch1", "width"], ["flat_shape"], axis=0),
              helper.make_node("Reshape", ["gap", "flat_shape"], ["logits"])]
    inits += [numpy_helper.from_array(np.array(0, np.int64), "zero_index"),
              numpy_helper.from_array(np.array([0], np.int64), "axis0"),
              numpy_helper.from_array(np.array([32], np.int32), "width32")]
    models.append(("generated_efficientnet_block", nodes, inits))

    # A MobileNet-v2 block in QDQ form, as onnxruntime.quantization writes it: int8 activations
    # (one-element zero points), int8 weights with zero 0, int32 biases. The stem's output has
    # two readers (its DequantizeLinear is copied per reader and stays int8), so the stem and
    # the expansion stay float Convs; the depthwise and projection Convs become channels-last
    # QLinearConvs (their Transposes cancel between them), and the projection's output reaches
    # the float residual Add through a Transpose moved past its DequantizeLinear; then
    # QLinearGlobalAveragePool, a Flatten on quantized data and QGemm.
    nodes, inits = [], []
    rng = np.random.default_rng(1)

    def scalar(name, value, dtype):
        inits.append(numpy_helper.from_array(np.array(value, dtype), name))

    def q(x, y):
        scalar(y + "_s", 0.05, np.float32)
        scalar(y + "_z", int(rng.integers(-20, 20)), np.int8)
        nodes.append(helper.make_node("QuantizeLinear", [x, y + "_s", y + "_z"], [y]))

    def dq(x, y):
        nodes.append(helper.make_node("DequantizeLinear", [x, x + "_s", x + "_z"], [y]))

    def qconv(x, y, cin, cout, k, group=1):
        inits.append(numpy_helper.from_array(
            rng.integers(-100, 100, [cout, cin // group, k, k]).astype(np.int8), y + "_wq"))
        inits.append(numpy_helper.from_array(rng.integers(-500, 500, [cout]).astype(np.int32),
                                             y + "_bq"))
        scalar(y + "_wq_s", 0.01, np.float32)
        scalar(y + "_wq_z", 0, np.int8)
        scalar(y + "_bq_s", 0.0005, np.float32)
        scalar(y + "_bq_z", 0, np.int32)
        dq(y + "_wq", y + "_w")
        dq(y + "_bq", y + "_b")
        nodes.append(helper.make_node("Conv", [x, y + "_w", y + "_b"], [y + "_f"],
                                      kernel_shape=[k, k], pads=[k // 2] * 4, group=group))
        q(y + "_f", y + "_q")

    q("image", "in_q")
    dq("in_q", "in")
    qconv("in", "stem", 3, 16, 3)
    dq("stem_q", "block")
    qconv("block", "exp", 16, 32, 1)
    dq("exp_q", "exp_d")
    qconv("exp_d", "dw", 32, 32, 3, group=32)
    dq("dw_q", "dw_d")
    qconv("dw_d", "proj", 32, 16, 1)
    dq("proj_q", "proj_d")
    nodes.append(helper.make_node("Add", ["block", "proj_d"], ["res"]))
    q("res", "res_q")
    dq("res_q", "res_d")
    nodes.append(helper.make_node("GlobalAveragePool", ["res_d"], ["gap"]))
    q("gap", "gap_q")
    dq("gap_q", "gap_d")
    nodes.append(helper.make_node("Flatten", ["gap_d"], ["flat"]))
    q("flat", "flat_q")
    dq("flat_q", "flat_d")
    inits.append(numpy_helper.from_array(rng.integers(-100, 100, [10, 16]).astype(np.int8),
                                         "fc_wq"))
    inits.append(numpy_helper.from_array(rng.integers(-500, 500, [10]).astype(np.int32),
                                         "fc_bq"))
    scalar("fc_wq_s", 0.01, np.float32)
    scalar("fc_wq_z", 0, np.int8)
    scalar("fc_bq_s", 0.0005, np.float32)
    scalar("fc_bq_z", 0, np.int32)
    dq("fc_wq", "fc_w")
    dq("fc_bq", "fc_b")
    nodes.append(helper.make_node("Gemm", ["flat_d", "fc_w", "fc_b"], ["fc"], transB=1))
    q("fc", "fc_q")
    dq("fc_q", "logits")
    models.append(("generated_qdq_mobilenet_block", nodes, inits))

    out = []
    for name, nodes, inits in models:
        graph = helper.make_graph(
            nodes, name,
            [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["N", 3, "H", "W"])],
            [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", "K"])], inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 7
        onnx.checker.check_model(model)
        path = work / (name + ".onnx")
        onnx.save(model, str(path))
        out.append(path)
    return out


def counts(ops):
    return collections.Counter(op for op in ops if op != "Constant")


def ort_ops(build, model, work):
    out = work / (model.stem + ".all.onnx")
    spec = {"model": str(model), "out": str(out), "level": "all",
            "ort": str((build / "validate" / "node_modules").resolve())}
    r = subprocess.run(["node", str(HERE / "ort_save_optimized.mjs"), json.dumps(spec)],
                       capture_output=True, text=True, timeout=600, check=False)
    if r.returncode != 0 or not out.exists():
        raise RuntimeError("ONNX Runtime: " + (r.stderr.strip().splitlines() or ["failed"])[-1])
    m = onnx.load(str(out), load_external_data=False)
    return counts((n.domain + ":" if n.domain else "") + n.op_type for n in m.graph.node)


def cctx_ops(build, model):
    r = subprocess.run([str(build / "bin" / "cctx"), "analyze", str(model), "--profile", PROFILE,
                        "--format", "json"], capture_output=True, text=True, timeout=600,
                       check=False)
    if r.returncode != 0:
        raise RuntimeError("cctx: " + (r.stderr.strip().splitlines() or ["failed"])[-1])
    # A node the profile folds as the session loads (its outputs the shapes decide) is an
    # initializer to ONNX Runtime too: its ConstantFolding computed it. It runs no kernel.
    nodes = [n for n in json.loads(r.stdout)["nodes"] if not n.get("folded_at_load")]
    return counts((n["domain"] + ":" if n["domain"] else "") + n["op_type"] for n in nodes)


def main() -> int:
    args = parse_args()
    rows, failures, equal = [], 0, 0
    with tempfile.TemporaryDirectory(prefix="cctx-rewrites-") as tmp:
        for model in generated_models(pathlib.Path(tmp)) + model_files(args):
            try:
                ort, ours = ort_ops(args.build, model, pathlib.Path(tmp)), cctx_ops(args.build, model)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                failures += 1
                rows.append({"model": model.name, "error": str(e)[:200]})
                print(f"{model.name:40s} FAILED: {str(e)[:200]}")
                continue
            differ = {op: [ort[op], ours[op]] for op in sorted(set(ort) | set(ours))
                      if ort[op] != ours[op]}
            equal += not differ
            if differ and model.stem in args.must_equal:
                failures += 1
            rows.append({"model": model.name, "ort_nodes": sum(ort.values()),
                         "cctx_nodes": sum(ours.values()), "differ": differ})
            shown = ", ".join(f"{op} {a}/{b}" for op, (a, b) in list(differ.items())[:6])
            more = f" (+{len(differ) - 6})" if len(differ) > 6 else ""
            print(f"{model.name:40s} ORT {sum(ort.values()):4d}  cctx {sum(ours.values()):4d}  "
                  f"{'equal' if not differ else 'ORT/cctx: ' + shown + more}")
    print(f"\n{equal} of {len(rows)} models equal operator for operator "
          f"(floor {args.min_equal}); {failures} failed")
    if args.json:
        args.json.write_text(json.dumps({"equal": equal, "models": rows}, indent=1))
    return 1 if failures or equal < args.min_equal else 0


if __name__ == "__main__":
    sys.exit(main())
