#!/usr/bin/python3
"""ai.onnx opsets 24-27 and IR versions 11-13 through the real `cctx analyze`
(docs/opsets-24-27.md).

Builds models with Debian's onnx 1.12 helper, which writes any ir_version and opset number and any
op name, and writes by hand what it lacks: the element types 23-26 (elem_type and data_type are
plain int32 fields) and the IR 11 multi-device fields (ModelProto.configuration = 26,
NodeProto.device_configurations = 10), appended as raw protobuf fields that cctx must skip. Every
expected shape and byte count is computed here from the operator's definition and the element
widths (float4e2m1 and int4: 4 bits, int2/uint2: 2 bits, float8e8m0: 8 bits, packed per tensor,
rounded up).

Usage: newest_opsets_test.py --cctx BUILD/bin/cctx --work DIR
"""
from __future__ import annotations

import argparse
import json
import math
import pathlib
import subprocess
import sys

import onnx
from onnx import helper, TensorProto

FLOAT4E2M1, FLOAT8E8M0, UINT2, INT2 = 23, 24, 25, 26
BITS = {TensorProto.FLOAT: 32, TensorProto.FLOAT16: 16, TensorProto.BFLOAT16: 16,
        TensorProto.INT64: 64, TensorProto.INT32: 32, TensorProto.INT8: 8, TensorProto.UINT8: 8,
        21: 4, 22: 4, FLOAT4E2M1: 4, FLOAT8E8M0: 8, UINT2: 2, INT2: 2}
NAMES = {TensorProto.FLOAT: "float32", TensorProto.FLOAT16: "float16",
         TensorProto.BFLOAT16: "bfloat16", TensorProto.INT64: "int64", TensorProto.INT32: "int32",
         21: "uint4", 22: "int4", FLOAT4E2M1: "float4e2m1", FLOAT8E8M0: "float8e8m0",
         UINT2: "uint2", INT2: "int2"}

FAILURES: list[str] = []


def check(cond: bool, message: str) -> None:
    if not cond:
        FAILURES.append(message)
        print("FAIL:", message)


def nbytes(dtype: int, dims: list[int]) -> int:
    """Bytes of a tensor: elements * bits, rounded up to whole bytes per tensor."""
    return math.ceil(math.prod(dims) * BITS[dtype] / 8)


# ---- raw protobuf for the fields onnx 1.12 does not know --------------------------------------

def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field_bytes(number: int, payload: bytes) -> bytes:
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def field_varint(number: int, value: int) -> bytes:
    return varint(number << 3) + varint(value)


def device_configuration() -> bytes:
    """ModelProto.configuration (26): DeviceConfigurationProto{name=1, num_devices=2, device=3}."""
    msg = field_bytes(1, b"two_gpus") + field_varint(2, 2) + field_bytes(3, b"cuda:0") + \
        field_bytes(3, b"cuda:1")
    return field_bytes(26, msg)


def node_device_configuration() -> bytes:
    """NodeProto.device_configurations (10): {configuration_id=1, sharding_spec=2 {tensor_name=1,
    device=2}, pipeline_stage=3}."""
    spec = field_bytes(1, b"X") + field_varint(2, 0) + field_varint(2, 1)
    msg = field_bytes(1, b"two_gpus") + field_bytes(2, spec) + field_varint(3, 1)
    return field_bytes(10, msg)


def with_unknown(node: onnx.NodeProto, extra: bytes) -> onnx.NodeProto:
    out = onnx.NodeProto()
    out.ParseFromString(node.SerializeToString() + extra)
    return out


def tensor(name: str, dtype: int, dims: list[int], raw: bytes) -> onnx.TensorProto:
    t = onnx.TensorProto()
    t.name = name
    t.data_type = dtype
    t.dims.extend(dims)
    t.raw_data = raw
    return t


def vi(name: str, dtype: int, dims) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, dtype, dims)


