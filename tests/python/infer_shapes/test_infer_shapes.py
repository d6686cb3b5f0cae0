"""cctx.infer_shapes as a drop-in for onnx.shape_inference.infer_shapes and ONNX Runtime's
SymbolicShapeInference.infer_shapes, on the real exported models of tests/models and the seed."""
import os
import pathlib
import sys

import onnx
import onnx.helper as oh
import pytest

import cctx
from cctx import shape_inference

SOURCE = pathlib.Path(os.environ["CCTX_SOURCE_DIR"])
sys.path.insert(0, str(SOURCE / "tests" / "python" / "models"))
from fixtures import graphs  # noqa: E402  (the graph and every body nested in it)
MODELS = sorted((SOURCE / "tests" / "models").glob("*.onnx")) + [SOURCE / "examples" / "seed" / "seed.onnx"]
IDS = [m.stem for m in MODELS]


def typed_values(graph: onnx.GraphProto):
    """name -> TypeProto of every value a graph declares (inputs, initializers, outputs, value_info)."""
    out = {vi.name: vi.type for vi in list(graph.input) + list(graph.output) + list(graph.value_info)}
    for t in graph.initializer:
        out.setdefault(t.name, oh.make_tensor_type_proto(t.data_type, list(t.dims)))
    return out


def tensor_part(t: onnx.TypeProto):
    if t.HasField("sequence_type"):
        return tensor_part(t.sequence_type.elem_type)
    if t.HasField("optional_type"):
        return tensor_part(t.optional_type.elem_type)
    return t.tensor_type


def has_shape(t: onnx.TypeProto) -> bool:
    tensor = tensor_part(t)
    return tensor.elem_type != 0 and tensor.HasField("shape") and all(
        d.HasField("dim_value") or d.HasField("dim_param") for d in tensor.shape.dim)


@pytest.mark.parametrize("path", MODELS, ids=IDS)
def test_every_value_has_a_shape(path):
    result = cctx.infer_shapes(onnx.load(str(path)))
    for graph in graphs(result.graph):
        declared = typed_values(graph)
        # An empty sequence's elements have no shape to give (its type is the element type).
        produced = [o for node in graph.node for o in node.output if o and node.op_type != "SequenceEmpty"]
        missing = [name for name in produced if name not in declared or not has_shape(declared[name])]
        assert not missing, f"{path.name}: graph {graph.name!r}: no shape for {missing[:5]}"
        assert all(has_shape(o.type) for o in graph.output), f"{path.name}: graph output without shape"


@pytest.mark.parametrize("path", MODELS, ids=IDS)
def test_result_passes_the_onnx_checker(path):
    model = onnx.load(str(path))
    known = onnx.defs.onnx_opset_version()
    if model.ir_version > onnx.IR_VERSION or any(
            o.domain in ("", "ai.onnx") and o.version > known for o in model.opset_import):
        pytest.skip(f"onnx {onnx.__version__} knows IR {onnx.IR_VERSION} and opset {known} only")
    onnx.checker.check_model(cctx.infer_shapes(model), full_check=True)


@pytest.mark.parametrize("path", MODELS, ids=IDS)
def test_agrees_with_onnx_where_onnx_knows_the_dim(path):
    model = onnx.load(str(path))
    theirs = typed_values(onnx.shape_inference.infer_shapes(model).graph)
    ours = typed_values(cctx.infer_shapes(model).graph)
    compared = 0
    for name, t in theirs.items():
        dims = tensor_part(t).shape.dim
        if not tensor_part(t).HasField("shape") or not all(d.HasField("dim_value") for d in dims):
            continue
        mine = tensor_part(ours[name])
        assert [d.dim_value for d in mine.shape.dim] == [d.dim_value for d in dims], name
        assert mine.elem_type == tensor_part(t).elem_type, name
        compared += 1
    assert compared > 0


def test_subgraph_bodies_get_value_info():
    model = onnx.load(str(SOURCE / "tests" / "models" / "control_flow.onnx"))
    bodies = list(graphs(model.graph))[1:]
    assert bodies, "the fixture has If/Loop bodies"
    result = cctx.infer_shapes(model)
    for body in list(graphs(result.graph))[1:]:
        inner = [o for n in body.node for o in n.output if o and o not in {x.name for x in body.output}]
        names = {vi.name for vi in body.value_info}
        assert set(inner) <= names, body.name


def test_symbolic_dims_are_canonical_expressions():
    result = cctx.infer_shapes(onnx.load(str(SOURCE / "examples" / "seed" / "seed.onnx")))
    z = result.graph.output[0].type.tensor_type.shape
    assert [d.dim_param or d.dim_value for d in z.dim] == ["2*N", 4]
    assert [vi.name for vi in result.graph.value_info] == ["A", "C", "M", "S"]
    # Only shapes are written, no cctx annotations (the metadata of write_to_model).
    assert b"cctx." not in result.SerializeToString()


def test_input_left_alone_unless_inplace():
    model = onnx.load(str(SOURCE / "tests" / "models" / "cnn.onnx"))
    before = model.SerializeToString()
    result = cctx.infer_shapes(model)
    assert result is not model and model.SerializeToString() == before
    again = cctx.infer_shapes(model, inplace=True)
    assert again is model and model.SerializeToString() == result.SerializeToString()


