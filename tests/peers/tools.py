"""One peer tool on one model, in a process of its own: the child that peers.py times.

    python tools.py TOOL MODEL OUT.json [FEEDS.json]

Each tool runs in a fresh interpreter so that its whole-process time and peak RSS (taken by the
parent with os.wait4) are its own: the interpreter, the imports, the load, the inference, and
writing what it found. The result file holds {"values": {NAME: DIMS}, ...} for every main-graph
node output the tool gives a shape to; DIMS is a list of ints and strings (a symbolic dim as the
tool prints it; None for a dim the tool leaves unknown), or null for a value without a rank.
Symbolic tools run once per model on the model as it is; concrete-input tools (onnx-tool,
onnxsim) get the fixed inputs of one point in FEEDS.json: {NAME: {"shape": [...], "fill": X} |
{"pb": PATH}} (a TensorProto file: ONNX's test data feeds its own data).

Kept apart from the driver because it imports the peers (onnx 1.23, onnxruntime, onnx-ir, ...),
which the driver does not need, and because every import here is part of what is timed.
"""
import json
import sys

TOOLS = ("floor", "onnx", "onnx-shape-inference", "ort-symbolic", "onnxslim", "onnx-tool",
         "onnxsim")
# Which tools get fixed input shapes (one run per point) instead of the symbolic model.
CONCRETE = ("onnx-tool", "onnxsim")


def proto_dims(vi):
    """A ValueInfoProto's dims: ints, dim_param strings, None for an unknown dim."""
    t = vi.type
    if t.WhichOneof("value") != "tensor_type" or not t.tensor_type.HasField("shape"):
        return None
    out = []
    for d in t.tensor_type.shape.dim:
        w = d.WhichOneof("value")
        out.append(d.dim_value if w == "dim_value" else d.dim_param if w == "dim_param" else None)
    return out


def node_outputs(graph):
    return [o for n in graph.node for o in n.output if o]


def from_proto(model):
    """Shapes a tool left in a ModelProto: value_info, graph outputs, and initializers (onnxsim
    turns the values it folds into initializers under the same name)."""
    found = {}
    for vi in list(model.graph.value_info) + list(model.graph.output):
        found[vi.name] = proto_dims(vi)
    for init in model.graph.initializer:
        found.setdefault(init.name, list(init.dims))
    return found


def load_feeds(model, spec):
    """numpy arrays of the graph inputs from FEEDS.json, typed as the model declares them."""
    import numpy as np
    import onnx
    from onnx import numpy_helper

    inits = {i.name for i in model.graph.initializer}
    dtypes = {}
    for i in model.graph.input:
        if i.name not in inits and i.type.WhichOneof("value") == "tensor_type":
            dtypes[i.name] = onnx.helper.tensor_dtype_to_np_dtype(i.type.tensor_type.elem_type)
    arrays = {}
    for name, s in spec.items():
        if "pb" in s:
            t = onnx.TensorProto()
            with open(s["pb"], "rb") as f:
                t.ParseFromString(f.read())
            arrays[name] = numpy_helper.to_array(t)
        else:
            arrays[name] = np.full(s["shape"], s.get("fill", 0), dtype=dtypes.get(name, np.float32))
    return arrays


def run_onnx(path):
    import onnx
    model = onnx.load(path)
    # data_prop: ONNX's own propagation of shape values (Shape -> Gather -> Concat -> Reshape),
    # off by default; strict off, so one failing node does not stop the rest.
    inferred = onnx.shape_inference.infer_shapes(model, check_type=False, strict_mode=False,
                                                 data_prop=True)
    got = from_proto(inferred)
    return {"values": {n: got[n] for n in node_outputs(inferred.graph) if n in got}}


def run_onnx_shape_inference(path):
    import onnx_ir as ir
    from onnx_shape_inference import infer_symbolic_shapes
    model = ir.load(path)
    infer_symbolic_shapes(model, warn_on_missing=False)
    values = {}
    for node in model.graph:
        for o in node.outputs:
            if not o.name:
                continue
            if o.shape is None:
                values[o.name] = None
                continue
            # SymbolicDim prints its expression (sympy's text); an anonymous one has value None.
            values[o.name] = [d if isinstance(d, int) else
                              (None if getattr(d, "value", None) is None else str(d))
                              for d in o.shape]
    return {"values": values}


