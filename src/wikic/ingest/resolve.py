"""Topic resolution across the wiki: one page per concept, whichever source names it first.

The `ConceptIndex` holds every name of every entity and concept page (title, aliases, file
name, and the pages this batch plans) under its name key, plus two derived keys: the initials
of a multi-word name (`write-ahead log` → `wal`) and the capitals of an acronym (`LoRA` → `lra`),
so an abbreviation finds its expansion and back. A command or API named after a concept
(`mlx_lm.awq`, `uv sync`) finds the page its last component names. Every lookup is a dict
lookup: resolving a name costs the same in an empty wiki as in one of 10,000 pages.

Two rules keep distinct things apart (`distinct_names`): names that carry different numbers
(`tier 1`/`tier 2`, `v1`/`v2`), and names that differ in one letter-like part: an acronym
(`AWQ`/`DWQ`, `GPTQ`/`AWQ`), a single letter (`class A`/`class B`) or an identifier
(`HTTP_PROXY`/`HTTPS_PROXY`). Derived matches are used only when one page answers them.

Two more name rules decide what happens to a planned page that is mostly another's facts
(`ingest.twins`): `kept_apart` (distinct names, or two code names: `package_tea` and
`package_water`, `setup.py` and `requirements.txt`, are never one page) and `names_within`
(a name whose words hold all of the other's, `pdm sync` / `pdm`; an abbreviation of the
other; a command named after it).

`shared_mentions` finds, for one source, the pages of the wiki (and of its batch) that several
of its sentences name: the concepts a source discusses in prose without proposing a page. The
sentence's runs of words are looked up in the index, longest first, never the other way round.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from wikic.language.commands import is_code_like
from wikic.language.evidence import is_subject, names_sentence
from wikic.language.headings import GENERIC_KEYS
from wikic.language.phrases import topic_candidates
from wikic.language.sentences import Sentence
from wikic.language.vocabulary import is_common_term
from wikic.vault.name_keys import BLOCK, acronym, initials
from wikic.vault.names import name_key, numbers_differ

T = TypeVar("T")

CLOSE_SPREAD = 2  # characters a close spelling may be longer or shorter
MAX_RUN = 5  # words of the longest name a sentence is searched for
SHARED_CANDIDATES = 60  # of each source's names and phrases, compared across the batch
JOIN_EVIDENCE = 2  # sentences of a source that must name a page for the source to add to it
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
    `GPTQ`/`AWQ`, `class A`/`class B`), or two identifiers (`HTTP_PROXY`/`HTTPS_PROXY`)."""
    if name_key(a) == name_key(b):
        return False
    if numbers_differ(a, b):
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
    return {name_key(w) for w in words if w.casefold() not in _STOP} - {""}


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


@dataclass
class ConceptIndex(Generic[T]):
    """Name key → page, with the initials and acronym keys derived from each name. `T` is what
    a page is to the caller (the planner's `PageTarget`)."""

    by_key: dict[str, T] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)  # name key → the name it came from
    _by_initials: dict[str, set[str]] = field(default_factory=dict)  # → name keys
    _by_acronym: dict[str, set[str]] = field(default_factory=dict)
    # (first or last `BLOCK` characters, length) → name keys: the pool of close spellings
    _blocks: dict[tuple[str, int], set[str]] = field(default_factory=dict)

    def add(self, names: Iterable[str], page: T) -> None:
        """Index `names` for `page`; a key another page holds stays that page's."""
        for name in names:
            key = name_key(name)
            if not key or key in self.by_key:
                continue
            self.by_key[key] = page
            self.names[key] = name
            if short := initials(name):
                self._by_initials.setdefault(short, set()).add(key)
            if short := acronym(name):
                self._by_acronym.setdefault(short, set()).add(key)
            for block in ("^" + key[:BLOCK], "$" + key[-BLOCK:]):
                self._blocks.setdefault((block, len(key)), set()).add(key)

    def close(self, key: str, cutoff: float) -> list[str]:
        """Keys spelled like `key` (difflib ratio >= `cutoff`), best first. One edit of a key of
        six or more characters leaves its first or its last three intact, so the keys of about
        its length that share those are the pool: a few dict lookups, not a pass over every
        key (a ratio of 0.92 allows no more than one edit below twelve characters)."""
        pool: set[str] = set()
        for n in range(len(key) - CLOSE_SPREAD, len(key) + CLOSE_SPREAD + 1):
            pool |= self._blocks.get(("^" + key[:BLOCK], n), set())
            pool |= self._blocks.get(("$" + key[-BLOCK:], n), set())
        pool.discard(key)
        return difflib.get_close_matches(key, sorted(pool), n=3, cutoff=cutoff)

    def match(self, name: str, *, command: bool = False) -> T | None:
        """The page `name` names by its key, or by abbreviation ↔ expansion, or (a `command`)
        by the last component of its name; None when none, or more than one page, answers, or
        the page's name is a distinct one (`distinct_names`)."""
        key = name_key(name)
        if not key:
            return None
        if key in self.by_key:  # name_key stems: "checkpoint", "checkpointing" are one key
            return self.by_key[key]
        keys: set[str] = set()
        if short := acronym(name):
            keys |= self._by_initials.get(short, set())
        if short := initials(name):
            keys |= self._by_acronym.get(short, set())
        if command and (last := last_component(name)) and name_key(last) in self.by_key:
            keys.add(name_key(last))
        pages = {id(self.by_key[k]): k for k in keys if not distinct_names(name, self.names[k])}
        if len(pages) == 1:
            return self.by_key[next(iter(pages.values()))]
        return None


