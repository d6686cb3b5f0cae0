"""Quantized models for the ONNX Runtime validation suite, written by ONNX Runtime's own quantizer.

    PYTHON quantize_models.py MODELS_DIR OUT_DIR

PYTHON is an interpreter with onnxruntime from PyPI (`make decoders` makes one under the build
tree). MODELS_DIR holds export_models.py's float exports and manifest.json; OUT_DIR gets a
static-quantized copy of some CNNs and OUT_DIR/manifest.json in export_models.py's format (the
symbolic exports only, at the float models' sizes), for validate.py --models OUT_DIR:
  - QDQ format (QuantizeLinear/DequantizeLinear pairs around float operators: what
    onnxruntime.quantization.quantize_static writes by default, and what ONNX Runtime rewrites
    into QLinearConv, QGemm, ... when it optimises);
  - QOperator format (QLinearConv, QLinearAdd, QLinearGlobalAveragePool, ... written directly);
  - dynamic quantization of the transformers and recurrent models (quantize_dynamic: int8
    weights, activations quantized at every run), which ONNX Runtime runs as
    DynamicQuantizeMatMul, MatMulIntegerToFloat and DynamicQuantizeLSTM.
Each float model is first pre-processed as the quantizer asks (quant_pre_process: ONNX Runtime's
basic optimisations and symbolic shape inference). Calibration reads four random images of the
smallest size (the ranges do not change memory).
Models already quantized are kept (delete OUT_DIR to redo them).
"""
import json
import pathlib
import sys

import numpy as np
import onnx
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                      quantize_dynamic, quantize_static)
from onnxruntime.quantization.shape_inference import quant_pre_process

# (float model, format): three CNN families in QDQ form, two in QOperator form; the
# transformers and recurrent models as quantize_dynamic writes them (int8 weights, the
# activations quantized at every run: DynamicQuantizeLinear + MatMulInteger, DynamicQuantizeLSTM).
PLAN = [("resnet18", "qdq"), ("mobilenet_v2", "qdq"), ("squeezenet1_1", "qdq"),
        ("resnet18", "qoperator"), ("mobilenet_v2", "qoperator"),
        ("gpt_decoder", "dynamic"), ("transformer_encoder", "dynamic"), ("vit_tiny", "dynamic"),
        ("crnn_ocr", "dynamic"), ("lstm", "dynamic")]


class RandomImages(CalibrationDataReader):
    """Four images of one shape, from a fixed seed."""

    def __init__(self, name, shape):
        self.name, self.shape, self.n = name, shape, 0

    def get_next(self):
        if self.n >= 4:
            return None
        self.n += 1
        rng = np.random.default_rng(self.n)
        return {self.name: rng.random(self.shape, dtype=np.float32)}


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: quantize_models.py MODELS_DIR OUT_DIR")
    src, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    manifest = json.loads((src / "manifest.json").read_text())
    by_name = {m["name"]: m for m in manifest["models"]}
    models, failed = [], []
    for name, form in PLAN:
        model = by_name.get(name)
        if model is None:
            failed.append({"name": f"{name}_{form}", "error": "no float export"})
            continue
        target = out / f"{name}_{form}.onnx"
        if not target.exists():
            (input_name, spec), = model["inputs"].items()
            shape = model["sizes"][0]["shapes"][input_name]
            prepared = out / f"{name}.prepared.onnx"
            try:
                if form == "dynamic":  # as its users call it: the float export, int8 weights
                    quantize_dynamic(str(src / model["symbolic"]), str(target),
                                     weight_type=QuantType.QInt8)
                else:
                    if not prepared.exists():
                        quant_pre_process(str(src / model["symbolic"]), str(prepared))
                    quantize_static(str(prepared), str(target),
                                    RandomImages(input_name, shape),
                                    quant_format=QuantFormat.QDQ if form == "qdq"
                                    else QuantFormat.QOperator)
                onnx.checker.check_model(str(target))
            except Exception as e:  # pylint: disable=broad-except
                target.unlink(missing_ok=True)
                failed.append({"name": f"{name}_{form}", "error": f"{type(e).__name__}: {e}"})
                continue
        models.append({"name": f"{name}_{form}", "family": "quantized",
                       "inputs": model["inputs"], "symbolic": target.name,
                       "sizes": [{k: v for k, v in s.items() if k != "fixed"}
                                 for s in model["sizes"]]})
    import onnxruntime  # pylint: disable=import-outside-toplevel
    (out / "manifest.json").write_text(json.dumps(
        {"opset": manifest.get("opset"), "onnxruntime": onnxruntime.__version__,
         "models": models, "failed": failed}, indent=1) + "\n")
    print(f"{len(models)} quantized models in {out}" +
          (f"; failed: {', '.join(f['name'] for f in failed)}" if failed else ""))


if __name__ == "__main__":
    main()
