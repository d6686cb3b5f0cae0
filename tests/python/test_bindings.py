"""Unit tests of the cctx Python bindings (run by ctest with PYTHONPATH=build/python)."""
import os
import pathlib

import onnx
import onnx.helper as oh
import pytest

import cctx

SEED = pathlib.Path(os.environ["CCTX_SOURCE_DIR"]) / "examples" / "seed" / "seed.onnx"


def seed_model() -> onnx.ModelProto:
    return onnx.load(str(SEED))


def computed(**kwargs) -> cctx.ComputeContext:
    ctx = cctx.ComputeContext(**kwargs)
    ctx.compute(seed_model())
    return ctx


def test_memory_keys_and_value_types():
    memory = computed().memory
    assert len(memory) == 5
    assert list(memory[0]) == sorted(memory[0])
    assert set(memory[0]) == {
        cctx.NODE_MEMORY_TOTAL_BYTES_KEY, cctx.NODE_MEMORY_ALREADY_ALLOCATED_BYTES_KEY,
        cctx.NODE_MEMORY_OUTPUT_ALLOCATION_BYTES_KEY, cctx.NODE_MEMORY_INPUTS_KEY,
        cctx.NODE_MEMORY_INITIALIZERS_KEY, cctx.NODE_MEMORY_INTERMEDIATES_KEY,
        cctx.NODE_MEMORY_OUTPUTS_KEY}
    assert memory[0]["total_bytes"] == "32*N+64"
    assert memory[2]["output_allocation_bytes"] == 16 and isinstance(memory[2]["output_allocation_bytes"], int)
    assert memory[0]["initializers"] == {"weight": 64}
    assert memory[3]["intermediates"] == {"shape": 16, "weight": "32*N"}


def test_compute_accepts_bytes_and_paths():
    for model in (seed_model().SerializeToString(), str(SEED), SEED):
        ctx = cctx.ComputeContext()
        ctx.compute(model)
        assert ctx.memory[1]["total_bytes"] == "64*N+64"


def test_shapes_tags_reuse_lifetimes_peak():
    ctx = computed()
    assert ctx.shapes["C"] == ["2*N", 4]
    assert ctx.shapes["S"] == [2]
    assert ctx.value_tags["S"] == "shape"
    assert ctx.node_tags == ["weight", "weight", "shape", "weight", "weight"]
    assert ctx.reuse[3] == [{"output": 0, "input": 0, "kind": "equal", "mode": "may_reuse"}]
    assert ctx.reuse[4][0]["mode"] == "alias"
    assert ctx.release_after == [[], ["M"], [], ["C"], ["A", "S"]]
    assert ctx.not_used_after == [["W"], ["X"], [], [], []]
    assert ctx.peak == {"total_bytes": "64*N+64", "node": 1}
    assert ctx.evaluate_peak({"N": 8}) == (576, 1)
    assert all(ctx.node_peak_memory(i) == 0 for i in range(5))


def test_write_to_model_updates_the_proto_in_place():
    model = seed_model()
    ctx = cctx.ComputeContext()
    ctx.compute(model)
    ctx.write_to_model(model)
    z = model.graph.output[0].type.tensor_type.shape
    assert [d.dim_param or d.dim_value for d in z.dim] == ["2*N", 4]
    assert [vi.name for vi in model.graph.value_info] == ["A", "C", "M", "S"]


def test_profile_as_yaml_text_and_as_path(tmp_path):
    ctx = computed(profile="plugins:\n  - name: onnx\ninplace: {fallback: structural}\n")
    assert ctx.memory[4]["total_bytes"] == "48*N+80"
    path = tmp_path / "p.yaml"
    path.write_text("plugins: [{name: onnx}]\nsymbols: {N: [0, 100]}\n")
    ctx = computed(profile=str(path))
    assert ctx.peak["total_bytes"] == "max(48*N+80,64*N+64)"


def test_expression_helpers():
    assert cctx.evaluate_expression("48*N+80", {"N": 8}) == 464
    assert cctx.evaluate_expression("-7%3", {}) == 2
    assert cctx.evaluate_expression(16, {}) == 16
    assert cctx.simplify_expression("N*4*4") == "16*N"
    assert cctx.simplify_expression("x-x") == 0
    assert cctx.simplify_expression("max(64*N+64,48*N+80)") == "64*N+64"
    assert cctx.simplify_expression("max(64*N+64,48*N+80)", {"N": (0, None)}) == "max(48*N+80,64*N+64)"


def test_pretty_onnx_matches_the_seed_listing():
    text = cctx.pretty_onnx(seed_model())
    assert text.splitlines()[0] == "opset: domain='' version=18"
    assert text.splitlines()[-1] == "output: float[] Z"
    assert not text.endswith("\n")


def test_errors_are_python_exceptions_not_crashes(tmp_path):
    with pytest.raises(cctx.Error, match="unknown symbol 'N'"):
        cctx.evaluate_expression("16*N+64", {})
    with pytest.raises(cctx.Error, match="no such file"):
        cctx.ComputeContext().compute(str(tmp_path / "missing.onnx"))
    with pytest.raises(cctx.Error, match="not a valid ONNX model"):
        cctx.ComputeContext().compute(b"\x08\x01garbage")
    with pytest.raises(cctx.Error, match="unknown key 'inplce'"):
        cctx.ComputeContext(profile="inplce: {enabled: true}\n")
    with pytest.raises(cctx.Error, match="compute"):
        _ = cctx.ComputeContext().memory
    with pytest.raises(IndexError):
        computed().node_memory(99)
    with pytest.raises(ValueError):  # cctx.Error is a ValueError
        cctx.simplify_expression("2*(N+")


def test_to_json_is_the_analysis_contract():
    import json
    doc = json.loads(computed().to_json([{"N": 8}]))
    assert doc["format"] == "cctx.analysis/1"
    assert doc["peak"]["evaluations"][0] == {"assignment": {"N": 8}, "bytes": 576, "node": 1}