def save(path: pathlib.Path, nodes, inputs, outputs, inits, ir: int, opset: int,
         extra: bytes = b"") -> pathlib.Path:
    graph = helper.make_graph(nodes, path.stem, inputs, outputs, initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = ir
    path.write_bytes(model.SerializeToString() + extra)
    return path


def analyze(cctx: str, model: pathlib.Path) -> dict:
    run = subprocess.run([cctx, "analyze", str(model), "--format", "json"], capture_output=True,
                         text=True, check=False)
    if run.returncode not in (0, 2):
        raise SystemExit(f"cctx analyze {model} exited {run.returncode}: {run.stderr}")
    return json.loads(run.stdout)


def expect_value(report: dict, name: str, dtype: int, dims, bytes_) -> None:
    v = report["values"].get(name)
    if v is None:
        check(False, f"{name}: not in the report")
        return
    where = report["model"]["path"]
    check(v["dtype"] == NAMES[dtype], f"{where} {name}: dtype {v['dtype']}, expected {NAMES[dtype]}")
    check(v["shape"] == list(dims), f"{where} {name}: shape {v['shape']}, expected {list(dims)}")
    check(v["bytes"] == bytes_, f"{where} {name}: bytes {v['bytes']}, expected {bytes_}")


def expect_clean(report: dict) -> None:
    where = report["model"]["path"]
    check(report.get("rule_failures", []) == [], f"{where}: rule failures {report.get('rule_failures')}")
    check(report.get("warnings", []) == [], f"{where}: warnings {report.get('warnings')}")


def expect_failure(report: dict, op: str, text: str) -> None:
    where = report["model"]["path"]
    messages = [f["message"] for f in report.get("rule_failures", [])
                if op in f["node_description"]]
    check(any(text in m for m in messages), f"{where}: no {op} failure with '{text}': {messages}")


# ---- opset 24, IR 11: float8e8m0, Swish, TensorScatter, Attention 24, TopK/bfloat16 -----------

def opset24(cctx: str, work: pathlib.Path) -> None:
    n = "N"
    nodes = [
        helper.make_node("Swish", ["X"], ["sw"], alpha=1.0),
        helper.make_node("Cast", ["X"], ["e8m0"], to=FLOAT8E8M0),
        helper.make_node("DequantizeLinear", ["e8m0", "scale"], ["deq"]),
        helper.make_node("TensorScatter", ["past", "upd", "widx"], ["present"], axis=2),
        helper.make_node("Attention", ["Q", "present", "present", "", "", "", "nonpad"], ["Y"]),
        helper.make_node("TopK", ["B16", "k"], ["tv", "ti"], axis=1),
        helper.make_node("Identity", ["F4"], ["f4"]),
    ]
    nodes[0] = with_unknown(nodes[0], node_device_configuration())
    inputs = [vi("X", TensorProto.FLOAT, [n, 64]),
              vi("past", TensorProto.FLOAT16, [2, 8, 128, 16]),
              vi("upd", TensorProto.FLOAT16, [2, 8, "S", 16]),
              vi("widx", TensorProto.INT64, [2]),
              vi("Q", TensorProto.FLOAT16, [2, 8, 4, 16]),
              vi("nonpad", TensorProto.INT64, [2]),
              vi("B16", TensorProto.BFLOAT16, [n, 64]),
              vi("F4", FLOAT4E2M1, [3, 7])]
    inits = [helper.make_tensor("scale", TensorProto.FLOAT, [], [1.0]),
             helper.make_tensor("k", TensorProto.INT64, [1], [5])]
    outputs = [vi(o, 0, None) for o in ("sw", "deq", "Y", "tv", "ti", "f4")]
    path = save(work / "opset24_ir11.onnx", nodes, inputs, outputs, inits, 11, 24,
                device_configuration())
    # The file really carries both multi-device fields (so cctx is shown to skip them).
    data = path.read_bytes()
    check(data.endswith(device_configuration()), "ModelProto.configuration not written")
    check(node_device_configuration() in data, "NodeProto.device_configurations not written")
    r = analyze(cctx, path)
    expect_clean(r)
    expect_value(r, "sw", TensorProto.FLOAT, [n, 64], "256*N")
    expect_value(r, "e8m0", FLOAT8E8M0, [n, 64], "64*N")
    expect_value(r, "deq", TensorProto.FLOAT, [n, 64], "256*N")
    expect_value(r, "present", TensorProto.FLOAT16, [2, 8, 128, 16],
                 nbytes(TensorProto.FLOAT16, [2, 8, 128, 16]))
    # Attention: Y is [B, Hq, Sq, head_size of V] in Q's type.
    expect_value(r, "Y", TensorProto.FLOAT16, [2, 8, 4, 16], nbytes(TensorProto.FLOAT16, [2, 8, 4, 16]))
    expect_value(r, "tv", TensorProto.BFLOAT16, [n, 5], "10*N")
    expect_value(r, "ti", TensorProto.INT64, [n, 5], "40*N")
    expect_value(r, "f4", FLOAT4E2M1, [3, 7], nbytes(FLOAT4E2M1, [3, 7]))  # 21 nibbles: 11 bytes
    check(r["model"]["opsets"].get("") == 24, f"opsets {r['model']['opsets']}")

    # nonpad_kv_seqlen must be one count per batch entry.
    bad = save(work / "opset24_bad_nonpad.onnx", [nodes[4]],
               [inputs[4], vi("present", TensorProto.FLOAT16, [2, 8, 128, 16]),
                vi("nonpad", TensorProto.INT64, [3])], [vi("Y", 0, None)], [], 11, 24)
    expect_failure(analyze(cctx, bad), "Attention", "nonpad_kv_seqlen and batch")


# ---- opset 25, IR 12: int2 / uint2 through the type-extended operators -------------------------

def opset25(cctx: str, work: pathlib.Path) -> None:
    nodes = [
        helper.make_node("Reshape", ["I2", "shape"], ["i2r"]),
        helper.make_node("Identity", ["w2"], ["w2c"]),
        helper.make_node("QuantizeLinear", ["XF", "scale", "zp2"], ["q2"]),
        helper.make_node("DequantizeLinear", ["q2", "scale", "zp2"], ["dq"]),
        helper.make_node("ConstantOfShape", ["cshape"], ["c2"],
                         value=tensor("v", UINT2, [1], b"\x03")),
        helper.make_node("Cast", ["XF"], ["u2"], to=UINT2),
        helper.make_node("Transpose", ["u2"], ["u2t"], perm=[1, 0]),
        helper.make_node("Flatten", ["I2"], ["i2f"], axis=0),
    ]
    inputs = [vi("I2", INT2, [5]), vi("XF", TensorProto.FLOAT, [4, 9])]
    inits = [helper.make_tensor("shape", TensorProto.INT64, [2], [5, 1]),
             tensor("w2", INT2, [5], b"\x1b\x02"),  # five 2-bit values in 2 bytes
             helper.make_tensor("scale", TensorProto.FLOAT, [], [0.5]),
             tensor("zp2", INT2, [], b"\x00"),
             helper.make_tensor("cshape", TensorProto.INT64, [2], [3, 5])]
    outputs = [vi(o, 0, None) for o in ("i2r", "w2c", "dq", "c2", "u2t", "i2f")]
    path = save(work / "opset25_ir12.onnx", nodes, inputs, outputs, inits, 12, 25)
    r = analyze(cctx, path)
    expect_clean(r)
    expect_value(r, "i2r", INT2, [5, 1], nbytes(INT2, [5, 1]))  # 2 bytes
    expect_value(r, "w2c", INT2, [5], 2)
    expect_value(r, "q2", INT2, [4, 9], nbytes(INT2, [4, 9]))  # 36 crumbs: 9 bytes
    expect_value(r, "dq", TensorProto.FLOAT, [4, 9], nbytes(TensorProto.FLOAT, [4, 9]))
    expect_value(r, "c2", UINT2, [3, 5], nbytes(UINT2, [3, 5]))  # 15 crumbs: 4 bytes
    expect_value(r, "u2", UINT2, [4, 9], 9)
    expect_value(r, "u2t", UINT2, [9, 4], 9)
    expect_value(r, "i2f", INT2, [1, 5], 2)


# ---- opset 26, IR 13: BitCast, CumProd ---------------------------------------------------------

def opset26(cctx: str, work: pathlib.Path) -> None:
    nodes = [
        helper.make_node("Relu", ["X"], ["r"]),
        helper.make_node("BitCast", ["r"], ["bits"], to=TensorProto.INT32),
        helper.make_node("BitCast", ["H"], ["hb"], to=TensorProto.BFLOAT16),
        helper.make_node("BitCast", ["I4"], ["u4"], to=21),
        helper.make_node("CumProd", ["X", "axis"], ["cp"], exclusive=1),
    ]
    inputs = [vi("X", TensorProto.FLOAT, ["N", 64]), vi("H", TensorProto.FLOAT16, ["N", 4]),
              vi("I4", 22, [3, 5])]
    inits = [helper.make_tensor("axis", TensorProto.INT64, [], [1])]
    outputs = [vi(o, 0, None) for o in ("bits", "hb", "u4", "cp")]
    path = save(work / "opset26_ir13.onnx", nodes, inputs, outputs, inits, 13, 26)
    r = analyze(cctx, path)
    expect_clean(r)
    expect_value(r, "bits", TensorProto.INT32, ["N", 64], "256*N")
    expect_value(r, "hb", TensorProto.BFLOAT16, ["N", 4], "8*N")
    expect_value(r, "u4", 21, [3, 5], nbytes(21, [3, 5]))  # 15 nibbles: 8 bytes
    expect_value(r, "cp", TensorProto.FLOAT, ["N", 64], "256*N")
    # ONNX Runtime's BitCast may run in place: the dead Relu output is taken over.
    bitcast = next(n for n in r["nodes"] if n["op_type"] == "BitCast" and n["outputs"] == ["bits"])
    check(any(d["input"] == 0 and d["mode"] == "may_reuse" for d in bitcast["inplace"]),
          f"BitCast in-place decisions {bitcast['inplace']}")

    bad = save(work / "opset26_bad_bitcast.onnx",
               [helper.make_node("BitCast", ["X"], ["h"], to=TensorProto.FLOAT16)],
               [inputs[0]], [vi("h", 0, None)], [], 13, 26)
    expect_failure(analyze(cctx, bad), "BitCast", "32 vs 16 bits")


# ---- opset 27, IR 13: LinearAttention, CausalConvWithState, Range 27 ---------------------------

def opset27(cctx: str, work: pathlib.Path) -> None:
    hq, hkv, dk, dv = 8, 2, 16, 32
    nodes = [
        helper.make_node("LinearAttention", ["q", "k", "v", "state"], ["o", "new_state"],
                         q_num_heads=hq, kv_num_heads=hkv, update_rule="gated_delta"),
        helper.make_node("CausalConvWithState", ["x", "w", "b", "conv"], ["y", "new_conv"],
                         activation="silu"),
        helper.make_node("Range", ["start", "limit", "delta"], ["rng"]),
    ]
    inputs = [vi("q", TensorProto.FLOAT, ["B", "T", hq * dk]),
              vi("k", TensorProto.FLOAT, ["B", "T", hkv * dk]),
              vi("v", TensorProto.FLOAT, ["B", "T", hkv * dv]),
              vi("state", TensorProto.FLOAT, ["B", hkv, dk, dv]),
              vi("x", TensorProto.FLOAT16, ["B", 64, "L"]),
              vi("conv", TensorProto.FLOAT16, ["B", 64, 3])]
    inits = [helper.make_tensor("w", TensorProto.FLOAT16, [64, 1, 4], [0.0] * 256),
             helper.make_tensor("b", TensorProto.FLOAT16, [64], [0.0] * 64),
             helper.make_tensor("start", TensorProto.FLOAT16, [], [0.0]),
             helper.make_tensor("limit", TensorProto.FLOAT16, [], [10.0]),
             helper.make_tensor("delta", TensorProto.FLOAT16, [], [2.0])]
    outputs = [vi(o, 0, None) for o in ("o", "new_state", "y", "new_conv", "rng")]
    path = save(work / "opset27_ir13.onnx", nodes, inputs, outputs, inits, 13, 27)
    r = analyze(cctx, path)
    expect_clean(r)
    # output: each of the hq query heads reads dv columns of its KV head's state.
    expect_value(r, "o", TensorProto.FLOAT, ["B", "T", hq * dv], f"{4 * hq * dv}*B*T")
    expect_value(r, "new_state", TensorProto.FLOAT, ["B", hkv, dk, dv], f"{4 * hkv * dk * dv}*B")
    expect_value(r, "y", TensorProto.FLOAT16, ["B", 64, "L"], "128*B*L")
    expect_value(r, "new_conv", TensorProto.FLOAT16, ["B", 64, 3], f"{2 * 64 * 3}*B")
    # Range: ceil((10 - 0) / 2) = 5 float16 elements.
    expect_value(r, "rng", TensorProto.FLOAT16, [5], 10)

    bad_heads = save(work / "opset27_bad_heads.onnx",
                     [helper.make_node("LinearAttention", ["q", "k", "v"], ["o"], q_num_heads=3,
                                       kv_num_heads=2)],
                     inputs[:3], [vi("o", 0, None)], [], 13, 27)
    expect_failure(analyze(cctx, bad_heads), "LinearAttention", "not a multiple of kv_num_heads")
    bad_state = save(work / "opset27_bad_conv_state.onnx",
                     [helper.make_node("CausalConvWithState", ["x", "w", "", "conv"], ["y", "s"])],
                     [inputs[4], vi("conv", TensorProto.FLOAT16, ["B", 64, 5])],
                     [vi("y", 0, None)], [inits[0]], 13, 27)
    expect_failure(analyze(cctx, bad_state), "CausalConvWithState", "kernel size - 1")


def plugins_range(cctx: str) -> None:
    """`cctx plugins` declares ai.onnx opsets 1 to 27 for the onnx plugin."""
    run = subprocess.run([cctx, "plugins", "--format", "json"], capture_output=True, text=True,
                         check=True)
    plugin = next(p for p in json.loads(run.stdout) if p["name"] == "onnx")
    domain = next(d for d in plugin["domains"] if d["domain"] == "ai.onnx")
    check((domain["min_version"], domain["max_version"]) == (1, 27),
          f"onnx plugin declares ai.onnx {domain}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cctx", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    for case in (opset24, opset25, opset26, opset27):
        case(args.cctx, work)
    plugins_range(args.cctx)
    print(f"{len(FAILURES)} failure(s)")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
