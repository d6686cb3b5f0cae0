#!/usr/bin/python3
"""Exports the small real models under tests/models/ with PyTorch's ONNX exporter.

Run with Debian's interpreter, which has torch 1.13 and onnx 1.12:

    /usr/bin/python3 tests/models/export_models.py [OUT_DIR]

Each model is exported with dynamic axes named `batch`, `seq` (and `height`/`width` for the CNN),
with tiny hidden sizes so that the committed files stay small. Beside every `<name>.onnx` the
script writes `<name>.json`: the concrete example inputs used for the export (their symbols'
values) and the shapes PyTorch produced for every graph output, which the tests compare with
cctx's symbolic shapes evaluated at those values. The tests never need torch: they read the
committed files.
"""
import json
import pathlib
import sys
from typing import List, Tuple

import torch
from torch import nn

OPSET = 15  # >= 15 for model-local functions (IR 8)
torch.manual_seed(0)


class GptDecoder(nn.Module):
    """Token + position embeddings, two pre-norm blocks with causally masked attention."""

    def __init__(self, vocab: int = 64, dim: int = 32, heads: int = 4, blocks: int = 2,
                 max_len: int = 128):
        super().__init__()
        self.heads = heads
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(max_len, dim)
        self.blocks = nn.ModuleList([GptBlock(dim, heads) for _ in range(blocks)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        seq = ids.shape[1]
        positions = torch.arange(seq, device=ids.device).unsqueeze(0)
        x = self.tok(ids) + self.pos(positions)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))


