"""Candidate patterns found by code: words and two-word phrases that recur across episodes.

The model chooses among these names (an enum), so it cannot promote something no two episodes
share; the evidence of a chosen name is every block that contains it, found by code. Titles of
suggested pages an episode mentions are candidates too, so a pattern seen in earlier periods
keeps collecting episodes.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from wikic.consolidate.episodes import Episode, EpisodeBlock
from wikic.consolidate.targets import Target
from wikic.consolidate.words import keys
from wikic.language.stopwords import QUERY_STOP_WORDS

MAX_CANDIDATES = 12
_TOKEN_RE = re.compile(r"[^\W_][\w.+-]*[^\W_]|[^\W_]")
# Words too common in notes to name a pattern by themselves (besides the stop words).
_COMMON_TEXT = """
again today yesterday tomorrow morning afternoon evening night week weeks day days time times
still even yet already first last next new old another less much many good bad better worse
great little long short high low big small whole half part parts went go goes going gone came
come comes coming took take takes taking made make makes making got get gets getting put puts
said say says saw see sees seen looked look looks found find finds used use uses using tried
try tries work works worked working done thing things way ways lot lots bit kind sort case
point fact number around back away down before since because though although however instead
really quite maybe perhaps probably almost every either neither none whose without within onto
below between among fix fixed fixes fixing need needed needs start started starts stop stopped
help helped helps
"""
_COMMON = frozenset(_COMMON_TEXT.split())


_NOT_TERMS = QUERY_STOP_WORDS | _COMMON


@dataclass(frozen=True)
class Candidate:
    name: str  # as the notes write it
    key: tuple[str, ...]  # comparison keys of its words
    episodes: int  # distinct episodes of the batch that contain it
    known: Target | None = None  # the existing page or section it names: not a coincidence


def is_term_word(key: str) -> bool:
    """Whether a word key can name (part of) a pattern: not a stopword or an everyday word."""
    return _is_word(key)


def _pair(a: str, b: str) -> bool:
    """Two words that make a phrase: both term words, or a term word and a number (port 8080)."""
    return (_is_word(a) and (_is_word(b) or b.isdigit())) or (a.isdigit() and _is_word(b))


def _is_word(key: str) -> bool:
    return len(key) >= 3 and any(c.isalpha() for c in key) and key not in _NOT_TERMS


def contains(text: str, key: Sequence[str]) -> bool:
    """Whether `text` holds the words `key` in a row (case- and plural-insensitive)."""
    words = keys(text)
    n = len(key)
    return n > 0 and any(tuple(words[i : i + n]) == tuple(key) for i in range(len(words) - n + 1))


def blocks_with(
    episodes: Iterable[Episode], key: Sequence[str]
) -> list[tuple[Episode, EpisodeBlock]]:
    return [(ep, b) for ep in episodes for b in ep.blocks if contains(b.text, key)]


def find_candidates(
    episodes: Sequence[Episode], *, targets: Sequence[Target] = (), min_episodes: int = 2
) -> list[Candidate]:
    """Terms in at least `min_episodes` episodes, most widespread first, then the names of
    `targets` some episode mentions. A phrase replaces its words when in as many episodes."""
    seen: dict[tuple[str, ...], set[int]] = defaultdict(set)
    forms: dict[tuple[str, ...], Counter[str]] = defaultdict(Counter)
    for i, ep in enumerate(episodes):
        for block in ep.blocks:
            tokens = _TOKEN_RE.findall(block.text)
            ks = [keys(t)[0] if keys(t) else "" for t in tokens]
            for j, k in enumerate(ks):
                if _is_word(k):
                    seen[(k,)].add(i)
                    forms[(k,)][tokens[j]] += 1
                if j + 1 < len(ks) and _pair(k, ks[j + 1]):
                    pair = (k, ks[j + 1])
                    seen[pair].add(i)
                    forms[pair][f"{tokens[j]} {tokens[j + 1]}"] += 1
    recurring = {k: len(v) for k, v in seen.items() if len(v) >= min_episodes}
    covered = {
        word
        for key, n in recurring.items()
        if len(key) == 2
        for word in key
        if recurring.get((word,)) == n and seen[(word,)] == seen[key]
    }
    ranked = sorted(
        (k for k in recurring if not (len(k) == 1 and k[0] in covered)),
        key=lambda k: (-recurring[k], -len(k), " ".join(k)),
    )
    found = [
        Candidate(forms[k].most_common(1)[0][0], k, recurring[k]) for k in ranked[:MAX_CANDIDATES]
    ]
    for target in targets:
        for name in target.names:
            key = tuple(keys(name))
            if not key or any(c.key == key and c.known for c in found):
                continue
            n = sum(1 for ep in episodes if any(contains(b.text, key) for b in ep.blocks))
            if n:
                found = [c for c in found if c.key != key]
                found.append(Candidate(name, key, n, known=target))
    return found
