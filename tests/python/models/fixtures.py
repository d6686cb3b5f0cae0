"""The exported fixtures of tests/models and cctx's analysis of them, shared by the model tests.

A fixture is analysed with its declared output shapes and value_info removed, so that every
shape cctx reports is inferred, never read back. Shapes of values inside bodies are read from the
model cctx writes back (ComputeContext.write_to_model puts them into each body's value_info).
"""
import json
import os
import pathlib
import re
from typing import Dict, Iterator, List, Optional, Tuple

import onnx

import cctx

MODELS = pathlib.Path(os.environ["CCTX_SOURCE_DIR"]) / "tests" / "models"
NAMES = sorted(p.stem for p in MODELS.glob("*.onnx"))
INPUT_SYMBOLS = {"batch", "seq", "height", "width"}

# (fixture, value, axis or None for the whole shape) -> why cctx does not resolve it. These are
# gaps of cctx, not data-dependent sizes: the tests require them to stay exactly these.
KNOWN_GAPS: dict = {}

Dim = object  # int, or a canonical expression string
Shape = Optional[List[Dim]]  # None: unknown rank


def load(name: str) -> onnx.ModelProto:
    return onnx.load(str(MODELS / f"{name}.onnx"))


def export_record(name: str) -> dict:
    """Example input sizes and the output shapes PyTorch produced at export time."""
    return json.loads((MODELS / f"{name}.json").read_text())


def graphs(graph: onnx.GraphProto) -> Iterator[onnx.GraphProto]:
    """The graph and every body nested in it."""
    yield graph
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                yield from graphs(attr.g)
            for sub in attr.graphs:
                yield from graphs(sub)


def stripped(model: onnx.ModelProto) -> onnx.ModelProto:
    """The model without value_info and with graph outputs (bodies' too) declared by type only."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for g in graphs(copy.graph):
        del g.value_info[:]
        for out in g.output:
            if out.type.HasField("tensor_type"):
                out.type.tensor_type.ClearField("shape")
    return copy


def analyse(model: onnx.ModelProto) -> Tuple[cctx.ComputeContext, onnx.ModelProto]:
    """cctx's analysis of `model` and the model with cctx's inferred shapes written back."""
    ctx = cctx.ComputeContext()
    ctx.compute(model)
    written = onnx.ModelProto()
    written.CopyFrom(model)
    ctx.write_to_model(written)
    return ctx, written


def dims_of(value: onnx.ValueInfoProto) -> Shape:
    t = value.type.tensor_type if value.type.HasField("tensor_type") else None
    if t is None and value.type.HasField("sequence_type"):
        elem = value.type.sequence_type.elem_type
        t = elem.tensor_type if elem.HasField("tensor_type") else None
    if t is None or not t.HasField("shape"):
        return None
    return [d.dim_param if d.HasField("dim_param") else
            (d.dim_value if d.HasField("dim_value") else "") for d in t.shape.dim]


def shapes_by_name(model: onnx.ModelProto) -> Dict[str, Shape]:
    """Every typed value of every graph of a model (outputs and value_info), by name."""
    result: Dict[str, Shape] = {}
    for g in graphs(model.graph):
        for value in list(g.output) + list(g.value_info):
            if value.type.WhichOneof("value") is not None:
                result[value.name] = dims_of(value)
    return result


_IDENT = re.compile(r"`[^`]*`|[A-Za-z_][A-Za-z0-9_]*")


def symbols_in(dim: Dim) -> set:
    if isinstance(dim, int):
        return set()
    return {s for s in _IDENT.findall(dim) if s not in ("max", "min")}


def evaluate(dim: Dim, values: Dict[str, int]) -> int:
    return dim if isinstance(dim, int) else cctx.evaluate_expression(dim, values)


def concrete(model: onnx.ModelProto, values: Dict[str, int]) -> onnx.ModelProto:
    """The model with the symbolic dims of its graph inputs fixed to `values`."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for value in copy.graph.input:
        for d in value.type.tensor_type.shape.dim:
            if d.HasField("dim_param"):
                d.dim_value = values[d.dim_param]
    return copy
