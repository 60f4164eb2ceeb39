"""Checks in code that keep what a small model proposes tied to the source text.

A topic must be named in the source; a fact belongs to a topic only if its sentence names the
topic; a summary must be made of words from what it summarises. Entity versus concept is read
off the source's capitalisation where the model's label disagrees with it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from wikic.language.abbreviations import abbreviates
from wikic.language.stopwords import NEGATIONS, STOP_STEMS, STOP_WORDS
from wikic.vault.names import name_key

# names a model copies from the instructions instead of the source
GENERIC_NAMES = {
    "entity", "entities", "concept", "concepts", "topic", "topics", "source", "sources",
    "document", "documents", "wiki", "page", "pages", "prompt", "text", "name", "names",
    "fact", "facts", "summary", "title", "example", "thing", "things", "idea", "ideas",
    "method", "methods", "phenomenon", "section", "sentence", "none", "unknown",
}  # fmt: skip
_LEADING = {
    "the", "a", "an", "this", "that", "these", "those", "most", "some", "many", "all", "each",
    "every", "our", "its", "their", "his", "her", "any", "several", "such",
}  # fmt: skip
_WORD_RE = re.compile(r"\w+")
_EDGE_PUNCTUATION = " .,:;\"'`"
_PAIRS = {"(": ")", "[": "]"}
_ABBREVIATION_RE = re.compile(r"(.+?\w)\s*\(([A-Za-z_][\w.-]{0,11})\)")
MAX_NAME_WORDS = 6


def clean_name(name: str) -> str | None:
    """The topic name without leading articles and quantifiers; None if nothing specific is left."""
    words = _trim_edges(" ".join(name.split())).split(" ")
    while len(words) > 1 and words[0].casefold() in _LEADING:
        words = words[1:]
    cleaned = " ".join(words)
    key = name_key(cleaned)
    if not key or key in {name_key(g) for g in GENERIC_NAMES} or len(words) > MAX_NAME_WORDS:
        return None
    if not any(c.isalpha() for c in cleaned):
        return None
    return cleaned


def _balanced(text: str) -> bool:
    return _unmatched_opener(text) is None


def _unmatched_opener(text: str) -> int | None:
    """The index of the last bracket that opens and is never closed (or of a stray closer)."""
    stack: list[int] = []
    for i, c in enumerate(text):
        if c in _PAIRS:
            stack.append(i)
        elif c in _PAIRS.values():
            if not stack or _PAIRS[text[stack[-1]]] != c:
                return i
            stack.pop()
    return stack[-1] if stack else None


def _trim_edges(text: str) -> str:
    """`text` without edge punctuation; a bracket goes only when it is unmatched or wraps the
    whole name, so "Reclamation (QSBR)" keeps its ")" and "(QSBR" loses its "("."""
    while True:
        before = text
        text = text.strip(_EDGE_PUNCTUATION)
        if text[:1] in _PAIRS and text.endswith(_PAIRS[text[0]]) and _balanced(text[1:-1]):
            text = text[1:-1]
        elif text[:1] in _PAIRS and not _balanced(text) and _balanced(text[1:]):
            text = text[1:]
        elif text[-1:] in _PAIRS.values() and not _balanced(text) and _balanced(text[:-1]):
            text = text[:-1]
        if text == before:
            break
    cut = _unmatched_opener(text)
    while cut is not None:  # "Reclamation (QSBR": the parenthetical was cut off
        text = text[:cut].rstrip(_EDGE_PUNCTUATION)
        cut = _unmatched_opener(text)
    return text


def split_abbreviation(name: str) -> tuple[str, tuple[str, ...]]:
    """ "Byte pair encoding (BPE)" → ("Byte pair encoding", ("BPE",)): a parenthetical that is
    another name for the rest (`related`: "Lite Transaction Files (LTX)") becomes an alias;
    any other ("SentencePiece (Unigram)") stays."""
    m = _ABBREVIATION_RE.fullmatch(name)
    if m and related(m.group(2), m.group(1)):
        return m.group(1), (m.group(2),)
    return name, ()


# the endings that inflect an English word: "lock" / "locks", "locked", "locking"
INFLECTIONS = frozenset({"s", "es", "d", "ed", "ing", "ings"})


def word_keys(text: str) -> list[str]:
    """The words of `text` as name keys: case, accents and plurals do not count."""
    return [name_key(w) for w in _WORD_RE.findall(text)]


def _spelled(text: str) -> list[tuple[str, str]]:
    """The words of `text` as (name key, the word case-folded)."""
    return [(name_key(w), w.casefold()) for w in _WORD_RE.findall(text)]


def same_word(a: str, b: str) -> bool:
    """Whether two case-folded words of one name key are one word inflected ("lock" /
    "locking" / "locked", "cache" / "caching", "policy" / "policies", "log" / "logging"), not
    two words Snowball stems alike ("specific" / "specification", both `specif`; "activate"
    / "activity"): taking one of `INFLECTIONS` off each (a doubled last letter undone, an
    "e" put back, "i" made "y") leaves a form the two share. English only, like the stemmer."""
    return a == b or not _bases(a).isdisjoint(_bases(b))


def _bases(word: str) -> set[str]:
    out = {word}
    for ending in INFLECTIONS:
        base = word[: -len(ending)]
        if not word.endswith(ending) or len(base) < 2:
            continue
        out |= {base, base + "e"}
        if base[-1] == base[-2]:
            out.add(base[:-1])  # "logging"
        if base.endswith("i"):
            out.add(base[:-1] + "y")  # "policies"
    return out


def _run_at(words: Sequence[tuple[str, str]], i: int, wanted: Sequence[tuple[str, str]]) -> bool:
    return all(
        k == wk and same_word(w, ww)
        for (k, w), (wk, ww) in zip(words[i : i + len(wanted)], wanted, strict=True)
    )


def _content(words: Iterable[str]) -> set[str]:
    """The words (keys) that say something: not stop words, but negations ("--no-stream")."""
    return {w for w in words if w and (w not in STOP_STEMS or w in NEGATIONS)}


def content_words(text: str) -> set[str]:
    """The content words of `text` as `mentions` compares them (case- and plural-folded, no
    articles or prepositions): computed once, tested against many names."""
    return _content(word_keys(text))


def names_in(names: Sequence[str], text: str) -> bool:
    """Whether one of `names` occurs in `text` as a run of words (case- and plural-insensitive)."""
    words = _spelled(text)
    for name in names:
        wanted = _spelled(name)
        n = len(wanted)
        if n and any(_run_at(words, i, wanted) for i in range(len(words) - n + 1)):
            return True
    return False


def mentions(names: Sequence[str], sentence: str) -> bool:
    """Whether `sentence` names the topic: all content words of one name appear in it, each
    as the same word (`same_word`), not only the same stem."""
    present: dict[str, set[str]] = {}
    for key, word in _spelled(sentence):
        present.setdefault(key, set()).add(word)
    for name in names:
        wanted = [(k, w) for k, w in _spelled(name) if k in _content([k])]
        if wanted and all(
            k in present and any(same_word(w, p) for p in present[k]) for k, w in wanted
        ):
            return True
    return False


def related(alias: str, name: str) -> bool:
    """Whether `alias` can be another name for `name`: they share a content word, or one is
    the initials of the other (KV / key value) or its abbreviation (`abbreviations.abbreviates`:
    TXID / transaction ID, a page whose alias had been dropped). A small model's aliases are
    often just neighbouring topics; those would merge distinct pages."""
    a, n = _content(word_keys(alias)), _content(word_keys(name))
    if a & n:
        return True

    def initials(words: str) -> str:
        return "".join(w[0] for w in _WORD_RE.findall(words.casefold()))

    flat_a, flat_n = alias.replace(" ", "").casefold(), name.replace(" ", "").casefold()
    if len(flat_a) > 1 and (flat_a == initials(name) or flat_n == initials(alias)):
        return True
    if abbreviates(alias, name) or abbreviates(name, alias):  # TXID of "transaction ID"
        return True
    if alias.startswith("-") and name.startswith("-"):  # `-t` of `--threads`, `-ctk`
        short, long = sorted((flat_a.lstrip("-"), flat_n.lstrip("-")), key=len)
        if short and (long.startswith(short) or short == initials(long.replace("-", " "))):
            return True
    return _abbreviates(alias, name) or _abbreviates(name, alias)


def _abbreviates(short: str, name: str) -> bool:
    """`wr_seq` of "Global Write Sequence", `rd_seq` of "Global Read Sequence": each part of
    `short` is a shortening of a word of `name` (same first letter, then letters of it in
    order), the parts in the name's order, covering at least half of its content words."""
    parts = [p for p in re.split(r"[\s_.-]+", short.casefold()) if p]
    words = [w for w in _WORD_RE.findall(name.casefold().replace("_", " ")) if w not in STOP_WORDS]
    if len(parts) < 2 or 2 * len(parts) < len(words):
        return False
    i = 0
    for part in parts:
        while i < len(words) and not _shortens(part, words[i]):
            i += 1
        if i == len(words):
            return False
        i += 1
    return True


