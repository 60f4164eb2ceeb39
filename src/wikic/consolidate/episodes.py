"""The episodes of a wiki, read from their source pages: date, title, summary and citable blocks.

Blocks come from the source page itself (the text before each `^pN` id), so every block an
episode offers is one a citation `[[sources/slug#^pN]]` resolves to, whatever parser ingest used.
An episode is consolidated when its source page has a `consolidated` date property.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from wikic.paths import WikiPaths
from wikic.vault.document import parse_document
from wikic.vault.episodes import episode_date, parse_date
from wikic.vault.links import parse_links
from wikic.vault.pages import Page
from wikic.vault.tree import Vault

_TRAILING_ID_RE = re.compile(r"\s*\\?\^(p\d+)\s*$")
_FRONT_RE = re.compile(r"\A---\n(.*?)\n---\n", re.DOTALL)


@dataclass(frozen=True)
class EpisodeBlock:
    id: str  # "p3": the block id on the episode's source page
    text: str  # plain text, without the id
    sentences: tuple[str, ...]


@dataclass(frozen=True)
class Episode:
    page: str  # source page path relative to wiki/, e.g. "sources/2026-04-03-standup.md"
    raw: str
    title: str
    date: dt.date
    summary: str
    blocks: tuple[EpisodeBlock, ...]
    consolidated: dt.date | None
    links: frozenset[str]  # page names the source page already links to

    @property
    def name(self) -> str:
        return self.page.removesuffix(".md")

    def block(self, block_id: str) -> EpisodeBlock | None:
        return next((b for b in self.blocks if b.id == block_id), None)

    @property
    def text(self) -> str:
        return "\n".join(b.text for b in self.blocks)


def page_blocks(page: Page) -> tuple[EpisodeBlock, ...]:
    """The citable blocks of a source page: every block whose text ends with its `^pN` id (an
    id alone on its line belongs to the block before it)."""
    doc = parse_document(page.body, filename=page.path)
    found: dict[str, EpisodeBlock] = {}
    previous: tuple[str, tuple[str, ...]] | None = None
    for block in doc.blocks:
        m = _TRAILING_ID_RE.search(block.text)
        if m is None:
            previous = (block.text, tuple(s.text for s in block.sentences))
            continue
        text = block.text[: m.start()].strip()
        sentences = tuple(s.text for s in block.sentences if not _TRAILING_ID_RE.fullmatch(s.text))
        if not text and previous is not None:
            text, sentences = previous
        sentences = tuple(_TRAILING_ID_RE.sub("", s).strip() for s in sentences)
        if text and m.group(1) not in found:
            found[m.group(1)] = EpisodeBlock(m.group(1), text, tuple(s for s in sentences if s))
        previous = None
    return tuple(found.values())


def _raw_text(paths: WikiPaths, raw: str) -> str:
    try:
        return (paths.root / raw).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return ""


def _front_matter(text: str) -> dict[str, Any]:
    m = _FRONT_RE.match(text.replace("\r\n", "\n"))
    if not m:
        return {}
    try:
        data = yaml.safe_load(m.group(1))
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def _modified(paths: WikiPaths, raw: str) -> dt.date | None:
    try:
        return dt.date.fromtimestamp((paths.root / raw).stat().st_mtime)
    except OSError:
        return None


def date_of_source(paths: WikiPaths, page: Page) -> dt.date | None:
    """The episode date of a source page, or None when its source is not an episode."""
    if page.type != "source":
        return None
    raw = str(page.props.get("raw") or "")
    own = parse_date(page.props.get("date"))
    if own or not raw:
        return own
    text = _raw_text(paths, raw)
    return episode_date(
        raw,
        _front_matter(text),
        paths.config,
        modified=_modified(paths, raw),
        text=text or None,
    )


def find_episodes(paths: WikiPaths, vault: Vault) -> list[Episode]:
    """Every episode with a source page, in date order."""
    found = []
    for page in vault.by_type("source"):
        day = date_of_source(paths, page)
        if day is None:
            continue
        found.append(
            Episode(
                page=page.path,
                raw=str(page.props.get("raw") or ""),
                title=page.title,
                date=day,
                summary=page.summary,
                blocks=page_blocks(page),
                consolidated=parse_date(page.props.get("consolidated")),
                links=frozenset(_linked_names(page)),
            )
        )
    return sorted(found, key=lambda e: (e.date, e.page))


def pending_episodes(paths: WikiPaths, vault: Vault) -> list[Episode]:
    return [e for e in find_episodes(paths, vault) if e.consolidated is None]


def _linked_names(page: Page) -> Sequence[str]:
    return [lnk.target.casefold() for lnk in parse_links(page.body)]


def count_pending(paths: WikiPaths, vault: Vault) -> int:
    """Episodes not consolidated yet (cheap: properties and dates only, no block parsing)."""
    return sum(
        1
        for page in vault.by_type("source")
        if page.props.get("consolidated") is None and date_of_source(paths, page) is not None
    )
