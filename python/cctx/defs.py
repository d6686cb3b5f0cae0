"""Operator definitions: cctx's rules come from plugins chosen by a profile.

`register_onnx_operator_set_schema()` loads the default profile's plugins once per process (the
ai.onnx operator set), so that later ComputeContext() calls reuse them. Calling it is optional:
ComputeContext loads its profile's plugins itself.
"""
from ._cctx import _load_default_plugins


def register_onnx_operator_set_schema() -> None:
    """Loads the default operator-set plugins (idempotent)."""
    _load_default_plugins()
