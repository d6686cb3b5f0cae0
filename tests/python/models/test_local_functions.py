"""Model-local functions are analysed through their bodies, inlined once per call site."""
import onnx
import onnx.helper as oh
from onnx import TensorProto

import cctx
import fixtures


def test_exported_function_calls_are_inlined_per_call_site():
    model = fixtures.load("functions")
    calls = [n for n in model.graph.node if n.op_type == "MlpBlock"]
    body = model.functions[0]
    assert len(calls) == 3 and body.name == "MlpBlock"
    ctx, written = fixtures.analyse(fixtures.stripped(model))
    # The written model is the analysed one: the calls replaced by their bodies.
    ops = [n.op_type for n in written.graph.node]
    assert "MlpBlock" not in ops and not written.functions
    assert len(ops) == len(model.graph.node) - len(calls) + len(calls) * len(body.node)
    assert len(ctx.memory) == len(ops)
    # Each call's body values are its own (prefixed by the call's name), shaped over batch, seq.
    shapes = fixtures.shapes_by_name(written)
    fc1 = next(n for n in body.node if n.op_type == "Relu").input[0]  # fc1's output: 2*16 wide
    for call in calls:
        hidden = shapes[call.name + "/" + fc1]
        assert hidden == ["batch", "seq", 32], (call.name, hidden)
    # The formal inputs were bound per call: block 0 reads its own weights, not block 2's.
    first = next(n for n in written.graph.node if n.name == calls[0].name + "/MatMul_0")
    assert list(first.input) == list(calls[0].input[:2])
    assert ctx.shapes["y"] == ["batch", "seq", 16]
    # The hidden layer of a block (2*16 floats per row) shows up in the memory.
    assert "batch*seq" in str(ctx.peak["total_bytes"])


def transpose_function_model(call_inputs: int = 1) -> onnx.ModelProto:
    """`local:Swap(X)` transposes by its call's `perm` attribute (a ref_attr_name reference)."""
    perm = onnx.AttributeProto()
    perm.name = "perm"
    perm.ref_attr_name = "perm"
    perm.type = onnx.AttributeProto.INTS
    inner = oh.make_node("Transpose", ["X"], ["T"])
    inner.attribute.append(perm)
    relu = oh.make_node("Relu", ["T"], ["Y"])
    swap = oh.make_function("local", "Swap", ["X"], ["Y"], [inner, relu],
                            [oh.make_opsetid("", 15)], ["perm"])
    extra = ["x"] * (call_inputs - 1)
    nodes = [oh.make_node("Swap", ["x"] + extra, ["a"], domain="local", perm=[1, 0, 2]),
             oh.make_node("Swap", ["a"], ["b"], domain="local", perm=[2, 1, 0])]
    graph = oh.make_graph(nodes, "calls",
                          [oh.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 4])],
                          [oh.make_tensor_value_info("b", TensorProto.FLOAT, None)])
    return oh.make_model(graph, functions=[swap],
                         opset_imports=[oh.make_opsetid("", 15), oh.make_opsetid("local", 1)])


def test_each_call_uses_its_own_attributes():
    ctx = cctx.ComputeContext()
    ctx.compute(transpose_function_model())
    assert ctx.shapes["a"] == ["seq", "batch", 4]
    assert ctx.shapes["b"] == [4, "batch", "seq"]
    assert len(ctx.memory) == 4  # two Transpose + Relu pairs
