"""The JSON the model may produce during ingest, as pydantic models built per call.

Ids the model can cite are enums of the ids actually shown to it, so a constrained decoder can
only emit real ones; every string and list has a length cap, and no extra keys are allowed.
Output tokens are the dominant cost on CPU, so the model names ids, never copies text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

STRICT = ConfigDict(extra="forbid")
TOPIC_NAME_CHARS = 60
ALIASES_MAX = 3
FACTS_PER_TOPIC = 4
REASON_CHARS = 120
PAGE_SUMMARY_CHARS = 300
CONTRADICTIONS_MAX = 3
TopicType: Any = Literal["entity", "concept"]
AliasText = Annotated[str, Field(min_length=1, max_length=TOPIC_NAME_CHARS)]


def _id_type(ids: Sequence[str]) -> Any:
    """A Literal of `ids` (an enum in the JSON schema); a never-matching str when empty."""
    if not ids:
        return Literal["none"]
    return Literal[tuple(ids)]


def extraction_model(
    sentence_ids: Sequence[str],
    *,
    max_topics: int,
    names: Sequence[str] = (),
) -> type[BaseModel]:
    """`names`: topic names prepared by code to choose from (free text when empty)."""
    fact_id: Any = _id_type(sentence_ids)
    name_type: Any = (
        Literal[tuple(names)]
        if names
        else Annotated[str, Field(min_length=2, max_length=TOPIC_NAME_CHARS)]
    )
    topic = create_model(
        "Topic",
        __config__=STRICT,
        name=(name_type, ...),
        type=(TopicType, ...),
        aliases=(list[AliasText], Field(max_length=ALIASES_MAX)),
        facts=(
            list[fact_id],
            Field(
                min_length=1 if sentence_ids else 0,
                max_length=FACTS_PER_TOPIC if sentence_ids else 0,
            ),
        ),
    )
    # at least one topic when there is something to cite: small models otherwise close the list
    topics = (
        list[topic],
        Field(min_length=1 if sentence_ids and max_topics else 0, max_length=max_topics),
    )
    return create_model("Extraction", __config__=STRICT, topics=topics)


class SummaryOnly(BaseModel):
    model_config = STRICT
    summary: str = Field(min_length=10, max_length=PAGE_SUMMARY_CHARS)


def source_summary_model(summary_chars: int) -> type[BaseModel]:
    return create_model(
        "SourceSummary",
        __config__=STRICT,
        summary=(str, Field(min_length=10, max_length=summary_chars)),
    )


def page_update_model(
    new_ids: Sequence[str], old_ids: Sequence[str], *, summary: bool = True
) -> type[BaseModel]:
    """Revise an existing page: contradictions new-vs-old, and with `summary` maybe a new
    summary ("" keeps the current one)."""
    pair = create_model(
        "Contradiction",
        __config__=STRICT,
        new=(_id_type(new_ids), ...),
        old=(_id_type(old_ids), ...),
        why=(str, Field(min_length=3, max_length=REASON_CHARS)),
    )
    fields: dict[str, Any] = {}
    if summary:
        fields["summary"] = (str, Field(max_length=PAGE_SUMMARY_CHARS))
    return create_model(
        "PageUpdate",
        __config__=STRICT,
        **fields,
        contradictions=(
            list[pair],
            Field(max_length=CONTRADICTIONS_MAX if new_ids and old_ids else 0),
        ),
    )
