"""Evolving understanding: a later sentence of a recurring item that takes back an earlier one
("raising max_tokens fixed it" → "raising max_tokens did not fix it after all").

The same check ingest runs on facts (`conflict_reason`: nearly the same words, and one negates
the other or the numbers differ), made on stemmed clauses, so "fixed" and "did not fix" compare
and one clause of a long sentence is enough. Code finds these; the model's reading is not needed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from wikic.consolidate.recurring import Unit, clauses
from wikic.consolidate.words import content, keys
from wikic.language.conflicts import conflict_reason
from wikic.language.stopwords import NEGATIONS

MIN_CLAUSE_WORDS = 3  # content words besides negations: fewer say a state, not a claim
_NOT_RE = re.compile(r"n['’]t\b", re.IGNORECASE)


@dataclass(frozen=True)
class Change:
    before: Unit
    after: Unit
    reason: str


def _stemmed(clause: str) -> str:
    return " ".join(keys(_NOT_RE.sub(" not", clause)))


def _says_enough(stemmed: str) -> bool:
    """Whether a clause says a claim ("raising max_tokens did not fix the truncated JSON")
    rather than a state of the day ("OpenBLAS was not preloaded")."""
    return len(content(stemmed.split()) - NEGATIONS) >= MIN_CLAUSE_WORDS


def takes_back(earlier: str, later: str) -> str | None:
    """Why sentence `later` says otherwise than `earlier` about the same thing, or None."""
    for a in clauses(earlier):
        sa = _stemmed(a)
        if not _says_enough(sa):
            continue
        for b in clauses(later):
            sb = _stemmed(b)
            if not _says_enough(sb):
                continue
            reason = conflict_reason(sa, sb)
            if reason:
                return reason
    return None


def changes(units: Sequence[Unit]) -> list[Change]:
    """Each sentence of a later day that takes back one of an earlier day (the latest such),
    in date order."""
    found = []
    for j, later in enumerate(units):
        for earlier in reversed(units[:j]):
            if earlier.episode.date >= later.episode.date:
                continue
            reason = takes_back(earlier.text, later.text)
            if reason:
                found.append(Change(earlier, later, reason))
                break
    return found
