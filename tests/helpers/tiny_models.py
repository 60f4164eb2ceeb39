"""Tiny random-weight mlx-lm models for tests: llama, qwen2 and gemma3_text (hybrid sliding window).

Every builder is deterministic in (arch, seed, overrides): the same call gives the same weights in
any process, so a test can rebuild the model in a subprocess. The default sliding window (16) is far
smaller than the prompts the tests use, so rotating caches wrap. Importing this module imports mlx.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from wikic.llm.blas import import_mlx_core

mx = import_mlx_core()  # the same BLAS as wikic itself, whichever module imports mlx first

import mlx.nn as nn  # noqa: E402
from mlx.utils import tree_flatten  # noqa: E402
from mlx_lm.utils import _get_classes  # noqa: E402

ARCHES = ("llama", "qwen2", "gemma3_text")
TINY_WINDOW = 16

_BASE: dict[str, Any] = {
    "hidden_size": 64,
    "num_hidden_layers": 4,
    "intermediate_size": 128,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "rms_norm_eps": 1e-6,
    "vocab_size": 320,
    "tie_word_embeddings": True,
}

_ARCH: dict[str, dict[str, Any]] = {
    "llama": {"model_type": "llama", "rope_theta": 10000.0},
    "qwen2": {"model_type": "qwen2", "rope_theta": 1000000.0, "max_position_embeddings": 4096},
    # pattern 2: layers 0 and 2 slide (RotatingKVCache), 1 and 3 are global (KVCache)
    "gemma3_text": {
        "model_type": "gemma3_text",
        "head_dim": 16,
        "num_key_value_heads": 1,
        "query_pre_attn_scalar": 16,
        "sliding_window": TINY_WINDOW,
        "sliding_window_pattern": 2,
    },
}


def tiny_config(arch: str, **overrides: Any) -> dict[str, Any]:
    """The config.json of a tiny model. `llama` takes `sliding_window=N` to become hybrid."""
    if arch not in _ARCH:
        raise ValueError(f"unknown tiny arch {arch!r}; choose from {', '.join(ARCHES)}")
    config = {**_BASE, **_ARCH[arch], **overrides}
    if arch == "llama" and config.get("sliding_window") and "layer_types" not in config:
        n = config["num_hidden_layers"]
        config["layer_types"] = [
            "full_attention" if i % 2 else "sliding_attention" for i in range(n)
        ]
    return config


def tiny_model(
    arch: str, *, seed: int = 0, dtype: mx.Dtype = mx.float32, **overrides: Any
) -> nn.Module:
    """A tiny model with random weights, evaluated and in eval mode, with wikic's CPU kernels
    installed as for every model wikic loads (wikic.llm.cpu_kernels)."""
    from wikic.llm import cpu_kernels

    config = tiny_config(arch, **overrides)
    model_class, args_class = _get_classes(config)
    mx.random.seed(seed)
    model = model_class(args_class.from_dict(config))
    model.set_dtype(dtype)
    mx.eval(model.parameters())
    model.eval()
    cpu_kernels.install(model)
    # a tiny model's calls are all below the sizes where numpy pays off: let every call take the
    # numpy path, so that it is what the warm == cold and batched == sequential tests check
    cpu_kernels.MIN_NUMPY_SCORES = cpu_kernels.MIN_NUMPY_ACTIVATIONS = 0
    return model


def tiny_fingerprint(model: nn.Module) -> str:
    """A content hash of the weights (what a real model's fingerprint stands for)."""
    digest = hashlib.sha256()
    for name, value in sorted(tree_flatten(model.parameters()), key=lambda kv: kv[0]):
        digest.update(name.encode())
        digest.update(memoryview(value.astype(mx.float32)).tobytes())
    return digest.hexdigest()[:32]


def tiny_tokens(n: int, *, seed: int = 0, vocab_size: int = _BASE["vocab_size"]) -> list[int]:
    """`n` deterministic pseudo-random token ids (no special meaning)."""
    key = mx.random.key(seed)
    return mx.random.randint(3, vocab_size, (n,), key=key).tolist()


def sliding_window_of(model: nn.Module) -> int | None:
    """The smallest rotating-cache window of a model, None if it only has full attention."""
    from mlx_lm.models.cache import RotatingKVCache, make_prompt_cache

    windows = [c.max_size for c in make_prompt_cache(model) if isinstance(c, RotatingKVCache)]
    return min(windows) if windows else None


def save_tiny_model(arch: str, directory: Path, *, seed: int = 0, **overrides: Any) -> Path:
    """Write config.json and model.safetensors of a tiny model into `directory` (no tokenizer)."""
    directory.mkdir(parents=True, exist_ok=True)
    model = tiny_model(arch, seed=seed, **overrides)
    (directory / "config.json").write_text(json.dumps(tiny_config(arch, **overrides), indent=2))
    mx.save_safetensors(
        str(directory / "model.safetensors"), dict(tree_flatten(model.parameters()))
    )
    return directory


def greedy_decode(
    model: nn.Module, cache: list[Any], logits: mx.array, n: int
) -> tuple[list[int], list[mx.array]]:
    """Greedy-decode `n` tokens from a prefilled (cache, last logits); returns the tokens and the
    logits after each one. Mutates `cache`, as any real decode loop does."""
    tokens, seen = [], []
    for _ in range(n):
        token = int(mx.argmax(logits.reshape(-1)).item())
        tokens.append(token)
        logits = model(mx.array([[token]]), cache=cache)[0, -1]
        mx.eval(logits)
        seen.append(logits)
    return tokens, seen


def max_abs_diff(a: mx.array, b: mx.array) -> float:
    return float(mx.abs(a.astype(mx.float32) - b.astype(mx.float32)).max().item())
