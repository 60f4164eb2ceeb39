"""Read every page once and keep what the rules need: properties, links with offsets, claims.

A `WikiScan` equals what `Vault.load` sees (same page set, same properties, same resolution),
built faster: page properties go through `yamlfast`, code is masked only in pages that have
code, links come from one literal-first regex pass, block ids, headings and `## Facts` bullets
are parsed lazily, once per page, and unchanged pages come from `scan_cache`. Only
`save_cache` writes (machine state in .wikic/).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from wikic.errors import PageError
from wikic.lint.page_scan import PageScan, read_text, scan_page
from wikic.lint.scan_cache import ScanCache, file_signature
from wikic.paths import WikiPaths
from wikic.vault.links import WikiLink
from wikic.vault.tree import Vault, page_files


@dataclass
class WikiScan:
    """Every page of the wiki, parsed once. `pages` and `vault` hold the same pages."""

    paths: WikiPaths
    vault: Vault
    pages: dict[str, PageScan] = field(default_factory=dict)
    broken: dict[str, str] = field(default_factory=dict)
    cache: ScanCache | None = None  # where unchanged pages came from; `save_cache` updates it

    def save_cache(self) -> None:
        """Remember this scan's pages for the next run (only if something changed)."""
        if self.cache is not None:
            self.cache.save(self.pages)

    @cached_property
    def wiki_rel(self) -> str:
        return self.paths.rel(self.paths.wiki)

    def rel(self, page_path: str) -> str:
        """A page path as findings show it: relative to the wiki root."""
        return f"{self.wiki_rel}/{page_path}"

    def __iter__(self) -> Iterator[PageScan]:
        return iter(self._ordered)

    @cached_property
    def _ordered(self) -> list[PageScan]:
        """Pages sorted by path (the scan is complete before anyone iterates)."""
        return [self.pages[p] for p in sorted(self.pages)]

    @cached_property
    def _resolved(self) -> dict[str, str | None]:
        return {}

    def resolve(self, source: PageScan, target: str) -> PageScan | None:
        """The page a link target names, seen from `source` (an empty target is the page itself)."""
        if not target:
            return source
        cache = self._resolved
        if target not in cache:
            page = self.vault.resolve(target)
            cache[target] = page.path if page is not None else None
        found = cache[target]
        return self.pages[found] if found is not None else None

    def ambiguous(self, target: str) -> bool:
        """Whether a bare link name matches several pages (Obsidian then picks one)."""
        if "/" in target or "\\" in target:
            return False  # a path matches a page's full name exactly, or nothing
        cache = self._ambiguous
        if target not in cache:
            cache[target] = bool(target) and self.vault.is_ambiguous(target)
        return cache[target]

    @cached_property
    def _ambiguous(self) -> dict[str, bool]:
        return {}

    @cached_property
    def attachments(self) -> set[str]:
        """Non-page files under wiki/ (images, PDFs), by relative path and by name, case-folded."""
        names: set[str] = set()
        for dirpath, dirnames, filenames in os.walk(self.paths.wiki):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            rel_dir = Path(dirpath).relative_to(self.paths.wiki).as_posix()
            for name in filenames:
                if name.endswith(".md") or name.startswith("."):
                    continue
                names.add(name.casefold())
                names.add((name if rel_dir == "." else f"{rel_dir}/{name}").casefold())
        return names

    def targets(self, ps: PageScan) -> list[PageScan | None]:
        """The page each body link of `ps` resolves to (aligned with `ps.links`), memoised."""
        found = ps.resolved
        if found is None:
            found = ps.resolved = [self.resolve(ps, ref.link.target) for ref in ps.links]
        return found

    @cached_property
    def backlinks(self) -> dict[str, set[str]]:
        """page path → pages linking to it from their body or properties (self-links excluded)."""
        back: dict[str, set[str]] = {}
        for ps in self:
            found = {t.path for t in self.targets(ps) if t is not None}
            found.update(
                t.path
                for _, lnk in ps.prop_links
                if (t := self.resolve(ps, lnk.target)) is not None
            )
            found.discard(ps.path)
            for path in found:
                back.setdefault(path, set()).add(ps.path)
        return back


def scan_wiki(paths: WikiPaths, *, use_cache: bool = True) -> WikiScan:
    """Read and parse every page of the wiki; with `use_cache`, pages whose file is unchanged
    since the last scan (same mtime, size, inode) come from `.wikic/lint-scan.json`."""
    wiki_dir = paths.wiki
    prefix = str(wiki_dir) + os.sep
    vault = Vault(wiki_dir)
    scan = WikiScan(paths, vault)
    cache = ScanCache.load(paths) if use_cache else None
    plain: dict[str, WikiLink] = {}
    embeds: dict[str, WikiLink] = {}
    for rel in page_files(wiki_dir):
        file = prefix + rel
        try:
            sig = file_signature(file) if cache is not None else None
            ps = cache.get(rel, sig, file, plain, embeds) if cache is not None else None
            if ps is None:
                ps = scan_page(rel, read_text(file), plain, embeds, file)
                if cache is not None:
                    cache.fresh[rel] = (sig, ps)
        except UnicodeDecodeError:
            scan.broken[rel] = f"{rel} is not UTF-8 text"
            continue
        except PageError as exc:
            scan.broken[rel] = exc.message
            continue
        except OSError as exc:
            scan.broken[rel] = f"{rel} cannot be read: {exc.strerror or exc}"
            continue
        scan.pages[rel] = ps
        vault.add(ps.page)
    scan.cache = cache
    return scan
