"""Read every page once and keep what the rules need: properties, links with offsets, claims.

A `WikiScan` equals what `Vault.load` sees (same page set, same properties, same resolution),
built faster: page properties go through `yamlfast`, code is masked only in pages that have
code, links come from one literal-first regex pass, block ids, headings and `## Facts` bullets
are parsed lazily, once per page, and unchanged pages come from `scan_cache`. Only
`save_cache` writes (machine state in .wikic/).
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from frontmatter.default_handlers import YAMLHandler

from wikic.errors import PageError
from wikic.lint.parse import BLOCK_TOKEN_RE, LINK_RE, Claim, is_valid_block, section_claims
from wikic.lint.yamlfast import load_props
from wikic.paths import WikiPaths
from wikic.vault.links import HEADING_RE, WikiLink, mask_code, parse_inner
from wikic.vault.pages import Page, parse_page, property_kind
from wikic.vault.sections import CONTRADICTIONS, FACTS
from wikic.vault.tree import Vault, page_files

if TYPE_CHECKING:
    from wikic.lint.scan_cache import ScanCache

_FM_BOUNDARY = YAMLHandler.FM_BOUNDARY
# exact types only (bool is an int subclass): anything else goes through property_kind
_SCALAR_KINDS = {
    str: "text", bool: "checkbox", int: "number", float: "number", dt.date: "date",
    dt.datetime: "datetime", type(None): "empty",
}  # fmt: skip
# python-frontmatter passes properties as keyword arguments: these names (and non-text keys) fail
_FRONTMATTER_RESERVED = ("content", "handler")


class Link(NamedTuple):
    """A wikilink in a page body; `start`/`end` are offsets in the body."""

    start: int
    end: int
    link: WikiLink


@dataclass
class PageScan:
    """One page as read from disk, with its parsed parts.

    From the scan cache, `page` carries the properties only (body ""), and `text`, `body` and
    `masked` are read from the file when a rule first needs them (rarely: for line numbers)."""

    page: Page
    file: str  # absolute path of the page file
    body_offset: int  # where the body starts in `text`
    links: list[Link]
    has_code: bool  # whether the body has code to mask
    path: str = ""  # = page.path (a field: rules read it very often)
    type: str = ""  # = page.type
    resolved: list[PageScan | None] | None = None  # set by WikiScan.targets

    def __post_init__(self) -> None:
        self.path = self.page.path
        self.type = self.page.type

    @cached_property
    def text(self) -> str:
        """The whole file."""
        return read_text(self.file)

    @cached_property
    def body(self) -> str:
        return self.page.body or split_file(self.path, self.text)[0].body

    @cached_property
    def masked(self) -> str:
        """The body with code blanked out (the body itself when it has none)."""
        return mask_code(self.body) if self.has_code else self.body

    def line(self, body_offset: int) -> int:
        """1-based line in the file of an offset in the body."""
        return self.text.count("\n", 0, self.body_offset + body_offset) + 1

    @cached_property
    def block_defs(self) -> list[tuple[str, int, bool]]:
        """(id, body offset, valid) of every `^id` that ends a line outside code."""
        found = []
        masked = self.masked
        for m in BLOCK_TOKEN_RE.finditer(masked):
            start = m.start()
            if start and not masked[start - 1].isspace():
                continue
            token = m.group(1)
            found.append((token, start, is_valid_block(token)))
        return found

    @cached_property
    def blocks(self) -> frozenset[str]:
        return frozenset(token for token, _, valid in self.block_defs if valid)

    @cached_property
    def headings(self) -> frozenset[str]:
        return frozenset(h.strip().casefold() for h in HEADING_RE.findall(self.masked))

    @cached_property
    def prop_kinds(self) -> dict[str, str]:
        """Obsidian's type of each property value (`pages.property_kind`)."""
        return {
            k: _SCALAR_KINDS.get(type(v)) or property_kind(v) for k, v in self.page.props.items()
        }

    @cached_property
    def prop_links(self) -> list[tuple[str, WikiLink]]:
        return property_links(self.page)

    @cached_property
    def facts(self) -> list[Claim]:
        return self._claims(FACTS)

    @cached_property
    def contradictions(self) -> list[Claim]:
        return self._claims(CONTRADICTIONS)

    def _claims(self, heading: str) -> list[Claim]:
        if self.type == "source" or f"## {heading}" not in self.body:
            return []
        return section_claims(self.body, heading, self.links)


