"""Planning in code: which page each topic of each source goes to.

A topic resolves to an existing page by title, alias or file name, compared case-, punctuation-,
plural- and unicode-insensitively, then by close spelling. Topics of one batch that name the
same thing share one new page. Pages per source are capped, the topics of most facts first (a
precise name, a flag or identifier, weighs a little more: `language.evidence.topic_weight`).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from wikic.ingest.extract import Extraction, Topic
from wikic.ingest.members import place_topics
from wikic.language.commands import is_code_like
from wikic.vault.names import name_key, numbers_differ
from wikic.vault.pages import TYPE_FOLDERS
from wikic.vault.slugs import safe_page_path, slugify, unique_slug
from wikic.vault.tree import Vault

CLOSE_MATCH = 0.92


@dataclass(frozen=True)
class PageTarget:
    path: str  # relative to wiki/, e.g. "concepts/prefix-cache.md"
    title: str
    type: str
    exists: bool  # existed before this batch


@dataclass
class SourcePlan:
    extraction: Extraction
    source_page: str  # relative to wiki/
    topics: list[tuple[Topic, PageTarget]] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # topic names over the cap or without facts


class Resolver:
    """Maps topic names to pages: existing ones from the vault, new ones made in this batch."""

    def __init__(self, vault: Vault) -> None:
        self._wiki_dir = vault.wiki_dir
        self._by_key: dict[str, PageTarget] = {}
        self._taken: dict[str, set[str]] = {}
        for page in vault:
            if page.type not in ("entity", "concept"):
                self._taken.setdefault(page.path.rsplit("/", 1)[0], set()).add(page.stem)
                continue
            target = PageTarget(page.path, page.title, page.type, True)
            for name in (page.title, *page.aliases, page.stem.replace("-", " ")):
                self._by_key.setdefault(name_key(name), target)
            self._taken.setdefault(page.path.rsplit("/", 1)[0], set()).add(page.stem)

    def find(self, names: Sequence[str]) -> PageTarget | None:
        keys = [k for k in (name_key(n) for n in names) if k]
        for key in keys:
            if key in self._by_key:
                return self._by_key[key]
        # an identifier is exact or another one: `HTTP_PROXY` is not `HTTPS_PROXY`
        for key in (name_key(n) for n in names if not is_code_like(n)):
            if not key:
                continue
            close = difflib.get_close_matches(key, list(self._by_key), n=3, cutoff=CLOSE_MATCH)
            for match in close:  # "Tier 2 target" is not "Tier 3 target" however alike
                if not numbers_differ(key, match):
                    return self._by_key[match]
        return None

    def resolve(self, topic: Topic) -> PageTarget:
        found = self.find([topic.name, *topic.aliases])
        if found is not None:
            return found
        folder = TYPE_FOLDERS.get(topic.type, TYPE_FOLDERS["concept"])
        taken = self._taken.setdefault(folder, set())
        slug = unique_slug(slugify(topic.name), taken)
        taken.add(slug)
        path = str(safe_page_path(self._wiki_dir, folder, slug))
        target = PageTarget(path, topic.name, topic.type, False)
        for name in (topic.name, *topic.aliases):
            self._by_key.setdefault(name_key(name), target)
        return target

    def reserve_source_page(self, stem: str) -> str:
        folder = TYPE_FOLDERS["source"]
        taken = self._taken.setdefault(folder, set())
        slug = unique_slug(slugify(stem), taken)
        taken.add(slug)
        return str(safe_page_path(self._wiki_dir, folder, slug))


def _plain(topic: Topic) -> bool:
    """A phrase of plain words that no heading gives ("trace files", "working directory"):
    its page comes after the names, headings and code names a reader looks up (the
    `flamegraph` section had lost its page to them)."""
    return (
        " " in topic.name
        and topic.name.islower()
        and not topic.from_heading
        and not topic.precise
        and not is_code_like(topic.name)
    )


def plan_batch(
    extractions: Sequence[Extraction],
    vault: Vault,
    *,
    existing_source_pages: dict[str, str],
    max_pages: int,
) -> list[SourcePlan]:
    """One SourcePlan per extraction. `existing_source_pages` maps raw path → source page path
    (for re-ingest); new sources get a fresh slug from their file name."""
    resolver = Resolver(vault)
    plans = []
    for ex in extractions:
        page = existing_source_pages.get(ex.source.rel)
        if page is None:
            page = resolver.reserve_source_page(ex.source.stem)
        plan = SourcePlan(ex, page)
        placed = place_topics(ex)  # members listed on their parents' pages, title subjects
        ex.topics = placed.topics
        ex.notes += placed.notes
        # what code finds from the document's structure and evidence comes first, plain
        # phrases last among it; then the spare topics it found beyond the cap; then the names
        # only the model chose
        ranked = sorted(
            enumerate(ex.topics),
            key=lambda it: (it[1].from_model, it[1].spare, _plain(it[1]), -it[1].weight, it[0]),
        )
        seen: set[str] = set()
        for _, topic in ranked:
            if not topic.facts or len(plan.topics) >= max_pages:
                plan.dropped.append(topic.name)
                continue
            target = resolver.resolve(topic)
            if target.path in seen:  # two topics of one source that are one page: merge
                i = next(i for i, (_, t) in enumerate(plan.topics) if t.path == target.path)
                old, tgt = plan.topics[i]
                plan.topics[i] = (
                    replace(
                        old,
                        aliases=tuple(dict.fromkeys((*old.aliases, topic.name, *topic.aliases))),
                        facts=tuple(dict.fromkeys((*old.facts, *topic.facts))),
                        usage=tuple(dict.fromkeys((*old.usage, *topic.usage))),
                    ),
                    tgt,
                )
                continue
            seen.add(target.path)
            plan.topics.append((topic, target))
        plans.append(plan)
    return plans
