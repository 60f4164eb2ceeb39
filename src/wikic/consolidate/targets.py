"""Where a pattern may go: for each episode, the most similar pages it does not link yet (from
the search index), and their own sections, so the model can pick the most specific one.

Only concept and entity pages are targets: sources, digests and analyses are not semantic
knowledge to extend. Ids (`t1`, `t2`, …) are stable for one batch.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from wikic.consolidate.episodes import Episode
from wikic.language.stopwords import QUERY_STOP_WORDS
from wikic.store.db import Store
from wikic.vault.sections import KNOWN_SECTIONS, split_body
from wikic.vault.tree import Vault

TARGET_TYPES = ("concept", "entity")
QUERY_WORDS = 24
MAX_TARGETS = 16
_WORD_RE = re.compile(r"[^\W\d_][\w-]{3,}")


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


def query_for(ep: Episode) -> str:
    """The episode's most frequent content words, as an any-word search query."""
    words = Counter(
        w.casefold()
        for w in _WORD_RE.findall(f"{ep.title} {ep.text}")
        if w.casefold() not in QUERY_STOP_WORDS
    )
    return " ".join(w for w, _ in words.most_common(QUERY_WORDS))


def page_sections(vault: Vault, page: str) -> list[str]:
    """The page's own `## ` sections (not the ones every page has)."""
    found = vault.pages.get(page)
    if found is None:
        return []
    known = {h.casefold() for h in KNOWN_SECTIONS}
    return [name for name, _ in split_body(found.body).sections if name.casefold() not in known]


def suggest_targets(
    store: Store, vault: Vault, episodes: Sequence[Episode], *, per_episode: int
) -> list[Target]:
    """The union, in order, of each episode's `per_episode` most similar unlinked pages."""
    if per_episode <= 0:
        return []
    chosen: dict[str, None] = {}
    for ep in episodes:
        query = query_for(ep)
        if not query:
            continue
        hits = store.search(query, types=TARGET_TYPES, mode="any", limit=per_episode * 2)
        fresh = [h for h in hits if h.name.casefold() not in ep.links][:per_episode]
        for hit in fresh:
            chosen.setdefault(hit.path)
    targets: list[Target] = []
    for path in chosen:
        page = vault.pages.get(path)
        if page is None:
            continue
        for heading in [None, *page_sections(vault, path)]:
            targets.append(
                Target(
                    f"t{len(targets) + 1}",
                    path,
                    heading,
                    page.title,
                    page.summary,
                    tuple(page.aliases),
                    "pattern" in [str(t) for t in page.props.get("tags") or []],
                )
            )
    return targets[:MAX_TARGETS]
