"""cctx's symbolic shapes against two oracles nobody here wrote.

1. ONNX's own shape inference (onnx.shape_inference.infer_shapes with data propagation) on the
   model with its input symbols fixed to the sizes used at export: wherever ONNX resolves a dim
   to a number, cctx's expression evaluated at those sizes must give the same number.
2. The output shapes PyTorch produced at export time (tests/models/<name>.json).

cctx analyses the symbolic model with declared output shapes and value_info removed.
"""
import onnx
import onnx.shape_inference
import pytest

import fixtures


def onnx_inferred(model: onnx.ModelProto, sizes: dict) -> dict:
    concrete = fixtures.stripped(fixtures.concrete(model, sizes))
    inferred = onnx.shape_inference.infer_shapes(concrete, strict_mode=False, data_prop=True)
    return fixtures.shapes_by_name(inferred)


def cctx_inferred(model: onnx.ModelProto) -> dict:
    _, written = fixtures.analyse(fixtures.stripped(model))
    return fixtures.shapes_by_name(written)


@pytest.mark.parametrize("name", fixtures.NAMES)
def test_cctx_agrees_with_onnx_shape_inference_at_the_export_sizes(name):
    model = fixtures.load(name)
    sizes = fixtures.export_record(name)["symbols"]
    ours = cctx_inferred(model)
    theirs = onnx_inferred(model, sizes)
    compared, disagreements = 0, []
    for value, their_dims in theirs.items():
        if their_dims is None or value not in ours:
            continue
        our_dims = ours[value]
        assert our_dims is not None, f"ONNX knows the rank of {value!r}, cctx does not"
        if len(our_dims) != len(their_dims):
            disagreements.append((value, our_dims, their_dims))
            continue
        for ours_d, theirs_d in zip(our_dims, their_dims):
            if not isinstance(theirs_d, int):
                continue  # ONNX left this dim symbolic or unknown
            compared += 1
            if fixtures.symbols_in(ours_d) - set(sizes):
                disagreements.append((value, our_dims, their_dims))
            elif fixtures.evaluate(ours_d, sizes) != theirs_d:
                disagreements.append((value, our_dims, their_dims))
    assert not disagreements, disagreements
    # The comparison is not vacuous: ONNX resolved dims of most values.
    assert compared >= len(theirs) // 2, (compared, len(theirs))


@pytest.mark.parametrize("name", fixtures.NAMES)
def test_graph_outputs_match_what_pytorch_produced_at_export(name):
    record = fixtures.export_record(name)
    ctx, _ = fixtures.analyse(fixtures.stripped(fixtures.load(name)))
    for output, torch_shape in record["outputs"].items():
        ours = ctx.shapes[output]
        if (name, output, None) in fixtures.KNOWN_GAPS:
            assert ours is None, f"{output} is resolved now: remove it from KNOWN_GAPS"
            continue
        assert ours is not None, output
        assert [fixtures.evaluate(d, record["symbols"]) for d in ours] == torch_shape, (output, ours)
