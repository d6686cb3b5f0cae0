#!/usr/bin/python3
"""ctest validate_kv_share_buffer: onnxruntime-genai's past-present share buffer (issue 45, item
4), measured.

    kv_share_buffer_test.py --build BUILD

The committed genai-builder decoders (tests/decoders/models/genai-fp32, genai-int4) carry a
genai_config.json with search.past_present_share_buffer: the past caches are max_length (1024)
rows long and onnxruntime-genai binds each present output to its past input's buffer, so
GroupQueryAttention appends in place and ONNX Runtime allocates no present. cctx reads the
configuration and states it as write_into (the onnxruntime plugin's kv_share_buffer: on).

ONNX Runtime (onnxruntime-node, optimisation all, one thread, no arena) runs each model with its
presents pre-allocated as the past tensors themselves (run_ort.mjs's bind_outputs), at a prefill
and three decode steps, and without the binding. Checked:
- bound, ONNX Runtime's own allocator (the aligned family) holds no present during the run: its
  peak is below the presents' bytes, which the unbound run does allocate;
- cctx's run_bytes for the folder under onnxruntime-cpu-no-arena is within 10% of the bound
  run's measured heap (onnxruntime-node still copies every output, a bound one too, into a JS
  buffer: the profile's output_copies counts it), and not under it by more than that.

The same for a static cache updated by ai.onnx TensorScatter (opset 24, made here): bound, with
the profile's kv_share_buffer set on, and unbound, with the profile as shipped.
"""
import argparse
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import validate  # noqa: E402

MODELS = HERE.parent / "decoders" / "models"
MAX_LENGTH = 1024
CACHE = [2, MAX_LENGTH, 16]  # KV heads, rows, head size (float32)
LAYERS = 2
POINTS = [("prefill", 1, 16, 0), ("decode_15", 1, 1, 15), ("decode_127", 1, 1, 127),
          ("decode_511", 1, 1, 511)]
BAND = 0.10
failures = []


def check(cond: bool, message: str) -> None:
    print(("ok   " if cond else "FAIL ") + message, flush=True)
    if not cond:
        failures.append(message)


def check_tensor_scatter(tools: validate.Tools, build: pathlib.Path) -> None:
    import onnx
    from onnx import TensorProto, helper

    work = build / "tests" / "validate" / "kv_share_buffer"
    work.mkdir(parents=True, exist_ok=True)
    cache = ["B", "H", "L", 64]
    graph = helper.make_graph(
        [helper.make_node("TensorScatter", ["past", "update", "index"], ["present"], axis=-2),
         helper.make_node("ReduceSum", ["present"], ["total"])], "static_cache",
        [helper.make_tensor_value_info("past", TensorProto.FLOAT, cache),
         helper.make_tensor_value_info("update", TensorProto.FLOAT, ["B", "H", 1, 64]),
         helper.make_tensor_value_info("index", TensorProto.INT64, ["B"])],
        [helper.make_tensor_value_info("present", TensorProto.FLOAT, cache),
         helper.make_tensor_value_info("total", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 24)])
    model.ir_version = 11
    path = work / "tensor_scatter.onnx"
    onnx.save(model, str(path))
    shipped = (HERE.parents[1] / "config" / "profiles" / "onnxruntime-cpu-no-arena.yaml").read_text()
    bound_profile = work / "bound.yaml"
    bound_profile.write_text(shipped.replace("nchwc_block: auto}",
                                             "nchwc_block: auto, kv_share_buffer: \"on\"}"))
    for b, h, length in [(1, 4, 1024), (2, 8, 333)]:
        shapes = {"past": [b, h, length, 64], "update": [b, h, 1, 64],
                  "index": {"shape": [b], "fill": length - 1}}
        symbols = {"B": b, "H": h, "L": length}
        for label, bind, profile in [("bound", {"present": "past"}, str(bound_profile)),
                                     ("unbound", None, "onnxruntime-cpu-no-arena")]:
            if bind:
                validate.SESSION["bind_outputs"] = bind
            measured = validate.measure(tools, path, shapes, "no-arena", 300)
            validate.SESSION.pop("bind_outputs", None)
            e = validate.predict(tools, path, symbols, {}, profile)
            ratio = validate.ratio(e["run_bytes"], measured["run_bytes"])
            check(ratio is not None and abs(ratio - 1) <= BAND,
                  f"TensorScatter {b}x{h}x{length}x64 {label}: cctx run_bytes {e['run_bytes']} "
                  f"against ONNX Runtime's {measured['run_bytes']} (ratio {round(ratio, 3)})")


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--build", type=pathlib.Path, required=True)
    args = p.parse_args()
    tools = validate.Tools(args.build, None)
    validate.SESSION.update({"optimization": "all", "threads": 1})
    present_bytes = LAYERS * 2 * 4 * CACHE[0] * CACHE[1] * CACHE[2]
    for name in ("genai-fp32", "genai-int4"):
        model = MODELS / name / "model.onnx"
        for point, b, s, past in POINTS:
            shapes = {"input_ids": [b, s],
                      "attention_mask": {"shape": [b, past + s], "fill": 1}}
            binding = {}
            for layer in range(LAYERS):
                for kind in ("key", "value"):
                    shapes[f"past_key_values.{layer}.{kind}"] = [b] + CACHE
                    binding[f"present.{layer}.{kind}"] = f"past_key_values.{layer}.{kind}"
            validate.SESSION["bind_outputs"] = binding
            bound = validate.measure(tools, model, shapes, "no-arena", 300)
            del validate.SESSION["bind_outputs"]
            plain = validate.measure(tools, model, shapes, "no-arena", 300)
            label = f"{name} {point}"
            check(bound["run_tensor_bytes"] < present_bytes <= plain["run_tensor_bytes"],
                  f"{label}: ONNX Runtime's allocator peaks at {bound['run_tensor_bytes']} bytes "
                  f"bound, {plain['run_tensor_bytes']} unbound (presents {present_bytes})")
            # The folder: its genai_config.json applies (past = max_length, presents bound).
            e = validate.predict(tools, model, {"batch_size": b, "sequence_length": s,
                                                       "total_sequence_length": past + s},
                                 {}, "onnxruntime-cpu-no-arena")
            got = e.get("run_bytes") if isinstance(e, dict) else None
            ratio = validate.ratio(got, bound["run_bytes"])
            check(ratio is not None and abs(ratio - 1) <= BAND,
                  f"{label}: cctx run_bytes {got} against ONNX Runtime's {bound['run_bytes']} "
                  f"(ratio {ratio if ratio is None else round(ratio, 3)})")
    check_tensor_scatter(tools, args.build)
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
