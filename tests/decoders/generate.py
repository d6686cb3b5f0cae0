"""Write the small random-weight decoders of tests/decoders/models/.

Every model: 2 layers, hidden 64, 4 query heads, 2 KV heads (head size 16),
intermediate 128, vocabulary 128, max_length / max positions 1024. No weight
is downloaded: the Llama model is built by transformers from a LlamaConfig
with a fixed seed and saved locally, with a word-level tokenizer made here.

  models/genai-fp32/   onnxruntime-genai model builder, fp32, CPU
                       (GroupQueryAttention, SimplifiedLayerNormalization,
                       SkipSimplifiedLayerNormalization, rotary cos/sin caches)
                       + genai_config.json
  models/genai-int4/   the same builder, int4, CPU (MatMulNBits) + genai_config.json
  models/torch-kv/     torch.onnx.export of LlamaForCausalLM (eager attention)
                       with past_key_values inputs and present outputs
  models/onnx-attention23/
                       onnx.helper graph with ONNX's own Attention-23
                       (past_key/past_value in, present_key/present_value out),
                       RMSNormalization-23 and RotaryEmbedding-23
  models/onnx-attention24-static/
                       a static cache (max_cache_length rows) written by
                       TensorScatter-24, read by Attention-24 with nonpad_kv_seqlen
  models/optimum-qwen2/, models/optimum-phi/
                       Hugging Face Optimum's ONNX exporter (main_export, task
                       text-generation-with-past, opset 17) of a Qwen2ForCausalLM
                       (grouped-query attention, 2 KV heads) and a PhiForCausalLM
                       (partial rotary, 4 KV heads, LayerNorm, GELU): past_key_values
                       in, present out; the attention mask declared
                       `past_sequence_length + 1` as Optimum names it
  models/optimum-whisper/
                       the same exporter, task automatic-speech-recognition-with-past,
                       of a WhisperForConditionalGeneration (16 mel bins, 3000 frames):
                       encoder_model.onnx, decoder_model.onnx (the first step) and
                       decoder_with_past_model.onnx (self-attention cache growing,
                       cross-attention cache of the encoder's 1500 positions)

Environment (Debian 12: /usr/bin/python3 3.11 with Debian's python3-torch 1.13,
used through --system-site-packages because PyPI's default torch wheel pulls
the CUDA packages):

    /usr/bin/python3 -m venv --system-site-packages build/decoders/venv
    build/decoders/venv/bin/pip install numpy==1.26.4 onnx==1.19.1 \
        onnxruntime==1.23.2 onnxruntime-genai==0.8.3 transformers==4.44.2 \
        optimum==1.22.0
    build/decoders/venv/bin/python tests/decoders/generate.py

(The committed models were made with onnxruntime 1.23.2, which the int4 builder's
quantizer uses; `make decoders` checks them with 1.30.0.)

onnxruntime-genai 0.9 and later need torch >= 2 in their builder (onnx_ir's
torch float8 dtypes, bare @torch.no_grad), hence 0.8.3. The output is not
bit-for-bit stable across versions; the checks (check.py) do not depend on it.
"""

import json
import os
import runpy
import shutil
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "models")

LAYERS, HIDDEN, HEADS, KV_HEADS, INTER, VOCAB, MAX_POS = 2, 64, 4, 2, 128, 128, 1024
HEAD = HIDDEN // HEADS
SEED = 0


def llama_config():
    from transformers import LlamaConfig

    return LlamaConfig(
        vocab_size=VOCAB, hidden_size=HIDDEN, intermediate_size=INTER,
        num_hidden_layers=LAYERS, num_attention_heads=HEADS,
        num_key_value_heads=KV_HEADS, max_position_embeddings=MAX_POS,
        rms_norm_eps=1e-5, tie_word_embeddings=False,
        bos_token_id=1, eos_token_id=2, pad_token_id=0,
    )


def random_llama():
    import torch
    from transformers import LlamaForCausalLM

    torch.manual_seed(SEED)
    model = LlamaForCausalLM(llama_config())
    model.eval()
    return model


