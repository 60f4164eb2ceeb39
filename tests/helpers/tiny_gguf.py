"""Tiny synthetic GGUF files (llama / qwen2 / gemma3) written with `gguf.GGUFWriter`, for tests.

`write_tiny_gguf` returns the f32 weights it stored *in HF layout* (Q/K un-permuted, gemma norms
without the +1), i.e. what a correct converter must produce, dequantized where the file quantizes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import gguf
import numpy as np
from gguf import GGMLQuantizationType as Q
from gguf.quants import dequantize, quantize

HIDDEN, FFN, HEADS, KV_HEADS = 64, 128, 4, 2
HEAD_DIM = HIDDEN // HEADS

SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


@dataclass
class TinyGGUF:
    path: Path
    arch: str
    layers: int
    expected: dict[str, np.ndarray] = field(default_factory=dict)  # HF name → f32 weights
    vocab: list[str] = field(default_factory=list)


def bits_per_weight(qtype: Q) -> float:
    block, size = gguf.GGML_QUANT_SIZES[qtype]
    return size * 8 / block


def llama_permute(w: np.ndarray, n_head: int) -> np.ndarray:
    """llama.cpp's convert_hf_to_gguf `LlamaModel.permute`, verbatim."""
    return (
        w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:])
        .swapaxes(1, 2)
        .reshape(w.shape)
    )


def byte_level_vocab() -> tuple[list[str], list[str], list[int]]:
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    alphabet = list(bytes_to_unicode().values())
    merges = ["Ġ t", "h e", "Ġt he", "1 2"]
    tokens = SPECIALS + alphabet + ["Ġt", "he", "Ġthe", "12"]
    types = [3] * len(SPECIALS) + [1] * (len(tokens) - len(SPECIALS))
    return tokens, merges, types


def spm_vocab() -> tuple[list[str], list[float], list[int]]:
    specials = ["<pad>", "<eos>", "<bos>", "<unk>", "<start_of_turn>", "<end_of_turn>"]
    byte_tokens = [f"<0x{b:02X}>" for b in range(256)]
    pieces = ["▁", *"abcdefghijklmnopqrstuvwxyz", "▁t", "he", "▁the"]
    tokens = specials + byte_tokens + pieces
    types = [3] * len(specials) + [6] * 256 + [1] * len(pieces)
    return tokens, [0.0] * len(tokens), types


def _store(w: gguf.GGUFWriter, name: str, values: np.ndarray, qtype: Q) -> np.ndarray:
    """Write `values` as `qtype`; return what a reader dequantizes it to."""
    if qtype == Q.F32:
        w.add_tensor(name, values.astype(np.float32))
        return values.astype(np.float32)
    if qtype in (Q.Q4_K, Q.Q5_K, Q.Q6_K):
        raw = random_k_blocks(values.shape, qtype, np.random.default_rng(len(name)))
        w.add_tensor(name, raw, raw_dtype=qtype)
        return dequantize(raw, qtype).reshape(values.shape)
    raw = quantize(values.astype(np.float32), qtype)
    w.add_tensor(name, raw, raw_dtype=qtype)
    return dequantize(raw, qtype).reshape(values.shape)


def random_k_blocks(shape: tuple[int, ...], qtype: Q, rng: np.random.Generator) -> np.ndarray:
    """Valid random K-quant blocks (gguf-py cannot quantize to K types): random codes and
    sub-scales, small finite f16 super-block scales."""
    block, size = gguf.GGML_QUANT_SIZES[qtype]
    n_blocks = int(np.prod(shape)) // block
    raw = rng.integers(0, 256, size=(n_blocks, size), dtype=np.uint8)
    d = rng.uniform(1e-4, 2e-3, size=(n_blocks, 2)).astype(np.float16).view(np.uint8)
    if qtype == Q.Q6_K:
        raw[:, -2:] = d[:, 0:2]  # Q6_K keeps its f16 scale last
    else:
        raw[:, 0:4] = d  # d, dmin
    return raw.reshape(shape[0], -1)


