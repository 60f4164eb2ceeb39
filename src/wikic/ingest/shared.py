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

A task two sources each give a section ("Installing from Lock Files", "Install the packages
pinned in lock file") is such a concept too, named by headings rather than sentences
(`shared_sections`, from the `shared-sections` topic finder; `language.actions`): the planner
(`ingest.plan.add_shared_sections`) makes it one page holding each section's facts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from wikic.ingest.resolve import ConceptIndex
from wikic.language.actions import ActionHeading, action_title, is_gerund, shared_action
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
    return [name for name, _ in concept_sources(discussed, min_sources=min_sources)]


def concept_sources(
    discussed: Sequence[tuple[Sequence[str], Sequence[str]]], *, min_sources: int = MIN_SOURCES
) -> list[tuple[str, frozenset[int]]]:
    """`shared_concepts`, each with the indexes of the sources that discuss it."""
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
    return [(concept_name(shared[n].names), frozenset(shared[n].sources)) for n in order]


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


@dataclass(frozen=True)
class SharedSection:
    """A task sections of several sources explain: its page title and (source, section index)
    of each section, one per source."""

    title: str
    members: tuple[tuple[int, int], ...]


def shared_sections(headings: Sequence[Sequence[ActionHeading]]) -> list[SharedSection]:
    """The tasks two or more sources give a section, given each source's `action_headings`.
    Pairs of sections of different sources that name one action (`shared_action`) are taken
    those sharing most words first; a pair makes a task, titled after its gerund heading of
    fewer words (`action_title`), and a third source's section joins it when it shares every
    word of the title. A section belongs to one task, a task holds one section per source."""
    pairs = []
    for i, mine in enumerate(headings):
        for j in range(i + 1, len(headings)):
            for a in mine:
                for b in headings[j]:
                    shared = shared_action(a.words, b.words)
                    if shared:
                        pairs.append((-len(shared), i, a.section, j, b.section, a, b))
    pairs.sort(key=lambda p: p[:5])
    tasks: list[tuple[str, tuple[str, ...], dict[int, int]]] = []  # title, words, members
    placed: set[tuple[int, int]] = set()
    for _, i, _, j, _, a, b in pairs:
        free = [(k, h) for k, h in ((i, a), (j, b)) if (k, h.section) not in placed]
        if len(free) == 2:
            gerunds = [h for h in (a, b) if is_gerund(h.words[0])]
            named = min(gerunds, key=lambda h: len(h.words))
            other = b if named is a else a
            words = shared_action(named.words, other.words)
            tasks.append((action_title(named.heading, words), words, {i: a.section, j: b.section}))
        elif len(free) == 1:
            k, h = free[0]
            held = (i, a.section) if k == j else (j, b.section)
            task = next(t for t in tasks if t[2].get(held[0]) == held[1])
            if k in task[2] or len(shared_action(task[1], h.words)) < len(task[1]):
                continue
            task[2][k] = h.section
        else:
            continue
        placed |= {(k, h.section) for k, h in free}
    return [SharedSection(title, tuple(sorted(members.items()))) for title, _, members in tasks]
