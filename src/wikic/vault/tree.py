"""The set of pages under `wiki/`, read-only: loading, link resolution, blocks, backlinks.

Resolution follows Obsidian: a target is a path relative to the wiki directory (without `.md`)
or, when unambiguous, a bare file name; matching ignores case. `index.md`, `log.md` and hidden
folders (`.obsidian/`, `.trash/`) are not pages.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from wikic.errors import PageError
from wikic.vault.links import WikiLink, block_ids, headings, iter_links, normalize_target
from wikic.vault.pages import Page, parse_page

SPECIAL_FILES = ("index.md", "log.md")


def page_files(wiki_dir: Path) -> Iterator[str]:
    """Relative posix paths of every page file, sorted, skipping hidden folders and specials."""
    if not wiki_dir.is_dir():
        return
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(wiki_dir):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        rel_dir = Path(dirpath).relative_to(wiki_dir).as_posix()
        for name in filenames:
            if not name.endswith(".md") or name.startswith("."):
                continue
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            if rel not in SPECIAL_FILES:
                found.append(rel)
    yield from sorted(found)


def read_page(wiki_dir: Path, rel: str) -> Page:
    try:
        text = (wiki_dir / rel).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise PageError(f"{rel} is not UTF-8 text") from None
    return parse_page(rel, text)


@dataclass
class Vault:
    """A snapshot of the wiki's pages. Pages that fail to parse are kept in `broken`."""

    wiki_dir: Path
    pages: dict[str, Page] = field(default_factory=dict)  # by path
    broken: dict[str, str] = field(default_factory=dict)  # path → error message
    _by_key: dict[str, list[str]] = field(default_factory=dict, repr=False)
    _anchors: dict[str, tuple[set[str], set[str]]] = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, wiki_dir: Path) -> Vault:
        vault = cls(wiki_dir)
        for rel in page_files(wiki_dir):
            try:
                vault.add(read_page(wiki_dir, rel))
            except PageError as exc:
                vault.broken[rel] = exc.message
        return vault

    def add(self, page: Page) -> None:
        """Add or replace a page (used by operations to see their own planned pages)."""
        if page.path in self.pages:
            self.remove(page.path)
        self.pages[page.path] = page
        for key in self._keys(page):
            self._by_key.setdefault(key, []).append(page.path)

    def remove(self, path: str) -> None:
        self._anchors.pop(path, None)
        page = self.pages.pop(path, None)
        if page is None:
            return
        for key in self._keys(page):
            paths = self._by_key.get(key, [])
            if path in paths:
                paths.remove(path)

    @staticmethod
    def _keys(page: Page) -> set[str]:
        return {normalize_target(page.name), normalize_target(page.stem)}

    def __iter__(self) -> Iterator[Page]:
        return iter(self.pages[p] for p in sorted(self.pages))

    def __len__(self) -> int:
        return len(self.pages)

    def by_type(self, page_type: str) -> list[Page]:
        return [p for p in self if p.type == page_type]

    def resolve(self, target: str) -> Page | None:
        """The page a link target points to, or None. Full paths win over bare names; among
        several pages with one name, the shortest path wins (as in Obsidian)."""
        key = normalize_target(target)
        if not key:
            return None
        candidates = self._by_key.get(key, [])
        exact = [p for p in candidates if normalize_target(self.pages[p].name) == key]
        pool = exact or candidates
        if not pool:
            return None
        return self.pages[min(pool, key=lambda p: (p.count("/"), p))]

    def is_ambiguous(self, target: str) -> bool:
        key = normalize_target(target)
        exact = [
            p for p in self._by_key.get(key, []) if normalize_target(self.pages[p].name) == key
        ]
        return not exact and len(self._by_key.get(key, [])) > 1

    def links_from(self, page: Page) -> list[WikiLink]:
        return [lnk for _, _, lnk in iter_links(page.body)]

    def link_exists(self, lnk: WikiLink, *, on: Page | None = None) -> bool:
        """Whether the link's page, and its block or heading if any, exist. A link with an empty
        target (`[[#^block]]`, `[[#Heading]]`) points into the page `on` that holds it."""
        target = on if not lnk.target and on is not None else self.resolve(lnk.target)
        if target is None:
            return False
        blocks, heads = self.anchors(target)
        if lnk.block is not None:
            return lnk.block in blocks
        if lnk.heading is not None:
            return lnk.heading.strip().casefold() in heads
        return True

    def anchors(self, page: Page) -> tuple[set[str], set[str]]:
        """(block ids, case-folded headings) of a page, computed once."""
        found = self._anchors.get(page.path)
        if found is None:
            found = (block_ids(page.body), {h.strip().casefold() for h in headings(page.body)})
            self._anchors[page.path] = found
        return found

    def backlinks(self) -> dict[str, set[str]]:
        """page path → paths of the pages that link to it (self-links excluded)."""
        back: dict[str, set[str]] = defaultdict(set)
        for page in self:
            for lnk in self.links_from(page):
                target = self.resolve(lnk.target)
                if target is not None and target.path != page.path:
                    back[target.path].add(page.path)
        return dict(back)

    def titles(self) -> Iterable[tuple[str, Page]]:
        """(name, page) for every title and alias, for matching entities to pages."""
        for page in self:
            yield page.title, page
            for alias in page.aliases:
                yield alias, page
