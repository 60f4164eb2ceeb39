"""The LLM backend contract shared by every backend (mlx in process, HTTP, fake).

A prompt is a sequence of `Segment`s, most stable first (schema → catalog → context → task).
A backend frames them with the model's chat template so that every segment end is a token
boundary; the mlx backend caches the KV state at those boundaries. Structured output is asked
for with a pydantic model and comes back validated in `Generation.value`. Several `Request`s go
through `generate_batch` together; their `Generation`s come back in request order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ValidationError

from wikic.errors import GenerationError
from wikic.prompts.repair import repair_note

Role = Literal["system", "user"]
FinishReason = Literal["stop", "length"]
M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Segment:
    """One piece of a prompt; its end is a cache boundary.

    Consecutive `system` segments form the system message, the `user` segments after them the
    user message. The text is data: backends never let it inject chat-template control tokens.
    """

    text: str
    role: Role = "user"


def system(text: str) -> Segment:
    return Segment(text, "system")


def user(text: str) -> Segment:
    return Segment(text, "user")


@dataclass(frozen=True)
class GenerationStats:
    """What one generation cost. Summable with `+` to report a whole operation."""

    prompt_tokens: int = 0
    cached_tokens: int = 0  # prompt tokens whose KV state came from the prefix cache
    prefill_tokens: int = 0  # prompt tokens run through the model
    generated_tokens: int = 0  # tokens produced by decoding, forced ones included
    forced_tokens: int = 0  # tokens the grammar fixed, fed in batches rather than sampled
    cache_load_s: float = 0.0
    prefill_s: float = 0.0
    decode_s: float = 0.0
    calls: int = 1
    # the decode steps (forward passes) the row took part in, and its share of them: each step
    # counts 1 / (rows decoded in it), so over rows `decode_steps / step_share` is the mean
    # batch actually decoded (both 0 where the backend cannot tell: a server)
    decode_steps: int = 0
    step_share: float = 0.0

    def __add__(self, other: GenerationStats) -> GenerationStats:
        return GenerationStats(
            **{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)}
        )

    def to_dict(self) -> dict[str, float | int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @property
    def model_s(self) -> float:
        """Seconds in the model: loading cached prefixes, prefilling, decoding."""
        return self.cache_load_s + self.prefill_s + self.decode_s

    @property
    def rows_per_step(self) -> float | None:
        """The mean rows of a decode step (1.0: decoded alone); None where unknown."""
        return round(self.decode_steps / self.step_share, 3) if self.step_share else None

    def breakdown(self, wall_s: float | None = None) -> dict[str, float | int | None]:
        """Where one stage's time went (`--json`, the benches): prefill seconds and tokens,
        decode seconds and tokens, rows per decode step, and, given the stage's wall time,
        `idle_s`: the wall time outside the model (grammar, tokenizing, code, waiting)."""
        out: dict[str, float | int | None] = {
            "calls": self.calls,
            "prefill_s": round(self.prefill_s, 3),
            "prefill_tokens": self.prefill_tokens,
            "cached_tokens": self.cached_tokens,
            "cache_load_s": round(self.cache_load_s, 3),
            "decode_s": round(self.decode_s, 3),
            "decode_tokens": self.generated_tokens,
            "forced_tokens": self.forced_tokens,
            "decode_steps": self.decode_steps,
            "rows_per_step": self.rows_per_step,
            "model_s": round(self.model_s, 3),
        }
        if wall_s is not None:
            out["wall_s"] = round(wall_s, 3)
            out["idle_s"] = round(max(0.0, wall_s - self.model_s), 3)
        return out


EMPTY_STATS = GenerationStats(calls=0)


@dataclass(frozen=True)
class Generation:
    """The result of one call. `value` is the validated schema instance when a schema was given.

    In a batch, a row whose reply stays invalid after its repair attempt keeps `value=None` and
    says why in `error` (a single `generate` raises GenerationError instead).
    """

    text: str
    value: BaseModel | None
    stats: GenerationStats
    finish_reason: FinishReason = "stop"
    error: str | None = None

    def checked(self) -> Generation:
        """This generation, or the GenerationError its batch row recorded."""
        if self.error is not None:
            raise GenerationError(self.error, hint=_REPAIR_HINT)
        return self


@dataclass(frozen=True)
class Request:
    """One generation of a batch: what `Backend.generate` takes, as a value."""

    segments: Sequence[Segment]  # stored as a tuple
    schema: type[BaseModel] | None = None
    max_tokens: int = 512
    temperature: float = 0.0
    seed: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "segments", tuple(self.segments))


@dataclass(frozen=True)
class BatchStats:
    """What batched generation did, summable with `+` over calls (reported by benchmarks).

    `steps` counts lockstep forward passes of the whole batch; `row_steps` sums the rows active
    in each, so `row_steps / steps` is the mean batch size actually decoded.
    """

    batches: int = 0  # generate_batch calls
    rows: int = 0  # requests, repair attempts included
    largest: int = 0  # most rows decoded together
    steps: int = 0
    row_steps: int = 0
    generated_tokens: int = 0
    decode_s: float = 0.0
    repairs: int = 0  # replies that were not valid JSON for their schema and were asked again

    def __add__(self, other: BatchStats) -> BatchStats:
        return BatchStats(
            batches=self.batches + other.batches,
            rows=self.rows + other.rows,
            largest=max(self.largest, other.largest),
            steps=self.steps + other.steps,
            row_steps=self.row_steps + other.row_steps,
            generated_tokens=self.generated_tokens + other.generated_tokens,
            decode_s=self.decode_s + other.decode_s,
            repairs=self.repairs + other.repairs,
        )

    @property
    def mean_batch(self) -> float:
        return self.row_steps / self.steps if self.steps else 0.0

    @property
    def decode_tok_s(self) -> float:
        """Aggregate decode speed: tokens of all rows per second of batch decoding."""
        return self.generated_tokens / self.decode_s if self.decode_s > 0 else 0.0

    def to_dict(self) -> dict[str, float | int]:
        out: dict[str, float | int] = {f.name: getattr(self, f.name) for f in fields(self)}
        out["mean_batch"] = round(self.mean_batch, 3)
        out["decode_tok_s"] = round(self.decode_tok_s, 3)
        return out


TextCallback = Callable[[str], None]


@runtime_checkable
class Backend(Protocol):
    """What every LLM backend provides."""

    @property
    def model_name(self) -> str: ...

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
        """Generate a reply. With `schema`, the reply is JSON valid under it (or GenerationError).

        `on_text` receives the reply text as it is produced (streaming).
        """
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens `text` takes in a prompt (used to pack context under a budget)."""
        ...


