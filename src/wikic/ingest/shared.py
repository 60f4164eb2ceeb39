"""Concepts several sources of a batch discuss: one page citing each of them (issue 32).

Each source says what it discusses (the `shared-concepts` topic finder: `Extraction.discussed`
and `.discussed_words`). A name two or more sources discuss becomes a page, whatever spelling
each uses: names are grouped by name key ("lock file", "lockfile", "Lock files") and by
abbreviation ↔ expansion through a `ConceptIndex` ("WAL", "write-ahead log"), never across
distinct names (`AWQ`/`DWQ`, `v1`/`v2`). A plain word a source discusses ("snapshot") counts
only towards a concept another source discusses by a name or heading of its own: "file" or
"version", which every source of a theme discusses, makes no page.

The planner (`ingest.plan.add_shared_pages`) makes the page where no page names the concept
yet; `join_shared` then gives it the facts of each source whose sentences name it, as it does
for every page of the wiki a new source discusses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from wikic.ingest.resolve import ConceptIndex
from wikic.vault.names import name_key

MIN_SOURCES = 2


@dataclass
class _Concept:
    names: list[str] = field(default_factory=list)  # spellings, first seen first
    sources: set[int] = field(default_factory=set)
    named_by: set[int] = field(default_factory=set)  # sources discussing it by a name, not a word


def shared_concepts(
    discussed: Sequence[tuple[Sequence[str], Sequence[str]]], *, min_sources: int = MIN_SOURCES
) -> list[str]:
    """The concepts `min_sources` or more sources discuss, given each source's (names, plain
    words) it discusses: one name per concept, those most sources share first, then in the
    order the sources name them."""
    index: ConceptIndex[_Concept] = ConceptIndex()
    concepts: list[_Concept] = []
    for i, (names, _) in enumerate(discussed):
        for name in names:
            concept = index.match(name)
            if concept is None:
                concept = _Concept()
                concepts.append(concept)
            concept.names.append(name)
            concept.sources.add(i)
            concept.named_by.add(i)
            index.add([name], concept)
    for i, (_, words) in enumerate(discussed):
        for word in words:
            concept = index.by_key.get(name_key(word))
            if concept is not None:
                concept.sources.add(i)
                concept.names.append(word)
    shared = [c for c in concepts if len(c.sources) >= min_sources and c.named_by]
    order = sorted(range(len(shared)), key=lambda n: (-len(shared[n].sources), n))
    return [concept_name(shared[n].names) for n in order]


def concept_name(names: Sequence[str]) -> str:
    """The name of a concept several sources spell their own way: the first, unless it is
    written all in capitals and another source writes it in lower case (`CHECKPOINT`, an SQL
    command, and "checkpoint", the concept)."""
    first = names[0]
    if first.isupper():
        key = name_key(first)
        lower = [n for n in names if n.islower() and name_key(n) == key]
        if lower:
            return lower[0]
    return first
