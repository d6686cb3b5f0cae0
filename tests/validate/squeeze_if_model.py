"""Writes squeeze_if.onnx: PyTorch's "squeeze if the size is 1" as an ONNX If whose branches
differ in rank (issue 19 item 4). A scripted module exports the Python `if` as an If node:
then_branch Squeeze(x, 1) of rank 2, else_branch x itself of rank 3; x is [batch, n, width]
with all three dims symbolic. Run with /usr/bin/python3 (torch, onnx); the model is committed
next to this script, so the test does not need torch.

    /usr/bin/python3 tests/validate/squeeze_if_model.py tests/validate/squeeze_if.onnx
"""
import sys

import torch


class SqueezeIfOne(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2.0
        if y.shape[1] == 1:
            y = y.squeeze(1)
        return y


def main() -> None:
    out = sys.argv[1] if len(sys.argv) > 1 else "squeeze_if.onnx"
    module = torch.jit.script(SqueezeIfOne())
    torch.onnx.export(module, (torch.zeros(2, 3, 5),), out, input_names=["x"],
                      output_names=["y"], opset_version=17,
                      dynamic_axes={"x": {0: "batch", 1: "n", 2: "width"}})


if __name__ == "__main__":
    main()
