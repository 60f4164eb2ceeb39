"""A scripted backend for tests and dry runs: no mlx, no network, fully deterministic.

Replies come from a queue (`enqueue`) or, when the queue is empty, from a `responder`
callable that sees the prompt. Every call is recorded in `history`; a batch takes its replies in
request order, records `batches` (request count per batch) and repairs invalid rows like the
real backends (one repair reply each, taken after the whole first pass).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel

from wikic.errors import BackendError, GenerationError
from wikic.llm.backend import (
    EMPTY_STATS,
    BatchStats,
    Generation,
    GenerationStats,
    Request,
    Segment,
    TextCallback,
    dumps_compact,
    parse_structured,
)
from wikic.llm.constrain import generate_structured_batch

Reply = str | BaseModel | dict[str, Any] | list[Any] | Callable[["FakeCall"], Any]
Responder = Callable[["FakeCall"], Reply]  # a reply that is itself callable is called with the call


@dataclass(frozen=True)
class FakeCall:
    """One recorded call."""

    segments: tuple[Segment, ...]
    schema: type[BaseModel] | None
    max_tokens: int
    temperature: float

    @property
    def prompt(self) -> str:
        return "".join(s.text for s in self.segments)


class FakeBackend:
    """Backend whose replies are scripted. Token counts are whitespace-word counts."""

    def __init__(self, responder: Responder | None = None, *, name: str = "fake") -> None:
        self._queue: deque[Reply] = deque()
        self._responder = responder
        self._name = name
        self.history: list[FakeCall] = []
        self.batches: list[int] = []  # the number of requests of each generate_batch call
        self.batch_stats = BatchStats()
        self._seen_prefixes: set[tuple[str, ...]] = set()

    @property
    def model_name(self) -> str:
        return self._name

    def enqueue(self, *replies: Reply) -> FakeBackend:
        self._queue.extend(replies)
        return self

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def generate(
        self,
        segments: Sequence[Segment],
        *,
        schema: type[BaseModel] | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        seed: int = 0,
        on_text: TextCallback | None = None,
    ) -> Generation:
        text, stats = self._reply(segments, schema, max_tokens, temperature)
        tokens = stats.generated_tokens
        stats = replace(stats, decode_steps=tokens, step_share=tokens)  # alone: a token a step
        value = parse_structured(schema, text) if schema is not None else None
        if on_text is not None:
            on_text(text)
        return Generation(text, value, stats)

    def generate_batch(self, requests: Sequence[Request]) -> list[Generation]:
        """Replies in request order; an invalid row gets one repair reply (next in the queue)."""
        self.batches.append(len(requests))
        return generate_structured_batch(self._attempt_batch, requests)

    def _attempt_batch(self, requests: Sequence[Request]) -> list[Generation]:
        out = []
        for r in requests:
            try:
                text, stats = self._reply(r.segments, r.schema, r.max_tokens, r.temperature)
            except GenerationError as exc:  # a responder's way to script a row that failed
                out.append(Generation("", None, EMPTY_STATS, error=exc.message))
                continue
            out.append(Generation(text, None, stats))
        out = _lockstep(out)
        self.batch_stats = self.batch_stats + BatchStats(
            batches=1,
            rows=len(requests),
            largest=len(requests),
            steps=max((g.stats.decode_steps for g in out), default=0),
            row_steps=sum(g.stats.decode_steps for g in out),
            generated_tokens=sum(g.stats.generated_tokens for g in out),
        )
        return out

    def _reply(
        self,
        segments: Sequence[Segment],
        schema: type[BaseModel] | None,
        max_tokens: int,
        temperature: float,
    ) -> tuple[str, GenerationStats]:
        call = FakeCall(tuple(segments), schema, max_tokens, temperature)
        self.history.append(call)
        if self._queue:
            reply = self._queue.popleft()
        elif self._responder is not None:
            reply = self._responder(call)
        else:
            raise BackendError("FakeBackend has no scripted reply left for this call")
        while callable(reply):  # a reply shaped by the call (its schema, its prompt)
            reply = reply(call)
        if isinstance(reply, BaseModel):
            text = reply.model_dump_json()
        elif isinstance(reply, dict | list):
            text = dumps_compact(reply)
        else:
            text = reply
        return text, self._stats(call, text)

    def _stats(self, call: FakeCall, text: str) -> GenerationStats:
        """Mimic a prefix cache: segments seen before as a prefix count as cached."""
        texts = tuple(s.text for s in call.segments)
        cached = 0
        for depth in range(len(texts), 0, -1):
            if texts[:depth] in self._seen_prefixes:
                cached = sum(self.count_tokens(t) for t in texts[:depth])
                break
        for depth in range(1, len(texts) + 1):
            self._seen_prefixes.add(texts[:depth])
        prompt = sum(self.count_tokens(t) for t in texts)
        return GenerationStats(
            prompt_tokens=prompt,
            cached_tokens=cached,
            prefill_tokens=prompt - cached,
            generated_tokens=self.count_tokens(text),
        )


def _lockstep(out: list[Generation]) -> list[Generation]:
    """The decode steps of rows decoded together, a token a step: step `t` holds every row
    with more than `t` tokens, and each of them takes a share of 1 / (those rows)."""
    lengths = [g.stats.generated_tokens for g in out]
    active = [sum(1 for n in lengths if n > t) for t in range(max(lengths, default=0))]
    return [
        replace(
            g,
            stats=replace(g.stats, decode_steps=n, step_share=sum(1 / active[t] for t in range(n))),
        )
        for g, n in zip(out, lengths, strict=True)
    ]
