#!/usr/bin/python3
"""The one-line swap: onnx's shape inference, then cctx's, on the same model.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/swap_infer_shapes.py [MODEL.onnx]

The only difference between the two halves is the import line. For each, prints how many node
outputs get a complete shape (every dim a number or a name) and a few of them; cctx's symbolic
dims are expressions in the input symbols (`seq*batch`, `(height+1)//2`).
"""
import sys

import onnx

MODEL = sys.argv[1] if len(sys.argv) > 1 else "tests/models/gpt_decoder.onnx"


def summary(label: str, model: onnx.ModelProto) -> None:
    typed = {vi.name: vi.type.tensor_type for vi in list(model.graph.value_info) + list(model.graph.output)}
    produced = [o for n in model.graph.node for o in n.output if o]

    def dims(t):
        if not t.HasField("shape") or not all(d.HasField("dim_value") or d.HasField("dim_param") for d in t.shape.dim):
            return None
        return [d.dim_param or d.dim_value for d in t.shape.dim]

    shaped = [o for o in produced if o in typed and dims(typed[o]) is not None]
    print(f"{label}: {len(shaped)} of {len(produced)} node outputs have a complete shape")
    for name in produced[-3:]:
        print(f"  {name}: {dims(typed[name]) if name in typed else None}")


from onnx import shape_inference  # noqa: E402  (the line to change)

summary("onnx", shape_inference.infer_shapes(onnx.load(MODEL)))

from cctx import shape_inference  # noqa: E402,F811  (the changed line)

summary("cctx", shape_inference.infer_shapes(onnx.load(MODEL)))
