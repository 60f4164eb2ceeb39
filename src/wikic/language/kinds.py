"""What a document says is a kind of what: "Read Committed" is an isolation level.

Documents name a thing with or without its kind: PostgreSQL's section "Read Committed Isolation
Level" and both documents' sentences about "Read Committed" are one concept, so its pages were
two ("Read Committed isolation level", "Read Committed"). A name that is another name followed
by a kind ("A K") is that name when a document says A is a K:

- a table whose first column is headed by the kind lists it ("Isolation Level" over rows
  "Read uncommitted", "Read committed", …), or
- a sentence says so: "Read Committed is the default isolation level in PostgreSQL."

Without that, "A K" is another thing: a WAL file is no write-ahead log, a Python package no
Python. English only, like the rest of ingest's reading of sentences.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from wikic.language.commands import is_code_like
from wikic.language.evidence import names_sentence
from wikic.vault.document import Document
from wikic.vault.names import name_key

# blocks of prose (not a table or code) that must name an instance a table lists by its kind
INSTANCE_BLOCKS = 1
MAX_BETWEEN = 3  # words between "is a/the" and the kind ("the default isolation level")
# a value spelled in capitals, its words joined by hyphens or underscores: `READ-COMMITTED`
_CAPITALS_RE = re.compile(r"[A-Z]{2,}(?:[-_][A-Z]{2,})+")
_MARKUP_RE = re.compile(r"[*_`]+")
_STATES_RE = re.compile(r"\s(?:is|was)\s+(?:a|an|the)\b", re.IGNORECASE)  # "… is the …"


def _listed(doc: Document) -> Iterator[tuple[str, str]]:
    """(kind, instance) of each row of the document's tables, markup left out: the first
    column's header is the kind of each row's first cell."""
    for block in doc.blocks:
        if block.kind != "table" or not block.header:
            continue
        kind = _MARKUP_RE.sub("", block.header[0]).strip()
        if name_key(kind):
            yield from ((kind, _MARKUP_RE.sub("", row[0]).strip()) for row in block.rows if row)


def table_kinds(doc: Document) -> dict[str, list[str]]:
    """Instance key → the kinds tables give it (`_listed`)."""
    found: dict[str, list[str]] = {}
    for kind, instance in _listed(doc):
        if key := name_key(instance):
            kinds = found.setdefault(key, [])
            if kind not in kinds:
                kinds.append(kind)
    return found


def table_instances(doc: Document) -> list[str]:
    """The instances tables list by their kind (`_listed`: "Read uncommitted" under
    "Isolation Level") that `INSTANCE_BLOCKS` block of the document's prose names: things of
    one kind the document enumerates and writes about, not a table's values ("llama 7B mostly
    Q4_0" rows of benchmark results, `>=` of a table of operators, which no prose names; a
    value written as code, `sha256:…`), as the prose spells them, in the tables' order."""
    prose = [b.text for b in doc.blocks if b.kind not in ("table", "code")]
    found: dict[str, str] = {}
    for _, instance in _listed(doc):
        key = name_key(instance)
        if not key or key in found or is_code_like(instance):
            continue  # a value written as code (a digest, a path) is no member of a kind
        naming = [t for t in prose if names_sentence(instance, t)]
        if len(naming) >= INSTANCE_BLOCKS:
            found[key] = _as_written(instance, naming)
    return list(found.values())


def _as_written(name: str, texts: Sequence[str]) -> str:
    """`name` as the first of `texts` spells it ("Read Uncommitted" of a row's "Read
    uncommitted", "READ UNCOMMITTED"): a page is titled as prose writes the thing."""
    for text in texts:
        m = re.search(rf"(?<![\w-]){_words(name)}(?![\w-])", _MARKUP_RE.sub("", text), re.I)
        if m is not None:
            return m.group(0)
    return name


def says_is_a(instance: str, kind: str, texts: Iterable[str]) -> bool:
    """Whether a sentence says `instance` is a `kind` ("Read Committed is the default
    isolation level", "*Read Committed* is an isolation level")."""
    pattern = re.compile(
        _is_a(instance) + rf"(?:\s+[\w-]+){{0,{MAX_BETWEEN}}}?\s+{_words(kind)}(?![\w-])",
        re.IGNORECASE,
    )
    return any(pattern.search(_MARKUP_RE.sub("", t)) for t in texts)


def said_kinds(instance: str, texts: Iterable[str]) -> list[str]:
    """The runs of words sentences say `instance` is ("Read Committed is the default isolation
    level in …" → "default", "default isolation", …, "isolation level", "level"): what it may
    be a kind of, to look its name with that kind up."""
    pattern = re.compile(_is_a(instance) + rf"((?:\s+[\w-]+){{1,{MAX_BETWEEN + 1}}})", re.I)
    found: dict[str, None] = {}
    for text in texts:
        for match in pattern.finditer(_MARKUP_RE.sub("", text)):
            words = match.group(1).split()
            for i in range(len(words)):
                for j in range(i + 1, len(words) + 1):
                    found[" ".join(words[i:j])] = None
    return list(found)


def spelled_words(name: str) -> str | None:
    """The words of a value spelled in capitals ("READ-COMMITTED", "REPEATABLE_READ" → "READ
    COMMITTED"), for the kind lookup: a setting's value names the thing its words name where a
    document says those words are a kind ("Read Committed is the default isolation level"),
    though an identifier is otherwise matched verbatim. None for any other name."""
    if _CAPITALS_RE.fullmatch(name.strip("`")) is None:
        return None
    return re.sub(r"[-_]", " ", name.strip("`"))


def _is_a(instance: str) -> str:
    """The pattern of "`instance` is a/an/the", up to the article."""
    return rf"(?<![\w-]){_words(instance)}\W{{0,2}}\s+(?:is|was)\s+(?:a|an|the)\b"


def _words(name: str) -> str:
    """A name as a pattern: its words in order, any spacing or hyphen between them, a plural
    ending allowed."""
    words = [re.escape(w) for w in re.findall(r"[\w.]+", name)]
    return r"[\s-]+".join(words) + "(?:e?s)?"


class KindEvidence:
    """Whether the documents of a batch say one name is a kind of another: their tables' rows,
    then their sentences."""

    def __init__(self, documents: Sequence[tuple[Document, Sequence[str]]]) -> None:
        self._tables: dict[str, list[str]] = {}
        for doc, _ in documents:
            for instance, kinds in table_kinds(doc).items():
                have = self._tables.setdefault(instance, [])
                have += [k for k in kinds if k not in have]
        # the sentences that say something is a thing, markup left out: read once, not per
        # name the planner looks up
        stripped = (_MARKUP_RE.sub("", t) for _, texts in documents for t in texts)
        self._texts = [t for t in stripped if _STATES_RE.search(t)]
        self._said: dict[str, list[str]] = {}  # instance → `said_kinds`

    def is_a(self, instance: str, kind: str) -> bool:
        """Whether a table or a sentence of the documents says `instance` is a `kind`."""
        if name_key(kind) in {name_key(k) for k in self._tables.get(name_key(instance), ())}:
            return True
        return says_is_a(instance, kind, self._texts)

    def kinds_of(self, instance: str) -> list[str]:
        """What the documents may say `instance` is a kind of: its tables' headers, then the
        runs of words their sentences say it is (`said_kinds`)."""
        if instance not in self._said:
            self._said[instance] = said_kinds(instance, self._texts)
        tables = self._tables.get(name_key(instance), [])
        return list(dict.fromkeys((*tables, *self._said[instance])))
