"""cctx: per-node memory of ONNX graphs as formulas in their symbolic dimensions.

    import onnx, cctx
    ctx = cctx.ComputeContext()          # the default profile (the ai.onnx plugin)
    ctx.compute(onnx.load("model.onnx"))
    ctx.memory[0][cctx.NODE_MEMORY_TOTAL_BYTES_KEY]   # int, or a canonical expression string

    model = cctx.infer_shapes(onnx.load("model.onnx"))   # onnx.shape_inference.infer_shapes' call
"""
from ._cctx import (  # noqa: F401  (re-exported API)
    NODE_MEMORY_ALREADY_ALLOCATED_BYTES_KEY,
    NODE_MEMORY_INITIALIZERS_KEY,
    NODE_MEMORY_INPUTS_KEY,
    NODE_MEMORY_INTERMEDIATES_KEY,
    NODE_MEMORY_OUTPUT_ALLOCATION_BYTES_KEY,
    NODE_MEMORY_OUTPUTS_KEY,
    NODE_MEMORY_TOTAL_BYTES_KEY,
    ComputeContext,
    Error,
    __version__,
    _parse_byte_size,
    evaluate_expression,
    pretty_onnx,
    simplify_expression,
)
from . import shape_inference  # noqa: F401  (`from cctx import shape_inference`)


def _bytes(budget) -> int:
    """An int, or text as `cctx fit --budget` reads it ("2GiB", "512 MiB", "1.5G")."""
    if isinstance(budget, bool):
        raise TypeError("budget must be an int or a size such as '2GiB', not bool")
    if isinstance(budget, int):
        return budget
    if not isinstance(budget, str):
        raise TypeError("budget must be an int or a size such as '2GiB'")
    return _parse_byte_size(budget, "budget")  # the command line's parser


def fit(model, budget, vary: str, fixed=None, profile=None) -> dict:
    """The largest value of the symbol `vary` whose reserve figure (session + inputs + run bytes)
    fits `budget` (bytes, or text such as "2GiB"), the other symbols at `fixed`, under `profile`
    (None: the default; a shipped name, a path or YAML text). The dict is `cctx fit --format
    json`'s entry: value, at, next, limited_by, proved_monotone, method, evaluations."""
    ctx = ComputeContext(profile)
    ctx.compute(model)
    return ctx.fit(vary, _bytes(budget), fixed)

from .shape_inference import (  # noqa: F401
    InferenceError,
    SymbolicShapeInference,
    infer_shapes,
    infer_shapes_path,
)

__all__ = [
    "ComputeContext",
    "fit",
    "InferenceError",
    "SymbolicShapeInference",
    "infer_shapes",
    "infer_shapes_path",
    "shape_inference",
    "Error",
    "evaluate_expression",
    "simplify_expression",
    "pretty_onnx",
    "NODE_MEMORY_ALREADY_ALLOCATED_BYTES_KEY",
    "NODE_MEMORY_INITIALIZERS_KEY",
    "NODE_MEMORY_INPUTS_KEY",
    "NODE_MEMORY_INTERMEDIATES_KEY",
    "NODE_MEMORY_OUTPUT_ALLOCATION_BYTES_KEY",
    "NODE_MEMORY_OUTPUTS_KEY",
    "NODE_MEMORY_TOTAL_BYTES_KEY",
]
