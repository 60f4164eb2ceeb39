"""Token choice and streaming text for the mlx decode loops (single and batched).

Greedy at temperature 0 (argmax, so a batch of rows picks exactly what each row alone would);
otherwise seeded categorical sampling with a key per generation. Imports mlx: mlx path only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wikic.llm.backend import TextCallback
from wikic.llm.blas import ensure_fast_blas

ensure_fast_blas()  # before mlx.core is first imported (see wikic.llm.blas)
import mlx.core as mx  # noqa: E402


class Sampler:
    """Greedy at temperature 0; otherwise seeded categorical sampling with its own key."""

    def __init__(self, temperature: float, seed: int) -> None:
        self._scale = 1.0 / temperature if temperature > 0 else 0.0
        self._key = mx.random.key(seed) if temperature > 0 else None

    @property
    def greedy(self) -> bool:
        return self._key is None

    def __call__(self, logits: mx.array) -> mx.array:
        if self._key is None:
            return mx.argmax(logits, axis=-1)
        self._key, sub = mx.random.split(self._key)
        return mx.random.categorical(logits * self._scale, key=sub)


class TextStream:
    """Streaming detokenization: `on_text` gets each readable piece once."""

    def __init__(self, tokenizer: Any, on_text: TextCallback | None) -> None:
        self._detok = tokenizer.detokenizer  # mlx-lm hands out a fresh copy per access
        self._on_text = on_text
        self.tokens: list[int] = []

    def add(self, tokens: Sequence[int]) -> None:
        for token in tokens:
            self._detok.add_token(token)
        self.tokens.extend(tokens)
        self._emit()

    def _emit(self) -> None:
        piece = self._detok.last_segment
        if piece and self._on_text is not None:
            self._on_text(piece)

    def close(self) -> str:
        self._detok.finalize()
        self._emit()
        return str(self._detok.text)
