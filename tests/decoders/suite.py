"""The decoder suite's points and dim sizes, shared by check.py (against ONNX Runtime) and
quick_check.py (ctest decoders_quick): what a point assigns, and what the models' inputs declare,
read from `cctx shapes --format json` (no onnx module needed)."""
import math
import re

# name, batch, sequence, past
POINTS = [
    ("prefill", 1, 16, 0),
    ("decode_15", 1, 1, 15),
    ("decode_127", 1, 1, 127),
    ("decode_511", 1, 1, 511),
    ("odd", 3, 7, 33),
    # ONNX Runtime's CPU GroupQueryAttention refuses batch > 1 with sequence > 1 and a past
    # ("batch_size must be 1 when sequence_length > 1 and past context is given"), so the odd
    # size is also taken apart for every model:
    ("odd_b3s1", 3, 1, 33),
    ("odd_b1s7", 1, 7, 33),
]
QUICK_POINTS = POINTS[:5]  # make test's subset
MEL_FRAMES, ENCODER_POSITIONS = 3000, 1500
STATIC_CACHE = 1024  # onnx-attention24-static's max_cache_length
# Optimum declares the attention mask `past_sequence_length + 1`: it is past + sequence long.
OPTIMUM_MASK = ["--input", "attention_mask=batch_size,past_sequence_length+sequence_length"]


def kind_points(points):
    """The points of each kind of model: a causal decoder at all of them; the encoder-decoder's
    three files (optimum-whisper) at their own: the encoder at two batches, the first decoder step
    (no cache yet) at a prompt, the step with its caches at one token."""
    return {"causal": points,
            "encoder": [("batch_1", 1, 0, 0), ("batch_3", 3, 0, 0)],
            "first": [("prefill", 1, 16, 0), ("odd_first", 3, 7, 0)],
            "with_past": [pt for pt in points if pt[2] == 1]}


def dim_values(b, s, p, past_len):
    """Every dim name of the suite's models at a point: the symbols, and the expressions
    Optimum writes as names (`past_sequence_length + 1` is really the mask's whole length)."""
    return {"batch_size": b, "sequence_length": s, "past_sequence_length": past_len,
            "total_sequence_length": p + s, "past_sequence_length + 1": p + s,
            "decoder_sequence_length": s, "past_decoder_sequence_length": p,
            "encoder_sequence_length": MEL_FRAMES, "encoder_sequence_length / 2": ENCODER_POSITIONS,
            "encoder_sequence_length_out": ENCODER_POSITIONS, "max_cache_length": STATIC_CACHE}


def input_facts(values):
    """From `cctx shapes --format json`'s values: the symbols the inputs are declared with, the
    `--input` the model's declaration needs (Optimum's attention mask), and the bytes per token
    and batch row of its self-attention past caches (float32)."""
    symbols, inputs, row_bytes = set(), [], 0
    for name, v in values.items():
        if v.get("kind") != "input":
            continue
        dims = v["shape"]
        for d in dims:
            if isinstance(d, str):
                symbols.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", d))
        if name == "attention_mask" and dims[1:] == ["past_sequence_length+1"]:
            inputs = OPTIMUM_MASK
        if "past" in name and "encoder" not in name:
            row_bytes += 4 * math.prod(d for d in dims if isinstance(d, int))
    return symbols, inputs, row_bytes