def _shortens(part: str, word: str) -> bool:
    if len(part) < 2 or len(part) > len(word) or part[0] != word[0]:
        return False
    rest = iter(word[1:])
    return all(c in rest for c in part[1:])


def guess_type(name: str, source_text: str, proposed: str) -> str:
    """`entity` for names the source capitalises mid-sentence (proper nouns), `concept` for
    names it writes in lower case; the model's label when the source never shows either."""
    pattern = re.compile(r"(?<![.!?:\n#-]\s)(?<!^)\b" + re.escape(name) + r"\b", re.IGNORECASE)
    capital = lower = 0
    for m in pattern.finditer(source_text):
        before = source_text[max(0, m.start() - 2) : m.start()]
        if m.start() == 0 or re.search(r"[.!?:\n#]\s*$", before):
            continue  # sentence start: capitalised anyway
        alpha_words = [w for w in m.group(0).split() if w[:1].isalpha()]
        if any(w[0].islower() for w in alpha_words):
            lower += 1
        elif alpha_words:
            capital += 1
    if capital and not lower:
        return "entity"
    if lower and not capital:
        return "concept"
    return proposed


def grounded(summary: str, reference: str, *, share: float = 0.7) -> bool:
    """Whether most content words of `summary` occur in `reference`."""
    words = _content(word_keys(summary))
    if not words:
        return False
    known = set(word_keys(reference))
    return len(words & known) / len(words) >= share
