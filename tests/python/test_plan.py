"""ComputeContext.plan against the command line's `cctx plan --format json` (docs/deployers.md, "A static
memory plan"): the same document, replayed here at the assignments it was evaluated at."""
import json
import os
import pathlib
import subprocess

import pytest

import cctx

SOURCE = pathlib.Path(os.environ["CCTX_SOURCE_DIR"])
CNN = SOURCE / "tests" / "models" / "cnn.onnx"
DECODER = SOURCE / "tests" / "models" / "gpt_decoder.onnx"


def cli_plan(model, *args):
    out = subprocess.run([os.environ["CCTX_BINARY"], "plan", str(model), "--format", "json", "-q",
                          *args], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def replay(doc, k):
    """The offsets a runtime computes from the document, and no two live buffers overlapping."""
    sizes = doc["evaluations"][k]["sizes"]
    offsets = [0] * len(doc["buffers"])
    for b in doc["order"]:
        offsets[b] = max([0] + [offsets[j] + sizes[j] for j in doc["buffers"][b]["below"]])
    assert offsets == doc["evaluations"][k]["offsets"]
    buffers = doc["buffers"]
    for i, a in enumerate(buffers):
        for j in range(i + 1, len(buffers)):
            b = buffers[j]
            if a["first"] <= b["last"] and b["first"] <= a["last"] and sizes[i] and sizes[j]:
                assert offsets[i] + sizes[i] <= offsets[j] or offsets[j] + sizes[j] <= offsets[i]
    return max([0] + [offsets[t] + sizes[t] for t in doc["tops"]])


@pytest.mark.parametrize("profile", ["default", "onnxruntime-cpu-unoptimized-no-arena"])
def test_module_plan_matches_the_command_line(profile):
    ctx = cctx.ComputeContext(profile)
    ctx.compute(str(DECODER))
    doc = ctx.plan(evaluate=[{"batch": 2, "seq": 7}, {"batch": 1, "seq": 128}], check=300)
    cli = cli_plan(DECODER, "--profile", profile, "--eval", "batch=1,2", "--eval", "seq=7,128",
                   "--check", "300")
    assert doc["format"] == "cctx.memory_plan" and doc["version"] == 1
    assert doc["buffers"] == cli["buffers"]
    assert doc["arena"] == cli["arena"] and doc["order"] == cli["order"]
    assert doc["check"] == cli["check"]
    assert doc["check"]["overlaps"] == 0 and doc["check"]["checked"] == 300
    by_assignment = {json.dumps(e["assignment"], sort_keys=True): e for e in cli["evaluations"]}
    for k, e in enumerate(doc["evaluations"]):
        assert e == by_assignment[json.dumps(e["assignment"], sort_keys=True)]
        assert replay(doc, k) == e["arena"] >= e["floor"]


def test_plan_options_and_refusals():
    ctx = cctx.ComputeContext()
    ctx.compute(str(CNN))
    doc = ctx.plan({"batch": 1, "height": 32, "width": 32}, alignment=1, scratch=False)
    assert doc["alignment"] == 1 and doc["scratch"] is False
    assert all(b["kind"] == "tensor" for b in doc["buffers"])
    assert replay(doc, 0) == doc["evaluations"][0]["arena"]
    with pytest.raises(ValueError):
        ctx.plan(alignment=0)
    with pytest.raises(ValueError):
        ctx.plan(check=-1)
    with pytest.raises(Exception, match="no symbol 'nope'"):
        ctx.plan({"nope": 3})
