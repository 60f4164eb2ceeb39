"""A cheap, conservative contradiction check in code, next to the model's judgement.

Two facts conflict when they say nearly the same thing (most content words shared) but with
different numbers, or one negates what the other asserts. It catches the common case a small
model misses ("boils at 100 °C" vs "boils at 90 °C") and rarely fires otherwise.
"""

from __future__ import annotations

import re

from wikic.language.stopwords import NEGATIONS, STOP_WORDS

_NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)*")
# content words two facts must share to state one thing: "Added in 2.13.0." and "Added in
# 2.26.9." share one, and each is about its own section's feature (a lint of a compiled PDM
# page called them a contradiction)
MIN_SHARED_WORDS = 2
_WORD_RE = re.compile(r"[a-zA-Z\u00C0-\u024F]{3,}")


def _content_words(text: str) -> set[str]:
    return {w for w in (m.casefold() for m in _WORD_RE.findall(text)) if w not in STOP_WORDS}


def _negated(text: str) -> bool:
    words = set(re.findall(r"[a-z']+", text.casefold()))
    return bool(words & NEGATIONS) or any(w.endswith("n't") for w in words)


def may_conflict(a: str, b: str, subject: str, *, shared: int = 2) -> bool:
    """Whether facts `a` and `b` speak of one thing, so the model may judge them: they share at
    least `shared` content words besides the words of the page's `subject` ("The default
    isolation level is Read Committed" and "… is Repeatable Read" share default, isolation,
    level). Two facts that share fewer cannot state one claim two ways. English only."""
    words = _content_words(subject)
    return len((_content_words(a) & _content_words(b)) - words) >= shared


def conflict_reason(a: str, b: str, *, overlap: float = 0.6) -> str | None:
    """Why facts `a` and `b` look contradictory, or None."""
    wa, wb = _content_words(a) - NEGATIONS, _content_words(b) - NEGATIONS
    if len(wa & wb) < MIN_SHARED_WORDS:
        return None  # a statement that names nothing it is about (`MIN_SHARED_WORDS`)
    jaccard = len(wa & wb) / len(wa | wb)
    if jaccard < overlap:
        return None
    na, nb = set(_NUMBER_RE.findall(a)), set(_NUMBER_RE.findall(b))
    if na and nb and na != nb:
        only_a, only_b = ", ".join(sorted(na - nb)) or "-", ", ".join(sorted(nb - na)) or "-"
        return f"different numbers for the same statement ({only_a} vs {only_b})"
    if _negated(a) != _negated(b):
        return "one statement negates the other"
    return None
