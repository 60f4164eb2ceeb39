"""The JSON the model may produce for one batch of episodes, as a pydantic model built per call.

Block ids (`e2p3`: episode 2, block p3), pattern names (candidates code found) and target ids
(`t4`) are enums of what was shown, so a constrained decoder can only cite real blocks and name
recurring terms; code attaches the text. Lengths are capped and no extra keys are allowed:
output tokens are what a consolidation costs on CPU.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import ConfigDict, Field, create_model

DIGEST_ITEMS = 3
DIGEST_CHARS = 160
PATTERNS_MAX = 3
STATEMENT_CHARS = 160
CHANGE_CHARS = 140
NEW_TARGET = "new"
STRICT = ConfigDict(extra="forbid")


def _enum(ids: Sequence[str]) -> Any:
    return Literal[tuple(ids)] if ids else Literal["none"]


def batch_model(block_ids: Sequence[str], names: Sequence[str], target_ids: Sequence[str]) -> Any:
    """{digest: [{text, cites}], patterns: [{name, statement, target, changed}]}."""
    block: Any = _enum(block_ids)
    item = create_model(
        "DigestItem",
        __config__=STRICT,
        text=(str, Field(min_length=10, max_length=DIGEST_CHARS)),
        cites=(list[block], Field(min_length=1, max_length=3)),
    )
    change = create_model(
        "Change",
        __config__=STRICT,
        before=(block, ...),
        after=(block, ...),
        how=(str, Field(min_length=5, max_length=CHANGE_CHARS)),
    )
    pattern = create_model(
        "Pattern",
        __config__=STRICT,
        name=(_enum(names), ...),
        statement=(str, Field(min_length=10, max_length=STATEMENT_CHARS)),
        target=(_enum([*target_ids, NEW_TARGET]), ...),
        changed=(change | None, ...),
    )
    return create_model(
        "Consolidation",
        __config__=STRICT,
        digest=(list[item], Field(min_length=1, max_length=DIGEST_ITEMS)),
        patterns=(list[pattern], Field(max_length=PATTERNS_MAX if names else 0)),
    )
