"""Malformed bodies and function calls: one line naming the node and the reason, exit code 3."""
import os
import subprocess

import onnx
import onnx.helper as oh
import pytest
from onnx import TensorProto

X = oh.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])


def model(nodes, outputs, functions=(), extra_opsets=()):
    graph = oh.make_graph(nodes, "bad", [X], outputs,
                          [oh.make_tensor("flag", TensorProto.BOOL, [], [True]),
                           oh.make_tensor("three", TensorProto.INT64, [], [3])])
    return oh.make_model(graph, functions=list(functions),
                         opset_imports=[oh.make_opsetid("", 15), *extra_opsets])


def branch(name: str, produced: str, returned: str) -> onnx.GraphProto:
    return oh.make_graph([oh.make_node("Relu", ["x"], [produced])], name, [],
                         [oh.make_tensor_value_info(returned, TensorProto.FLOAT, None)])


def if_without_else() -> onnx.ModelProto:
    node = oh.make_node("If", ["flag"], ["y"], name="choose",
                        then_branch=branch("then", "r", "r"))
    return model([node], [oh.make_tensor_value_info("y", TensorProto.FLOAT, None)])


def body_output_never_produced() -> onnx.ModelProto:
    body = oh.make_graph(
        [oh.make_node("Identity", ["cond"], ["cond_out"])], "body",
        [oh.make_tensor_value_info("i", TensorProto.INT64, []),
         oh.make_tensor_value_info("cond", TensorProto.BOOL, [])],
        [oh.make_tensor_value_info("cond_out", TensorProto.BOOL, None),
         oh.make_tensor_value_info("ghost", TensorProto.FLOAT, None)])
    node = oh.make_node("Loop", ["three", ""], ["stacked"], name="repeat", body=body)
    return model([node], [oh.make_tensor_value_info("stacked", TensorProto.FLOAT, None)])


def function_call_with_extra_inputs() -> onnx.ModelProto:
    double = oh.make_function("local", "Double", ["A"], ["B"],
                              [oh.make_node("Add", ["A", "A"], ["B"])],
                              [oh.make_opsetid("", 15)], [])
    node = oh.make_node("Double", ["x", "x", "x"], ["y"], name="twice", domain="local")
    return model([node], [oh.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                 functions=[double], extra_opsets=[oh.make_opsetid("local", 1)])


CASES = {
    "if_without_else": (if_without_else, ["'choose'", "If", "'else_branch'"]),
    "body_output_never_produced": (body_output_never_produced,
                                   ["'ghost'", "'body' graph", "'repeat'", "Loop", "not produced"]),
    "function_call_with_extra_inputs": (function_call_with_extra_inputs,
                                        ["'twice'", "local:Double", "3 inputs", "declares 1"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("command", ["analyze", "shapes"])
def test_malformed_model_is_bad_input_naming_the_node(case, command, tmp_path):
    make, expected = CASES[case]
    path = tmp_path / f"{case}.onnx"
    onnx.save(make(), str(path))
    result = subprocess.run([os.environ["CCTX_BINARY"], command, str(path)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 3, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert str(path) in lines[0]
    for fragment in expected:
        assert fragment in lines[0], (fragment, lines[0])
