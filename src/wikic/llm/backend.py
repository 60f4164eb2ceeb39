"""The LLM backend contract shared by every backend (mlx in process, HTTP, fake).

A prompt is a sequence of `Segment`s, most stable first (schema → catalog → context → task).
A backend frames them with the model's chat template so that every segment end is a token
boundary; the mlx backend caches the KV state at those boundaries. Structured output is asked
for with a pydantic model and comes back validated in `Generation.value`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ValidationError

from wikic.errors import GenerationError

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

    def __add__(self, other: GenerationStats) -> GenerationStats:
        return GenerationStats(
            **{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)}
        )

    def to_dict(self) -> dict[str, float | int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


EMPTY_STATS = GenerationStats(calls=0)


@dataclass(frozen=True)
class Generation:
    """The result of one call. `value` is the validated schema instance when a schema was given."""

    text: str
    value: BaseModel | None
    stats: GenerationStats
    finish_reason: FinishReason = "stop"


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


def repair_prompt(segments: Sequence[Segment], bad_reply: str, error: str) -> list[Segment]:
    """The one repair attempt: the same prompt, plus the invalid reply and what was wrong."""
    note = (
        "\n\nYour previous reply was not valid JSON for the required schema.\n"
        f"Error: {error}\nPrevious reply (truncated): {bad_reply[:400]}\n"
        "Reply again with only the JSON object, shorter if needed."
    )
    return [*segments, user(note)]


def dumps_compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
