"""How common a word is in general English, from `wordfreq`'s shipped word lists.

A plain word every text uses ("file", "version", "package", "data") names no concept of a
wiki's own, however often two sources of a theme write it; a word general English rarely
writes ("snapshot", "checkpoint", "checksum", "compaction") is a term of the field when a
document discusses it. `wordfreq` (maintained, its data inside the wheel, no network) gives each
word's Zipf frequency: log10 of its uses per billion words, 3 for once per million; an unknown
word is 0. English only, like the rest of ingest's reading of sentences.
"""

from __future__ import annotations

import functools

# a plain word less frequent than this in general English, in all its forms, is a term of its
# field: about 3 uses per million words ("snapshot" 3.4, "checksum" 2.3, "replication" 3.4;
# not "dependency" 3.5, "node" 3.9, "file" 4.8, "transaction" 4.2); 4.0 made "Dependencies"
# a page of 31 facts from five documents and paged no more expected topics (docs/topic-finders.md)
DOMAIN_ZIPF = 3.5


# a word more frequent than this is one of general English's commonest (100 uses per million
# words: "go" 6.0, "make" 6.1, "black" 5.5, "read" 5.5; not "poetry" 4.4, "bolt" 4.0)
COMMON_ZIPF = 5.0


@functools.lru_cache(maxsize=1 << 14)
def zipf(word: str) -> float:
    """`word`'s Zipf frequency in general English (0 for a word the lists lack)."""
    from wordfreq import zipf_frequency  # its lists load on first use (~0.1 s)

    return float(zipf_frequency(word, "en"))


def is_field_term(word: str, *, below: float = DOMAIN_ZIPF) -> bool:
    """Whether a plain word is rare in general English (`DOMAIN_ZIPF`), in every form it may
    be an inflection of: a term of its field ("snapshot", "checkpoints", "syncing"), not a
    word every text writes ("file", "version", "databases": "database" is common)."""
    return max(map(zipf, base_forms(word.casefold()))) < below


def is_coined(word: str) -> bool:
    """Whether general English's lists lack `word` in every form it may inflect: a name made
    for a thing ("fsync", "upsert", "lockfile", "bbolt"), precise however plainly it is
    written, unlike a plain word that is rare ("checksum" 2.3, "mmap" 1.3)."""
    return bool(word) and max(map(zipf, base_forms(word.casefold()))) == 0


def base_forms(word: str) -> set[str]:
    """`word` and the words it may inflect: "databases" → "database", "dependencies" →
    "dependency", "reduces" → "reduce", "locking" → "lock"."""
    forms = {word}
    for ending, bases in _ENDINGS:
        stem = word.removesuffix(ending)
        if stem != word and len(stem) >= 3:
            forms.update(stem + b for b in bases)
    return forms


# (ending, what the base may end with instead): plural and third-person -s, -ing, -ed
_ENDINGS = (("ies", ("y",)), ("es", ("", "e")), ("s", ("",)), ("ing", ("", "e")), ("ed", ("", "e")))


def capital_only(name: str, *, common: float = COMMON_ZIPF) -> bool:
    """Whether a name is one capitalised word that, in lower case, is among general English's
    commonest (`COMMON_ZIPF`): "Go" the language, "Black" the formatter. A sentence names it
    only with its capital; "has to go through" is no sentence about Go."""
    return (
        name.isalpha()
        and name[:1].isupper()
        and name[1:].islower()
        and zipf(name.casefold()) >= common
    )