def joinable(name: str) -> bool:
    """Whether a page's name is precise enough for a source's prose to be about it when its
    sentences name it: not a heading's label ("Overview"), a term of every technical text, a
    unit or filler."""
    key = name_key(name)
    return bool(key) and key not in GENERIC_KEYS and not is_common_term(name) and is_subject(name)


def plain_word(name: str) -> bool:
    """One word with no capital inside and nothing of code: "Checkpointing", "purpose"."""
    name = name.strip()
    return " " not in name and not is_code_like(name) and name[1:].islower()


def join_evidence(name: str) -> int:
    """Sentences of a source that must name a page for the source to add its facts there:
    `JOIN_EVIDENCE`, one more for a plain word ("checkpoint" named thrice, where "purpose"
    named twice is said in passing)."""
    return JOIN_EVIDENCE + plain_word(name)


def shared_phrases(sources: Sequence[tuple[str, Sequence[Sentence]]]) -> list[str]:
    """The names and phrases (`topic_candidates`) that two or more of `sources` (title,
    sentences) each name in `join_evidence` sentences: a concept several documents discuss,
    though none of them proposed it as a page. Those most sources share first."""
    seen: dict[str, dict[int, str]] = {}
    for i, (title, sentences) in enumerate(sources):
        for name in topic_candidates(sentences, title=title, limit=SHARED_CANDIDATES):
            if not joinable(name):
                continue
            n = sum(1 for s in sentences if names_sentence(name, s.text))
            if n >= join_evidence(name):
                seen.setdefault(name_key(name), {})[i] = name
    shared = [(min(v), -len(v), v[min(v)]) for v in seen.values() if len(v) >= 2]
    return [name for *_, name in sorted(shared, key=lambda x: (x[1], x[0]))]


def shared_mentions(
    sentences: Sequence[Sentence], index: ConceptIndex[T], skip: set[str]
) -> dict[str, list[str]]:
    """Name key of a page → ids of the sentences that name it, for the `joinable` pages of
    `index` whose key is not in `skip`. A sentence's words are looked up as runs of at most
    `MAX_RUN` words, the longest run that names a page first ("read committed isolation level"
    before "isolation level")."""
    found: dict[str, list[str]] = {}
    for s in sentences:
        spans = [(m.start(), m.group(0)) for m in _WORDS_RE.finditer(s.text.replace("_", " "))]
        i = 0
        while i < len(spans):
            for n in range(min(MAX_RUN, len(spans) - i), 0, -1):
                start, end = spans[i][0], spans[i + n - 1][0] + len(spans[i + n - 1][1])
                key = name_key(s.text[start:end])
                name = index.names.get(key)
                if name is None:
                    continue
                written = s.text[start:end]
                if key not in skip and joinable(name) and _written_as(name, written):
                    ids = found.setdefault(key, [])
                    if s.id not in ids:
                        ids.append(s.id)
                i += n - 1
                break
            i += 1
    return found


def _written_as(name: str, written: str) -> bool:
    """Whether the run `written` names the page `name`: a code-like name or one with capitals
    inside verbatim (`pdm.lock`, `SQLite`, not "sqlite" in a sentence about files)."""
    if " " in name.strip() or plain_word(name):
        return True
    return written in (name, name + "s")