class GptBlock(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(d, dim=2)
        q = q.reshape(b, s, self.heads, d // self.heads).transpose(1, 2)
        k = k.reshape(b, s, self.heads, d // self.heads).transpose(1, 2)
        v = v.reshape(b, s, self.heads, d // self.heads).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / float(d // self.heads) ** 0.5
        causal = torch.ones(s, s, dtype=torch.bool, device=x.device).tril()
        scores = scores.masked_fill(~causal, float("-inf"))
        attn = scores.softmax(dim=-1) @ v
        x = x + self.proj(attn.transpose(1, 2).reshape(b, s, d))
        return x + self.mlp(self.norm2(x))


class Encoder(nn.Module):
    """nn.TransformerEncoder over [batch, seq, dim] features with a key padding mask."""

    def __init__(self, dim: int = 32):
        super().__init__()
        layer = nn.TransformerEncoderLayer(dim, nhead=4, dim_feedforward=64, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.encoder(x)


class Recurrent(nn.Module):
    """A bidirectional LSTM feeding a GRU, then a per-step projection."""

    def __init__(self, features: int = 8, hidden: int = 16):
        super().__init__()
        self.lstm = nn.LSTM(features, hidden, batch_first=True, bidirectional=True)
        self.gru = nn.GRU(2 * hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, 4)

    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        y, _ = self.lstm(x)
        z, h = self.gru(y)
        return self.out(z), h


class Cnn(nn.Module):
    """Convolutions, pooling, an upsample and a global pool over [batch, 3, height, width]."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 16, 1),
        )
        self.up = nn.Upsample(scale_factor=2.0, mode="nearest")
        self.classify = nn.Linear(16, 10)

    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        f = self.features(x)
        pooled = torch.flatten(nn.functional.adaptive_avg_pool2d(f, 1), 1)
        return self.classify(pooled), self.up(f)


class ControlFlow(nn.Module):
    """Scripted control flow: a data-dependent If and a Loop over the sequence axis (torch exports
    the list it appends to as a sequence carried by the Loop, not as a scan output)."""

    def __init__(self, dim: int = 8):
        super().__init__()
        self.step = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        # Scripted F.pad computes its pads in the graph: Reshape to [n, 2], Slice with step -1,
        # Transpose, Reshape.
        padded = nn.functional.pad(x, [0, 0, 2, 1])
        # Which branch needs more working memory depends on seq: then [batch, 2*seq, 8],
        # else [batch, seq+4, 8].
        if bool(x.sum() > 0):
            y = torch.tanh(torch.cat([x, x], dim=1))
        else:
            y = torch.tanh(torch.cat([x, x[:, :1].repeat(1, 4, 1)], dim=1))
        state = torch.zeros_like(x[:, 0])
        outs: List[torch.Tensor] = []
        for t in range(x.size(1)):
            state = torch.tanh(self.step(x[:, t]) + state)
            outs.append(state)
        return y, torch.stack(outs, dim=1), padded


class MlpBlock(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.fc1 = nn.Linear(dim, 2 * dim)
        self.fc2 = nn.Linear(2 * dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.fc2(torch.relu(self.fc1(x)))


class WithFunctions(nn.Module):
    """Repeated blocks exported as model-local functions (export_modules_as_functions)."""

    def __init__(self, dim: int = 16):
        super().__init__()
        self.blocks = nn.Sequential(MlpBlock(dim), MlpBlock(dim), MlpBlock(dim))
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(self.blocks(x))


def export(out_dir: pathlib.Path, name: str, module: nn.Module, inputs: Tuple[torch.Tensor, ...],
           input_names: List[str], output_names: List[str], dynamic_axes: dict,
           symbols: dict, **kwargs) -> None:
    module.eval()
    path = out_dir / f"{name}.onnx"
    with torch.no_grad():
        expected = module(*inputs)
    if isinstance(expected, torch.Tensor):
        expected = (expected,)
    # Exported with gradients enabled: nn.TransformerEncoder's inference fast path
    # (aten::_transformer_encoder_layer_fwd) has no ONNX symbolic and is skipped then.
    torch.onnx.export(module, inputs, str(path), opset_version=OPSET,
                      input_names=input_names, output_names=output_names,
                      dynamic_axes=dynamic_axes, do_constant_folding=True, **kwargs)
    record = {
        "model": path.name,
        "symbols": symbols,
        "inputs": {n: list(t.shape) for n, t in zip(input_names, inputs)},
        "outputs": {n: list(t.shape) for n, t in zip(output_names, expected)},
    }
    (out_dir / f"{name}.json").write_text(json.dumps(record, indent=2) + "\n")
    print(f"{path}: {path.stat().st_size} bytes")


def main() -> None:
    out_dir = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).parent
    out_dir.mkdir(parents=True, exist_ok=True)
    bs = {0: "batch", 1: "seq"}

    ids = torch.randint(0, 64, (2, 7))
    export(out_dir, "gpt_decoder", GptDecoder(), (ids,), ["ids"], ["logits"],
           {"ids": bs, "logits": bs}, {"batch": 2, "seq": 7})

    x = torch.randn(3, 5, 32)
    export(out_dir, "transformer_encoder", Encoder(), (x,), ["x"], ["y"],
           {"x": bs, "y": bs}, {"batch": 3, "seq": 5})

    x = torch.randn(2, 6, 8)
    export(out_dir, "lstm_gru", Recurrent(), (x,), ["x"], ["y", "h"],
           {"x": bs, "y": bs, "h": {1: "batch"}}, {"batch": 2, "seq": 6})

    x = torch.randn(2, 3, 20, 28)
    bchw = {0: "batch", 2: "height", 3: "width"}
    export(out_dir, "cnn", Cnn(), (x,), ["image"], ["logits", "features"],
           {"image": bchw, "logits": {0: "batch"}, "features": bchw},
           {"batch": 2, "height": 20, "width": 28})

    x = torch.randn(2, 5, 8).abs()
    export(out_dir, "control_flow", torch.jit.script(ControlFlow()), (x,), ["x"],
           ["y", "steps", "padded"], {"x": bs, "y": bs, "steps": bs, "padded": bs},
           {"batch": 2, "seq": 5})

    x = torch.randn(2, 5, 16)
    export(out_dir, "functions", WithFunctions(), (x,), ["x"], ["y"],
           {"x": bs, "y": bs}, {"batch": 2, "seq": 5},
           export_modules_as_functions={MlpBlock})


if __name__ == "__main__":
    main()