def run_ort_symbolic(path):
    import onnx
    from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference
    import os
    import tempfile
    model = onnx.load(path)
    # It writes sym_shape_infer_temp.onnx into the working directory: a folder of its own keeps
    # that out of the source tree `make peers` runs in.
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="ort-symbolic-") as scratch:
        os.chdir(scratch)
        try:
            # auto_merge: merge conflicting symbolic dims instead of failing (what its CLI users
            # pass).
            out = SymbolicShapeInference.infer_shapes(model, auto_merge=True)
        finally:
            os.chdir(here)
    if out is None:
        raise RuntimeError("SymbolicShapeInference returned nothing (it does for opsets below 7)")
    got = from_proto(out)
    return {"values": {n: got[n] for n in node_outputs(out.graph) if n in got}}


def run_onnxslim(path):
    import onnx
    from onnxslim.core import shape_infer
    model = onnx.load(path)
    # onnxslim's own entry: its symbolic engine, and ONNX's inference when that one throws.
    out = shape_infer(model)
    got = from_proto(out)
    return {"values": {n: got[n] for n in node_outputs(out.graph) if n in got}}


def run_onnxsim(path, feeds):
    import onnx
    from onnxsim import simplify
    model = onnx.load(path)
    shapes = {n: list(a.shape) for n, a in load_feeds(model, feeds).items()}
    names = node_outputs(model.graph)
    out, _ = simplify(model, overwrite_input_shapes=shapes)
    got = from_proto(out)
    # Values it fused or removed are absent (no shape): the simplified graph has no such value.
    return {"values": {n: got[n] for n in names if n in got},
            "removed": sum(1 for n in names if n not in got)}


def run_onnx_tool(path, feeds):
    import io
    import contextlib
    import onnx
    import onnx_tool
    with contextlib.redirect_stdout(io.StringIO()):
        m = onnx_tool.Model(path, {"verbose": False})
        g = m.graph
        g.graph_reorder_nodes()
        arrays = load_feeds(onnx.load(path, load_external_data=False), feeds)
        g.shape_infer(arrays)
        g.profile()
        values = {}
        for node in g.nodemap.values():
            for o in node.output:
                if o and o in g.tensormap:
                    values[o] = [int(d) for d in g.tensormap[o].get_shape()]
        result = {"values": values}
        # Its memory figures: the sum of the per-node "memory" column (each node's outputs plus
        # the weights it reads first), and compress_memory's plan of the activations and inputs
        # with reuse (64-byte blocks). Graph inputs' bytes are given so the caller can take them
        # out (the caller holds them before a run, as ORT's run_bytes does).
        result["memory_sum"] = int(g.memory)
        result["params_bytes"] = int(sum(g.tensormap[k].get_memsize() for k in g.initials
                                         if k in g.tensormap))
        result["input_bytes"] = int(sum(int(a.nbytes) for a in arrays.values()))
        try:
            _, size = g.compress_memory()
            result["memory_plan"] = int(size)
        except Exception as e:  # noqa: BLE001 -- a plan it cannot make is a result
            result["memory_plan_error"] = str(e)[:200]
    return result


def main():
    tool, path, out = sys.argv[1:4]
    feeds = json.load(open(sys.argv[4])) if len(sys.argv) > 4 else None
    if tool == "floor":
        # The floor: the interpreter, onnx's import and a parse of the structure alone.
        import onnx
        onnx.load(path, load_external_data=False)
        result = {"values": {}}
    elif tool == "onnx":
        result = run_onnx(path)
    elif tool == "onnx-shape-inference":
        result = run_onnx_shape_inference(path)
    elif tool == "ort-symbolic":
        result = run_ort_symbolic(path)
    elif tool == "onnxslim":
        result = run_onnxslim(path)
    elif tool == "onnxsim":
        result = run_onnxsim(path, feeds)
    elif tool == "onnx-tool":
        result = run_onnx_tool(path, feeds)
    else:
        sys.exit(f"tools.py: unknown tool {tool} (one of {', '.join(TOOLS)})")
    with open(out, "w") as f:
        json.dump(result, f, default=str)


if __name__ == "__main__":
    main()
