"""cctx: per-node memory of ONNX graphs as formulas in their symbolic dimensions.

    import onnx, cctx
    ctx = cctx.ComputeContext()          # the default profile (the ai.onnx plugin)
    ctx.compute(onnx.load("model.onnx"))
    ctx.memory[0][cctx.NODE_MEMORY_TOTAL_BYTES_KEY]   # int, or a canonical expression string
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

__all__ = [
    "ComputeContext",
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