def save_tokenizer(path):
    """A 128-token word-level tokenizer, so the builder can copy a tokenizer."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {"<pad>": 0, "<s>": 1, "</s>": 2, "<unk>": 3}
    for i in range(4, VOCAB):
        vocab["w%d" % i] = i
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>",
                                   unk_token="<unk>", pad_token="<pad>")
    fast.save_pretrained(path)


def genai(hf_dir, precision, out_dir, cache_dir):
    """Run onnxruntime_genai.models.builder as its command line would."""
    argv = sys.argv
    sys.argv = ["builder", "-i", hf_dir, "-o", out_dir, "-p", precision, "-e", "cpu", "-c", cache_dir]
    try:
        runpy.run_module("onnxruntime_genai.models.builder", run_name="__main__")
    finally:
        sys.argv = argv
    # Keep the model, its weights and genai_config.json; drop the tokenizer copies.
    for name in os.listdir(out_dir):
        if name.startswith("tokenizer") or name.startswith("special_tokens"):
            os.remove(os.path.join(out_dir, name))




def torch_export(out_dir):
    import torch

    model = random_llama()
    model.config._attn_implementation = "eager"
    for layer in model.model.layers:
        layer.self_attn.config._attn_implementation = "eager"

    class Wrapper(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask, position_ids, *past):
            pkv = tuple((past[2 * i], past[2 * i + 1]) for i in range(LAYERS))
            out = self.m(input_ids=input_ids, attention_mask=attention_mask,
                         position_ids=position_ids, past_key_values=pkv,
                         use_cache=True, return_dict=True)
            present = out.past_key_values
            if hasattr(present, "to_legacy_cache"):
                present = present.to_legacy_cache()
            flat = []
            for k, v in present:
                flat += [k, v]
            return (out.logits, *flat)

    b, s, p = 2, 3, 5
    ids = torch.randint(0, VOCAB, (b, s), dtype=torch.int64)
    mask = torch.ones((b, p + s), dtype=torch.int64)
    pos = torch.arange(p, p + s, dtype=torch.int64).unsqueeze(0).expand(b, s)
    past = []
    for _ in range(LAYERS):
        past += [torch.randn(b, KV_HEADS, p, HEAD), torch.randn(b, KV_HEADS, p, HEAD)]
    in_names = ["input_ids", "attention_mask", "position_ids"]
    out_names = ["logits"]
    axes = {
        "input_ids": {0: "batch_size", 1: "sequence_length"},
        "attention_mask": {0: "batch_size", 1: "total_sequence_length"},
        "position_ids": {0: "batch_size", 1: "sequence_length"},
        "logits": {0: "batch_size", 1: "sequence_length"},
    }
    for i in range(LAYERS):
        for kv in ("key", "value"):
            n_in, n_out = "past_key_values.%d.%s" % (i, kv), "present.%d.%s" % (i, kv)
            in_names.append(n_in)
            out_names.append(n_out)
            axes[n_in] = {0: "batch_size", 2: "past_sequence_length"}
            axes[n_out] = {0: "batch_size", 2: "total_sequence_length"}
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "model.onnx")
    with torch.no_grad():
        torch.onnx.export(Wrapper(model), (ids, mask, pos, *past), path,
                          input_names=in_names, output_names=out_names,
                          dynamic_axes=axes, opset_version=17, do_constant_folding=True)


def optimum_export(kind, out_dir):
    """Hugging Face Optimum's exporter on a random-weight model transformers builds from a
    config (eager attention: torch 1.13 has no scaled_dot_product_attention)."""
    import torch
    from optimum.exporters.onnx import main_export
    from transformers import (PhiConfig, PhiForCausalLM, Qwen2Config, Qwen2ForCausalLM,
                              WhisperConfig, WhisperForConditionalGeneration)

    torch.manual_seed(SEED)
    common = dict(vocab_size=VOCAB, num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                  max_position_embeddings=MAX_POS, attn_implementation="eager")
    if kind == "qwen2":
        model = Qwen2ForCausalLM(Qwen2Config(hidden_size=HIDDEN, intermediate_size=INTER,
                                             num_key_value_heads=KV_HEADS,
                                             tie_word_embeddings=False, **common))
        task, keep = "text-generation-with-past", ["model.onnx"]
    elif kind == "phi":
        model = PhiForCausalLM(PhiConfig(hidden_size=HIDDEN, intermediate_size=INTER,
                                         num_key_value_heads=HEADS, partial_rotary_factor=0.5,
                                         **common))
        task, keep = "text-generation-with-past", ["model.onnx"]
    else:
        model = WhisperForConditionalGeneration(WhisperConfig(
            vocab_size=VOCAB, d_model=HIDDEN, encoder_layers=LAYERS, decoder_layers=LAYERS,
            encoder_attention_heads=HEADS, decoder_attention_heads=HEADS, encoder_ffn_dim=INTER,
            decoder_ffn_dim=INTER, num_mel_bins=16, max_source_positions=1500,
            max_target_positions=MAX_POS, pad_token_id=0, bos_token_id=1, eos_token_id=2,
            decoder_start_token_id=1, attn_implementation="eager"))
        task = "automatic-speech-recognition-with-past"
        keep = ["encoder_model.onnx", "decoder_model.onnx", "decoder_with_past_model.onnx"]
    model.eval()
    work = tempfile.mkdtemp(prefix="cctx-optimum-")
    try:
        model.save_pretrained(os.path.join(work, "hf"))
        save_tokenizer(os.path.join(work, "hf"))
        main_export(os.path.join(work, "hf"), output=os.path.join(work, "onnx"), task=task,
                    opset=17, device="cpu", do_validation=False)
        os.makedirs(out_dir, exist_ok=True)
        for name in keep:
            shutil.copy(os.path.join(work, "onnx", name), out_dir)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def decoder_weights(w):
    """The weights outside the layers, drawn first (the embedding, the head), the final norm and
    the rotary caches of MAX_POS positions."""
    from onnx import numpy_helper

    inits = [w("embed", VOCAB, HIDDEN), w("lm_head", HIDDEN, VOCAB)]
    inits.append(numpy_helper.from_array(np.ones(HIDDEN, np.float32), "final_norm"))
    inv = 1.0 / (10000.0 ** (np.arange(0, HEAD, 2, dtype=np.float32) / HEAD))
    freqs = np.outer(np.arange(MAX_POS, dtype=np.float32), inv)
    inits.append(numpy_helper.from_array(np.cos(freqs).astype(np.float32), "cos_cache"))
    inits.append(numpy_helper.from_array(np.sin(freqs).astype(np.float32), "sin_cache"))
    return inits


def layer_weights(w, L):
    from onnx import numpy_helper

    return [w(L + "q", HIDDEN, HEADS * HEAD), w(L + "k", HIDDEN, KV_HEADS * HEAD),
            w(L + "v", HIDDEN, KV_HEADS * HEAD), w(L + "o", HEADS * HEAD, HIDDEN),
            w(L + "gate", HIDDEN, INTER), w(L + "up", HIDDEN, INTER), w(L + "down", INTER, HIDDEN),
            numpy_helper.from_array(np.ones(HIDDEN, np.float32), L + "norm1"),
            numpy_helper.from_array(np.ones(HIDDEN, np.float32), L + "norm2")]


def kv_cache_io(i, past_length, present_length):
    """Layer i's past key/value inputs and present outputs, [batch, KV heads, length, head]."""
    from onnx import TensorProto, helper

    pk, pv = "past_key_values.%d.key" % i, "past_key_values.%d.value" % i
    ok, ov = "present.%d.key" % i, "present.%d.value" % i
    B = "batch_size"
    ins = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [B, KV_HEADS, past_length, HEAD])
           for n in (pk, pv)]
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [B, KV_HEADS, present_length, HEAD])
            for n in (ok, ov)]
    return (pk, pv, ok, ov), ins, outs


