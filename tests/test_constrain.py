"""Schema grammars (llguidance) and the validate-then-repair-once rule; no mlx needed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field

from tests.helpers.tiny_tokenizer import build_tokenizer
from wikic.errors import BackendError, GenerationError
from wikic.llm.backend import Generation, GenerationStats, Segment, user
from wikic.llm.constrain import (
    GrammarTokenizer,
    JsonMatcher,
    generate_structured,
    grammar_for,
    strict_json_schema,
)

N_VOCAB = 320  # the tiny models' logits: more than the tokenizer's 266 ids


class Entity(BaseModel):
    name: str = Field(max_length=8)
    kind: Literal["person", "place"]


class Extraction(BaseModel):
    title: str = Field(max_length=12)
    entities: list[Entity] = Field(max_length=2)
    score: int = Field(ge=0, le=9)


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    a: int


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from transformers import PreTrainedTokenizerFast

    return PreTrainedTokenizerFast.from_pretrained(
        str(build_tokenizer(tmp_path_factory.mktemp("tok")))
    )


@pytest.fixture(scope="module")
def grammar_tokenizer(tokenizer: Any) -> GrammarTokenizer:
    eos = tokenizer.convert_tokens_to_ids("<|im_end|>")
    return GrammarTokenizer(tokenizer.backend_tokenizer, n_vocab=N_VOCAB, eos_ids=[eos])


def _feed(matcher: JsonMatcher, tokenizer: Any, text: str) -> int:
    """How many tokens of `text` the grammar accepts, consuming them one at a time."""
    ids = tokenizer.encode(text, add_special_tokens=False)
    for n, token in enumerate(ids):
        if not matcher.allowed()[token]:
            return n
        matcher.consume([token])
    return len(ids)


def test_strict_schema_forbids_undeclared_keys_everywhere() -> None:
    doc = strict_json_schema(Extraction)
    assert doc["additionalProperties"] is False
    assert doc["$defs"]["Entity"]["additionalProperties"] is False
    assert doc["properties"]["title"]["maxLength"] == 12
    assert doc["properties"]["entities"]["maxItems"] == 2
    assert strict_json_schema(Open)["additionalProperties"] is True  # explicit choice kept
    assert "additionalProperties" not in Extraction.model_json_schema()  # source untouched


def test_valid_json_is_accepted_and_completes(
    grammar_tokenizer: GrammarTokenizer, tokenizer: Any
) -> None:
    text = '{"title":"Paris","entities":[{"name":"Ada","kind":"person"}],"score":7}'
    matcher = grammar_tokenizer.matcher(Extraction)
    assert _feed(matcher, tokenizer, text) == len(tokenizer.encode(text, add_special_tokens=False))
    assert matcher.done and matcher.accepting
    allowed = matcher.allowed()
    assert allowed.shape == (N_VOCAB,)
    assert set(allowed.nonzero()[0]) == {tokenizer.convert_tokens_to_ids("<|im_end|>")}


@pytest.mark.parametrize(
    "bad",
    [
        '{"title":"far too long a title"',  # maxLength
        '{"title":"x","entities":[{"name":"a","kind":"person"},{"name":"b","kind":"place"},',
        '{"title":"x","extra":1',  # additionalProperties: false
        '{"title":"x","entities":[{"name":"a","kind":"robot"',  # enum
        '{"title":"x","entities":[],"score":10',  # maximum
        '{ "title":"x"',  # no free whitespace
    ],
)
def test_grammar_rejects_out_of_limits(
    grammar_tokenizer: GrammarTokenizer, tokenizer: Any, bad: str
) -> None:
    matcher = grammar_tokenizer.matcher(Extraction)
    assert _feed(matcher, tokenizer, bad) < len(tokenizer.encode(bad, add_special_tokens=False))


def test_forced_tokens_spell_the_fixed_prefix(
    grammar_tokenizer: GrammarTokenizer, tokenizer: Any
) -> None:
    matcher = grammar_tokenizer.matcher(Extraction)
    forced = matcher.forced_tokens()
    assert forced, "the opening of a schema with a required first key is forced"
    assert '{"title":"'.startswith(tokenizer.decode(forced))
    assert len(tokenizer.decode(forced)) >= len('{"title')
    matcher.consume(forced)
    assert not matcher.allowed()[300]  # ids past the tokenizer never allowed


def test_unsupported_schema_is_a_clear_error() -> None:
    class Weird(BaseModel):
        a: int = Field(json_schema_extra={"not": {"const": 3}})

    with pytest.raises(BackendError, match="Weird schema cannot be turned into a grammar"):
        grammar_for(Weird)


def test_grammar_tokenizer_needs_an_eos(tokenizer: Any) -> None:
    with pytest.raises(BackendError, match="end-of-sequence"):
        GrammarTokenizer(tokenizer.backend_tokenizer, n_vocab=N_VOCAB, eos_ids=[])


class _Attempts:
    """Scripted attempts: replies in order, recording the prompts."""

    def __init__(self, *replies: tuple[str, Literal["stop", "length"]]) -> None:
        self.replies = list(replies)
        self.prompts: list[list[Segment]] = []

    def __call__(self, segments: Sequence[Segment]) -> Generation:
        self.prompts.append(list(segments))
        text, finish = self.replies.pop(0)
        return Generation(text, None, GenerationStats(generated_tokens=len(text)), finish)


GOOD = '{"title":"t","entities":[],"score":1}'


def test_valid_reply_needs_no_repair() -> None:
    attempts = _Attempts((GOOD, "stop"))
    result = generate_structured(attempts, [user("go")], Extraction, 50)
    assert isinstance(result.value, Extraction) and result.value.score == 1
    assert result.stats.calls == 1 and len(attempts.prompts) == 1


def test_invalid_reply_gets_one_repair() -> None:
    attempts = _Attempts(('{"title":"t"}', "stop"), (GOOD, "stop"))
    result = generate_structured(attempts, [user("go")], Extraction, 50)
    assert result.text == GOOD and result.value is not None
    assert result.stats.calls == 2
    repair = attempts.prompts[1]
    assert repair[:1] == [user("go")] and "entities" in repair[-1].text


def test_truncated_reply_is_repaired_then_fails_clearly() -> None:
    attempts = _Attempts(('{"title":"t","ent', "length"), ('{"title', "length"))
    with pytest.raises(GenerationError, match=r"even after one repair attempt.*cut off after 9"):
        generate_structured(attempts, [user("go")], Extraction, 9)
    assert "cut off" in attempts.prompts[1][-1].text


def test_no_second_repair() -> None:
    attempts = _Attempts(("nope", "stop"), ("still nope", "stop"), (GOOD, "stop"))
    with pytest.raises(GenerationError) as info:
        generate_structured(attempts, [user("go")], Extraction, 50)
    assert len(attempts.prompts) == 2
    assert info.value.hint and "larger model" in info.value.hint


def test_grammar_is_compiled_once_per_schema() -> None:
    assert grammar_for(Extraction) is grammar_for(Extraction)
