#!/usr/bin/python3
"""Exports the models of the ONNX Runtime validation suite into a build folder.

    /usr/bin/python3 tests/validate/export_models.py OUT_DIR [--only NAME,...]

Run with Debian's interpreter (torch 1.13, torchvision 0.14, onnx 1.12: opset 17 is onnx 1.12's
limit). Weights are random (weights=None, nothing is downloaded): memory does not depend on them.
Every model is exported twice: once with symbolic dims (dynamic_axes: batch, spatial size or
sequence length) and once per size with its inputs fixed, because PyTorch's exporter folds shape
arithmetic into constants when it knows the sizes, and ONNX Runtime plans memory differently when
it can prove sizes equal. OUT_DIR/manifest.json lists what was exported, with the sizes each
model is validated at; a model that fails to export is listed under "failed" with the error and
left out. Models already exported are kept (delete OUT_DIR to re-export).
"""
import argparse
import importlib.util
import json
import pathlib
import time
import traceback
from typing import Callable, Dict, List

import torch
import torchvision
from torch import nn

OPSET = 17
HERE = pathlib.Path(__file__).resolve().parent


def _load_repo_models():
    """tests/models/export_models.py (GptDecoder, ControlFlow), loaded by path: it has this
    script's file name."""
    spec = importlib.util.spec_from_file_location("repo_models",
                                                  HERE.parent / "models" / "export_models.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


repo_models = _load_repo_models()


class Encoder(nn.Module):
    """nn.TransformerEncoder over [batch, seq, 128] features."""

    def __init__(self, dim: int = 128, layers: int = 2):
        super().__init__()
        layer = nn.TransformerEncoderLayer(dim, nhead=4, dim_feedforward=4 * dim, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=layers, enable_nested_tensor=False)

    def forward(self, x):
        return self.encoder(x)


class Rnn(nn.Module):
    """A two-layer LSTM or GRU over [batch, seq, 64] and a per-step projection."""

    def __init__(self, cell: str, features: int = 64, hidden: int = 128):
        super().__init__()
        kind = nn.LSTM if cell == "lstm" else nn.GRU
        self.rnn = kind(features, hidden, num_layers=2, batch_first=True)
        self.out = nn.Linear(hidden, 32)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.out(y)


class Crnn(nn.Module):
    """A CRNN text recogniser (the OCR family): convolutions over a [batch, 1, 32, width] line,
    a bidirectional LSTM over the width, per-column class scores."""

    def __init__(self, classes: int = 80):
        super().__init__()
        def block(i, o, pool):
            return [nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(), nn.MaxPool2d(pool)]
        self.cnn = nn.Sequential(*block(1, 32, 2), *block(32, 64, 2), *block(64, 128, (2, 1)),
                                 *block(128, 128, (4, 1)))
        self.rnn = nn.LSTM(128, 96, bidirectional=True, batch_first=True)
        self.fc = nn.Linear(192, classes)

    def forward(self, x):
        f = self.cnn(x).squeeze(2).permute(0, 2, 1)  # [batch, width/4, 128]
        y, _ = self.rnn(f)
        return self.fc(y).log_softmax(-1)


def vision(fn: Callable, **kwargs) -> Callable:
    def make():
        return fn(weights=None, **kwargs)
    return make


def tv_seg(fn: Callable) -> Callable:
    class Seg(nn.Module):  # the segmentation models return a dict; export its "out"
        def __init__(self):
            super().__init__()
            self.net = fn(weights=None, weights_backbone=None)

        def forward(self, x):
            return self.net(x)["out"]
    return Seg


def image_sizes(points):
    return [{"batch": b, "height": s, "width": s} for b, s in points]


def bs(points):
    return [{"batch": b, "seq": s} for b, s in points]


IMAGE = {"image": ("float32", ["batch", 3, "height", "width"])}
CNN_SIZES = image_sizes([(1, 96), (2, 160), (4, 224)])

# name -> (family, constructor, inputs {name: (dtype, dims)}, sizes, export options)
MODELS: Dict[str, tuple] = {
    "resnet18": ("cnn", vision(torchvision.models.resnet18), IMAGE, CNN_SIZES, {}),
    "mobilenet_v2": ("cnn", vision(torchvision.models.mobilenet_v2), IMAGE, CNN_SIZES, {}),
    "mobilenet_v3_small": ("cnn", vision(torchvision.models.mobilenet_v3_small), IMAGE, CNN_SIZES,
                           {}),
    "squeezenet1_1": ("cnn", vision(torchvision.models.squeezenet1_1), IMAGE, CNN_SIZES, {}),
    "efficientnet_b0": ("cnn", vision(torchvision.models.efficientnet_b0), IMAGE, CNN_SIZES, {}),
    "shufflenet_v2": ("cnn", vision(torchvision.models.shufflenet_v2_x1_0), IMAGE, CNN_SIZES, {}),
    "googlenet": ("cnn", vision(torchvision.models.googlenet, aux_logits=False, init_weights=True),
                  IMAGE, CNN_SIZES, {}),
    "densenet121": ("cnn", vision(torchvision.models.densenet121), IMAGE,
                    image_sizes([(1, 96), (2, 128), (2, 192)]), {}),
    "lraspp_mobilenet_v3": ("segmentation", tv_seg(torchvision.models.segmentation.lraspp_mobilenet_v3_large),
                            IMAGE, image_sizes([(1, 128), (1, 224), (2, 256)]), {}),
    "deeplabv3_mobilenet_v3": ("segmentation",
                               tv_seg(torchvision.models.segmentation.deeplabv3_mobilenet_v3_large),
                               IMAGE, image_sizes([(1, 128), (1, 192), (2, 224)]), {}),
    "crnn_ocr": ("ocr", Crnn, {"image": ("float32", ["batch", 1, 32, "width"])},
                 [{"batch": 1, "width": 128}, {"batch": 4, "width": 256}, {"batch": 8, "width": 512}],
                 {}),
    "transformer_encoder": ("transformer", Encoder, {"x": ("float32", ["batch", "seq", 128])},
                            bs([(1, 64), (4, 128), (8, 256)]), {}),
    "gpt_decoder": ("transformer",
                    lambda: repo_models.GptDecoder(vocab=512, dim=128, heads=4, blocks=2, max_len=512),
                    {"ids": ("int64", ["batch", "seq"])}, bs([(1, 64), (4, 128), (8, 256)]), {}),
    "vit_tiny": ("transformer",
                 lambda: torchvision.models.VisionTransformer(image_size=96, patch_size=16,
                                                              num_layers=4, num_heads=4,
                                                              hidden_dim=128, mlp_dim=512),
                 {"image": ("float32", ["batch", 3, 96, 96])},
                 [{"batch": 1}, {"batch": 8}, {"batch": 32}], {}),
    "lstm": ("rnn", lambda: Rnn("lstm"), {"x": ("float32", ["batch", "seq", 64])},
             bs([(1, 32), (4, 64), (8, 128)]), {}),
    "gru": ("rnn", lambda: Rnn("gru"), {"x": ("float32", ["batch", "seq", 64])},
            bs([(1, 32), (4, 64), (8, 128)]), {}),
    "control_flow": ("control_flow", lambda: torch.jit.script(repo_models.ControlFlow(dim=64)),
                     {"x": ("float32", ["batch", "seq", 64])}, bs([(1, 16), (4, 64), (8, 128)]),
                     {}),
}

DTYPES = {"float32": torch.float32, "int64": torch.int64}


def concrete(dims: List, size: Dict[str, int]) -> List[int]:
    return [size[d] if isinstance(d, str) else d for d in dims]


def label(size: Dict[str, int]) -> str:
    return "_".join(f"{k}{v}" for k, v in size.items())


def example(inputs: dict, size: Dict[str, int]) -> tuple:
    out = []
    for dtype, dims in inputs.values():
        shape = concrete(dims, size)
        # Floats in [0, 1): the control-flow model's If takes its first branch (positive sum),
        # as it will under run_ort.mjs, whose floats are in [0, 1) too.
        out.append(torch.zeros(shape, dtype=torch.int64) if dtype == "int64" else
                   torch.rand(shape, dtype=DTYPES[dtype]))
    return tuple(out)


def dynamic_axes(inputs: dict) -> dict:
    """torch.onnx.export's dynamic_axes for an inputs spec: each input's named dims."""
    axes = {n: {i: d for i, d in enumerate(dims) if isinstance(d, str)}
            for n, (_, dims) in inputs.items()}
    return {n: a for n, a in axes.items() if a}


def export_one(module, args, path: pathlib.Path, input_names, axes) -> None:
    # Exported with gradients enabled: nn.TransformerEncoder's inference fast path has no ONNX
    # symbolic (see tests/models/export_models.py).
    torch.onnx.export(module, args, str(path), opset_version=OPSET, input_names=input_names,
                      dynamic_axes=axes or None, do_constant_folding=True)


def export_model(out_dir: pathlib.Path, name: str, spec: tuple) -> dict:
    family, make, inputs, sizes, _ = spec
    torch.manual_seed(0)
    module = make()
    module.eval()
    names = list(inputs)
    axes = dynamic_axes(inputs)
    entry = {"name": name, "family": family,
             "inputs": {n: {"dtype": t, "dims": d} for n, (t, d) in inputs.items()},
             "symbolic": f"{name}.onnx", "sizes": []}
    started = time.time()
    path = out_dir / entry["symbolic"]
    if not path.exists():
        export_one(module, example(inputs, sizes[0]), path.with_suffix(".tmp"), names, axes)
        path.with_suffix(".tmp").rename(path)
    for size in sizes:
        fixed = f"{name}_fixed_{label(size)}.onnx"
        if not (out_dir / fixed).exists():
            tmp = (out_dir / fixed).with_suffix(".tmp")
            export_one(module, example(inputs, size), tmp, names, {})
            tmp.rename(out_dir / fixed)
        entry["sizes"].append({"label": label(size), "symbols": size, "fixed": fixed,
                               "shapes": {n: concrete(d, size) for n, (_, d) in inputs.items()}})
    print(f"{name}: exported in {time.time() - started:.1f} s", flush=True)
    return entry


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir", type=pathlib.Path)
    parser.add_argument("--only", default="", help="comma-separated model names")
    args = parser.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    wanted = [n for n in args.only.split(",") if n] or list(MODELS)
    manifest = {"opset": OPSET, "torch": torch.__version__, "torchvision": torchvision.__version__,
                "models": [], "failed": []}
    for name in wanted:
        try:
            manifest["models"].append(export_model(args.out_dir, name, MODELS[name]))
        except Exception as e:  # a model that does not export is dropped, and said so
            traceback.print_exc()
            manifest["failed"].append({"name": name, "error": f"{type(e).__name__}: {e}"[:500]})
            print(f"{name}: export failed, left out", flush=True)
    (args.out_dir / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"{len(manifest['models'])} models in {args.out_dir}/manifest.json, "
          f"{len(manifest['failed'])} failed")


if __name__ == "__main__":
    main()