def layer_projections(L, x):
    """RMSNorm, the q/k/v projections and the rotary embedding of q and k (3-D)."""
    from onnx import helper

    return [
        helper.make_node("RMSNormalization", [x, L + "norm1"], [L + "n1"], name=L + "norm1",
                         axis=-1, epsilon=1e-5),
        helper.make_node("MatMul", [L + "n1", L + "q"], [L + "q_out"], name=L + "q_proj"),
        helper.make_node("MatMul", [L + "n1", L + "k"], [L + "k_out"], name=L + "k_proj"),
        helper.make_node("MatMul", [L + "n1", L + "v"], [L + "v_out"], name=L + "v_proj"),
        helper.make_node("RotaryEmbedding", [L + "q_out", "cos_cache", "sin_cache", "position_ids"],
                         [L + "q_rot"], name=L + "q_rotary", num_heads=HEADS),
        helper.make_node("RotaryEmbedding", [L + "k_out", "cos_cache", "sin_cache", "position_ids"],
                         [L + "k_rot"], name=L + "k_rotary", num_heads=KV_HEADS),
    ]


def layer_output_and_mlp(L, x, out):
    """The attention's output projection (of L + "attn"), the residual, RMSNorm and the SiLU MLP
    with its residual, into `out`."""
    from onnx import helper

    return [
        helper.make_node("MatMul", [L + "attn", L + "o"], [L + "o_out"], name=L + "o_proj"),
        helper.make_node("Add", [x, L + "o_out"], [L + "h1"], name=L + "residual1"),
        helper.make_node("RMSNormalization", [L + "h1", L + "norm2"], [L + "n2"], name=L + "norm2",
                         axis=-1, epsilon=1e-5),
        helper.make_node("MatMul", [L + "n2", L + "gate"], [L + "g"], name=L + "gate_proj"),
        helper.make_node("Sigmoid", [L + "g"], [L + "gs"], name=L + "sigmoid"),
        helper.make_node("Mul", [L + "g", L + "gs"], [L + "silu"], name=L + "silu"),
        helper.make_node("MatMul", [L + "n2", L + "up"], [L + "u"], name=L + "up_proj"),
        helper.make_node("Mul", [L + "silu", L + "u"], [L + "gu"], name=L + "gate_up"),
        helper.make_node("MatMul", [L + "gu", L + "down"], [L + "d"], name=L + "down_proj"),
        helper.make_node("Add", [L + "h1", L + "d"], [out], name=L + "residual2"),
    ]


