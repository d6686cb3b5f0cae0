"""cctx.fit and ComputeContext.fit against the command line's `cctx fit --format json` and the
evaluation at the value they return (docs/deployers.md, "The largest value that fits")."""
import json
import os
import pathlib
import subprocess

import pytest

import cctx

SOURCE = pathlib.Path(os.environ["CCTX_SOURCE_DIR"])
SEED = SOURCE / "examples" / "seed" / "seed.onnx"
DECODER = SOURCE / "tests" / "models" / "gpt_decoder.onnx"


def cli_fit(model, *args):
    out = subprocess.run([os.environ["CCTX_BINARY"], "fit", str(model), "--format", "json", *args],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["fits"][0]


def test_seed_fit_is_exact_and_proved():
    ctx = cctx.ComputeContext()
    ctx.compute(str(SEED))
    found = ctx.fit("N", 10_000)
    # The seed's reserve at N is 64 (W) + 16N (X) + the run: the value and the next straddle it.
    assert found["value"] >= 1
    assert found["at"]["reserve_bytes"] <= 10_000 < found["next"]["reserve_bytes"]
    at = ctx.evaluate_runtime({"N": found["value"]})
    assert at["reserve_bytes"] == found["at"]["reserve_bytes"]
    assert at["reserve_bytes"] == at["session_bytes"] + at["input_bytes"] + at["run_bytes"]
    assert found["proved_monotone"] is True
    assert found == cli_fit(SEED, "--budget", "10000", "--vary", "N")


@pytest.mark.parametrize("profile", ["onnxruntime-cpu-unoptimized-no-arena", "onnxruntime-cpu-unoptimized"])
def test_module_fit_matches_the_command_line(profile):
    found = cctx.fit(str(DECODER), "64MiB", "batch", fixed={"seq": 128}, profile=profile)
    assert found == cli_fit(DECODER, "--budget", "64MiB", "--vary", "batch", "--eval", "seq=128",
                            "--profile", profile)
    # The profile's headroom is kept free: reserve + headroom fits, the next value's does not.
    at, nxt = found["at"], found["next"]
    assert at["reserve_bytes"] + at["headroom_bytes"] <= 64 << 20
    assert nxt["reserve_bytes"] + nxt["headroom_bytes"] > 64 << 20
    assert found["headroom"]["bytes"] == 1 << 20


def test_fit_refusals_are_cctx_errors():
    ctx = cctx.ComputeContext()
    ctx.compute(str(SEED))
    with pytest.raises(cctx.Error, match="no symbol 'Q'"):
        ctx.fit("Q", 1000)
    with pytest.raises(cctx.Error, match="expected a size in bytes"):
        cctx.fit(str(SEED), "lots", "N")
    with pytest.raises(TypeError):
        cctx.fit(str(SEED), True, "N")
    nothing = ctx.fit("N", 10)
    assert nothing["value"] is None and nothing["next"]["value"] == 1
