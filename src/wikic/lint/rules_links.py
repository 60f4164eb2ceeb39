"""Structural rules about links, citations and blocks (no LLM).

A citation is a block link to a source page (`[[sources/x#^p3]]`); every `## Facts` bullet needs
one. A broken link whose target names exactly one page by its path, file name, title or alias
(ignoring case, punctuation and plurals) is fixable; fuzzier matches only become a hint.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import PurePosixPath

from wikic.lint.findings import Finding, Level
from wikic.lint.page_scan import PageScan
from wikic.lint.parse import is_valid_block
from wikic.lint.scan import WikiScan
from wikic.vault.links import WikiLink, iter_links, normalize_target
from wikic.vault.links import link as render_link
from wikic.vault.names import NameIndex
from wikic.vault.tree import SPECIAL_FILES

SNIPPET_CHARS = 80


def snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[: SNIPPET_CHARS - 1] + "…"


class LinkChecker:
    """Resolves links once and knows the repair candidates of the ones that resolve to nothing."""

    def __init__(self, scan: WikiScan) -> None:
        self.scan = scan

    @cached_property
    def names(self) -> NameIndex:
        def every_name() -> Iterator[tuple[str, str]]:
            for ps in self.scan:
                page = ps.page
                for name in (page.name, page.stem, page.title, *page.aliases):
                    yield name, page.path

        return NameIndex(every_name())

    def repair(self, target: str) -> PageScan | None:
        """The one page a broken target can only mean, or None."""
        if is_attachment(target):
            return None
        found = self.names.exact(target)
        return self.scan.pages[found.pop()] if len(found) == 1 else None

    def suggestions(self, target: str) -> list[PageScan]:
        paths = sorted(self.names.exact(target)) or self.names.similar(target)
        return [self.scan.pages[p] for p in paths[:3]]

    @cached_property
    def _by_stem(self) -> dict[str, list[str]]:
        by_stem: dict[str, list[str]] = {}
        for ps in self.scan:
            by_stem.setdefault(ps.page.stem.casefold(), []).append(ps.path)
        return by_stem

    def same_stem(self, target: str) -> list[str]:
        return self._by_stem.get(normalize_target(target).rsplit("/", 1)[-1], [])

    def is_citation(self, ps: PageScan, lnk: WikiLink) -> bool:
        if lnk.block is None:
            return False
        found = self.scan.resolve(ps, lnk.target)
        if found is None:
            return lnk.target.casefold().startswith("sources/")
        return found.type == "source"


# File types Obsidian embeds or opens itself; anything else (`[[Llama 3.1]]`, `[[Node.js]]`)
# names a note.
ATTACHMENT_SUFFIXES = frozenset(
    [
        ".png",
        ".jpg",
        ".jpeg",
        ".gif",
        ".bmp",
        ".svg",
        ".webp",
        ".avif",
        ".tif",
        ".tiff",
        ".ico",
        ".mp3",
        ".wav",
        ".m4a",
        ".ogg",
        ".flac",
        ".3gp",
        ".webm",
        ".mp4",
        ".ogv",
        ".mov",
        ".mkv",
        ".avi",
        ".pdf",
        ".canvas",
        ".base",
        ".excalidraw",
        ".csv",
        ".json",
        ".txt",
        ".zip",
    ]
)


def is_attachment(target: str) -> bool:
    return PurePosixPath(target).suffix.lower() in ATTACHMENT_SUFFIXES


def _page_link(ps: PageScan) -> str:
    return render_link(ps.page.name, alias=ps.page.title)


def check_links(scan: WikiScan, checker: LinkChecker) -> Iterator[Finding]:
    """broken-link, ambiguous-link, broken-anchor, missing-citation-block, and links to
    invalid block ids."""
    for ps in scan:
        rel = scan.rel(ps.path)
        for ref, target in zip(ps.links, scan.targets(ps), strict=True):
            lnk = ref.link
            if (  # the common case, decided without building messages
                target is not None
                and lnk.heading is None
                and (lnk.block is None or lnk.block in target.blocks)
                and not scan.ambiguous(lnk.target)
            ):
                continue
            for issue in _check_one(scan, checker, ps, lnk, where=""):
                yield issue.at(rel, ps.line(ref.start))
        for key, lnk in ps.prop_links:
            for issue in _check_one(scan, checker, ps, lnk, where=f" in property '{key}'"):
                yield issue.at(rel, None)


def check_special_links(scan: WikiScan, checker: LinkChecker) -> Iterator[Finding]:
    """broken-link and broken-anchor in index.md and log.md: not pages, but Obsidian's graph
    and other markdown tools follow their links all the same."""
    for name in SPECIAL_FILES:
        rel = scan.rel(name)
        try:
            text = (scan.paths.wiki / name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        hint = (
            "`wikic lint --fix` regenerates index.md from the pages."
            if name == "index.md"
            else "`wikic lint --fix` makes it plain text (or point it at the page that replaced it)."
        )
        for start, _end, lnk in iter_links(text):
            if not lnk.target:
                continue
            target = scan.vault.resolve(lnk.target)
            line = (
                None
                if target is not None and not (lnk.block or lnk.heading)
                else (
                    text.count("\n", 0, start) + 1  # counted only for a link that may be reported
                )
            )
            if target is None:
                if is_attachment(lnk.target):
                    continue
                found = checker.suggestions(lnk.target)
                better = f"Did you mean {_page_link(found[0])}? " if found else ""
                yield Finding(
                    "error",
                    "broken-link",
                    rel,
                    f"{lnk.render()}: no page '{lnk.target}'",
                    better + hint,
                    fixable=True,
                    line=line,
                )
                continue
            ps = scan.pages[target.path]
            missing = (lnk.block is not None and lnk.block not in ps.blocks) or (
                lnk.heading is not None and lnk.heading.strip().casefold() not in ps.headings
            )
            if missing:
                yield Finding(
                    "warning",
                    "broken-anchor",
                    rel,
                    f"{lnk.render()}: {ps.path} has no such heading or block",
                    hint,
                    line=line,
                )


def _check_one(
    scan: WikiScan, checker: LinkChecker, ps: PageScan, lnk: WikiLink, *, where: str
) -> Iterator[_Issue]:
    shown = lnk.render()
    target = scan.resolve(ps, lnk.target)
    if target is None:
        if is_attachment(lnk.target):
            if lnk.target.casefold() not in scan.attachments:
                yield _f(
                    "error", "broken-link", f"{shown}{where}: no file {lnk.target} in the wiki"
                )
            return
        repair = checker.repair(lnk.target)
        if repair is not None:
            yield _f(
                "error",
                "broken-link",
                f"{shown}{where}: no page '{lnk.target}'",
                f"Did you mean {_page_link(repair)}? `wikic lint --fix` repairs it.",
                fixable=True,
            )
            return
        options = " or ".join(_page_link(p) for p in checker.suggestions(lnk.target))
        hint = f"Did you mean {options}?" if options else "Create the page, or remove the link."
        yield _f("error", "broken-link", f"{shown}{where}: no page '{lnk.target}'", hint)
        return
    if scan.ambiguous(lnk.target):
        same = checker.same_stem(lnk.target)
        yield _f(
            "warning",
            "ambiguous-link",
            f"{shown}{where} matches {len(same)} pages: " + ", ".join(same),
            "Link with the full path, e.g. " + render_link(target.page.name),
        )
    if lnk.block is not None:
        yield from _check_block(ps, target, lnk, shown + where)
    elif lnk.heading is not None and lnk.heading.strip().casefold() not in target.headings:
        close = difflib.get_close_matches(
            lnk.heading.strip().casefold(), sorted(target.headings), n=1, cutoff=0.6
        )
        hint = (
            f"Did you mean the heading '{close[0]}'?" if close else "Link to an existing heading."
        )
        yield _f(
            "warning",
            "broken-anchor",
            f"{shown}{where}: {target.path} has no heading '{lnk.heading}'",
            hint,
        )


def _check_block(ps: PageScan, target: PageScan, lnk: WikiLink, shown: str) -> Iterator[_Issue]:
    block = lnk.block or ""
    if not is_valid_block(block):
        yield _f(
            "warning",
            "invalid-block-id",
            f"{shown} points at '^{block}', which is not a valid block id",
            "Block ids are letters, digits and '-' only.",
        )
        return
    if block in target.blocks:
        return
    if target.type == "source":
        count = sum(1 for b in target.blocks if b.startswith("p") and b[1:].isdigit())
        yield _f(
            "error",
            "missing-citation-block",
            f"{shown}: {target.path} has no paragraph ^{block}",
            f"{target.path} has paragraphs ^p1…^p{count}; cite the one that supports the claim."
            if count
            else "Re-ingest the source so its paragraphs get block ids.",
        )
        return
    close = difflib.get_close_matches(block, sorted(target.blocks), n=1, cutoff=0.7)
    hint = f"Did you mean ^{close[0]}?" if close else "Link to an existing block."
    where = "this page" if target is ps else target.path
    yield _f("warning", "broken-anchor", f"{shown}: {where} has no block ^{block}", hint)


@dataclass(frozen=True)
class _Issue:
    level: Level
    rule: str
    message: str
    hint: str = ""
    fixable: bool = False

    def at(self, page: str, line: int | None) -> Finding:
        return Finding(self.level, self.rule, page, self.message, self.hint, self.fixable, line)


_f = _Issue


def check_facts(scan: WikiScan, checker: LinkChecker) -> Iterator[Finding]:
    """uncited-fact: a `## Facts` bullet with no block link to a source page."""
    for ps in scan:
        for fact in ps.facts:
            if any(checker.is_citation(ps, lnk) for lnk in fact.links):
                continue
            loose = [
                lnk
                for lnk in fact.links
                if lnk.block is None and checker.is_citation(ps, WikiLink(lnk.target, block="p1"))
            ]
            hint = (
                f"Cite the paragraph, not the whole source: [[{loose[0].target}#^pN]]."
                if loose
                else "End it with a link to the source paragraph that supports it, "
                "e.g. [[sources/slug#^p3]], or remove it."
            )
            yield Finding(
                "warning",
                "uncited-fact",
                scan.rel(ps.path),
                f'fact without a citation: "{snippet(fact.text)}"',
                hint,
                line=ps.line(fact.start),
            )


def check_block_ids(scan: WikiScan) -> Iterator[Finding]:
    """invalid-block-id: `^ids` with bad characters, and ids defined twice on one page."""
    for ps in scan:
        defs = ps.block_defs
        if all(valid for _, _, valid in defs) and len(ps.blocks) == len(defs):
            continue  # the common case: every id valid and unique
        seen = Counter(token for token, _, valid in defs if valid)
        reported: set[str] = set()
        for token, offset, valid in ps.block_defs:
            if not valid:
                yield Finding(
                    "warning",
                    "invalid-block-id",
                    scan.rel(ps.path),
                    f"'^{token}' is not a valid block id, so nothing can link to it",
                    "Use letters, digits and '-' only, e.g. ^" + _suggest_block(token),
                    line=ps.line(offset),
                )
            elif seen[token] > 1 and token not in reported:
                reported.add(token)
                yield Finding(
                    "warning",
                    "invalid-block-id",
                    scan.rel(ps.path),
                    f"block id ^{token} is defined {seen[token]} times on this page",
                    "Give each block its own id; links to a duplicated id are ambiguous.",
                    line=ps.line(offset),
                )


def _suggest_block(token: str) -> str:
    cleaned = "".join(c if c.isascii() and c.isalnum() else "-" for c in token).strip("-")
    return "-".join(part for part in cleaned.split("-") if part) or "block-1"
