"""Name rules: whether two names are one thing, two members of a series, or one a narrower
thing of the other. Ingest's concept index, its twin folding and lint's `twin-facts` rule ask
the same questions, so the answers live here, below all of them. English names.
"""

from __future__ import annotations

import re

from wikic.language.commands import is_code_like
from wikic.vault.name_keys import JOINING_WORDS, acronym, initials
from wikic.vault.names import first_letter_apart, name_key, numbers_differ

_WORDS_RE = re.compile(r"\w+")
_COMPONENTS_RE = re.compile(r"[.\s/:]+|::")
_CAMEL_RE = re.compile(r"[a-z][A-Z]")  # `PyDictKeysObject`: a capital inside a word
_IDENTIFIER_RE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_VERSION_RE = re.compile(r"v?\d+(?:\.\d+)*[a-z]?", re.IGNORECASE)


def _tokens(name: str) -> list[str]:
    return re.findall(r"[A-Za-z]+|\d+(?:\.\d+)*", name.replace("_", " "))


def _letter_like(a: str, b: str) -> bool:
    """Two words that name members of one series: versions, single letters, acronyms."""
    return (
        bool(_VERSION_RE.fullmatch(a) and _VERSION_RE.fullmatch(b))
        or (len(a) == 1 and len(b) == 1)
        or (a.isupper() and b.isupper() and 2 <= max(len(a), len(b)) <= 6)
    )


def distinct_names(a: str, b: str) -> bool:
    """Whether two different names are two things however alike they read: different numbers
    (`tier 1`/`tier 2`, `v1`/`v2`, `GPT-3`/`GPT-4`), one letter-like word apart (`AWQ`/`DWQ`,
    `GPTQ`/`AWQ`, `class A`/`class B`), one edit apart at the first letter (`rqlite`/`SQLite`:
    `vault.names.first_letter_apart`), or two identifiers (`HTTP_PROXY`/`HTTPS_PROXY`)."""
    key_a, key_b = name_key(a), name_key(b)
    if key_a == key_b:
        return False
    if numbers_differ(a, b) or first_letter_apart(key_a, key_b):
        return True
    ta, tb = _tokens(a), _tokens(b)
    if ta and len(ta) == len(tb):
        diff = [(x, y) for x, y in zip(ta, tb, strict=True) if x.casefold() != y.casefold()]
        if len(diff) == 1 and _letter_like(*diff[0]):
            return True
    return bool(_IDENTIFIER_RE.fullmatch(a) and _IDENTIFIER_RE.fullmatch(b))


def code_name(name: str) -> bool:
    """A name of one code word: an identifier, key, file or flag (`package_tea`, `setup.py`,
    `--only-group`, `roDB`, `PyDictKeysObject`), exact in the text it comes from."""
    name = name.strip().strip("`")
    return bool(name) and " " not in name and (is_code_like(name) or bool(_CAMEL_RE.search(name)))


def kept_apart(a: str, b: str) -> bool:
    """Whether two names stay two pages whatever facts they share: `distinct_names`, or two
    different code names (`tidb_init_chunk_size` / `tidb_max_chunk_size`)."""
    if name_key(a) == name_key(b):
        return False
    return distinct_names(a, b) or (code_name(a) and code_name(b))


def _word_keys(name: str) -> set[str]:
    words = _WORDS_RE.findall(name.replace("_", " "))
    return {name_key(w) for w in words if w.casefold() not in JOINING_WORDS} - {""}


def names_within(narrow: str, broad: str) -> bool:
    """Whether `narrow` names `broad` or a narrower thing of it, so a page of `narrow` that is
    mostly `broad`'s facts is `broad` once more: its words hold all of `broad`'s (`key value
    pair` / `key value`, `uv tree` / `uv`, `Read Committed mode` / `Read Committed`), one
    abbreviates the other (`WAL` / `write-ahead log`), or its last part names it (`mlx_lm.awq`
    / `AWQ`). Never the other way round (`rustc` is not `rustc_codegen_cranelift`), nor a code
    name by its words (`rustc_codegen_ssa` is not `rustc`)."""
    wn, wb = _word_keys(narrow), _word_keys(broad)
    if wn and wb and wb <= wn and not code_name(narrow):  # `rustc_codegen_ssa` is not `rustc`
        return True
    for a, b in ((narrow, broad), (broad, narrow)):
        if acronym(a) and acronym(a) == initials(b):
            return True
    return bool((last := last_component(narrow)) and name_key(last) == name_key(broad))


def last_component(name: str) -> str:
    """`mlx_lm.awq` → `awq`, `uv sync` → `sync`, `a::b` → `b`; "" for a name of one part."""
    parts = [p for p in _COMPONENTS_RE.split(name.strip("`")) if p]
    return parts[-1] if len(parts) >= 2 else ""


_PLAIN_WORD_RE = re.compile(r"[a-z]{3,}", re.IGNORECASE)
MIN_PARTICIPLE = 5  # letters of the shortest -ing or -ed word taken for a participle ("used")


def turned_names(name: str) -> tuple[str, ...]:
    """The same two words the other way round, as English turns a noun phrase into its
    compound: "conflicting dependencies" ↔ "dependency conflicts", "locking dependencies" ↔
    "dependency locking". Only names of two plain words of three letters or more, and only to
    a form with an -ing or -ed word (the callers find no page of "file lock" for "lock file":
    two things). Each form is spelled so that its `name_key` is the other's (the key stems the
    words joined, so the last word's ending only): the first word singular, the last an -ing,
    -ed or the word itself. English only."""
    words = name.split()
    if len(words) != 2 or not all(_PLAIN_WORD_RE.fullmatch(w) for w in words):
        return ()
    first, last = (w.casefold() for w in words)
    if _participle(first):  # "conflicting dependencies" → "dependency conflicting"
        return tuple(dict.fromkeys(f"{s} {first}" for s in _singulars(last)))
    if _participle(last):  # "dependency locking" → "locking dependency"
        return (f"{last} {first}",)
    # "dependency conflicts" → "conflicting dependency", "conflicted dependency"
    base = _singulars(last)[-1]
    stems = (base, base[:-1]) if base.endswith("e") else (base,)  # "updates" → "updating"
    return tuple(f"{b}{end} {first}" for b in stems for end in ("ing", "ed"))


def _participle(word: str) -> bool:
    return len(word) >= MIN_PARTICIPLE and word.endswith(("ing", "ed"))


def _singulars(word: str) -> tuple[str, ...]:
    """`word` and the singulars its plural ending may stand for: "dependencies" → "dependency",
    "classes" → "class", "conflicts" → "conflict"."""
    out = [word]
    if word.endswith("ies") and len(word) > 4:
        out.append(word[:-3] + "y")
    elif word.endswith(("sses", "ches", "shes", "xes")):
        out.append(word[:-2])
    elif word.endswith("s") and not word.endswith("ss"):
        out.append(word[:-1])
    return tuple(out)
