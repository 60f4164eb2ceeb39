"""Lockstep decoding of several prompts: one forward pass per step for the whole batch.

Each row is prefilled alone (through the prefix cache, exactly as a single call would), then its
per-layer caches join mlx-lm's `BatchKVCache`/`BatchRotatingKVCache` (left padding + masks, so
sliding windows stay exact); finished rows leave (`filter`), queued rows join (`extend`). A step
feeds every row the same number of tokens: one, or a forced run when every row has one pending.

Forced tokens in a batch: a row takes the grammar's forced run without sampling and feeds it,
with the token sampled before it, in the next step, as the single-row loop does. Rows feed
different numbers of tokens in one step by right padding (mlx-lm's `prepare`/`finalize`: the
padding is rolled to the left afterwards and masked), and the LM head runs only at each row's
last fed position. Measured with the default model (scripts/results/bench_batch-forced-runs.json,
8 JSON rows): 19.8 s with whole forced runs per step vs 20.5 s token by token, same output.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from wikic.llm.backend import BatchStats, FinishReason
from wikic.llm.blas import ensure_fast_blas
from wikic.llm.constrain import JsonMatcher
from wikic.llm.sampling import Sampler, TextStream

ensure_fast_blas()  # before mlx.core is first imported (see wikic.llm.blas)
import mlx.core as mx  # noqa: E402
import numpy as np  # noqa: E402


@dataclass(frozen=True)
class RowPlan:
    """One row to decode. `prefill` runs when the row joins the batch (its cost is the row's)."""

    prefill: Callable[[], Any]  # -> wikic.llm.cache.prefix.Prefilled
    matcher: Callable[[int], JsonMatcher] | None  # n_vocab -> a fresh grammar state
    max_tokens: int
    temperature: float = 0.0
    seed: int = 0


@dataclass
class RowResult:
    tokens: list[int]
    text: str
    forced: int
    finish: FinishReason
    prefilled: Any  # the row's Prefilled (stats)
    decode_s: float  # this row's share of the batch's decode time
    steps: int = 0  # decode steps the row took part in
    step_share: float = 0.0  # the sum of 1 / (rows of the step) over those


@dataclass
class _Row:
    plan: RowPlan
    prefilled: Any
    matcher: JsonMatcher | None
    sampler: Sampler
    stream: TextStream
    stop_ids: frozenset[int]
    fast_forward: bool
    pending: list[int] = field(default_factory=list)  # emitted, not yet run through the model
    forced: int = 0
    finish: FinishReason | None = None
    decode_s: float = 0.0
    steps: int = 0
    step_share: float = 0.0

    @property
    def wants_token(self) -> bool:
        return self.finish is None and not self.pending

    def advance(self) -> None:
        """After a token: queue the forced run, then stop if the value or the budget is done
        (the same order as the single-row loop, so both emit the same tokens)."""
        budget = self.plan.max_tokens - len(self.stream.tokens)
        if self.matcher is not None:
            run = self.matcher.forced_tokens() if self.fast_forward else []
            if run:
                run = run[:budget]
                self.matcher.consume(run)
                self.stream.add(run)
                self.forced += len(run)
                self.pending += run
            if self.matcher.done:
                self.finish = "stop"  # the value is complete: no need to sample EOS
        if self.finish is None and len(self.stream.tokens) >= self.plan.max_tokens:
            self.finish = "length"

    def take(self, token: int) -> None:
        if token in self.stop_ids:
            # the grammar allows EOS only once the JSON is complete; validation reports the rest
            self.finish = "stop"
            return
        if self.matcher is not None:
            self.matcher.consume([token])
        self.stream.add([token])
        self.pending.append(token)
        self.advance()

    def result(self) -> RowResult:
        assert self.finish is not None
        text = self.stream.close()
        return RowResult(
            self.stream.tokens,
            text,
            self.forced,
            self.finish,
            self.prefilled,
            self.decode_s,
            self.steps,
            self.step_share,
        )


@dataclass
class Lockstep:
    """The batch decode loop over one model; `run` decodes a list of rows, `batch_size` at once."""

    model: Any
    tokenizer: Any
    stop_ids: frozenset[int]
    batch_size: int = 8
    fast_forward: bool = True  # rows consume the grammar's forced runs without sampling
    forced_steps: bool = True  # each row feeds its whole forced run in one step (else 1 a step)

    def run(self, plans: Sequence[RowPlan]) -> tuple[list[RowResult], BatchStats]:
        """Decode every plan; results come back in the plans' order. Rows with the largest
        token budgets join first: the longest reply (an ingest's source summary, queued after
        its pages) no longer starts last and finishes alone in a batch of one."""
        queue = deque(sorted(enumerate(plans), key=lambda item: -item[1].max_tokens))
        results: dict[int, RowResult] = {}
        active: list[tuple[int, _Row]] = []
        cache: list[Any] | None = None
        steps = row_steps = largest = 0
        decode_s = 0.0
        while queue or active:
            while queue and len(active) < self.batch_size:
                index, plan = queue.popleft()
                row = self._start(plan)
                decode_s += row.decode_s  # its first token, chosen from the prefill logits
                if row.finish is not None:
                    results[index] = row.result()
                    continue
                joined = [c.merge([c]) for c in row.prefilled.cache]
                row.prefilled.cache = None  # the batch cache holds the state now
                if cache is None:
                    cache = joined
                else:
                    for mine, theirs in zip(cache, joined, strict=True):
                        mine.extend(theirs)
                active.append((index, row))
            if not active:
                continue
            assert cache is not None
            t0 = time.perf_counter()
            self._step([row for _, row in active], cache)
            steps += 1
            row_steps += len(active)
            largest = max(largest, len(active))
            share = (time.perf_counter() - t0) / len(active)
            for _, row in active:
                row.decode_s += share
                row.steps += 1
                row.step_share += 1 / len(active)
            decode_s += share * len(active)
            keep = [i for i, (_, row) in enumerate(active) if row.finish is None]
            if len(keep) < len(active):
                for index, row in active:
                    if row.finish is not None:
                        results[index] = row.result()
                active = [active[i] for i in keep]
                if active:
                    for c in cache:
                        c.filter(keep)
                else:
                    cache = None
            if steps % 256 == 0:
                mx.clear_cache()
        ordered = [results[i] for i in range(len(plans))]
        stats = BatchStats(
            batches=1,
            rows=len(plans),
            largest=largest,
            steps=steps,
            row_steps=row_steps,
            generated_tokens=sum(len(r.tokens) for r in ordered),
            decode_s=decode_s,
        )
        return ordered, stats

    def _start(self, plan: RowPlan) -> _Row:
        """Prefill one row and take its tokens up to the first it must share a step for."""
        pre = plan.prefill()
        t0 = time.perf_counter()
        logits = pre.logits.reshape(-1)
        matcher = plan.matcher(logits.shape[-1]) if plan.matcher is not None else None
        row = _Row(
            plan=plan,
            prefilled=pre,
            matcher=matcher,
            sampler=Sampler(plan.temperature, plan.seed),
            stream=TextStream(self.tokenizer, None),
            stop_ids=self.stop_ids,
            fast_forward=self.fast_forward,
        )
        row.advance()  # a forced opening (`{"title":"`) needs no sampling
        if row.wants_token:
            row.take(self._choose([row], logits[None])[0])
        row.decode_s = time.perf_counter() - t0
        return row

    def _step(self, rows: list[_Row], cache: list[Any]) -> None:
        width = max(len(r.pending) for r in rows) if self.forced_steps else 1
        feed = [r.pending[:width] for r in rows]
        for r in rows:
            del r.pending[:width]
        lengths = [len(f) for f in feed]
        padding = [width - n for n in lengths]
        if any(padding):
            for c in cache:
                c.prepare(lengths=lengths, right_padding=padding)
        inputs = mx.array([f + [0] * p for f, p in zip(feed, padding, strict=True)])
        logits = last_logits(self.model, inputs, cache, lengths)
        if any(padding):
            for c in cache:
                c.finalize()  # the padding moves to the left, where the mask hides it
        mx.async_eval(logits)  # the grammar masks below are computed while this runs
        choosing = [i for i, r in enumerate(rows) if r.wants_token]
        if not choosing:
            mx.eval(logits)
            return
        tokens = self._choose([rows[i] for i in choosing], logits[mx.array(choosing)])
        for i, token in zip(choosing, tokens, strict=True):
            rows[i].take(token)

    def _choose(self, rows: list[_Row], logits: mx.array) -> list[int]:
        """The next token of each row from its logits (one row each), under its grammar."""
        if any(r.matcher is not None for r in rows):
            allowed = np.ones(logits.shape, dtype=bool)
            for i, r in enumerate(rows):
                if r.matcher is not None:
                    allowed[i] = r.matcher.allowed()
            logits = mx.where(mx.array(allowed), logits, -mx.inf)
        if all(r.sampler.greedy for r in rows):
            chosen: list[int] = mx.argmax(logits, axis=-1).tolist()  # type: ignore[assignment]
            return chosen
        return [int(r.sampler(logits[i]).item()) for i, r in enumerate(rows)]  # type: ignore[arg-type]


# Model types whose `__call__` is `head(self.model(inputs, cache))`, the head being the tied
# embedding or `lm_head` (checked against mlx-lm's source; tests compare with the full call).
_SPLIT_HEAD_TYPES = frozenset({"llama", "qwen2", "qwen3", "gemma3_text", "mistral"})


def _split_head(model: Any) -> bool:
    """An mlx-lm model class itself (not a wrapper with its own `__call__`) of a known type."""
    return (
        type(model).__module__.startswith("mlx_lm.models.")
        and getattr(model, "model_type", None) in _SPLIT_HEAD_TYPES
    )


def last_logits(model: Any, inputs: mx.array, cache: list[Any], lengths: Sequence[int]) -> Any:
    """Logits (rows × vocab) at position `lengths[i] - 1` of each row of `inputs`. For a
    multi-token step the LM head (a vocab-sized matmul) runs only at those positions."""
    rows = mx.arange(inputs.shape[0])
    last = mx.array([n - 1 for n in lengths])
    if inputs.shape[1] == 1 or not _split_head(model):
        return model(inputs, cache=cache)[rows, last]
    hidden = model.model(inputs, cache)[rows, last][:, None, :]
    tied = getattr(model, "tie_word_embeddings", None)
    if tied is None:
        tied = model.args.tie_word_embeddings
    head = model.model.embed_tokens.as_linear if tied else model.lm_head
    return head(hidden)[:, 0, :]
