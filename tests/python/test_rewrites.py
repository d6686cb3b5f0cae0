"""The runtime's graph rewrites through the Python module (docs/design/rewrites.md): under
`onnxruntime-cpu`, ONNX Runtime's defaults, the module analyses the graph ONNX Runtime runs,
says where each node came from, and agrees with the command line."""
import json
import os
import pathlib
import subprocess

import cctx

SOURCE = pathlib.Path(os.environ["CCTX_SOURCE_DIR"])
CNN = SOURCE / "tests" / "models" / "cnn.onnx"
SIZE = {"batch": 8, "height": 224, "width": 224}


def report(profile):
    ctx = cctx.ComputeContext(profile)
    ctx.compute(str(CNN))
    return ctx, json.loads(ctx.to_json(evaluate=[SIZE]))


def test_default_session_plans_the_rewritten_graph():
    ctx, doc = report("onnxruntime-cpu-no-arena")
    _, lab = report("onnxruntime-cpu-unoptimized-no-arena")
    # 11 nodes in the file; NCHWc kernels and their reorders as ONNX Runtime runs it.
    assert doc["rewrites"]["nodes_before"] == len(lab["nodes"])
    assert len(doc["nodes"]) == doc["rewrites"]["nodes_after"]
    assert "rewrites" not in lab
    fused = [n for n in doc["nodes"] if "rewritten_from" in n]
    assert fused and all(n["rewritten_from"]["rules"] and n["rewritten_from"]["nodes"]
                         for n in fused)
    assert any(n["domain"] == "com.microsoft.nchwc" for n in doc["nodes"])
    # The same figures as the command line under the same profile.
    cli = subprocess.run([os.environ["CCTX_BINARY"], "analyze", str(CNN), "--profile",
                          "onnxruntime-cpu-no-arena", "--format", "json", "--eval",
                          ",".join(f"{k}={v}" for k, v in SIZE.items())],
                         check=True, capture_output=True, text=True).stdout
    ours = doc["peak"]["evaluations"][0]
    theirs = json.loads(cli)["peak"]["evaluations"][0]
    assert ours["run_bytes"] == theirs["run_bytes"] == ctx.evaluate_runtime(SIZE)["run_bytes"]
    assert [n["op_type"] for n in doc["nodes"]] == [n["op_type"] for n in json.loads(cli)["nodes"]]
