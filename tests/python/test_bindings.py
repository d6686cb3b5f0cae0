"""Unit tests of the cctx Python bindings (run by ctest with PYTHONPATH=build/python)."""
import json
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


def test_input_dims_replace_the_declared_ones():
    # The seed's X is declared [N, 4]; fed as [2*N, 4] every size doubles.
    ctx = computed(input_dims={"X": ["2*N", 4]})
    assert ctx.shapes["X"] == ["2*N", 4]
    with pytest.raises(Exception, match="no input 'Y'"):
        computed(input_dims={"Y": ["N"]})
    with pytest.raises(TypeError):
        cctx.ComputeContext(input_dims={"X": "N,4"})


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
    assert doc["peak"]["evaluations"][0] == {"assignment": {"N": 8}, "bytes": 576, "node": 1,
                                             "run_bytes": 384, "session_bytes": 64,
                                             "input_bytes": 128, "reserve_bytes": 576,
                                             "weight_bytes": 64, "run_scratch_bytes": 0}


def test_a_data_dependent_size_is_evaluated_at_its_upper_bound():
    # X[N, 4] -> NonZero: at most 4*N coordinates.
    ctx = cctx.ComputeContext()
    ctx.compute(str(SEED.parents[2] / "tests" / "cli" / "nonzero.onnx"))
    runtime = ctx.evaluate_runtime({"N": 5})
    assert runtime["at_upper_bound"] == {"NonZero_0_o0_d1": 20}
    assert runtime["bytes"] == 80 + 2 * 20 * 8
    assert ctx.evaluate_runtime({"N": 5, "NonZero_0_o0_d1": 3})["at_upper_bound"] == {}
    doc = json.loads(ctx.to_json([{"N": 5}]))
    assert doc["peak"]["evaluations"][0]["at_upper_bound"] == [
        {"symbol": "NonZero_0_o0_d1", "bound": "4*N", "value": 20}]


def test_evaluate_runtime_takes_the_runtime_s_threads():
    # The ONNX Runtime profiles' runtime parameter: the lab profile's default is one thread;
    # an assignment gives another, and MLAS's Conv buffer (64 KiB a thread) and the thread
    # pool's 43.8 kB per thread follow it.
    ctx = cctx.ComputeContext("onnxruntime-cpu-unoptimized-no-arena")
    ctx.compute(str(SEED.parents[2] / "tests" / "models" / "cnn.onnx"))
    size = {"batch": 1, "height": 64, "width": 64}
    one = ctx.evaluate_runtime(size)
    three = ctx.evaluate_runtime(dict(size, threads=3))
    assert one["threads"] == 1 and three["threads"] == 3
    assert three["session_bytes"] - one["session_bytes"] == 2 * 43800
    # At three threads the Conv's three buffers set the run's peak (at one, another node does).
    assert three["run_scratch_bytes"] == 3 * 65536
    assert three["run_bytes"] > one["run_bytes"]
    # The default profile has no such parameter.
    plain = cctx.ComputeContext()
    plain.compute(str(SEED.parents[2] / "tests" / "models" / "cnn.onnx"))
    with pytest.raises(Exception, match="no symbol 'threads'"):
        plain.evaluate_runtime(dict(size, threads=2))


def hostile_model_bytes() -> bytes:
    """X -> Relu -> Abs -> Y with a value and a dim_param whose bytes are not UTF-8 (Python's
    protobuf refuses such strings, so the bytes are patched in: same lengths, same framing)."""
    x = oh.make_tensor_value_info("X", onnx.TensorProto.FLOAT, ["N", "Qxx"])
    y = oh.make_tensor_value_info("Y", onnx.TensorProto.FLOAT, ["N", "Qxx"])
    nodes = [oh.make_node("Relu", ["X"], ["Mxx"], name="Rxx"), oh.make_node("Abs", ["Mxx"], ["Y"])]
    model = oh.make_model(oh.make_graph(nodes, "g", [x], [y]), opset_imports=[oh.make_opsetid("", 17)])
    return (model.SerializeToString().replace(b"Mxx", b"M\xff\x1b").replace(b"Qxx", b"Q\xfe\xff")
            .replace(b"Rxx", b"R\xff\x00"))


def test_names_that_are_not_utf8_come_back_with_replacement_characters():
    ctx = cctx.ComputeContext()
    ctx.compute(hostile_model_bytes())
    assert "M\ufffd\x1b" in ctx.shapes
    assert ctx.shapes["X"] == ["N", "Q\ufffd\ufffd"]
    assert ctx.release_after[1] == ["M\ufffd\x1b"]
    assert "M\ufffd\x1b" in ctx.value_tags
    assert ctx.memory[0]["total_bytes"] == "8*N*`Q\ufffd\ufffd`"
    report = json.loads(ctx.to_json())
    assert "M\ufffd\x1b" in report["values"]
    listing = cctx.pretty_onnx(hostile_model_bytes())
    assert "M\\xff\\x1b" in listing and "\x1b" not in listing


def test_error_messages_that_are_not_utf8_raise_cctx_error():
    # Relu (the graph's first node) reads a value named b"\xff", which nothing defines.
    broken = hostile_model_bytes().replace(b"\x0a\x01X", b"\x0a\x01\xff", 1)
    with pytest.raises(cctx.Error, match="node 'R\ufffd\\\\x00' \\(Relu\\) reads '\ufffd'"):
        cctx.ComputeContext().compute(broken)
