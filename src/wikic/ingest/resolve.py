"""Topic resolution across the wiki: one page per concept, whichever source names it first.

The `ConceptIndex` holds every name of every entity and concept page (title, aliases, file
name, and the pages this batch plans) under its name key, plus two derived keys: the initials
of a multi-word name (`write-ahead log` → `wal`) and the capitals of an acronym (`LoRA` → `lra`),
so an abbreviation finds its expansion and back. Two words the other way round, one of them an
-ing or -ed form, name the same page ("conflicting dependencies", "Dependency conflicts":
`turned_names`, looked up as spellings, not stored). A command or API named after a concept
(`mlx_lm.awq`, `uv sync`) finds the page its last component names. Every lookup is a dict
lookup: resolving a name costs the same in an empty wiki as in one of 10,000 pages.

Two rules keep distinct things apart (`distinct_names`): names that carry different numbers
(`tier 1`/`tier 2`, `v1`/`v2`), and names that differ in one letter-like part: an acronym
(`AWQ`/`DWQ`, `GPTQ`/`AWQ`), a single letter (`class A`/`class B`) or an identifier
(`HTTP_PROXY`/`HTTPS_PROXY`). Derived matches are used only when one page answers them.

These name rules live in `language.name_rules`, with two more that decide what happens to a
planned page that is mostly another's facts (`ingest.twins`, lint's `twin-facts`): `kept_apart` (distinct names, or two code names: `package_tea` and
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
from wikic.language.evidence import is_subject
from wikic.language.frequency import COMMON_ZIPF, capital_only, is_coined, zipf
from wikic.language.grounding import names_in, word_keys
from wikic.language.headings import GENERIC_KEYS
from wikic.language.name_rules import (
    distinct_names,
    last_component,
    turned_names,
)
from wikic.language.sentences import Sentence
from wikic.language.stopwords import ARTICLES
from wikic.language.vocabulary import is_common_term
from wikic.vault.name_keys import BLOCK, acronym, initials
from wikic.vault.names import name_key

T = TypeVar("T")

CLOSE_SPREAD = 2  # characters a close spelling may be longer or shorter
MAX_RUN = 5  # words of the longest name a sentence is searched for
JOIN_EVIDENCE = 2  # sentences of a source that must name a page for the source to add to it
_WORDS_RE = re.compile(r"\w+")


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
        keys |= self.turned(name)
        pages = {id(self.by_key[k]): k for k in keys if not distinct_names(name, self.names[k])}
        if len(pages) == 1:
            return self.by_key[next(iter(pages.values()))]
        return None

    def turned(self, name: str) -> set[str]:
        """The keys of the pages `name` names with its two words the other way round
        ("conflicting dependencies" finds "Dependency conflicts": `turned_names`)."""
        keys = {k for t in turned_names(name) if (k := name_key(t)) in self.by_key}
        # a page of two words too: the key stems the words joined ("locked s", of "library's
        # lock" before words needed three letters, had `--locked`'s key)
        return {k for k in keys if len(_WORDS_RE.findall(self.names[k])) == 2}


def joinable(name: str) -> bool:
    """Whether a page's name is precise enough for a source's prose to be about it when its
    sentences name it: not a heading's label ("Overview"), a term of every technical text, a
    unit or filler."""
    key = name_key(name)
    return bool(key) and key not in GENERIC_KEYS and not is_common_term(name) and is_subject(name)


def plain_word(name: str) -> bool:
    """One word with no capital inside and nothing of code that general English writes:
    "Checkpointing", "purpose"; not "fsync" (`is_coined`), the name of one thing."""
    name = name.strip()
    return " " not in name and not is_code_like(name) and name[1:].islower() and not is_coined(name)


def join_evidence(name: str) -> int:
    """Sentences of a source that must name a page for the source to add its facts there:
    `JOIN_EVIDENCE`, one more for a plain word ("checkpoint" named thrice, where "purpose"
    named twice is said in passing)."""
    return JOIN_EVIDENCE + plain_word(name)


def named_once_will_do(name: str, text: str) -> bool:
    """Whether one sentence of a source naming a page is enough for the source to add it there
    (`JOIN_EVIDENCE` otherwise): the name is not a plain word, one of its words is rarer than
    general English's commonest (`COMMON_ZIPF`), and the sentence writes it in prose, not as
    code. "… and support lock-free MVCC using a single writer and multiple readers" (bbolt)
    and "… the ANSI Repeatable Read isolation level allows phantom reads" (TiDB) say what
    their second project does with MVCC and phantom reads: the wiki's one page of each cites
    both documents. Not "the key value" of a point query on a page "Key value", nor "version
    control" (common words, another sense in every text), nor `DELETE` of a list of SQL
    statements, each of which has its page."""
    if plain_word(name) or f"`{name.casefold()}`" in text.casefold():
        return False
    words = _WORDS_RE.findall(name)
    return bool(words) and min(zipf(w) for w in words) < COMMON_ZIPF


def shared_mentions(
    sentences: Sequence[Sentence], index: ConceptIndex[T], skip: set[str]
) -> dict[str, list[str]]:
    """Name key of a page → ids of the sentences that name it, for the `joinable` pages of
    `index` whose key is not in `skip`. A sentence's words are looked up as runs of at most
    `MAX_RUN` words, the longest run that names a page first ("read committed isolation level"
    before "isolation level"); a run of two words also the other way round (`turned_names`)."""
    found: dict[str, list[str]] = {}
    for s in sentences:
        spans = [(m.start(), m.group(0)) for m in _WORDS_RE.finditer(s.text.replace("_", " "))]
        i = 0
        while i < len(spans):
            for n in range(min(MAX_RUN, len(spans) - i), 0, -1):
                start, end = spans[i][0], spans[i + n - 1][0] + len(spans[i + n - 1][1])
                written = s.text[start:end]
                key = name_key(written)
                name = index.names.get(key)
                turned = None
                if name is None and n == 2:  # "conflicting dependencies": "Dependency conflicts"
                    turned = min(index.turned(written), default=None)
                    name = index.names.get(turned) if turned is not None else None
                if name is None:
                    continue
                key = turned or key
                if key not in skip and joinable(name) and (turned or _written_as(name, written)):
                    ids = found.setdefault(key, [])
                    if s.id not in ids:
                        ids.append(s.id)
                i += n - 1
                break
            i += 1
    return found


def _verb_form(word: str, name: str) -> bool:
    """Whether `word` is the past participle of the plain word `name` ("guaranteed" of
    "Guarantees", "checkpointed" of "checkpoint"): a verb, which names no page of the thing.
    A gerund still does ("Checkpointing moves frames …" is about checkpoints). English only."""
    return word.casefold().endswith("ed") and not name.casefold().endswith("ed")


def _written_as(name: str, written: str) -> bool:
    """Whether the run `written` names the page `name`: a code-like name or one with capitals
    inside verbatim (`pdm.lock`, `SQLite`, not "sqlite" in a sentence about files); any other
    as the same words, not two words of one stem ("specific" is not "specification"), and a
    plain word not as a verb (`_verb_form`: "is guaranteed" is no sentence about the page
    "Guarantees"); a capitalised common word with its capital ("Go", not "go":
    `frequency.capital_only`)."""
    if capital_only(name):
        return written == name
    if " " in name.strip() or plain_word(name):
        # "the lockfile" for "lock file": a compound joined or split, compared by key alone
        words = [w for w in _WORDS_RE.findall(written) if w.casefold() not in ARTICLES]
        if plain_word(name) and words and _verb_form(words[-1], name):
            return False  # "is guaranteed", "checkpointed": the word as a verb, not the thing
        return len(word_keys(name)) != len(words) or names_in([name], written)
    # "the TXID": the run's key drops its article (`name_key`), the name is compared without it
    first, _, rest = written.partition(" ")
    if rest and first.casefold() in ARTICLES:
        written = rest.lstrip()
    return written in (name, name + "s")
