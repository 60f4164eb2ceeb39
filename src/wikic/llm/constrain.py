"""Schema-constrained JSON with llguidance: a token mask per step and forced-token runs.

The grammar is compiled from the pydantic model's JSON schema with no free whitespace; every
object without an explicit `additionalProperties` gets `false` (pydantic would ignore extra keys,
so the model must not spend tokens on them). No mlx here: masks are numpy arrays (numpy is
imported lazily, so the HTTP backend can use the schema and repair helpers without it).
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from wikic.errors import BackendError, GenerationError
from wikic.llm.backend import (
    Generation,
    Request,
    Segment,
    json_schema_for,
    parse_structured,
    repair_prompt,
)

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)
Attempt = Callable[[Sequence[Segment]], Generation]
BatchAttempt = Callable[[Sequence[Request]], list[Generation]]


def generate_structured(
    attempt: Attempt, segments: Sequence[Segment], schema: type[BaseModel], max_tokens: int
) -> Generation:
    """Run `attempt`, validate its JSON; on failure one repair attempt, then GenerationError."""
    first = attempt(segments)
    value = _validated(schema, first, max_tokens)
    if isinstance(value, BaseModel):
        return Generation(first.text, value, first.stats, first.finish_reason)
    log.info("invalid %s reply (%s); one repair attempt", schema.__name__, value)
    second = attempt(repair_prompt(segments, first.text, value))
    stats = first.stats + second.stats
    result = _validated(schema, second, max_tokens)
    if isinstance(result, BaseModel):
        return Generation(second.text, result, stats, second.finish_reason)
    raise GenerationError(
        f"the model gave no valid {schema.__name__} JSON, even after one repair attempt: {result}",
        hint="Raise the token budget, shorten the input, or use a larger model "
        "(`model` or `roles` in wikic.yaml).",
    )


def generate_structured_batch(
    attempt: BatchAttempt, requests: Sequence[Request]
) -> list[Generation]:
    """`generate_structured` for a batch: rows that fail validation get their one repair
    attempt together (the valid rows are not run again); a row still invalid carries `error`."""
    first = attempt(requests)
    out: list[Generation] = []
    retry: list[int] = []
    errors: dict[int, str] = {}
    for i, (req, gen) in enumerate(zip(requests, first, strict=True)):
        if req.schema is None or gen.error is not None:  # a row the backend already gave up on
            out.append(gen)
            continue
        value = _validated(req.schema, gen, req.max_tokens)
        if isinstance(value, BaseModel):
            out.append(Generation(gen.text, value, gen.stats, gen.finish_reason))
            continue
        log.info("invalid %s reply in a batch (%s); one repair attempt", req.schema.__name__, value)
        out.append(gen)
        retry.append(i)
        errors[i] = value
    if not retry:
        return out
    repairs = [
        replace(requests[i], segments=repair_prompt(requests[i].segments, first[i].text, errors[i]))
        for i in retry
    ]
    for i, second in zip(retry, attempt(repairs), strict=True):
        schema = requests[i].schema
        assert schema is not None
        stats = first[i].stats + second.stats
        result = _validated(schema, second, requests[i].max_tokens)
        if isinstance(result, BaseModel):
            out[i] = Generation(second.text, result, stats, second.finish_reason)
        else:
            message = (
                f"the model gave no valid {schema.__name__} JSON, even after one repair attempt: "
                f"{result}"
            )
            out[i] = Generation(second.text, None, stats, second.finish_reason, error=message)
    return out


def repairs_in(generations: Iterable[Generation]) -> int:
    """How many repair attempts these results took (a repaired result sums two calls' stats)."""
    return sum(max(0, g.stats.calls - 1) for g in generations)


def _validated(schema: type[BaseModel], generation: Generation, max_tokens: int) -> BaseModel | str:
    """The validated value, or what is wrong with the reply (for the repair prompt)."""
    if generation.finish_reason == "length":
        return f"the reply was cut off after {max_tokens} tokens before the JSON was complete"
    try:
        return parse_structured(schema, generation.text)
    except GenerationError as exc:
        return exc.message


def strict_json_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema sent to the grammar compiler (and HTTP servers): no undeclared keys."""
    doc = copy.deepcopy(json_schema_for(schema))
    _forbid_extra_keys(doc)
    return doc


def _forbid_extra_keys(node: Any) -> None:
    if isinstance(node, dict):
        is_object = node.get("type") == "object" or "properties" in node
        if is_object and "additionalProperties" not in node:
            node["additionalProperties"] = False
        for value in node.values():
            _forbid_extra_keys(value)
    elif isinstance(node, list):
        for value in node:
            _forbid_extra_keys(value)


@lru_cache(maxsize=64)
def grammar_for(schema: type[BaseModel]) -> str:
    """llguidance grammar for `schema` (compact JSON: no whitespace between tokens)."""
    import llguidance

    doc = strict_json_schema(schema)
    grammar: str = llguidance.LLMatcher.grammar_from_json_schema(
        json.dumps(doc), defaults={"whitespace_flexible": False}
    )
    is_error, messages = llguidance.LLMatcher.validate_grammar_with_warnings(grammar)
    if is_error:
        raise BackendError(
            f"the {schema.__name__} schema cannot be turned into a grammar: {messages[0]}",
            hint="Simplify the schema (llguidance supports most of JSON Schema draft 2020-12).",
        )
    return grammar


class GrammarTokenizer:
    """llguidance's view of one tokenizer; building it costs ~1-2 s, so keep one per model."""

    def __init__(self, backend_tokenizer: Any, *, n_vocab: int, eos_ids: Iterable[int]) -> None:
        import llguidance

        eos = sorted({int(i) for i in eos_ids})
        if not eos:
            raise BackendError("the model's tokenizer has no end-of-sequence token")
        # Serializing a copy leaves the caller's padding/truncation settings alone.
        tok = copy.copy(backend_tokenizer)
        tok.no_padding()
        tok.no_truncation()
        self.n_vocab = n_vocab
        self.ll_tokenizer = llguidance.LLTokenizer(tok.to_str(), n_vocab=n_vocab, eos_token=eos)

    def matcher(self, schema: type[BaseModel]) -> JsonMatcher:
        return JsonMatcher(self, grammar_for(schema), schema.__name__)


class JsonMatcher:
    """The grammar state of one generation: what may come next, and what is forced."""

    def __init__(self, tokenizer: GrammarTokenizer, grammar: str, name: str) -> None:
        import llguidance

        self._name = name
        self._n_vocab = tokenizer.n_vocab
        import numpy as np

        self._matcher = llguidance.LLMatcher(tokenizer.ll_tokenizer, grammar, log_level=0)
        self._bitmask = np.zeros((1, (tokenizer.n_vocab + 31) // 32), dtype=np.int32)
        self._check()

    def _check(self) -> None:
        if self._matcher.is_error():
            raise GenerationError(
                f"constrained decoding for the {self._name} schema failed: "
                f"{self._matcher.get_error()}"
            )

    @property
    def done(self) -> bool:
        """The JSON value is complete: only end-of-sequence may follow."""
        return bool(self._matcher.is_stopped())

    @property
    def accepting(self) -> bool:
        return bool(self._matcher.is_accepting())

    def forced_tokens(self) -> list[int]:
        """Tokens the grammar fixes from here on (not yet consumed)."""
        if self._matcher.is_stopped():
            return []
        return list(self._matcher.compute_ff_tokens())

    def allowed(self) -> np.ndarray:
        """Boolean mask over the vocabulary of the tokens allowed next."""
        import numpy as np
        from llguidance.numpy import fill_next_token_bitmask

        fill_next_token_bitmask(self._matcher, self._bitmask)
        self._check()
        bits = np.unpackbits(self._bitmask.view(np.uint8), bitorder="little")
        return bits[: self._n_vocab].astype(bool)

    def consume(self, tokens: Sequence[int]) -> None:
        self._matcher.consume_tokens(list(tokens))
        self._check()