def test_proto_bytes_and_path_give_the_same_model():
    path = SOURCE / "tests" / "models" / "gpt_decoder.onnx"
    from_proto = cctx.infer_shapes(onnx.load(str(path))).SerializeToString()
    assert cctx.infer_shapes(path.read_bytes()).SerializeToString() == from_proto
    assert cctx.infer_shapes(str(path)).SerializeToString() == from_proto


def test_merged_lists_equal_the_full_round_trip():
    # A ModelProto without bodies takes the short way back (only output and value_info cross);
    # the result must be what parsing the whole inferred model gives.
    path = SOURCE / "tests" / "models" / "transformer_encoder.onnx"
    merged = cctx.infer_shapes(onnx.load(str(path)))
    full = cctx.infer_shapes(path.read_bytes())
    assert merged.SerializeToString() == full.SerializeToString()


def test_keywords_of_both_originals_are_accepted():
    model = onnx.load(str(SOURCE / "tests" / "models" / "lstm_gru.onnx"))
    expected = cctx.infer_shapes(model).SerializeToString()
    got = shape_inference.infer_shapes(model, check_type=True, strict_mode=False, data_prop=True)
    assert got.SerializeToString() == expected
    got = cctx.SymbolicShapeInference.infer_shapes(model, int_max=2**31 - 1, auto_merge=True,
                                                   guess_output_rank=True, verbose=0)
    assert got.SerializeToString() == expected


def two_minus_ones() -> onnx.ModelProto:
    shape = oh.make_tensor("shape", onnx.TensorProto.INT64, [2], [-1, -1])
    graph = oh.make_graph(
        [oh.make_node("Reshape", ["x", "shape"], ["y"], name="bad")], "g",
        [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["N", 4])],
        [oh.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)], [shape])
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17)])


def test_strict_mode_raises_like_onnx(capsys):
    model = two_minus_ones()
    with pytest.raises(onnx.shape_inference.InferenceError):  # what onnx's strict_mode raises
        onnx.shape_inference.infer_shapes(model, strict_mode=True)
    with pytest.raises(onnx.shape_inference.InferenceError, match="more than one -1") as info:
        cctx.infer_shapes(model, strict_mode=True)
    assert isinstance(info.value, cctx.Error) and isinstance(info.value, ValueError)
    assert info.value.exit_code == 4 and "node 0 'bad' (Reshape)" in str(info.value)
    # Without strict mode: a warning (printed with verbose) and the fallbacks.
    result = cctx.infer_shapes(model, verbose=1)
    assert "more than one -1" in capsys.readouterr().err
    assert result.graph.output[0].type.tensor_type.elem_type == onnx.TensorProto.FLOAT


def test_bad_input_raises_cctx_error_naming_the_problem(tmp_path):
    with pytest.raises(cctx.Error, match="no such file") as info:
        cctx.infer_shapes(str(tmp_path / "missing.onnx"))
    assert info.value.exit_code == 3
    with pytest.raises(cctx.Error, match="not a valid ONNX model"):
        cctx.infer_shapes(b"\x08\x01garbage\xff\xff")
    with pytest.raises(cctx.Error, match="no such file"):  # not an InferenceError: not an analysis error
        cctx.infer_shapes(str(tmp_path / "missing.onnx"), strict_mode=True)
    with pytest.raises(TypeError):
        cctx.infer_shapes_path(onnx.ModelProto())


def test_infer_shapes_path(tmp_path):
    source = SOURCE / "tests" / "models" / "control_flow.onnx"
    out = tmp_path / "out.onnx"
    cctx.infer_shapes_path(str(source), str(out))
    assert onnx.load(str(out)).SerializeToString() == cctx.infer_shapes(onnx.load(str(source))).SerializeToString()
    copy = tmp_path / "copy.onnx"
    copy.write_bytes(source.read_bytes())
    shape_inference.infer_shapes_path(copy)  # no output path: over the input, as onnx does
    assert copy.read_bytes() == out.read_bytes()
    with pytest.raises(cctx.Error, match="is a directory"):
        cctx.infer_shapes_path(str(source), str(tmp_path))


def test_profile_by_name():
    model = onnx.load(str(SOURCE / "examples" / "seed" / "seed.onnx"))
    assert cctx.infer_shapes(model, profile="default").SerializeToString() == \
        cctx.infer_shapes(model).SerializeToString()


def test_the_swap_example_runs():
    import subprocess
    import sys
    done = subprocess.run([sys.executable, str(SOURCE / "examples" / "python" / "swap_infer_shapes.py")],
                          cwd=SOURCE, capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    onnx_line = next(l for l in lines if l.startswith("onnx:"))
    cctx_line = next(l for l in lines if l.startswith("cctx:"))
    produced = int(cctx_line.split(" of ")[1].split()[0])
    assert cctx_line.startswith(f"cctx: {produced} of {produced} ")  # every output shaped
    assert int(onnx_line.split()[1]) < produced  # onnx gives up on some
    assert not done.stderr
