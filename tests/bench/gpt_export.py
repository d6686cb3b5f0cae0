"""The GPT-style decoder the Python benchmarks share: tests/models/export_models.py's GptDecoder
with more blocks, exported by PyTorch 1.13 (Debian's python3-torch) and cached in the build tree.
Without torch, bench_pipeline_scale --generate writes a Llama-style model of the same size."""
import pathlib
import subprocess
import sys

SOURCE = pathlib.Path(__file__).resolve().parents[2]


def export_gpt(path: pathlib.Path, nodes: int) -> None:
    sys.path.insert(0, str(SOURCE / "tests" / "models"))
    import torch
    from export_models import GptDecoder  # the fixture's decoder, more blocks

    blocks = max(1, round((nodes - 25) / 114))  # measured: 114 nodes per block + 25
    module = GptDecoder(blocks=blocks).eval()
    ids = torch.zeros((2, 16), dtype=torch.int64)
    torch.onnx.export(module, (ids,), str(path), opset_version=15, input_names=["ids"],
                      output_names=["logits"], dynamic_axes={"ids": {0: "batch", 1: "seq"},
                                                             "logits": {0: "batch", 1: "seq"}},
                      do_constant_folding=True)


def model_file(out: pathlib.Path, nodes: int, generator: str, require_gpt: bool = False):
    """The cached export of about `nodes` nodes in `out`; without torch the Llama-style model
    (or None when `require_gpt`)."""
    path = out / f"gpt_export_{nodes}.onnx"
    if path.exists():
        return path
    try:
        export_gpt(path, nodes)
    except ImportError:
        if require_gpt:
            return None
        path = out / f"llama_generated_{nodes}.onnx"
        subprocess.run([generator, "--generate", str(nodes), str(path)], check=True)
    return path
