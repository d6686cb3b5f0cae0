"""The committed models of tests/models as ONNX Runtime's dynamic quantization writes them.

    PYTHON tests/models/dynamic_quantized/quantize_dynamic.py

PYTHON is an interpreter with onnxruntime from PyPI (`make decoders` makes one:
build/decoders/venv/bin/python). onnxruntime.quantization.quantize_dynamic, as its users call
it (int8 weights, everything else left to its defaults), turns each MatMul into
DynamicQuantizeLinear, MatMulInteger, Cast and the Mul by the two scales, and each LSTM into
com.microsoft DynamicQuantizeLSTM; it saves ONNX's shape inference with the model. What ONNX
Runtime makes of them when it optimises (DynamicQuantizeMatMul, SkipLayerNormalization over the
dims the file names) is what `validate_accuracy` checks cctx against. The files are committed:
the tests need neither onnxruntime's Python package nor this script.
"""
import pathlib

from onnxruntime.quantization import QuantType, quantize_dynamic

HERE = pathlib.Path(__file__).resolve().parent
MODELS = HERE.parent

for name in ("transformer_encoder", "lstm_gru"):
    quantize_dynamic(str(MODELS / f"{name}.onnx"), str(HERE / f"{name}_dyn.onnx"),
                     weight_type=QuantType.QInt8)
    print("wrote", HERE / f"{name}_dyn.onnx")