def read_text(file: str) -> str:
    """A page file's text as `Path.read_text` gives it (bytes + decode: no TextIOWrapper)."""
    with open(file, "rb") as fh:
        text = fh.read().decode("utf-8")
    if "\r" in text:  # what text mode's universal newlines would do
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def split_file(path: str, text: str) -> tuple[Page, int]:
    """Parse a page file as `parse_page` does; also return where the body starts in `text`."""
    stripped = text.strip()
    parts = _FM_BOUNDARY.split(stripped, 2) if _FM_BOUNDARY.match(stripped) else []
    if len(parts) < 3:
        try:
            page = parse_page(path, text)
        except TypeError:  # python-frontmatter cannot pass such property names on
            raise PageError(f"{path}: a property name cannot be read (it must be text)") from None
        body = page.body.strip()
        return page, max(text.find(body), 0) if body else len(text)
    _, head, content = parts
    try:
        props = load_props(head)
    except Exception as exc:  # PyYAML raises YAMLError, and ValueError for some bad values
        raise PageError(f"{path}: invalid YAML properties: {exc}") from None
    if not isinstance(props, dict):
        props = {}
    bad = [k for k in props if not isinstance(k, str) or k in _FRONTMATTER_RESERVED]
    if bad:
        raise PageError(
            f"{path}: property name {bad[0]!r} cannot be read (names must be text, not "
            f"{', '.join(_FRONTMATTER_RESERVED)})"
        )
    body = content.strip()
    lead = len(text) - len(text.lstrip())
    offset = lead + len(stripped) - len(content) + (len(content) - len(content.lstrip()))
    return Page(path, props, body + "\n" if body else body), offset


def scan_page(
    path: str,
    text: str,
    plain: dict[str, WikiLink],
    embeds: dict[str, WikiLink],
    file: str = "",
) -> PageScan:
    """Parse one page file; `plain`/`embeds` memoise parsed links across pages."""
    page, offset = split_file(path, text)
    body = page.body
    has_code = "`" in body or "~~~" in body
    masked = mask_code(body) if has_code else body
    links = []
    for m in LINK_RE.finditer(masked):
        start, end = m.span()
        inner = body[start + 2 : end - 2]
        if start and masked[start - 1] == "!":
            lnk = embeds.get(inner)
            if lnk is None:
                lnk = embeds[inner] = parse_inner(inner, embed=True)
            start -= 1
        else:
            lnk = plain.get(inner)
            if lnk is None:
                lnk = plain[inner] = parse_inner(inner)
        links.append(Link(start, end, lnk))
    ps = PageScan(page, file, offset, links, has_code)
    ps.__dict__.update(text=text, body=body, masked=masked)  # cached_property values
    return ps


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


def property_links(page: Page) -> list[tuple[str, WikiLink]]:
    """(property, link) for every quoted `[[link]]` in the page's properties."""
    found = []
    for key, value in page.props.items():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and "[[" in item:
                found += [(key, parse_inner(m.group(1))) for m in LINK_RE.finditer(item)]
    return found


def scan_wiki(paths: WikiPaths, *, use_cache: bool = True) -> WikiScan:
    """Read and parse every page of the wiki; with `use_cache`, pages whose file is unchanged
    since the last scan (same mtime, size, inode) come from `.wikic/lint-scan.json`."""
    from wikic.lint.scan_cache import ScanCache, file_signature  # it builds PageScans

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
