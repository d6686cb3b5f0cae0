"""If and Loop: merged branch shapes, the If's memory as the larger branch, loop trip counts.

The exported fixture (control_flow.onnx, torch.jit.script) has a data-dependent If whose branches
give [batch, 2*seq, 8] and [batch, seq+4, 8] (x with 4 copies of its first row), and a Loop over seq carrying a [batch, 8] state. The
scan-output case is built here with onnx.helper: torch exports appended lists as sequences.
"""
import json
import os
import subprocess

import onnx
import onnx.helper as oh
from onnx import TensorProto

import fixtures


def analysed_fixture():
    return fixtures.analyse(fixtures.stripped(fixtures.load("control_flow")))[0]


def node_index(ctx_model: onnx.ModelProto, op_type: str) -> int:
    return [n.op_type for n in ctx_model.graph.node].index(op_type)


def test_if_output_merges_the_branch_shapes():
    ctx = analysed_fixture()
    y = ctx.shapes["y"]
    assert len(y) == 3 and y[0] == "batch" and y[2] == 8
    assert "max" in y[1], y  # which branch is longer depends on seq
    for seq in (1, 3, 4, 5, 9):
        assert fixtures.evaluate(y[1], {"seq": seq}) == max(2 * seq, seq + 4)


def test_if_working_memory_is_the_larger_branch():
    ctx = analysed_fixture()
    scratch = ctx.node_peak_memory(node_index(fixtures.load("control_flow"), "If"))
    assert isinstance(scratch, str) and "max(" in scratch, scratch
    # seq = 10: the then branch's Concat [batch, 2*seq, 8] float (its Tanh output is the If's).
    assert fixtures.evaluate(scratch, {"batch": 2, "seq": 10}) == 2 * 20 * 8 * 4
    # seq = 1: the else branch, at its Concat [batch, seq+4, 8] float, while the Tile [batch, 4, 8]
    # it reads is still live.
    assert fixtures.evaluate(scratch, {"batch": 2, "seq": 1}) == 2 * 5 * 8 * 4 + 2 * 4 * 8 * 4


def test_loop_carries_the_state_and_its_body_sees_the_trip_counter():
    ctx, written = fixtures.analyse(fixtures.stripped(fixtures.load("control_flow")))
    loop = node_index(fixtures.load("control_flow"), "Loop")
    state = written.graph.node[loop].output[0]
    assert ctx.shapes[state] == ["batch", 8]
    body = fixtures.shapes_by_name(written)
    assert body["/Tanh_2_output_0"] == ["batch", 8]
    assert body["/step/Gemm_output_0"] == ["batch", 8]
    # One iteration's working memory: x[:, t] and the Linear's output, then that and the Add
    # ([batch, 8] floats each); the Tanh result is a body output, carried as the next state.
    assert ctx.node_peak_memory(loop) == "64*batch"


def scan_output_loop(with_cond: bool) -> onnx.ModelProto:
    """Loop M = seq over x[:, t] (a Gather per iteration) with a scan output of the step."""
    body_nodes = [
        oh.make_node("Gather", ["x", "t"], ["row"], axis=1),
        oh.make_node("Relu", ["row"], ["step"]),
        oh.make_node("Identity", ["acc"], ["acc_out"]),
    ]
    if with_cond:  # stops early on data: the trip count is a fresh symbol in [0, seq]
        body_nodes += [oh.make_node("ReduceSum", ["row"], ["total"], keepdims=0),
                       oh.make_node("Cast", ["total"], ["cond_out"], to=TensorProto.BOOL)]
    else:
        body_nodes.append(oh.make_node("Identity", ["cond"], ["cond_out"]))
    body = oh.make_graph(
        body_nodes, "body",
        [oh.make_tensor_value_info("t", TensorProto.INT64, []),
         oh.make_tensor_value_info("cond", TensorProto.BOOL, []),
         oh.make_tensor_value_info("acc", TensorProto.FLOAT, None)],
        [oh.make_tensor_value_info("cond_out", TensorProto.BOOL, None),
         oh.make_tensor_value_info("acc_out", TensorProto.FLOAT, None),
         oh.make_tensor_value_info("step", TensorProto.FLOAT, None)])
    nodes = [
        oh.make_node("Shape", ["x"], ["shape"]),
        oh.make_node("Gather", ["shape", "one"], ["seq_len"], axis=0),
        oh.make_node("Loop", ["seq_len", "go" if with_cond else "", "x"], ["final", "steps"],
                     body=body),
    ]
    graph = oh.make_graph(
        nodes, "loop_scan",
        [oh.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 8])],
        [oh.make_tensor_value_info("steps", TensorProto.FLOAT, None)],
        [oh.make_tensor("one", TensorProto.INT64, [], [1]),
         oh.make_tensor("go", TensorProto.BOOL, [], [True])])
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 15)])


def cctx_shapes(model: onnx.ModelProto, tmp_path) -> dict:
    path = tmp_path / "loop.onnx"
    onnx.save(model, str(path))
    result = subprocess.run([os.environ["CCTX_BINARY"], "shapes", str(path), "--format", "json"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_loop_scan_output_is_stacked_over_the_trip_count(tmp_path):
    doc = cctx_shapes(scan_output_loop(with_cond=False), tmp_path)
    assert doc["values"]["final"]["shape"] == ["batch", "seq", 8]
    assert doc["values"]["steps"]["shape"] == ["seq", "batch", 8]


def test_a_loop_that_can_stop_early_gets_a_trip_count_symbol(tmp_path):
    doc = cctx_shapes(scan_output_loop(with_cond=True), tmp_path)
    trip, *rest = doc["values"]["steps"]["shape"]
    assert rest == ["batch", 8]
    assert isinstance(trip, str) and trip.startswith("Loop_"), trip
    symbol = next(s for s in doc["symbols"] if s["name"] == trip)
    assert symbol["kind"] == "fresh" and symbol["bounds"][0] == 0
