"""Whether a shown unit supports a sentence of the answer: shared content words, and every
number and code token of the sentence held by the units it cites.

Small models list ids loosely (`[1, 2, 3]` for a sentence copied from fact 4). A cited unit that
shares no content with its sentence is dropped from it; a sentence whose cited units do not hold
it is credited to the one shown unit that does (most of its words and all of its numbers and
code tokens), or else marked as inference. Citations still only ever point at shown units.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from wikic.language.stemming import stem
from wikic.language.stopwords import QUERY_STOP_WORDS, QUESTION_WORDS
from wikic.query.evidence import Shown, words
from wikic.query.terms import (
    KeyTerm,
    amount_owners,
    holds,
    key_terms,
    missing_terms,
    qualifiers,
    states_quantity,
    text_words,
)

MIN_SHARED = 2  # a cited unit sharing fewer content words (or all, if fewer) is no support
MIN_SHARE = 0.6  # an uncited sentence is credited to a unit holding this share of its words
UNIT_SHARE = 0.3  # a cited unit holding less of the sentence was named loosely
MIN_COVER = 0.5  # the kept units together must hold this share of the sentence


def stems(text: str) -> set[str]:
    return {stem(w) for w in words(text) if len(w) >= 3 and w not in QUERY_STOP_WORDS}


def _shared(sentence: set[str], unit: Shown) -> int:
    return len(sentence & stems(f"{unit.evidence.heading} {unit.text}"))


def exact_terms(sentence: str) -> list[KeyTerm]:
    """The numbers and code tokens a sentence states: a citation must hold them verbatim."""
    return [t for t in key_terms(sentence) if t.kind in ("number", "code")]


def holds_terms(units: Sequence[Shown], terms: Sequence[KeyTerm]) -> list[KeyTerm]:
    """The `terms` none of `units` (text or page heading) holds."""
    return missing_terms(terms, [u.text for u in units] + [u.evidence.heading for u in units])


def supporting(sentence: str, cited: Sequence[Shown]) -> list[Shown]:
    """The cited units that hold a fair part of `sentence` (`UNIT_SHARE` of its content words,
    at least `MIN_SHARED`), when together they hold most of it (`MIN_COVER`); else none."""
    mine = stems(sentence)
    if not mine:
        return list(cited)
    need = max(min(MIN_SHARED, len(mine)), math.ceil(UNIT_SHARE * len(mine)))
    kept = [u for u in cited if _shared(mine, u) >= need]
    held = set().union(*(stems(f"{u.evidence.heading} {u.text}") for u in kept)) if kept else set()
    return kept if len(mine & held) >= MIN_COVER * len(mine) else []


def best_support(sentence: str, shown: Sequence[Shown]) -> Shown | None:
    """The citable shown unit that holds the sentence: all its numbers and code tokens and at
    least `MIN_SHARE` of its content words (the most, on a tie the first)."""
    mine = stems(sentence)
    if not mine:
        return None
    terms = exact_terms(sentence)
    best: tuple[float, Shown] | None = None
    for unit in shown:
        if not unit.id or holds_terms([unit], terms):
            continue
        share = _shared(mine, unit) / len(mine)
        if share >= MIN_SHARE and (best is None or share > best[0]):
            best = (share, unit)
    return best[1] if best else None


def untouched_topic(question: str, cited: Sequence[Shown]) -> list[str]:
    """The question's topic words (not names, numbers or code: those are checked against what
    was shown) when no cited unit shares any of them; [] when one does or there are none.
    "How much does an Ollama license cost?" answered from facts about Ollama's port cites
    units about the name, never about a license or a cost."""
    names = {w for t in key_terms(question) for w in t.words}
    topic = [
        w
        for w in dict.fromkeys(words(question))
        if len(w) >= 3 and w not in QUERY_STOP_WORDS and w not in QUESTION_WORDS and w not in names
    ]
    if not topic:
        return []
    held = (
        set().union(*(stems(f"{u.evidence.heading} {u.text}") for u in cited)) if cited else set()
    )
    return [] if any(stem(w) in held for w in topic) else topic


def _labelled(unit: Shown) -> str:
    """A unit's text with its page heading and section label (what it is said about)."""
    return " ".join((unit.evidence.heading, unit.evidence.section, unit.text))


def unowned_amount(question: str, stated: Sequence[tuple[str, Sequence[Shown]]]) -> list[KeyTerm]:
    """Whose amount the question asks for (`terms.amount_owners`: "Llama's", "than pdm") when
    no answer sentence states a number together with them; [] when one does or the question
    names no owner. `stated`: each answer sentence with the units it cites."""
    owners = amount_owners(question)
    if not owners:
        return []
    for text, cited in stated:
        where = [text, *(u.evidence.heading for u in cited)]
        if states_quantity(text) and not missing_terms(owners, where):
            return []
    return owners


def unmet_conditions(question: str, cited: Sequence[Shown]) -> list[KeyTerm]:
    """The names of the question's closing condition ("… stored on Windows?") that no cited
    unit states together with something else the question asks about. A fact about Docker
    that lists Windows among its platforms does not say where a database is kept on Windows."""
    conditions = qualifiers(question)
    if not conditions:
        return []
    asked = stems(question)
    others = [t for t in key_terms(question) if t not in conditions]

    def states(unit: Shown, term: KeyTerm) -> bool:
        text = _labelled(unit)
        hay = text_words([text])
        own = {stem(w) for w in term.words}
        return holds(hay, term) and bool(
            (stems(text) & asked) - own or any(holds(hay, t) for t in others)
        )

    return [t for t in conditions if not any(states(u, t) for u in cited)]
