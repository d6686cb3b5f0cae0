"""The third hostile-input round for the Python module (docs/python.md, "Python: one context, several
threads"): a failed compute leaves the context as it was, one context shared by threads never
crashes, and wrong argument types are TypeErrors that name the argument."""
import json
import os
import pathlib
import threading

import onnx
import onnx.helper as oh
import pytest

import cctx

SEED = pathlib.Path(os.environ["CCTX_SOURCE_DIR"]) / "examples" / "seed" / "seed.onnx"
STRICT = "extends: default\nshapes: {strict: true}\n"


def overflowing_expand() -> onnx.ModelProto:
    """Expand to [2^40, 2^40, 2^40] floats: its byte size overflows int64 (cctx.Error)."""
    shape = oh.make_tensor("shape", onnx.TensorProto.INT64, [3], [2 ** 40] * 3)
    graph = oh.make_graph(
        [oh.make_node("Expand", ["X", "shape"], ["Y"], name="big")], "g",
        [oh.make_tensor_value_info("X", onnx.TensorProto.FLOAT, [1])],
        [oh.make_tensor_value_info("Y", onnx.TensorProto.FLOAT, None)], [shape])
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 18)])


def two_minus_ones() -> onnx.ModelProto:
    """A Reshape with two -1: a warning by default, an error in strict mode."""
    shape = oh.make_tensor("shape", onnx.TensorProto.INT64, [2], [-1, -1])
    graph = oh.make_graph(
        [oh.make_node("Reshape", ["X", "shape"], ["Y"], name="r")], "g",
        [oh.make_tensor_value_info("X", onnx.TensorProto.FLOAT, ["N", 4])],
        [oh.make_tensor_value_info("Y", onnx.TensorProto.FLOAT, None)], [shape])
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 18)])


def snapshot(ctx: cctx.ComputeContext) -> tuple:
    return (ctx.to_json(), ctx.peak, ctx.memory, ctx.shapes, ctx.evaluate_peak({"N": 8}),
            ctx.warnings, ctx.reuse, ctx.release_after)


def test_failed_compute_leaves_the_context_as_it_was():
    ctx = cctx.ComputeContext()
    ctx.compute(str(SEED))
    before = snapshot(ctx)
    with pytest.raises(cctx.Error) as failure:
        ctx.compute(overflowing_expand())
    assert "integer overflow" in str(failure.value) and failure.value.exit_code == 3
    # Before the fix: to_json died with SIGBUS, peak held a heap address, evaluate_peak (0, -1).
    assert snapshot(ctx) == before
    assert ctx.peak == {"total_bytes": "64*N+64", "node": 1}


def test_failed_strict_compute_leaves_the_context_as_it_was():
    ctx = cctx.ComputeContext(STRICT)
    ctx.compute(str(SEED))
    before = snapshot(ctx)
    with pytest.raises(cctx.Error) as failure:
        ctx.compute(two_minus_ones())
    assert failure.value.exit_code == 4
    assert snapshot(ctx) == before  # shapes raised IndexError (vector::_M_range_check) before


def test_failed_first_compute_leaves_nothing_computed():
    ctx = cctx.ComputeContext()
    with pytest.raises(cctx.Error):
        ctx.compute(overflowing_expand())
    with pytest.raises(cctx.Error, match="call compute"):
        ctx.to_json()
    with pytest.raises(cctx.Error, match="call compute"):
        ctx.peak  # noqa: B018
    ctx.compute(str(SEED))
    assert ctx.evaluate_peak({"N": 8}) == (576, 1)


def test_one_context_shared_by_threads():
    """compute in one thread while others read: each read sees one whole analysis (6 of 6 runs
    died with SIGSEGV before)."""
    ctx = cctx.ComputeContext()
    seed = onnx.load(str(SEED))
    ctx.compute(seed)
    expected_memory = ctx.memory
    expected_json = json.loads(ctx.to_json())
    failures = []
    stop = threading.Event()

    def writer():
        try:
            for k in range(60):
                ctx.compute(seed if k % 2 else str(SEED))
                with pytest.raises(cctx.Error):
                    ctx.compute(overflowing_expand())
        except Exception as e:  # noqa: BLE001  (reported below)
            failures.append(repr(e))
        finally:
            stop.set()

    def reader():
        try:
            while not stop.is_set():
                assert ctx.memory == expected_memory
                assert json.loads(ctx.to_json())["peak"] == expected_json["peak"]
                assert ctx.evaluate_peak({"N": 3}) == (256, 1)
        except Exception as e:  # noqa: BLE001
            failures.append(repr(e))

    threads = [threading.Thread(target=writer)] + [threading.Thread(target=reader) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


@pytest.mark.parametrize("call", [
    lambda c: c.evaluate_peak("N"),
    lambda c: c.evaluate_peak({"N": "8"}),
    lambda c: c.evaluate_peak({"N": 8.0}),
    lambda c: c.evaluate_peak({"N": True}),
    lambda c: c.evaluate_peak({8: 8}),
    lambda c: c.evaluate_runtime([("N", 8)]),
    lambda c: c.to_json({"N": 8}),
    lambda c: c.to_json([{"N": "x"}]),
    lambda c: c.node_memory("a"),
    lambda c: c.write_to_model(42),
    lambda c: c.compute(42),
    lambda c: cctx.ComputeContext(42),
    lambda c: cctx.evaluate_expression(3.5, {}),
    lambda c: cctx.evaluate_expression("N", {"N": None}),
    lambda c: cctx.simplify_expression("N", {"N": [1, 2]}),
    lambda c: cctx.simplify_expression("N", {"N": (1, "x")}),
    lambda c: cctx.simplify_expression(None),
])
def test_wrong_types_are_type_errors(call):
    ctx = cctx.ComputeContext()
    ctx.compute(str(SEED))
    with pytest.raises(TypeError):
        call(ctx)


def test_wrong_values_are_errors_not_crashes():
    ctx = cctx.ComputeContext()
    ctx.compute(str(SEED))
    with pytest.raises(cctx.Error, match="does not fit a 64-bit integer"):
        ctx.evaluate_peak({"N": 2 ** 70})
    with pytest.raises(cctx.Error):
        ctx.evaluate_peak({"N": -1})
    with pytest.raises(cctx.Error):
        ctx.evaluate_peak({"Q": 1})
    with pytest.raises(IndexError):
        ctx.node_memory(99)
    with pytest.raises(IndexError):
        ctx.node_memory(-1)
    with pytest.raises(cctx.Error):
        ctx.compute(b"\x08\x08\x3a\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01")
    assert ctx.evaluate_peak({"N": 8}) == (576, 1)