@runtime_checkable
class BatchBackend(Backend, Protocol):
    """A backend that generates several requests together (mlx lockstep, HTTP concurrency)."""

    batch_stats: BatchStats  # cumulative over this backend's batches

    def generate_batch(self, requests: Sequence[Request]) -> list[Generation]:
        """The `Generation` of every request, in order. With a schema, each row is validated
        and repaired alone like `generate`; a row still invalid carries `error` (never raises
        for it). Backend failures (model down, prompt too long) raise for the whole batch."""
        ...


def generate_batch(backend: Backend, requests: Sequence[Request]) -> list[Generation]:
    """`backend.generate_batch(requests)`, or one `generate` per request for other backends."""
    if isinstance(backend, BatchBackend):
        return backend.generate_batch(requests)
    out = []
    for r in requests:
        try:
            out.append(backend.generate(r.segments, **request_options(r)))
        except GenerationError as exc:
            out.append(Generation("", None, EMPTY_STATS, error=exc.message))
    return out


def request_options(request: Request) -> dict[str, Any]:
    """The keyword arguments of `Backend.generate` that `request` stands for."""
    return {
        "schema": request.schema,
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "seed": request.seed,
    }


def batch_values(generations: Sequence[Generation]) -> list[BaseModel]:
    """The validated value of every row; raises the first row's GenerationError if any failed."""
    values = []
    for g in generations:
        value = g.checked().value
        if value is None:
            raise GenerationError("a batch row asked for no schema has no value")
        values.append(value)
    return values


def parse_structured(schema: type[M], text: str) -> M:
    """Validate a JSON reply against `schema`; raise GenerationError saying what is wrong."""
    try:
        return schema.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "(root)"
        raise GenerationError(
            f"the model's reply does not match the {schema.__name__} schema at {where}: "
            f"{first.get('msg', 'invalid')}"
        ) from None


def json_schema_for(schema: type[BaseModel]) -> dict[str, object]:
    """The JSON schema of a pydantic model, as sent to constrained decoders and HTTP servers."""
    return schema.model_json_schema()


_REPAIR_HINT = (
    "Raise the token budget, shorten the input, or use a larger model "
    "(`model` or `roles` in wikic.yaml)."
)


def repair_prompt(segments: Sequence[Segment], bad_reply: str, error: str) -> list[Segment]:
    """The one repair attempt: the same prompt, plus the invalid reply and what was wrong."""
    return [*segments, user(repair_note(error, bad_reply))]


def dumps_compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
