"""The seed document's script (the documentation gallery's first example,
examples/gallery/plot_compute_context_memory.py), with only its import lines changed, prints the
seed's output."""
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
SCRIPT = HERE.parent.parent / "examples" / "gallery" / "plot_compute_context_memory.py"


def normalise(text: str) -> list[str]:
    # The seed page shows lines without the trailing padding that str.ljust leaves.
    return [line.rstrip() for line in text.strip("\n").splitlines()]


def test_seed_script_prints_the_seed_output_and_draws_the_plot(tmp_path):
    env = dict(os.environ, MPLBACKEND="Agg")
    result = subprocess.run(
        [sys.executable, str(SCRIPT)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    expected = (HERE / "seed_expected_output.txt").read_text()
    assert normalise(result.stdout) == normalise(expected)
    plot = tmp_path / "plot_compute_context_memory.png"
    assert plot.exists() and plot.stat().st_size > 10_000
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_seed_script_differs_from_the_seed_only_in_imports():
    seed = pathlib.Path(os.environ["CCTX_SEED_DOC"]).read_text()
    script = SCRIPT.read_text()
    # The leading docstring is the gallery's header: the seed page's title and introduction, each
    # line of which (without its reStructuredText underline and bullet marks) is the seed's.
    header, code = script.split('"""', 2)[1:]
    for line in header.splitlines():
        text = line.strip().removeprefix("* ")
        if text and set(text) != {"="}:
            assert text in seed, f"header line not in the seed document: {text!r}"
    code_lines = [line for line in code.splitlines() if line.strip()]
    for line in code_lines:
        if "import" in line and ("cctx" in line or "onnx" in line):
            continue  # the changed import lines
        if line.strip() in (")", "from cctx import (") or line.strip().startswith("NODE_MEMORY") or line.strip() == "ComputeContext,":
            continue
        assert line in seed, f"line not in the seed document: {line!r}"