def write_tiny_gguf(
    path: Path,
    arch: str = "llama",
    *,
    layers: int = 2,
    qtype: Q = Q.F32,
    output: str = "none",
    seed: int = 0,
) -> TinyGGUF:
    """`output`: "none" (tied, no output.weight), "copy" (output = token_embd + noise, Q8_0),
    "separate" (an unrelated lm_head)."""
    rng = np.random.default_rng(seed)
    w = gguf.GGUFWriter(str(path), arch)
    w.add_block_count(layers)
    w.add_context_length(256)
    w.add_embedding_length(HIDDEN)
    w.add_feed_forward_length(FFN)
    w.add_head_count(HEADS)
    w.add_head_count_kv(1 if arch == "gemma3" else KV_HEADS)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_rope_freq_base(10000.0)
    if arch == "gemma3":
        w.add_key_length(HEAD_DIM)
        w.add_value_length(HEAD_DIM)
        w.add_sliding_window(8)
        tokens, scores, types = spm_vocab()
        w.add_tokenizer_model("llama")
        w.add_tokenizer_pre("default")
        w.add_token_list(tokens)
        w.add_token_scores(scores)
        w.add_token_types(types)
        w.add_bos_token_id(2)
        w.add_eos_token_id(1)
        w.add_unk_token_id(3)
        w.add_pad_token_id(0)
        w.add_add_bos_token(True)
    else:
        w.add_rope_dimension_count(HEAD_DIM)
        tokens, merges, types = byte_level_vocab()
        w.add_tokenizer_model("gpt2")
        w.add_tokenizer_pre("qwen2" if arch == "qwen2" else "smollm")
        w.add_token_list(tokens)
        w.add_token_merges(merges)
        w.add_token_types(types)
        w.add_bos_token_id(1)
        w.add_eos_token_id(2)
        w.add_add_bos_token(False)
        w.add_chat_template(CHAT_TEMPLATE)
    tiny = TinyGGUF(path, arch, layers, vocab=tokens)
    vocab = len(tokens)

    def mat(rows: int, cols: int) -> np.ndarray:
        return (rng.standard_normal((rows, cols)) / np.sqrt(cols)).astype(np.float32)

    emb = mat(vocab, HIDDEN)
    tiny.expected["model.embed_tokens.weight"] = _store(w, "token_embd.weight", emb, qtype)
    if output == "copy":
        noisy = emb + 0.01 * rng.standard_normal(emb.shape).astype(np.float32)
        stored = _store(w, "output.weight", noisy, Q.Q8_0)
        if bits_per_weight(Q.Q8_0) > bits_per_weight(qtype):  # the converter keeps the finer copy
            tiny.expected["model.embed_tokens.weight"] = stored
    elif output == "separate":
        tiny.expected["lm_head.weight"] = _store(w, "output.weight", mat(vocab, HIDDEN), qtype)
    norm_shift = 1.0 if arch == "gemma3" else 0.0  # gemma GGUFs store norms as 1 + w

    def norm(gguf_name: str, hf_name: str, dim: int = HIDDEN) -> None:
        values = (0.1 * rng.standard_normal(dim)).astype(np.float32)
        w.add_tensor(gguf_name, values + norm_shift)
        tiny.expected[hf_name] = values

    norm("output_norm.weight", "model.norm.weight")
    kv = 1 if arch == "gemma3" else KV_HEADS
    for i in range(layers):
        p, hf = f"blk.{i}.", f"model.layers.{i}."
        q, k = mat(HEADS * HEAD_DIM, HIDDEN), mat(kv * HEAD_DIM, HIDDEN)
        if arch == "llama":  # the file holds the permuted rows; HF layout is the original
            stored_q = _store(w, p + "attn_q.weight", llama_permute(q, HEADS), qtype)
            stored_k = _store(w, p + "attn_k.weight", llama_permute(k, kv), qtype)
            tiny.expected[hf + "self_attn.q_proj.weight"] = _unpermute(stored_q, HEADS)
            tiny.expected[hf + "self_attn.k_proj.weight"] = _unpermute(stored_k, kv)
        else:
            tiny.expected[hf + "self_attn.q_proj.weight"] = _store(w, p + "attn_q.weight", q, qtype)
            tiny.expected[hf + "self_attn.k_proj.weight"] = _store(w, p + "attn_k.weight", k, qtype)
        for g, h, shape in (
            ("attn_v", "self_attn.v_proj", (kv * HEAD_DIM, HIDDEN)),
            ("attn_output", "self_attn.o_proj", (HIDDEN, HEADS * HEAD_DIM)),
            ("ffn_gate", "mlp.gate_proj", (FFN, HIDDEN)),
            ("ffn_up", "mlp.up_proj", (FFN, HIDDEN)),
            ("ffn_down", "mlp.down_proj", (HIDDEN, FFN)),
        ):
            tiny.expected[hf + h + ".weight"] = _store(w, p + g + ".weight", mat(*shape), qtype)
        if arch == "qwen2":
            for g, h, n in (
                ("attn_q", "q_proj", HEADS),
                ("attn_k", "k_proj", kv),
                ("attn_v", "v_proj", kv),
            ):
                bias = (0.1 * rng.standard_normal(n * HEAD_DIM)).astype(np.float32)
                w.add_tensor(p + g + ".bias", bias)
                tiny.expected[hf + f"self_attn.{h}.bias"] = bias
        norm(p + "attn_norm.weight", hf + "input_layernorm.weight")
        if arch == "gemma3":
            norm(p + "ffn_norm.weight", hf + "pre_feedforward_layernorm.weight")
            norm(p + "post_attention_norm.weight", hf + "post_attention_layernorm.weight")
            norm(p + "post_ffw_norm.weight", hf + "post_feedforward_layernorm.weight")
            norm(p + "attn_q_norm.weight", hf + "self_attn.q_norm.weight", HEAD_DIM)
            norm(p + "attn_k_norm.weight", hf + "self_attn.k_norm.weight", HEAD_DIM)
        else:
            norm(p + "ffn_norm.weight", hf + "post_attention_layernorm.weight")
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return tiny


def _unpermute(w: np.ndarray, n_head: int) -> np.ndarray:
    """Inverse of `llama_permute`, written independently of the converter's index version."""
    return (
        w.reshape(n_head, w.shape[0] // n_head // 2, 2, *w.shape[1:])
        .swapaxes(1, 2)
        .reshape(w.shape)
    )
