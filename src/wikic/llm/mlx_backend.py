"""The in-process backend: mlx-lm model, managed prefix cache, own decode loop.

Prefill comes from `PrefixCache` (KV state and last logits at the end of the framed prompt), so
decoding is done here rather than by `mlx_lm.generate_step`. With a schema, llguidance masks the
logits and forced token runs are fed through the model in one batch. `generate_batch` decodes
several prompts in lockstep (`wikic.llm.lockstep`). Importing this module imports mlx (after the
OpenBLAS fix); only `wikic.llm.factory` imports it, on the mlx path.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel

from wikic.errors import BackendError, GenerationError
from wikic.llm.backend import (
    BatchStats,
    FinishReason,
    Generation,
    GenerationStats,
    Request,
    Segment,
    TextCallback,
)
from wikic.llm.blas import ensure_fast_blas
from wikic.llm.constrain import (
    GrammarTokenizer,
    JsonMatcher,
    generate_structured,
    generate_structured_batch,
    repairs_in,
)
from wikic.llm.framing import PromptFramer, eos_ids

ensure_fast_blas()  # before mlx.core is first imported, or CPU matmuls use the slow reference BLAS
import mlx.core as mx  # noqa: E402

from wikic.llm import cpu_kernels  # noqa: E402
from wikic.llm.lockstep import Lockstep, RowPlan  # noqa: E402
from wikic.llm.sampling import Sampler, TextStream  # noqa: E402


class Prefiller(Protocol):
    """What the backend needs from `wikic.llm.cache.prefix.PrefixCache`."""

    def prefill(self, model: Any, token_segments: Sequence[Sequence[int]]) -> Any: ...


@dataclass
class _Decoded:
    tokens: list[int]
    text: str
    forced: int
    finish: FinishReason
    seconds: float
    steps: int  # forward passes while decoding


class MlxBackend:
    """`Backend` on an mlx-lm model and tokenizer already loaded in this process."""

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        name: str,
        prefix_cache: Prefiller,
        max_context_tokens: int = 8192,
        fast_forward: bool = True,
        batch_size: int = 8,
    ) -> None:
        if batch_size < 1:
            raise BackendError(f"the batch size must be at least 1, not {batch_size}")
        cpu_kernels.install(model)  # numpy's exp in attention and SwiGLU on the CPU
        self._model = model
        self._tokenizer = tokenizer
        self._name = name
        self._prefix_cache = prefix_cache
        self._max_context = max_context_tokens
        self.fast_forward = fast_forward  # off only to measure what forced runs save
        self.framer = PromptFramer(tokenizer)
        self._stop_ids = _stop_ids(tokenizer, self.framer)
        self._grammar_tokenizer: GrammarTokenizer | None = None
        self.batch_size = batch_size
        self.forced_steps = True  # see Lockstep.forced_steps; off only to measure it
        self.batch_stats = BatchStats()
        self._steps = 0  # decode forward passes so far (`_forward`)

    @property
    def model_name(self) -> str:
        return self._name

    def count_tokens(self, text: str) -> int:
        return self.framer.count_tokens(text)

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
        """See `Backend.generate`. With a schema, a repair attempt streams after the first."""

        def attempt(prompt: Sequence[Segment]) -> Generation:
            return self.generate_once(
                prompt,
                schema=schema,
                max_tokens=max_tokens,
                temperature=temperature,
                seed=seed,
                on_text=on_text,
            )

        if schema is None:
            return attempt(segments)
        return generate_structured(attempt, segments, schema, max_tokens)

    def generate_batch(self, requests: Sequence[Request]) -> list[Generation]:
        """See `BatchBackend.generate_batch`: up to `batch_size` rows decoded in lockstep."""
        out = generate_structured_batch(self.generate_batch_once, requests)
        repairs = repairs_in(out)
        if repairs:
            self.batch_stats = self.batch_stats + BatchStats(repairs=repairs)
        return out

    def generate_batch_once(self, requests: Sequence[Request]) -> list[Generation]:
        """One attempt per row: constrained by its schema, but neither validated nor repaired."""
        plans = [self._plan(r) for r in requests]  # every request checked before any work
        lockstep = Lockstep(
            self._model,
            self._tokenizer,
            self._stop_ids,
            batch_size=self.batch_size,
            fast_forward=self.fast_forward,
            forced_steps=self.forced_steps,
        )
        rows, stats = lockstep.run(plans)
        self.batch_stats = self.batch_stats + stats
        out = []
        for row in rows:
            pre = row.prefilled
            generation_stats = GenerationStats(
                prompt_tokens=pre.prompt_tokens,
                cached_tokens=pre.cached_tokens,
                prefill_tokens=pre.prefill_tokens,
                generated_tokens=len(row.tokens),
                forced_tokens=row.forced,
                cache_load_s=pre.load_s,
                prefill_s=pre.prefill_s + getattr(pre, "store_s", 0.0),
                decode_s=row.decode_s,
                decode_steps=row.steps,
                step_share=row.step_share,
            )
            out.append(Generation(row.text, None, generation_stats, row.finish))
        return out

    def _plan(self, request: Request) -> RowPlan:
        self._check_limits(request.max_tokens, request.temperature)
        token_lists = self._framed(request.segments)
        schema = request.schema
        return RowPlan(
            prefill=lambda: self._prefix_cache.prefill(self._model, token_lists),
            matcher=(lambda n: self.json_matcher(schema, n)) if schema is not None else None,
            max_tokens=request.max_tokens,
            temperature=request.temperature,
            seed=request.seed,
        )

    def _check_limits(self, max_tokens: int, temperature: float) -> None:
        if max_tokens < 1:
            raise BackendError(f"max_tokens must be at least 1, not {max_tokens}")
        if temperature < 0:
            raise BackendError(f"temperature must be 0 or more, not {temperature}")

    def _framed(self, segments: Sequence[Segment]) -> list[list[int]]:
        token_lists = self.framer.frame_segments(segments)
        prompt_tokens = sum(len(t) for t in token_lists)
        if prompt_tokens > self._max_context:
            raise BackendError(
                f"the prompt has {prompt_tokens} tokens, more than the {self._max_context} "
                "allowed (generation.max_context_tokens)",
                hint="Shorten the input or raise generation.max_context_tokens in wikic.yaml.",
            )
        return token_lists

    def generate_once(
        self,
        segments: Sequence[Segment],
        *,
        schema: type[BaseModel] | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        seed: int = 0,
        on_text: TextCallback | None = None,
    ) -> Generation:
        """One attempt: constrained by `schema` if given, but neither validated nor repaired."""
        self._check_limits(max_tokens, temperature)
        token_lists = self._framed(segments)
        prompt_tokens = sum(len(t) for t in token_lists)
        pre = self._prefix_cache.prefill(self._model, token_lists)
        t0 = time.perf_counter()
        logits = pre.logits.reshape(-1)
        mx.eval(logits)  # prefill is lazy up to here on some paths: count it as prefill
        # Storing the new boundary snapshots is part of the time to first token.
        prefill_s = pre.prefill_s + getattr(pre, "store_s", 0.0) + (time.perf_counter() - t0)
        matcher = self.json_matcher(schema, logits.shape[-1]) if schema is not None else None
        decoded = self._decode(pre.cache, logits, matcher, max_tokens, temperature, seed, on_text)
        stats = GenerationStats(
            prompt_tokens=prompt_tokens,
            cached_tokens=pre.cached_tokens,
            prefill_tokens=pre.prefill_tokens,
            generated_tokens=len(decoded.tokens),
            forced_tokens=decoded.forced,
            cache_load_s=pre.load_s,
            prefill_s=prefill_s,
            decode_s=decoded.seconds,
            decode_steps=decoded.steps,
            step_share=decoded.steps,  # decoded alone: one row a step
        )
        return Generation(decoded.text, None, stats, decoded.finish)

    def json_matcher(self, schema: type[BaseModel], n_vocab: int | None = None) -> JsonMatcher:
        """A fresh grammar state for `schema` over `n_vocab` logits (default: the last seen)."""
        known = self._grammar_tokenizer
        if n_vocab is None:
            if known is None:
                raise BackendError("json_matcher needs n_vocab before the first constrained call")
            n_vocab = known.n_vocab
        if known is None or known.n_vocab != n_vocab:
            known = GrammarTokenizer(
                self.framer.backend_tokenizer, n_vocab=n_vocab, eos_ids=self._stop_ids
            )
            self._grammar_tokenizer = known
        return known.matcher(schema)

    def _decode(
        self,
        cache: Any,
        logits: mx.array,
        matcher: JsonMatcher | None,
        max_tokens: int,
        temperature: float,
        seed: int,
        on_text: TextCallback | None,
    ) -> _Decoded:
        start = time.perf_counter()
        steps = self._steps
        stream = TextStream(self._tokenizer, on_text)
        sampler = Sampler(temperature, seed)
        if matcher is None:
            finish = self._decode_free(cache, logits, sampler, stream, max_tokens)
            forced = 0
        else:
            finish, forced = self._decode_json(cache, logits, matcher, sampler, stream, max_tokens)
        text = stream.close()
        seconds = time.perf_counter() - start
        return _Decoded(stream.tokens, text, forced, finish, seconds, self._steps - steps)

    def _forward(self, tokens: Sequence[int] | mx.array, cache: Any) -> mx.array:
        """Lazy logits of the position after `tokens` (fed as one batch)."""
        inputs = tokens if isinstance(tokens, mx.array) else mx.array(list(tokens))
        self._steps += 1
        return self._model(inputs.reshape(1, -1), cache=cache)[0, -1, :]

    def _decode_free(
        self,
        cache: Any,
        logits: mx.array,
        sampler: Sampler,
        stream: TextStream,
        max_tokens: int,
    ) -> FinishReason:
        # Pipelined like mlx-lm: the next step is queued before the current token is read.
        y = sampler(logits)
        mx.async_eval(y)
        while True:
            emitted = len(stream.tokens)
            next_y = None
            if emitted + 1 < max_tokens:
                next_y = sampler(self._forward(y, cache))
                mx.async_eval(next_y)
            token = int(y.item())  # type: ignore[arg-type]
            if token in self._stop_ids:
                return "stop"
            stream.add([token])
            if next_y is None:
                return "length"
            if emitted % 256 == 255:
                mx.clear_cache()
            y = next_y

    def _decode_json(
        self,
        cache: Any,
        logits: mx.array,
        matcher: JsonMatcher,
        sampler: Sampler,
        stream: TextStream,
        max_tokens: int,
    ) -> tuple[FinishReason, int]:
        # Not pipelined like the free loop: queueing the next step before reading the sampled
        # token costs an extra model call per forced run, measured slower than this.
        forced = 0
        feed: list[int] = []  # tokens consumed by the grammar, not yet run through the model
        while True:
            run = matcher.forced_tokens() if self.fast_forward else []
            if run:
                run = run[: max_tokens - len(stream.tokens)]
                matcher.consume(run)
                stream.add(run)
                forced += len(run)
                feed += run
            if matcher.done:
                return "stop", forced  # the value is complete: no need to sample EOS
            if len(stream.tokens) >= max_tokens:
                return "length", forced
            if feed:
                # the sampled token and the forced run after it: one batch, not token by token
                logits = self._forward(feed, cache)
                feed = []
            mx.async_eval(logits)
            allowed = mx.array(matcher.allowed())  # computed while the forward pass runs
            token = int(sampler(mx.where(allowed, logits, -mx.inf)).item())  # type: ignore[arg-type]
            if token in self._stop_ids:
                if matcher.accepting:
                    return "stop", forced
                raise GenerationError("constrained decoding ended before the JSON was complete")
            matcher.consume([token])
            stream.add([token])
            feed.append(token)
            if len(stream.tokens) % 256 < len(run) + 1:
                mx.clear_cache()


def _stop_ids(tokenizer: Any, framer: PromptFramer) -> frozenset[int]:
    """EOS ids, plus the token that ends a chat turn (`<|im_end|>`, `<end_of_turn>`, ...)."""
    ids = eos_ids(tokenizer)
    end_of_turn = framer.turn_end_token()
    if end_of_turn is not None:
        ids.add(end_of_turn)
    if not ids:
        raise BackendError("the model's tokenizer has no end-of-sequence token")
    return frozenset(ids)
