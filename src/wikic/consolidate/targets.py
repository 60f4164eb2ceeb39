"""Where a recurring item may go: the section that already cites its paragraphs (it extends
that), else the existing pages most similar to it and their own sections, the most specific
first (seed 003: top-8 similar targets, section-level).

Similarity is the search index's hybrid ranking (BM25 and embedding similarity fused,
`store.hybrid`, so a page that says the same in other words is found too), then the item's words
in each heading and section. Only concept and entity pages are targets: sources, digests and
analyses are not semantic knowledge to extend.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from wikic.consolidate.recurring import Recurring, terms_of
from wikic.store.db import Store
from wikic.vault.links import parse_links
from wikic.vault.pages import Page
from wikic.vault.sections import KNOWN_SECTIONS, split_body

TARGET_TYPES = ("concept", "entity")
QUERY_WORDS = 12
HEADING_WEIGHT = 3  # an item word in a heading says more than one in the section's text


@dataclass(frozen=True)
class Target:
    id: str  # "t3"
    page: str  # path relative to wiki/
    heading: str | None  # a `## ` section of the page, None for the page as a whole
    title: str
    summary: str
    aliases: tuple[str, ...] = ()
    pattern: bool = False  # a page consolidation created for a pattern

    @property
    def names(self) -> tuple[str, ...]:
        """What names it: the section's heading, or the page's title and aliases."""
        return (self.heading,) if self.heading else (self.title, *self.aliases)

    @property
    def label(self) -> str:
        name = self.page.removesuffix(".md")
        return f"{name}#{self.heading}" if self.heading else f"{name} ({self.title})"


def target(page: Page, heading: str | None, tid: str = "") -> Target:
    tags = [str(t) for t in page.props.get("tags") or []]
    return Target(
        tid, page.path, heading, page.title, page.summary, tuple(page.aliases), "pattern" in tags
    )


def own_sections(page: Page) -> list[tuple[str, str]]:
    """The page's own `## ` sections (not the ones every topic page has), with their text."""
    known = {h.casefold() for h in KNOWN_SECTIONS}
    return [(n, t) for n, t in split_body(page.body).sections if n.casefold() not in known]


def surface_words(item: Recurring) -> list[str]:
    """The item's words as the notes write them, most episodes first (a search query)."""
    forms: dict[str, Counter[str]] = defaultdict(Counter)
    for unit in item.units:
        for token in unit.text.split():
            token = token.strip(".,;:()[]\"'“”")
            for key in terms_of(token):
                forms[key][token] += 1
    return [forms[w].most_common(1)[0][0] for w in item.words if forms[w]]


def suggest_targets(
    store: Store, pages: Mapping[str, Page], item: Recurring, *, limit: int
) -> list[Target]:
    """The `limit` pages and sections most similar to `item`, most specific first: each
    section holding an item word (in its heading above all), then the pages themselves in
    search order. `pages`: the wiki's pages as this period's edits left them."""
    if limit <= 0:
        return []
    query = " ".join(surface_words(item)[:QUERY_WORDS])
    hits = (
        store.search(query, types=TARGET_TYPES, mode="any", limit=limit, ranking="hybrid")
        if query
        else []
    )
    words = set(item.words)
    scored: list[tuple[int, int, Target]] = []
    for rank, hit in enumerate(hits):
        page = pages.get(hit.path)
        if page is None:
            continue
        for heading, text in own_sections(page):
            score = HEADING_WEIGHT * len(terms_of(heading) & words) + len(terms_of(text) & words)
            if score:
                scored.append((-score, rank, target(page, heading)))
        scored.append((1, rank, target(page, None)))  # the page after its sections
    scored.sort(key=lambda s: (s[0], s[1]))
    return [t for _, _, t in scored[:limit]]


def citing_sections(pages: Iterable[Page]) -> dict[tuple[str, str], set[tuple[str, str | None]]]:
    """(episode page, block id) → the (page, `## ` heading) of topic pages that cite it."""
    found: dict[tuple[str, str], set[tuple[str, str | None]]] = defaultdict(set)
    for page in pages:
        if page.type not in TARGET_TYPES or "[[sources/" not in page.body:
            continue
        body = split_body(page.body)
        for heading, text in [(None, body.lead), *body.sections]:
            for lnk in parse_links(text):
                if lnk.block is not None and lnk.target.startswith("sources/"):
                    found[(f"{lnk.target}.md", lnk.block)].add((page.path, heading))
    return found


def extended_section(
    item: Recurring, cited: Mapping[tuple[str, str], set[tuple[str, str | None]]]
) -> tuple[str, str | None] | None:
    """The section that already cites a third or more of the item's paragraphs (two at
    least): the same pattern, seen before. The one citing the most; the first on a tie."""
    counts: Counter[tuple[str, str | None]] = Counter()
    for ref in item.refs:
        counts.update(cited.get(ref, ()))
    need = max(2, math.ceil(len(item.refs) / 3))
    best = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][0], kv[0][1] or ""))
    return best[0][0] if best and best[0][1] >= need else None
