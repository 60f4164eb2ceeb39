"""Word-level checks consolidation makes on what the model writes: is a sentence made of the
words of the blocks it cites, and do two names mean the same topic.

Case-, accent- and inflection-insensitive (`wikic.language.stemming`); stop words
(`wikic.language.stopwords`) never count as evidence.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from wikic.language.stemming import stem
from wikic.language.stopwords import STOP_STEMS

_WORD_RE = re.compile(r"[^\W_]+")


def keys(text: str) -> list[str]:
    """Words of `text` as comparison keys (lower case, no accents, stemmed)."""
    flat = unicodedata.normalize("NFKD", text)
    flat = "".join(c for c in flat if not unicodedata.combining(c)).casefold()
    return [stem(w) for w in _WORD_RE.findall(flat)]


def content(words: Iterable[str]) -> set[str]:
    return {w for w in words if w not in STOP_STEMS}


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
