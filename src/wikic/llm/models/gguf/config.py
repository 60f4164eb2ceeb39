"""GGUF metadata → the config.json of an mlx-lm (Hugging Face style) model.

What a GGUF does not record is filled in the way llama.cpp hard-codes it: gemma3's
sliding-window pattern (every 6th layer global), local rope base 10000 and
`query_pre_attn_scalar = head_dim`. Values that mlx-lm cannot run (partial rotary, unknown rope
scaling) are ModelErrors rather than a silently wrong model.
"""

from __future__ import annotations

from typing import Any

from wikic.errors import ModelError
from wikic.llm.models.gguf.reader import GGUFFile
from wikic.llm.models.gguf.tokenizer import TokenizerInfo

GEMMA3_SLIDING_WINDOW_PATTERN = 6
GEMMA3_LOCAL_ROPE_BASE = 10_000.0


def _clean(x: float) -> float:
    """GGUF stores f32; print 1e-06 rather than 9.999999974752427e-07 (the same f32)."""
    return float(f"{x:.7g}")


def _rope_scaling(g: GGUFFile) -> dict[str, Any] | None:
    kind = g.arch_key("rope.scaling.type")
    if kind in (None, "none"):
        return None
    factor = float(g.arch_key("rope.scaling.factor", 1.0))
    if kind == "linear":
        return {"type": "linear", "factor": factor}
    if kind == "yarn":
        orig = g.arch_key("rope.scaling.original_context_length")
        return {"type": "yarn", "factor": factor, "original_max_position_embeddings": orig}
    raise ModelError(f"{g.path.name}: rope scaling '{kind}' is not supported")


def model_config(g: GGUFFile, *, tied: bool, tokenizer: TokenizerInfo) -> dict[str, Any]:
    arch = g.architecture
    emb = g.tensors.get("token_embd.weight")
    hidden = int(g.arch_key("embedding_length"))
    heads = int(g.arch_key("attention.head_count"))
    kv_heads = int(g.arch_key("attention.head_count_kv", heads))
    head_dim = int(g.arch_key("attention.key_length", hidden // heads))
    rope_dims = g.arch_key("rope.dimension_count")
    if rope_dims is not None and int(rope_dims) != head_dim:
        raise ModelError(f"{g.path.name}: partial rotary embeddings are not supported")
    common: dict[str, Any] = {
        "hidden_size": hidden,
        "num_hidden_layers": int(g.arch_key("block_count")),
        "intermediate_size": int(g.arch_key("feed_forward_length")),
        "num_attention_heads": heads,
        "num_key_value_heads": kv_heads,
        "head_dim": head_dim,
        "rms_norm_eps": _clean(float(g.arch_key("attention.layer_norm_rms_epsilon", 1e-6))),
        "vocab_size": int(emb.shape[0]) if emb is not None else tokenizer.vocab_size,
        "max_position_embeddings": int(g.arch_key("context_length", 4096)),
        "rope_theta": _clean(float(g.arch_key("rope.freq_base", 10_000.0))),
        "rope_scaling": _rope_scaling(g),
        "tie_word_embeddings": tied,
        "bos_token_id": tokenizer.bos_token_id,
        "eos_token_id": list(tokenizer.eos_token_ids),
    }
    if arch == "llama":
        return {
            "model_type": "llama",
            "architectures": ["LlamaForCausalLM"],
            **common,
            "rope_traditional": False,
            "attention_bias": "blk.0.attn_q.bias" in g.tensors,
            "mlp_bias": False,
            "hidden_act": "silu",
        }
    if arch == "qwen2":
        return {
            "model_type": "qwen2",
            "architectures": ["Qwen2ForCausalLM"],
            **common,
            "hidden_act": "silu",
        }
    if arch == "gemma3":
        pattern = g.arch_key("attention.sliding_window_pattern")
        if (
            not isinstance(pattern, int) or pattern < 1
        ):  # absent (or a per-layer list) in gemma3 files
            pattern = GEMMA3_SLIDING_WINDOW_PATTERN
        layers = common["num_hidden_layers"]
        return {
            "model_type": "gemma3_text",
            "architectures": ["Gemma3ForCausalLM"],
            **common,
            "sliding_window": int(g.arch_key("attention.sliding_window", 512)),
            "sliding_window_pattern": pattern,
            "layer_types": [
                "full_attention" if (i + 1) % pattern == 0 else "sliding_attention"
                for i in range(layers)
            ],
            "rope_local_base_freq": _clean(
                float(g.arch_key("rope.freq_base_swa", GEMMA3_LOCAL_ROPE_BASE))
            ),
            "query_pre_attn_scalar": head_dim,
            "hidden_activation": "gelu_pytorch_tanh",
        }
    raise ModelError(f"{g.path.name}: architecture '{arch}' is not supported")