def final_nodes(x):
    from onnx import helper

    return [
        helper.make_node("RMSNormalization", [x, "final_norm"], ["hn"], name="final_norm",
                         axis=-1, epsilon=1e-5),
        helper.make_node("MatMul", ["hn", "lm_head"], ["logits"], name="lm_head"),
    ]


def attention23(out_dir):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(SEED)

    def w(name, *shape):
        return numpy_helper.from_array((rng.standard_normal(shape) * 0.02).astype(np.float32), name)

    inits = decoder_weights(w)
    B, S, P, T = "batch_size", "sequence_length", "past_sequence_length", "total_sequence_length"
    inputs = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64, [B, S]),
        helper.make_tensor_value_info("position_ids", TensorProto.INT64, [B, S]),
    ]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [B, S, VOCAB])]
    nodes = [helper.make_node("Gather", ["embed", "input_ids"], ["h0"], name="embed")]
    x = "h0"
    for i in range(LAYERS):
        L = "l%d_" % i
        inits += layer_weights(w, L)
        (pk, pv, ok, ov), ins, outs = kv_cache_io(i, P, T)
        inputs += ins
        outputs += outs
        nodes += layer_projections(L, x)
        nodes.append(helper.make_node("Attention", [L + "q_rot", L + "k_rot", L + "v_out", "", pk, pv],
                                      [L + "attn", ok, ov], name=L + "attention",
                                      q_num_heads=HEADS, kv_num_heads=KV_HEADS, is_causal=1))
        nodes += layer_output_and_mlp(L, x, "h%d" % (i + 1))
        x = "h%d" % (i + 1)
    nodes += final_nodes(x)
    graph = helper.make_graph(nodes, "decoder_attention23", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)],
                              producer_name="cctx tests/decoders/generate.py")
    model.ir_version = 10
    onnx.checker.check_model(model, full_check=True)
    os.makedirs(out_dir, exist_ok=True)
    onnx.save(model, os.path.join(out_dir, "model.onnx"))


