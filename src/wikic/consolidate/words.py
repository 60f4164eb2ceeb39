"""Word-level checks consolidation makes on what the model writes: is a sentence made of the
words of the blocks it cites, and do two names mean the same topic.

Case-, accent- and plural-insensitive; stopwords never count as evidence.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

_WORD_RE = re.compile(r"[^\W_]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "with",
        "we",
        "our",
        "us",
        "i",
        "my",
        "me",
    ]
)


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def keys(text: str) -> list[str]:
    """Words of `text` as comparison keys (lower case, no accents, singular)."""
    flat = unicodedata.normalize("NFKD", text)
    flat = "".join(c for c in flat if not unicodedata.combining(c)).casefold()
    return [_stem(w) for w in _WORD_RE.findall(flat)]


def content(words: Iterable[str]) -> set[str]:
    return {w for w in words if w not in _STOP}


def grounded(text: str, reference: str, *, share: float = 0.7) -> bool:
    """Whether at least `share` of the content words of `text` occur in `reference`."""
    wanted = content(keys(text))
    if not wanted:
        return False
    return len(wanted & set(keys(reference))) / len(wanted) >= share


def name_key(name: str) -> str:
    """Two names with the same key name the same topic."""
    return " ".join(keys(name))


def overlap(a: str, b: str) -> int:
    return len(content(keys(a)) & content(keys(b)))
