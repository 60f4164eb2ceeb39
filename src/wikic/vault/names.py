"""The one name rule, and matching page names with it: keys that ignore case, punctuation, articles and plurals; near-duplicates
within one edit; and "did you mean" candidates for a link target. All sub-quadratic.

Near-duplicates use deletion neighbourhoods: two keys within one edit share a key-minus-one-
character variant, so one pass over n keys of length L costs O(n·L) instead of O(n²) comparisons.
Edits that change a digit are not near-duplicates (`Llama 2` and `Llama 3` are different things).
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable

from wikic.language.stemming import stem
from wikic.language.stopwords import ARTICLES

_WORD_RE = re.compile(r"\w+")
NEAR_MIN_CHARS = 6
FUZZY_CUTOFF = 0.75


def name_key(text: str) -> str:
    """`The Prefix-Caches` → `prefixcach`: the key under which two names are the same topic.

    Accents, case, punctuation, spacing, articles and the ending of the name (the stem of its
    joined words: `wikic.language.stemming`) do not count. The one rule for ingest (topic → page), planning,
    lint (duplicates, missing pages) and page maintenance. Link resolution is not a name rule: it
    follows Obsidian's."""
    if not text.isascii():  # ASCII has no accents to drop: the common case, 5x faster
        text = unicodedata.normalize("NFKD", text)
        text = "".join(c for c in text if not unicodedata.combining(c))
    words = _WORD_RE.findall(text.casefold().replace("_", " "))
    kept = [w for w in words if w not in ARTICLES] or words
    # the joined words are stemmed, not the last one alone: "lock file", "lock-file" and
    # "lockfile" are one name (Snowball stems "lockfile" but not "file")
    return stem("".join(kept)) if kept else ""


def within_one_edit(a: str, b: str) -> bool:
    """Optimal-string-alignment distance ≤ 1 (one insertion, deletion, substitution or swap)."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        if a[i + 1 :] == b[i + 1 :]:
            return True
        return a[i : i + 2] == b[i : i + 2][::-1] and a[i + 2 :] == b[i + 2 :]
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    return longer[i + 1 :] == shorter[i:]


def _changes_digit(a: str, b: str) -> bool:
    """Whether the edit between `a` and `b` touches a digit (`nr3431` vs `nr4331`: it does)."""
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    j = 0
    while j < min(len(a), len(b)) - i and a[-1 - j] == b[-1 - j]:
        j += 1
    return any(c.isdigit() for c in a[i : len(a) - j] + b[i : len(b) - j])


def _changes_first_letter(a: str, b: str) -> bool:
    """Whether the edit between `a` and `b` replaces, adds or drops the first letter (`rqlite`
    vs `sqlite`: it does; `qrlite` vs `rqlite` swaps two letters: a misspelling)."""
    if not a or not b or a[0] == b[0]:
        return False
    return not (len(a) == len(b) and a[:2] == b[:2][::-1])


def numbers_differ(a: str, b: str) -> bool:
    """Whether two names (or keys) carry different numbers: "Tier 2 target" and "Tier 3 target",
    "GPT-3" and "GPT-4" are two things however alike they read."""
    return re.findall(r"\d+", a) != re.findall(r"\d+", b)


def near_duplicate(a: str, b: str) -> bool:
    """Whether two different keys are one name misspelt: within one edit of each other, the
    edit touching neither a digit nor the first letter (`near_duplicate_pairs`)."""
    return (
        a != b
        and within_one_edit(a, b)
        and not _changes_digit(a, b)
        and not _changes_first_letter(a, b)
    )


def first_letter_apart(a: str, b: str) -> bool:
    """Whether two keys are one edit apart at their first letter (`rqlite`/`sqlite`): two
    names, not a misspelling (`near_duplicate`)."""
    return a != b and within_one_edit(a, b) and _changes_first_letter(a, b)


def near_duplicate_pairs(keys: Iterable[str]) -> set[tuple[str, str]]:
    """Pairs of distinct keys (sorted) within one edit of each other, but an edit of a digit
    (`llama2`/`llama3`) or of the first letter (`rqlite`/`sqlite`, two products): a
    misspelling keeps a word's first letter far more often than not, two names of one family
    often differ there."""
    first: dict[str, str] = {}  # variant → the first key that has it
    more: dict[str, list[str]] = {}  # variant → every key that has it, once it has several
    for key in keys:
        if len(key) < NEAR_MIN_CHARS:
            continue
        for variant in {key, *(key[:i] + key[i + 1 :] for i in range(len(key)))}:
            seen = first.setdefault(variant, key)
            if seen != key:
                more.setdefault(variant, [seen]).append(key)
    pairs: set[tuple[str, str]] = set()
    for group in more.values():
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                if near_duplicate(a, b):
                    pairs.add((min(a, b), max(a, b)))
    return pairs


class NameIndex:
    """Candidate pages for a link target that resolves to nothing."""

    def __init__(self, names: Iterable[tuple[str, str]]) -> None:
        """`names`: (name, page path) for every page name, stem, title and alias."""
        self._by_key: dict[str, set[str]] = defaultdict(set)
        for name, path in names:
            key = name_key(name)
            if key:
                self._by_key[key].add(path)
        self._grams: dict[str, set[str]] | None = None

    def exact(self, target: str) -> set[str]:
        """Pages one of whose names has the same key as the target's last path segment."""
        return set(self._by_key.get(name_key(target.rsplit("/", 1)[-1]), set()))

    def similar(self, target: str, limit: int = 3) -> list[str]:
        """Up to `limit` page paths with names close to `target` (best first)."""
        key = name_key(target.rsplit("/", 1)[-1])
        if len(key) < 3:
            return []
        grams = self._trigram_index()
        shared: Counter[str] = Counter()
        for gram in _trigrams(key):
            shared.update(grams.get(gram, ()))
        pool = [k for k, _ in shared.most_common(50)]
        close = difflib.get_close_matches(key, pool, n=limit, cutoff=FUZZY_CUTOFF)
        found: list[str] = []
        for k in close:
            for path in sorted(self._by_key[k]):
                if path not in found:
                    found.append(path)
        return found[:limit]

    def _trigram_index(self) -> dict[str, set[str]]:
        if self._grams is None:
            grams: dict[str, set[str]] = defaultdict(set)
            for key in self._by_key:
                for gram in _trigrams(key):
                    grams[gram].add(key)
            self._grams = grams
        return self._grams


def _trigrams(key: str) -> set[str]:
    padded = f"  {key} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}
