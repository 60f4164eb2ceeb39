"""A BERT sentence encoder in numpy: all-MiniLM-L6-v2 as sentence-transformers computes it.

Token, position and type embeddings, LayerNorm, then per layer self-attention (padding keys
masked out) and a GELU feed-forward, each followed by a residual add and a LayerNorm; the text's
vector is the mean of its real tokens' last hidden states ([CLS] and [SEP] included), made unit
length. Texts are tokenised with the model's own tokenizer.json, cut to `MAX_TOKENS`, sorted by
length and run in batches of similar length, so little work goes to padding. Weights are read
from a safetensors file (float32, matmuls through numpy's BLAS).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from tokenizers import Tokenizer

MAX_TOKENS = 256  # the model's max_seq_length in sentence-transformers
BATCH_TOKENS = 8192  # padded tokens per forward pass
_LN_EPS = 1e-12
_MASKED = -1e9  # added to the attention scores of padding keys
_ERF = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429, 0.3275911)


@dataclass(frozen=True)
class BertShape:
    layers: int
    heads: int
    hidden: int

    @classmethod
    def from_config(cls, config: Mapping[str, object]) -> BertShape:
        return cls(
            int(config["num_hidden_layers"]),  # type: ignore[call-overload]
            int(config["num_attention_heads"]),  # type: ignore[call-overload]
            int(config["hidden_size"]),  # type: ignore[call-overload]
        )


def gelu(x: np.ndarray) -> np.ndarray:
    """BERT's GELU, the exact one: x * Phi(x) = x/2 * (1 + erf(x / sqrt 2)), with erf from
    Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7; numpy has no erf). Works in place
    on temporaries: the feed-forward activations are the largest arrays of a pass."""
    import numpy as np

    a1, a2, a3, a4, a5, p = _ERF
    z = np.abs(x) * np.float32(1.0 / math.sqrt(2.0))
    t = z * np.float32(p)
    t += 1.0
    np.reciprocal(t, out=t)
    y = t * np.float32(a5)
    for a in (a4, a3, a2, a1):
        y += np.float32(a)
        y *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    y *= z  # 1 - erf(|x| / sqrt 2)
    half = np.where(x >= 0, 2.0 - y, y)  # 1 + erf(x / sqrt 2)
    half *= x
    half *= np.float32(0.5)
    return half


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / (var + _LN_EPS) ** 0.5 * weight + bias


@dataclass(frozen=True)
class _Layer:
    """One encoder layer's weights, matrices as (in, out); query, key and value side by side."""

    qkv: np.ndarray
    qkv_b: np.ndarray
    out: tuple[np.ndarray, np.ndarray]
    ln1: tuple[np.ndarray, np.ndarray]
    up: tuple[np.ndarray, np.ndarray]
    down: tuple[np.ndarray, np.ndarray]
    ln2: tuple[np.ndarray, np.ndarray]


class BertEncoder:
    """Mean-pooled, L2-normalised sentence vectors. Deterministic; `embed` takes any number of
    texts and returns (len(texts), hidden) float32."""

    def __init__(
        self,
        fingerprint: str,
        tensors: Mapping[str, np.ndarray],
        shape: BertShape,
        tokenizer: Tokenizer,
    ) -> None:
        import numpy as np

        self.fingerprint = fingerprint
        self.shape = shape
        self.dims = shape.hidden
        self.tokenizer = tokenizer
        tokenizer.no_padding()
        tokenizer.enable_truncation(MAX_TOKENS)

        def get(name: str) -> np.ndarray:
            return np.ascontiguousarray(tensors[name], dtype=np.float32)

        def linear(prefix: str) -> tuple[np.ndarray, np.ndarray]:  # (in, out) for x @ w
            return np.ascontiguousarray(get(f"{prefix}.weight").T), get(f"{prefix}.bias")

        e = "embeddings."
        self.words = get(e + "word_embeddings.weight")
        self.positions = get(e + "position_embeddings.weight")
        self.type0 = get(e + "token_type_embeddings.weight")[0]
        self.ln0 = (get(e + "LayerNorm.weight"), get(e + "LayerNorm.bias"))
        self.layers: list[_Layer] = []
        for i in range(shape.layers):
            p = f"encoder.layer.{i}."
            q, k, v = (linear(p + f"attention.self.{n}") for n in ("query", "key", "value"))
            norm1, norm2 = p + "attention.output.LayerNorm.", p + "output.LayerNorm."
            self.layers.append(
                _Layer(
                    qkv=np.ascontiguousarray(np.concatenate([q[0], k[0], v[0]], axis=1)),
                    qkv_b=np.concatenate([q[1], k[1], v[1]]),
                    out=linear(p + "attention.output.dense"),
                    ln1=(get(norm1 + "weight"), get(norm1 + "bias")),
                    up=linear(p + "intermediate.dense"),
                    down=linear(p + "output.dense"),
                    ln2=(get(norm2 + "weight"), get(norm2 + "bias")),
                )
            )

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        if not texts:
            return out
        ids = [e.ids for e in self.tokenizer.encode_batch(list(texts), add_special_tokens=True)]
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        start = 0
        while start < len(order):
            end = start + 1
            while end < len(order) and len(ids[order[end]]) * (end - start + 1) <= BATCH_TOKENS:
                end += 1
            rows = order[start:end]
            longest = max(len(ids[i]) for i in rows)
            batch = np.zeros((len(rows), longest), dtype=np.int64)
            mask = np.zeros((len(rows), longest), dtype=np.float32)
            for r, i in enumerate(rows):
                batch[r, : len(ids[i])] = ids[i]
                mask[r, : len(ids[i])] = 1.0
            out[rows] = self.forward(batch, mask)
            start = end
        return out

    def forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Unit sentence vectors of a padded batch: `ids` (batch, length) token ids, `mask`
        1.0 for real tokens and 0.0 for padding."""
        import numpy as np

        b, n = ids.shape
        heads, width = self.shape.heads, self.dims // self.shape.heads
        np.clip(ids, 0, self.words.shape[0] - 1, out=ids)
        x = self.words[ids] + self.positions[:n] + self.type0
        x = layer_norm(x, *self.ln0).reshape(b * n, self.dims)
        bias = ((1.0 - mask) * _MASKED)[:, None, None, :].astype(np.float32)
        scale = np.float32(1.0 / math.sqrt(width))
        for layer in self.layers:
            qkv = x @ layer.qkv + layer.qkv_b
            qkv = qkv.reshape(b, n, 3, heads, width).transpose(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]  # (b, heads, n, width)
            scores = (q * scale) @ k.transpose(0, 1, 3, 2) + bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(b * n, self.dims)
            x = layer_norm(x + ctx @ layer.out[0] + layer.out[1], *layer.ln1)
            h = gelu(x @ layer.up[0] + layer.up[1])
            x = layer_norm(x + h @ layer.down[0] + layer.down[1], *layer.ln2)
        hidden = x.reshape(b, n, self.dims)
        pooled = (hidden * mask[:, :, None]).sum(axis=1) / np.maximum(
            mask.sum(axis=1, keepdims=True), 1e-9
        )
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
