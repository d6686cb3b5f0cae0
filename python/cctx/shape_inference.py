"""Shape inference as a drop-in for onnx's and ONNX Runtime's.

    from cctx import shape_inference                 # was: from onnx import shape_inference
    model = shape_inference.infer_shapes(model)

    from cctx import SymbolicShapeInference          # was: from onnxruntime.tools.symbolic_shape_infer import ...
    model = SymbolicShapeInference.infer_shapes(model, auto_merge=True)

The result is an onnx.ModelProto whose graph outputs and value_info (of the main graph and of every
If/Loop/Scan body) carry cctx's inferred types and shapes: a symbolic dim as a dim_param in cctx's
canonical text (`2*N`, `(height+1)//2`), a size that depends on data as a named symbol
(`NonZero_3_o0_d1`). Nothing else of the model changes, except that a model with local functions
comes back with them inlined (the form cctx analyses).

Keyword arguments of both originals are accepted. What they do here:

- strict_mode=True: a node whose rule fails (or an inconsistency a rule detects) raises
  InferenceError, as onnx does; by default cctx warns and applies its fallbacks.
- verbose > 0: the warnings (fallbacks, rule errors) are printed to stderr.
- profile: a cctx profile (path, shipped name such as "default", or YAML text) choosing the plugins.
- inplace=True: the given ModelProto is updated and returned (by default it is left untouched).
- check_type, data_prop, int_max, auto_merge, guess_output_rank: accepted for compatibility and
  without effect. cctx always propagates small integer tensors (data_prop), checks attribute
  types against ONNX's schema, reasons about Slice bounds symbolically (int_max), keeps differing
  dims of a broadcast as max(a,b) rather than merging them (auto_merge), and for an operator no
  plugin knows uses ONNX's schema inference, then declared shapes (guess_output_rank).
"""
import os
import sys
from typing import Optional, Union

import onnx

from . import _cctx

PathLike = Union[str, "os.PathLike[str]"]

try:  # onnx's own error class, so that `except onnx.shape_inference.InferenceError` still works
    _OnnxInferenceError = onnx.shape_inference.InferenceError
    _BASES = (_cctx.Error, _OnnxInferenceError)
except AttributeError:  # pragma: no cover (onnx before 1.10)
    _BASES = (_cctx.Error,)


class InferenceError(*_BASES):
    """A strict-mode failure: both a cctx.Error (ValueError) and onnx's InferenceError."""


def _report(warnings, verbose: int) -> None:
    if verbose:
        for w in warnings:
            print(f"cctx: warning: {w}", file=sys.stderr)


def _run(call, *args, strict: bool):
    try:
        return call(*args)
    except _cctx.Error as e:
        # An analysis error of strict mode (exit code 4 on the command line) is onnx's
        # InferenceError; a model or profile cctx cannot read stays a plain cctx.Error.
        if strict and getattr(e, "exit_code", None) == 4:
            error = InferenceError(str(e))
            error.exit_code = e.exit_code
            raise error from None
        raise


def infer_shapes(model: Union[onnx.ModelProto, bytes, PathLike], check_type: bool = False,
                 strict_mode: bool = False, data_prop: bool = False, int_max: int = 2**31 - 1,
                 auto_merge: bool = False, guess_output_rank: bool = False, verbose: int = 0,
                 inplace: bool = False, profile: Optional[PathLike] = None) -> onnx.ModelProto:
    """The model with every inferred shape in its value_info and graph outputs (see the module
    docstring for the keyword arguments). `model` is an onnx.ModelProto, its serialized bytes or
    a path. Raises cctx.Error (a ValueError) on a model or profile cctx cannot read, naming the
    problem, and InferenceError with strict_mode=True on a failed rule."""
    del check_type, data_prop, int_max, auto_merge, guess_output_rank  # see the docstring
    is_proto = isinstance(model, onnx.ModelProto)
    # The analysis runs on its own thread, without the GIL; the copy of the caller's proto that
    # the result goes into is made meanwhile.
    job = _run(_cctx._InferShapes, model, profile, bool(strict_mode), is_proto, strict=strict_mode)
    target = model
    if is_proto and not inplace:
        target = onnx.ModelProto()
        target.CopyFrom(model)
    data, merged, warnings = _run(job.result, strict=strict_mode)
    _report(warnings, verbose)
    if merged:
        # Only graph.output and graph.value_info came back: they replace the copy's lists.
        del target.graph.output[:]
        del target.graph.value_info[:]
        target.MergeFromString(data)
        return target
    if is_proto:
        target.ParseFromString(data)  # clears, then parses (the caller's object with inplace)
        return target
    out = onnx.ModelProto()
    out.ParseFromString(data)
    return out


def infer_shapes_path(model_path: PathLike, output_path: PathLike = "", check_type: bool = False,
                      strict_mode: bool = False, data_prop: bool = False, verbose: int = 0,
                      profile: Optional[PathLike] = None) -> None:
    """Reads `model_path` and writes the inferred model to `output_path` (by default over the
    input), as onnx.shape_inference.infer_shapes_path does; the model never becomes a Python
    object. The file is replaced only once the result is ready."""
    del check_type, data_prop
    if isinstance(model_path, onnx.ModelProto):
        raise TypeError("infer_shapes_path takes a path; use infer_shapes for a ModelProto")
    source = os.fspath(model_path)
    target = os.fspath(output_path) or source
    warnings = _run(_cctx._infer_shapes_path, source, target, profile, bool(strict_mode),
                    strict=strict_mode)
    _report(warnings, verbose)


class SymbolicShapeInference:
    """ONNX Runtime's entry point (onnxruntime.tools.symbolic_shape_infer), same call."""

    @staticmethod
    def infer_shapes(in_mp: onnx.ModelProto, int_max: int = 2**31 - 1, auto_merge: bool = False,
                     guess_output_rank: bool = False, verbose: int = 0) -> onnx.ModelProto:
        return infer_shapes(in_mp, int_max=int_max, auto_merge=auto_merge,
                            guess_output_rank=guess_output_rank, verbose=verbose)
