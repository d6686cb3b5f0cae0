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
    evaluate_expression,
    pretty_onnx,
    simplify_expression,
)
from . import shape_inference  # noqa: F401  (`from cctx import shape_inference`)
from .shape_inference import (  # noqa: F401
    InferenceError,
    SymbolicShapeInference,
    infer_shapes,
    infer_shapes_path,
)

__all__ = [
    "ComputeContext",
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
