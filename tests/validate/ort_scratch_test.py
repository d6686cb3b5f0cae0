#!/usr/bin/python3
"""ctest validate_ort_scratch: the ONNX Runtime scratch plugin against the real ONNX Runtime.

    ort_scratch_test.py --build BUILD --work DIR

One single-node model per case (onnx.helper, fixed shapes, weights as initializers), run by
run_ort.mjs in no-arena mode under the allocation counter. ONNX Runtime's own allocator (the
aligned family) then holds, during run 3, the output and the kernel's scratch, plus a few hundred
bytes of small per-run blocks; that baseline is measured on a 1x1 Conv (no scratch) and
subtracted. The rest is compared with the node's peak_scratch_bytes from `cctx analyze` under a
profile loading the ai.onnx plugin then libcctx_onnxruntime.so with override: true, evaluated at
the thread count the case ran ONNX Runtime with (one unless it says; the runtime parameter
`threads`). Tolerance:
512 bytes plus 64 per temp-space allocation (glibc's posix_memalign slack, counted by
malloc_usable_size), i.e. a few per cent for the recurrent ops, which make 10-30 allocations.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = pathlib.Path(__file__).resolve().parent
F = TensorProto.FLOAT
vi = helper.make_tensor_value_info
PROFILE = ("plugins:\n  - name: onnx\n  - name: microsoft\n  - name: onnxruntime\n"
           "    override: true\nmemory: {threads: {default: 1}}\n")


def weights(name, shape):
    return numpy_helper.from_array(np.zeros(shape, dtype=np.float32), name)


def conv(c, m, spatial, kernel, batch=1, **attrs):
    group = attrs.get("group", 1)
    x = [batch, c] + list(spatial)
    node = helper.make_node("Conv", ["X", "W"], ["Y"], kernel_shape=list(kernel), **attrs)
    out = vi("Y", F, ["n", "m"] + ["s%d" % i for i in range(len(spatial))])
    return [node], [vi("X", F, x)], [out], [weights("W", (m, c // group) + tuple(kernel))], \
        {"X": x}, 1


def conv_transpose(c, m, spatial, kernel, **attrs):
    x = [1, c] + list(spatial)
    node = helper.make_node("ConvTranspose", ["X", "W"], ["Y"], kernel_shape=list(kernel), **attrs)
    return [node], [vi("X", F, x)], [vi("Y", F, ["n", "m", "h", "w"])], \
        [weights("W", (c, m) + tuple(kernel))], {"X": x}, 1


def where(cs, xs, ys):
    node = helper.make_node("Where", ["c", "x", "y"], ["o"])
    ins = [vi("c", TensorProto.BOOL, cs), vi("x", F, xs), vi("y", F, ys)]
    return [node], ins, [vi("o", F, ["a", "b"])], [], {"c": cs, "x": xs, "y": ys}, 2


def softmax(axis):
    node = helper.make_node("Softmax", ["x"], ["o"], axis=axis)
    return [node], [vi("x", F, [3, 211, 97])], [vi("o", F, [3, 211, 97])], [], \
        {"x": [3, 211, 97]}, 2


def lstm(direction, d):
    s, b, i, h = 13, 3, 17, 23
    node = helper.make_node("LSTM", ["X", "W", "R", "B"], ["Y"], hidden_size=h, direction=direction)
    inits = [weights("W", (d, 4 * h, i)), weights("R", (d, 4 * h, h)), weights("B", (d, 8 * h))]
    return [node], [vi("X", F, [s, b, i])], [vi("Y", F, ["a", "b", "c", "d"])], inits, \
        {"X": [s, b, i]}, 14 * d


def group_query_attention(packed, rotary, b=2, s=33, h=32, past=0, **attrs):
    """com.microsoft GroupQueryAttention, 8 query heads and 2 KV heads of h: a prompt (no past)
    or, with `past`, a step after `past` tokens; seqlens_k (past + s - 1), total_sequence_length
    and the cos/sin caches as initializers."""
    n, kv = 8, 2
    inputs = ["q", "" if packed else "k", "" if packed else "v", "pk" if past else "",
              "pv" if past else "", "seqlens", "total"]
    width = (n + 2 * kv) * h if packed else n * h
    ins = [vi("q", F, [b, s, width])]
    feeds = {"q": [b, s, width]}
    if not packed:
        ins += [vi("k", F, [b, s, kv * h]), vi("v", F, [b, s, kv * h])]
        feeds.update({"k": [b, s, kv * h], "v": [b, s, kv * h]})
    if past:
        ins += [vi("pk", F, [b, kv, past, h]), vi("pv", F, [b, kv, past, h])]
        feeds.update({"pk": [b, kv, past, h], "pv": [b, kv, past, h]})
    # The lengths as constants, so the estimate is a number (a decoder computes them).
    inits = [numpy_helper.from_array(np.full([b], past + s - 1, np.int32), "seqlens"),
             numpy_helper.from_array(np.array(past + s, np.int32), "total")]
    if rotary:
        inputs += ["cos", "sin"]
        inits += [weights("cos", (512, h // 2)), weights("sin", (512, h // 2))]
    node = helper.make_node("GroupQueryAttention", inputs, ["o", "k_out", "v_out"],
                            domain="com.microsoft", num_heads=n, kv_num_heads=kv,
                            do_rotary=int(rotary), **attrs)
    outs = [vi("o", F, ["a", "b", "c"]), vi("k_out", F, ["d", "e", "f", "g"]),
            vi("v_out", F, ["h", "i", "j", "k"])]
    return [node], ins, outs, inits, feeds, 4


def qlinear_conv(c, m, spatial, kernel, channels_last=False, u8=False, batch=1, **attrs):
    """An int8 QLinearConv (zero-point-0 weights, as ONNX Runtime's quantizer writes them): ai.onnx's
    (NCHW) or com.microsoft's channels-last one (NHWC, what ONNX Runtime's optimiser makes);
    `u8`: uint8 activations (as its QDQ transformers make them: MLAS's symmetric kernels)."""
    group = attrs.get("group", 1)
    x = [batch] + list(spatial) + [c] if channels_last else [batch, c] + list(spatial)
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(rng.integers(-50, 50, (m, c // group) + tuple(kernel))
                                     .astype(np.int8), "W")]
    act, zero = (np.uint8, 0) if u8 else (np.int8, -128)
    for name, value, dtype in (("xs", 0.01, np.float32), ("xz", zero, act),
                               ("ws", 0.02, np.float32), ("wz", 0, np.int8),
                               ("ys", 0.03, np.float32), ("yz", zero, act)):
        inits.append(numpy_helper.from_array(np.array(value, dtype), name))
    extra = {"channels_last": 1, "domain": "com.microsoft"} if channels_last else {}
    node = helper.make_node("QLinearConv", ["X", "xs", "xz", "W", "ws", "wz", "ys", "yz"], ["Y"],
                            kernel_shape=list(kernel), **attrs, **extra)
    t = TensorProto.UINT8 if u8 else TensorProto.INT8
    return [node], [vi("X", t, x)], [vi("Y", t, ["n", "a", "b", "c"])], inits, {"X": x}, 5


def qgemm(m, k, n, u8):
    """com.microsoft QGemm as ONNX Runtime's quantizer and QDQ rewrites write it: A [m, k] int8
    or uint8, constant int8 B [n, k] read transposed (transB), an int32 bias, a requantized
    output. B is packed at load for uint8 A only."""
    rng = np.random.default_rng(0)
    act, zero = (np.uint8, 128) if u8 else (np.int8, 0)
    inits = [numpy_helper.from_array(rng.integers(-50, 50, (n, k)).astype(np.int8), "B"),
             numpy_helper.from_array(rng.integers(-500, 500, (n,)).astype(np.int32), "C")]
    for name, value, dtype in (("as", 0.01, np.float32), ("az", zero, act),
                               ("bs", 0.02, np.float32), ("bz", 0, np.int8),
                               ("ys", 0.03, np.float32), ("yz", zero, act)):
        inits.append(numpy_helper.from_array(np.array(value, dtype), name))
    node = helper.make_node("QGemm", ["A", "as", "az", "B", "bs", "bz", "C", "ys", "yz"], ["Y"],
                            domain="com.microsoft", transB=1)
    t = TensorProto.UINT8 if u8 else TensorProto.INT8
    return [node], [vi("A", t, [m, k])], [vi("Y", t, [m, n])], inits, {"A": [m, k]}, 3


CASES = [
    ("Conv 1x1 64->32 over 57x61 (baseline)", conv(64, 32, (57, 61), (1, 1))),
    ("Conv 3x3 pad 1 16->32 over 57x61", conv(16, 32, (57, 61), (3, 3), pads=[1, 1, 1, 1])),
    ("Conv 3x3 depthwise 32 over 57x61", conv(32, 32, (57, 61), (3, 3), pads=[1, 1, 1, 1],
                                              group=32)),
    ("Conv 3x3 stride 2 8->16 over 57x61", conv(8, 16, (57, 61), (3, 3), strides=[2, 2])),
    ("Conv 3x3 pad 1 64->256 over 7x7", conv(64, 256, (7, 7), (3, 3), pads=[1, 1, 1, 1])),
    ("Conv 3x3 group 2 20->200 over 9x11", conv(20, 200, (9, 11), (3, 3), group=2)),
    ("Conv 1x1 stride 2 32->128 over 15x15", conv(32, 128, (15, 15), (1, 1), strides=[2, 2])),
    ("Conv 1x1 stride 2 32->64 over 15x15", conv(32, 64, (15, 15), (1, 1), strides=[2, 2])),
    ("Conv 3x3x3 4->256 over 6x7x8", conv(4, 256, (6, 7, 8), (3, 3, 3))),
    ("Conv 1x5 k=5 4->8 over 1001", conv(4, 8, (1001,), (5,))),
    ("Conv 3x5 1->8 over 20x5 (full width)", conv(1, 8, (20, 5), (3, 5))),
    # MLAS's segmented working buffer, 64 KiB per thread (the runtime parameter `threads`):
    # as many as the work takes for one image, one per image (or group) for a batch.
    ("Conv 3x3 stride 2 256->16 over 64x64, 4 threads",
     conv(256, 16, (64, 64), (3, 3), strides=[2, 2], pads=[1, 1, 1, 1]) + (4,)),
    ("Conv 3x3 stride 2 16->1 over 64x64, 4 threads (3)",
     conv(16, 1, (64, 64), (3, 3), strides=[2, 2], pads=[1, 1, 1, 1]) + (4,)),
    ("Conv 3x3 depthwise 32 over 57x61, 4 threads",
     conv(32, 32, (57, 61), (3, 3), pads=[1, 1, 1, 1], group=32) + (4,)),
    ("Conv 3x3 stride 2 64->16 batch 3, 2 threads",
     conv(64, 16, (32, 32), (3, 3), batch=3, strides=[2, 2], pads=[1, 1, 1, 1]) + (2,)),
    ("Conv 3x3 stride 2 64->16 batch 3, 8 threads",
     conv(64, 16, (32, 32), (3, 3), batch=3, strides=[2, 2], pads=[1, 1, 1, 1]) + (8,)),
    ("ConvTranspose 3x3 stride 2 16->8 over 31x29",
     conv_transpose(16, 8, (31, 29), (3, 3), strides=[2, 2])),
    ("Where [257,129] x3", where([257, 129], [257, 129], [257, 129])),
    ("Where [257,1] [1,129] [1,1]", where([257, 1], [1, 129], [1, 1])),
    ("Softmax axis 1 [3,211,97]", softmax(1)),
    ("Softmax axis -1 [3,211,97]", softmax(-1)),
    ("LSTM forward S13 B3 I17 H23", lstm("forward", 1)),
    ("LSTM bidirectional S13 B3 I17 H23", lstm("bidirectional", 2)),
    # Copies to B x heads x S x H, rotated copies, then the probabilities (issue 41: a prompt of
    # the genai decoders was 0.80x with the probabilities alone).
    ("GroupQueryAttention packed QKV, rotary, S33", group_query_attention(True, True)),
    ("GroupQueryAttention q/k/v, no rotary, S33", group_query_attention(False, False)),
    ("GroupQueryAttention H128 S300 (L2-sized tiles)",
     group_query_attention(True, False, b=1, s=300, h=128)),
    ("GroupQueryAttention decode after 500", group_query_attention(True, True, s=1, past=500)),
    ("GroupQueryAttention decode after 500, 4 threads",
     group_query_attention(True, True, s=1, past=500) + (4,)),
    ("GroupQueryAttention H128 S300, 3 threads",
     group_query_attention(True, False, b=1, s=300, h=128) + (3,)),
    ("GroupQueryAttention softcap (probabilities)",
     group_query_attention(True, True, softcap=30.0)),
    # GEMM output, transposes to NHWC, im2col columns or a depthwise indirection buffer.
    ("QLinearConv 3x3 pad 1 64->64 over 56x56", qlinear_conv(64, 64, (56, 56), (3, 3),
                                                           pads=[1, 1, 1, 1])),
    ("QLinearConv 1x1 64->128 over 56x56", qlinear_conv(64, 128, (56, 56), (1, 1))),
    ("QLinearConv 7x7 stride 2 3->64 over 97x95", qlinear_conv(3, 64, (97, 95), (7, 7),
                                                             strides=[2, 2], pads=[3, 3, 3, 3])),
    ("QLinearConv 3x3 depthwise 64 over 56x56", qlinear_conv(64, 64, (56, 56), (3, 3),
                                                           pads=[1, 1, 1, 1], group=64)),
    ("com.microsoft QLinearConv NHWC 3x3 32->64", qlinear_conv(32, 64, (30, 31), (3, 3),
                                                             channels_last=True,
                                                             pads=[1, 1, 1, 1])),
    # uint8 activations: MLAS's symmetric kernels (no GEMM output; an indirection buffer, for
    # the whole batch channels-last), or the asymmetric path where their channels do not fit.
    ("QLinearConv uint8 3x3 pad 1 64->64 over 56x56", qlinear_conv(64, 64, (56, 56), (3, 3),
                                                                 u8=True, pads=[1, 1, 1, 1])),
    ("QLinearConv uint8 1x1 64->128 over 56x56", qlinear_conv(64, 128, (56, 56), (1, 1),
                                                            u8=True)),
    ("QLinearConv uint8 3x3 depthwise 64 over 56x56",
     qlinear_conv(64, 64, (56, 56), (3, 3), u8=True, pads=[1, 1, 1, 1], group=64)),
    ("QLinearConv uint8 7x7 stride 2 3->64 over 97x95",
     qlinear_conv(3, 64, (97, 95), (7, 7), u8=True, strides=[2, 2], pads=[3, 3, 3, 3])),
    ("com.microsoft QLinearConv uint8 NHWC 3x3 32->64 batch 3",
     qlinear_conv(32, 64, (30, 31), (3, 3), channels_last=True, u8=True, batch=3,
                  pads=[1, 1, 1, 1])),
    # B transposed at every run where it is not packed (int8 A), and the int32 product.
    ("com.microsoft QGemm int8 A 7x1280 by 1000", qgemm(7, 1280, 1000, False)),
    ("com.microsoft QGemm uint8 A 7x1280 by 1000", qgemm(7, 1280, 1000, True)),
]


def save(path, nodes, inputs, outputs, inits):
    graph = helper.make_graph(nodes, path.stem, inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def measure(build, work, model, inputs, threads):
    env = dict(os.environ, LD_PRELOAD=str(build / "lib/libcctx_alloc_counter.so"),
               CCTX_ALLOC_REPORT=str(work / "readings.txt"))
    spec = {"model": str(model), "inputs": inputs, "mode": "no-arena", "threads": threads,
            "ort": str(build / "validate/node_modules")}
    r = subprocess.run(["node", "--expose-gc", str(HERE / "run_ort.mjs"), json.dumps(spec)],
                       env=env, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise RuntimeError(f"run_ort.mjs failed on {model}: {r.stderr.strip()}")
    m = json.loads(r.stdout)
    return m["run_tensor_bytes"] - m["output_bytes"]


def predict(build, profile, model, threads):
    """The node's scratch, a formula in the runtime parameter `threads`, at that many threads."""
    r = subprocess.run([str(build / "bin/cctx"), "analyze", str(model), "--profile", str(profile),
                        "--format", "json"], capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise RuntimeError(f"cctx failed on {model}: {r.stderr.strip()}")
    scratch = json.loads(r.stdout)["nodes"][0]["peak_scratch_bytes"]
    if isinstance(scratch, int):
        return scratch
    r = subprocess.run([str(build / "bin/cctx"), "eval", str(scratch), f"threads={threads}"],
                       capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise RuntimeError(f"cctx eval failed on {scratch}: {r.stderr.strip()}")
    return int(r.stdout.split()[-1])


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--build", type=pathlib.Path, required=True)
    p.add_argument("--work", type=pathlib.Path, required=True)
    args = p.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    profile = args.work / "ort-scratch.yaml"
    profile.write_text(PROFILE)
    rows, baseline, failures = [], None, 0
    for k, (name, case) in enumerate(CASES):
        nodes, ins, outs, inits, shapes, allocs = case[:6]
        threads = case[6] if len(case) > 6 else 1
        model = args.work / f"case{k}.onnx"
        save(model, nodes, ins, outs, inits)
        measured = measure(args.build, args.work, model, shapes, threads)
        if baseline is None:
            baseline = measured  # the 1x1 Conv: no scratch, only the run's small blocks
        rows.append((name, measured - baseline, predict(args.build, profile, model, threads),
                     allocs))
    print(f"baseline (small per-run blocks of ONNX Runtime's allocator): {baseline} bytes")
    print(f"{'case':45} {'measured':>9} {'predicted':>9} {'diff':>6}")
    for name, measured, predicted, allocs in rows:
        ok = abs(measured - predicted) <= 512 + 64 * allocs
        failures += not ok
        print(f"{name:45} {measured:9d} {predicted:9d} {measured - predicted:6d}"
              f"{'' if ok else '  FAIL'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