def attention24_static(out_dir):
    """A static KV cache as ONNX 24 spells it: each layer's caches are max_cache_length rows long,
    TensorScatter writes the new keys and values at write_indices (the past length), and
    Attention-24 reads the cache with nonpad_kv_seqlen (past + sequence) valid rows. The caller
    feeds the caches and gets them back as the presents (bound to the same buffers, TensorScatter
    writes in place; unbound, ONNX Runtime copies them)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(SEED)

    def w(name, *shape):
        return numpy_helper.from_array((rng.standard_normal(shape) * 0.02).astype(np.float32), name)

    def ints(name, values):
        return numpy_helper.from_array(np.array(values, np.int64), name)

    inits = decoder_weights(w) + [ints("q_shape", [0, 0, HEADS, HEAD]),
                                  ints("kv_shape", [0, 0, KV_HEADS, HEAD]),
                                  ints("hidden_shape", [0, 0, HEADS * HEAD])]
    B, S, M = "batch_size", "sequence_length", "max_cache_length"
    inputs = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64, [B, S]),
        helper.make_tensor_value_info("position_ids", TensorProto.INT64, [B, S]),
        helper.make_tensor_value_info("write_indices", TensorProto.INT64, [B]),
        helper.make_tensor_value_info("nonpad_kv_seqlen", TensorProto.INT64, [B]),
    ]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [B, S, VOCAB])]
    nodes = [helper.make_node("Gather", ["embed", "input_ids"], ["h0"], name="embed")]
    x = "h0"

    def heads(L, src, shape, out):
        return [helper.make_node("Reshape", [src, shape], [L + out + "_4d"]),
                helper.make_node("Transpose", [L + out + "_4d"], [L + out], perm=[0, 2, 1, 3])]

    for i in range(LAYERS):
        L = "l%d_" % i
        inits += layer_weights(w, L)
        (pk, pv, ok, ov), ins, outs = kv_cache_io(i, M, M)
        inputs += ins
        outputs += outs
        nodes += layer_projections(L, x)
        nodes += heads(L, L + "q_rot", "q_shape", "q4")
        nodes += heads(L, L + "k_rot", "kv_shape", "k4")
        nodes += heads(L, L + "v_out", "kv_shape", "v4")
        nodes += [
            helper.make_node("TensorScatter", [pk, L + "k4", "write_indices"], [ok], axis=-2),
            helper.make_node("TensorScatter", [pv, L + "v4", "write_indices"], [ov], axis=-2),
            helper.make_node("Attention", [L + "q4", ok, ov, "", "", "", "nonpad_kv_seqlen"],
                             [L + "attn4"], name=L + "attention"),
            helper.make_node("Transpose", [L + "attn4"], [L + "attn_t"], perm=[0, 2, 1, 3]),
            helper.make_node("Reshape", [L + "attn_t", "hidden_shape"], [L + "attn"]),
        ]
        nodes += layer_output_and_mlp(L, x, "h%d" % (i + 1))
        x = "h%d" % (i + 1)
    nodes += final_nodes(x)
    graph = helper.make_graph(nodes, "decoder_attention24_static_cache", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 24)],
                              producer_name="cctx tests/decoders/generate.py")
    model.ir_version = 10
    onnx.checker.check_model(model, full_check=True)
    os.makedirs(out_dir, exist_ok=True)
    onnx.save(model, os.path.join(out_dir, "model.onnx"))


def main():
    only = set(sys.argv[1:])
    os.makedirs(MODELS, exist_ok=True)
    work = tempfile.mkdtemp(prefix="cctx-decoders-")
    try:
        hf = os.path.join(work, "hf")
        if not only or only & {"genai-fp32", "genai-int4"}:
            random_llama().save_pretrained(hf)
            save_tokenizer(hf)
        for precision in ("fp32", "int4"):
            name = "genai-" + precision
            if only and name not in only:
                continue
            out = os.path.join(MODELS, name)
            shutil.rmtree(out, ignore_errors=True)
            genai(hf, precision, out, os.path.join(work, "cache"))
        if not only or "torch-kv" in only:
            out = os.path.join(MODELS, "torch-kv")
            shutil.rmtree(out, ignore_errors=True)
            torch_export(out)
        for kind in ("qwen2", "phi", "whisper"):
            name = "optimum-" + kind
            if only and name not in only:
                continue
            out = os.path.join(MODELS, name)
            shutil.rmtree(out, ignore_errors=True)
            optimum_export(kind, out)
        if not only or "onnx-attention24-static" in only:
            out = os.path.join(MODELS, "onnx-attention24-static")
            shutil.rmtree(out, ignore_errors=True)
            attention24_static(out)
        if not only or "onnx-attention23" in only:
            out = os.path.join(MODELS, "onnx-attention23")
            shutil.rmtree(out, ignore_errors=True)
            attention23(out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for root, _, files in sorted(os.walk(MODELS)):
        for f in sorted(files):
            p = os.path.join(root, f)
            print("%8d %s" % (os.path.getsize(p), os.path.relpath(p, HERE)))


if __name__ == "__main__":
    main()
