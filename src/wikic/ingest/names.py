"""Topic names compared the way people mean them: case, punctuation, accents and a plural s
do not make two names different."""

from __future__ import annotations

import re
import unicodedata


def topic_key(name: str) -> str:
    """Case-, space- and punctuation-insensitive identity of a topic name."""
    words = re.findall(r"\w+", name.casefold())
    return " ".join(words)


def _stem(word: str) -> str:
    """A comparison key that a singular and its plural share (cache/caches, match/matches,
    entity/entities). Only ever compared, never shown."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("es"):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def match_key(name: str) -> str:
    """The key two names must share to be the same topic: NFKD without accents, lower-case,
    words only, the last word stemmed to its singular."""
    text = unicodedata.normalize("NFKD", name)
    text = "".join(c for c in text if not unicodedata.combining(c))
    words = topic_key(text).split()
    if words:
        words[-1] = _stem(words[-1])
    return " ".join(words)
