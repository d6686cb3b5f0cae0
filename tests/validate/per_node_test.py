#!/usr/bin/python3
"""ctest validate_per_node: cctx's per-node output bytes against ONNX Runtime's profiler.

    per_node_test.py --build BUILD

The PyTorch exports committed in tests/models (a CNN, a GPT decoder, LSTM and GRU layers, a
transformer encoder, local functions, Loop/If/sequences), each at its recorded size and at odd
ones (a 17x31 and a 7x9 image, sequences of 5 to 13): every main-graph node's output bytes in
ONNX Runtime's profile must equal the sum of cctx's byte sizes of that node's outputs
(per_node.py), and every node must be matched.
"""
import argparse
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
MODELS = HERE.parent / "models"
sys.path.insert(0, str(HERE))
import per_node  # noqa: E402

ODD_SIZES = {
    "cnn": [{"batch": 3, "height": 17, "width": 31}, {"batch": 1, "height": 7, "width": 9}],
    "gpt_decoder": [{"batch": 3, "seq": 13}],
    "lstm_gru": [{"batch": 5, "seq": 11}],
    "transformer_encoder": [{"batch": 3, "seq": 7}],
    "functions": [{"batch": 3, "seq": 5}],
    "control_flow": [{"batch": 3, "seq": 5}],
}


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--build", type=pathlib.Path, required=True)
    args = p.parse_args()
    failures = 0
    for name, odd in ODD_SIZES.items():
        model = MODELS / f"{name}.onnx"
        recorded = json.loads((MODELS / f"{name}.json").read_text())
        report = per_node.cctx_report(args.build, model)
        for symbols in [recorded["symbols"]] + odd:
            # The inputs' declared dims with the symbols' values.
            shapes = {n: [symbols[d] if isinstance(d, str) else d
                          for d in report["values"][n]["shape"]] for n in recorded["inputs"]}
            r = per_node.compare(per_node.ort_nodes(args.build, model, shapes), report, symbols,
                                 args.build)
            ok = r["compared"] > 0 and r["equal"] == r["compared"]
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name} {symbols}: {r['equal']}/{r['compared']} "
                  f"nodes equal, {r['skipped']} body events not compared", flush=True)
            for m in r["mismatches"]:
                print(f"     {m}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
