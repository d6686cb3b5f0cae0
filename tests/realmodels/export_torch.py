#!/usr/bin/python3
"""Exports the PyTorch part of the real-model suite (source "torch") into a build folder.

    /usr/bin/python3 tests/realmodels/export_torch.py OUT_DIR [--only NAME,...]

Debian's interpreter (torch 1.13, torchvision 0.14, onnx 1.12, opset 17), random weights
(weights=None: nothing is downloaded). Every model is exported once, with symbolic dims
(dynamic_axes); the suite fixes the inputs itself (suite.py rewrites the input dims) for the
self-consistency check, so no fixed re-export is needed. The 17 models of
tests/validate/export_models.py are reused as they are; this file adds detection with NMS, video,
optical flow, a Swin and an encoder-decoder transformer. OUT_DIR/torch.json lists what was
exported with each model's inputs and its three assignments; a model that fails to export is
listed under "failed" and left out. Models already exported are kept (delete OUT_DIR to redo).
"""
import argparse
import importlib.util
import json
import pathlib
import time
import traceback
from typing import Dict

import torch
import torchvision
from torch import nn

HERE = pathlib.Path(__file__).resolve().parent


def _load(name: str, path: pathlib.Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


validate_models = _load("validate_models", HERE.parent / "validate" / "export_models.py")
OPSET = validate_models.OPSET


class Detector(nn.Module):
    """A torchvision detector on one [3, height, width] image: boxes, scores, labels (their count
    comes out of NonMaxSuppression)."""

    def __init__(self, fn, **kwargs):
        super().__init__()
        self.net = fn(weights=None, weights_backbone=None, **kwargs)

    def forward(self, image):
        out = self.net([image])[0]
        return out["boxes"], out["scores"], out["labels"]


class Flow(nn.Module):
    """RAFT (small) with few refinement steps: the last flow field."""

    def __init__(self, updates: int = 3):
        super().__init__()
        self.net = torchvision.models.optical_flow.raft_small(weights=None)
        self.updates = updates

    def forward(self, image1, image2):
        return self.net(image1, image2, num_flow_updates=self.updates)[-1]


class Seq2Seq(nn.Module):
    """nn.Transformer (encoder-decoder) over [batch, src, 64] and [batch, tgt, 64]."""

    def __init__(self, dim: int = 64):
        super().__init__()
        self.net = nn.Transformer(dim, nhead=4, num_encoder_layers=2, num_decoder_layers=2,
                                  dim_feedforward=128, batch_first=True)

    def forward(self, src, tgt):
        return self.net(src, tgt)


def float_sqrt(path: pathlib.Path) -> None:
    """torch 1.13 exports RAFT's sqrt of an integer tensor as Cast(to=int64) -> Sqrt, which ONNX
    (and ONNX Runtime) rejects: Sqrt takes floats. Such a Cast is made to cast to float."""
    import onnx
    model = onnx.load(str(path))
    producer = {o: n for n in model.graph.node for o in n.output}
    changed = False
    for node in model.graph.node:
        src = producer.get(node.input[0]) if node.op_type == "Sqrt" else None
        if src is not None and src.op_type == "Cast":
            for a in src.attribute:
                if a.name == "to" and a.i == onnx.TensorProto.INT64:
                    a.i = onnx.TensorProto.FLOAT
                    changed = True
    if changed:
        onnx.save(model, str(path))


def tv(fn, **kwargs):
    return lambda: fn(weights=None, **kwargs)


def img(b, h, w):
    return {"batch": b, "height": h, "width": w}


IMAGE = {"image": ("float32", ["batch", 3, "height", "width"])}
# ordinary, odd, edge
CNN = [img(2, 64, 64), img(3, 97, 123), img(1, 17, 31)]
# Models that need a bigger image (several stride-2 stages with pooling windows).
CNN_BIG = [img(2, 64, 64), img(3, 97, 123), img(1, 33, 47)]
SEG = [img(1, 64, 64), img(2, 97, 123), img(1, 17, 31)]
DET_IN = {"image": ("float32", [3, "height", "width"])}
DET = [{"height": 128, "width": 128}, {"height": 97, "width": 123}, {"height": 17, "width": 31}]
VIDEO_IN = {"video": ("float32", ["batch", 3, "frames", "height", "width"])}
VIDEO = [{"batch": 1, "frames": 8, "height": 56, "width": 56},
         {"batch": 2, "frames": 5, "height": 37, "width": 43},
         {"batch": 1, "frames": 1, "height": 17, "width": 31}]
# S3D ends in a (2, 7, 7) average pool: at least 224x224 pixels and 9 frames.
S3D = [{"batch": 1, "frames": 16, "height": 224, "width": 224},
       {"batch": 1, "frames": 19, "height": 233, "width": 227},
       {"batch": 1, "frames": 9, "height": 224, "width": 224}]
FLOW_IN = {"image1": ("float32", ["batch", 3, "height", "width"]),
           "image2": ("float32", ["batch", 3, "height", "width"])}
# RAFT needs height and width divisible by 8.
FLOW = [img(1, 64, 64), img(2, 96, 120), img(1, 128, 32)]
SEQ = [{"batch": 2, "seq": 32}, {"batch": 3, "seq": 97}, {"batch": 1, "seq": 1}]


def bs(points):
    return [{"batch": b, "seq": s} for b, s in points]


# name -> (task, constructor, inputs {name: (dtype, dims)}, assignments)
NEW: Dict[str, tuple] = {
    "ssdlite320_mobilenet_v3": ("detection", lambda: Detector(
        torchvision.models.detection.ssdlite320_mobilenet_v3_large), DET_IN, DET),
    "fasterrcnn_mobilenet_v3_320": ("detection", lambda: Detector(
        torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn), DET_IN, DET),
    "retinanet_resnet50_fpn": ("detection", lambda: Detector(
        torchvision.models.detection.retinanet_resnet50_fpn, min_size=128, max_size=160),
        DET_IN, DET),
    "r3d_18": ("video", tv(torchvision.models.video.r3d_18), VIDEO_IN, VIDEO),
    "r2plus1d_18": ("video", tv(torchvision.models.video.r2plus1d_18), VIDEO_IN, VIDEO),
    "s3d": ("video", tv(torchvision.models.video.s3d), VIDEO_IN, S3D),
    "raft_small": ("optical flow", Flow, FLOW_IN, FLOW),
    "swin_t": ("transformer", tv(torchvision.models.swin_t), IMAGE,
               [img(1, 64, 64), img(2, 97, 123), img(1, 17, 31)]),
    "nn_transformer": ("transformer", Seq2Seq,
                       {"src": ("float32", ["batch", "src", 64]),
                        "tgt": ("float32", ["batch", "tgt", 64])},
                       [{"batch": 2, "src": 32, "tgt": 16}, {"batch": 3, "src": 97, "tgt": 13},
                        {"batch": 1, "src": 1, "tgt": 1}]),
    "regnet_y_400mf": ("classification", tv(torchvision.models.regnet_y_400mf), IMAGE, CNN),
    "mnasnet0_5": ("classification", tv(torchvision.models.mnasnet0_5), IMAGE, CNN),
    "fcn_resnet50": ("segmentation", validate_models.tv_seg(
        torchvision.models.segmentation.fcn_resnet50), IMAGE, SEG),
}

# The models of tests/validate/export_models.py with the suite's three assignments (theirs are
# for memory measurement: larger, and all ordinary).
REUSED_SIZES = {
    "resnet18": CNN, "mobilenet_v2": CNN, "mobilenet_v3_small": CNN, "squeezenet1_1": CNN,
    "efficientnet_b0": CNN, "shufflenet_v2": CNN, "googlenet": CNN_BIG, "densenet121": CNN_BIG,
    "lraspp_mobilenet_v3": SEG, "deeplabv3_mobilenet_v3": SEG,
    "crnn_ocr": [{"batch": 2, "width": 128}, {"batch": 3, "width": 97}, {"batch": 1, "width": 4}],
    "transformer_encoder": SEQ, "gpt_decoder": SEQ,
    "vit_tiny": [{"batch": 2}, {"batch": 3}, {"batch": 1}],
    "lstm": SEQ, "gru": SEQ,
    "control_flow": SEQ,
}
REUSED_TASK = {"cnn": "classification", "ocr": "ocr (CRNN)", "rnn": "RNN",
               "control_flow": "control flow"}


def specs() -> Dict[str, tuple]:
    out = {}
    for name, sizes in REUSED_SIZES.items():
        family, make, inputs, _, _ = validate_models.MODELS[name]
        out[name] = (REUSED_TASK.get(family, family), make, inputs, sizes)
    out.update(NEW)
    return out


def export(out_dir: pathlib.Path, name: str, spec: tuple) -> dict:
    task, make, inputs, sizes = spec
    path = out_dir / f"{name}.onnx"
    entry = {"name": name, "source": "torch", "task": task, "model": path.name,
             "inputs": {n: d for n, (_, d) in inputs.items()}, "assignments": sizes}
    if path.exists():
        return entry
    started = time.time()
    torch.manual_seed(0)
    module = make()
    module.eval()
    names = list(inputs)
    axes = validate_models.dynamic_axes(inputs)
    example = tuple(validate_models.example(inputs, sizes[0]))
    tmp = path.with_suffix(".tmp")
    with torch.no_grad() if task in ("detection", "optical flow") else torch.enable_grad():
        torch.onnx.export(module, example, str(tmp), opset_version=OPSET, input_names=names,
                          dynamic_axes=axes or None, do_constant_folding=True)
    float_sqrt(tmp)
    tmp.rename(path)
    print(f"{name}: exported in {time.time() - started:.1f} s", flush=True)
    return entry


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir", type=pathlib.Path)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    all_specs = specs()
    wanted = [n for n in args.only.split(",") if n] or list(all_specs)
    manifest = {"opset": OPSET, "torch": torch.__version__,
                "torchvision": torchvision.__version__, "models": [], "failed": []}
    for name in wanted:
        try:
            manifest["models"].append(export(args.out_dir, name, all_specs[name]))
        except Exception as e:  # noqa: BLE001 -- a model that does not export is said so
            traceback.print_exc()
            manifest["failed"].append({"name": name, "error": f"{type(e).__name__}: {e}"[:500]})
            print(f"{name}: export failed, left out", flush=True)
    (args.out_dir / "torch.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"{len(manifest['models'])} models, {len(manifest['failed'])} failed")


if __name__ == "__main__":
    main()
