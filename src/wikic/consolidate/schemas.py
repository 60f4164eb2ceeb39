"""The JSON the model may produce for one batch of episodes, as a pydantic model built per call.

Block ids (`e2p3`: episode 2, block p3), recurring item ids (`r1`: what code found recurring)
and target ids (`t4`) are enums of what was shown, so a constrained decoder can only cite real
blocks, speak of items code found and name targets it was offered; code attaches the text.
Lengths are capped and no extra keys are allowed: output tokens are what a consolidation costs
on CPU. A sentence the cap cuts is dropped by code, never written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import ConfigDict, Field, create_model

DIGEST_ITEMS = 5
DIGEST_CHARS = 200
PATTERNS_MAX = 4
NAME_CHARS = 90
STATEMENT_CHARS = 200
NEW_TARGET = "new"
STRICT = ConfigDict(extra="forbid")


def _enum(ids: Sequence[str]) -> Any:
    return Literal[tuple(ids)] if ids else Literal["none"]


def batch_model(
    block_ids: Sequence[str], pattern_ids: Sequence[str], target_ids: Sequence[str]
) -> Any:
    """{digest: [{text, cites}], patterns: [{id, name, statement, target}]}."""
    block: Any = _enum(block_ids)
    item = create_model(
        "DigestItem",
        __config__=STRICT,
        text=(str, Field(min_length=10, max_length=DIGEST_CHARS)),
        cites=(list[block], Field(min_length=1, max_length=3)),
    )
    pattern = create_model(
        "Pattern",
        __config__=STRICT,
        id=(_enum(pattern_ids), ...),
        name=(str, Field(min_length=1, max_length=NAME_CHARS)),
        statement=(str, Field(min_length=10, max_length=STATEMENT_CHARS)),
        target=(_enum([*target_ids, NEW_TARGET]), ...),
    )
    most = min(PATTERNS_MAX, len(pattern_ids))
    return create_model(
        "Consolidation",
        __config__=STRICT,
        digest=(list[item], Field(max_length=DIGEST_ITEMS)),
        patterns=(list[pattern], Field(max_length=most)),
    )
