"""The keys a page's name is indexed under besides its name key (`vault.names.name_key`): the
initials of a multi-word name and the capitals of an acronym, so an abbreviation finds its
expansion and back, and the blocks of its key's first and last characters that pool its close
spellings. `ingest.resolve.ConceptIndex` derives them in memory, `store.concepts` in the store:
one definition for both.
"""

from __future__ import annotations

import re

BLOCK = 3  # characters of a key's start and end that index its close spellings
_WORDS_RE = re.compile(r"\w+")
_SEPARATOR_RE = re.compile(r"[\W_]")
_ACRONYM_RE = re.compile(r"(?:[A-Z][a-z]?){2,7}s?")  # `WAL`, `MVCC`, `LoRA`, `MoE`, `SMRs`
# small words a name joins its words with, left out of its initials and word keys
JOINING_WORDS = frozenset({"of", "and", "for", "to", "in", "on", "the", "a", "an", "with", "by"})


def initials(name: str) -> str:
    """`write-ahead log` → `wal`, `Mixture of Experts` → `me`: the first letters of the words
    of a name of two or more words (small joining words left out), or ""."""
    if not _SEPARATOR_RE.search(name):
        return ""  # one word: the common case, answered without splitting it
    words = [
        w for w in _WORDS_RE.findall(name.replace("_", " ")) if w.casefold() not in JOINING_WORDS
    ]
    if len(words) < 2 or not all(w[0].isalpha() for w in words):
        return ""
    return "".join(w[0] for w in words).casefold()


def acronym(name: str) -> str:
    """`WAL` → `wal`, `LoRA` → `lra`, `SMRs` → `smr`: the capitals of an abbreviation, or ""."""
    if name.islower() or not _ACRONYM_RE.fullmatch(name):
        return ""
    capitals = [c for c in name if c.isupper()]
    return "".join(capitals).casefold() if len(capitals) >= 2 else ""
