"""What the store keeps of one page, computed from its text alone (no database here).

Everything in `PageRecord` is a pure function of the page's path and bytes, which is what lets
the store be rebuilt from the pages at any time. Claims are the `## Facts` bullets, contradictions
the `## Contradictions` bullets, both parsed with `wikic.vault.sections`. Passages are what
`wikic query` retrieves: fact bullets (under any `###` subheading), source paragraphs, overviews.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from wikic.errors import PageError
from wikic.vault.document import names_release
from wikic.vault.links import (
    BLOCK_ID_RE,
    HEADING_RE,
    WikiLink,
    iter_links,
    mask_code,
    normalize_target,
)
from wikic.vault.pages import Page, parse_page
from wikic.vault.sections import (
    CONTRADICTIONS,
    FACTS,
    STATUS_RE,
    Body,
    bullets,
    listed_names,
    split_body,
)
from wikic.vault.topic_page import paragraph_paths

_MD_NOISE_RE = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+|[-*+][ \t]+|>[ \t]?|\d+\.[ \t]+)", re.MULTILINE)


@dataclass(frozen=True)
class Citation:
    """A link from a claim to a block of a source page: `target` as written (`sources/x`),
    `page` the page path it resolves to (None: no such page; filled in by the store)."""

    target: str
    block: str | None
    page: str | None = None

    def render(self) -> str:
        return WikiLink(self.target, block=self.block).render()


@dataclass(frozen=True)
class Claim:
    """One `## Facts` bullet. `text` has the citation links taken out; `markdown` is the bullet
    as written (without its marker and block id)."""

    page: str
    ordinal: int
    block: str | None
    text: str
    markdown: str
    citations: tuple[Citation, ...]


@dataclass(frozen=True)
class ClaimRef:
    """A block a contradiction points at: `target` as written (the holding page's name for
    `[[#^f-1]]`), `page` the page path it resolves to (None: no such page)."""

    target: str
    block: str
    page: str | None = None


@dataclass(frozen=True)
class Contradiction:
    """One `## Contradictions` bullet: `status` is open, resolved or None (not marked)."""

    page: str
    ordinal: int
    block: str | None
    status: str | None
    note: str
    markdown: str
    refs: tuple[ClaimRef, ...]


@dataclass(frozen=True)
class Passage:
    """A unit `wikic query` retrieves: a fact bullet (`fact`, block `f-…`), a numbered paragraph
    of a source page (`para`, block `pN`) or the page's overview (`overview`, no block).
    `text` reads as prose (links shown as their text, citations and block ids dropped); `cite`
    is a fact's first source citation (`sources/x#^p3`); `section` a fact's `###` subheading,
    or a source paragraph's heading (`section_label`)."""

    kind: str
    ordinal: int
    block: str | None
    text: str
    cite: str | None = None
    section: str = ""


@dataclass(frozen=True)
class PageRecord:
    """The rows of one page file. `broken` holds the parse error of an unreadable page, whose
    raw text is still indexed so that search finds it."""

    path: str
    sha: str
    title: str
    type: str
    aliases: tuple[str, ...]
    tags: tuple[str, ...]
    summary: str
    updated: str
    source_count: int
    props_json: str
    prop_values: tuple[tuple[str, str], ...]  # (key, value), lists expanded, case-folded
    search_body: str
    blocks: tuple[str, ...]
    headings: tuple[str, ...]
    link_keys: tuple[str, ...]  # normalized targets of the page's outgoing links, deduplicated
    claims: tuple[Claim, ...]
    contradictions: tuple[Contradiction, ...]
    broken: str | None = None
    passages: tuple[Passage, ...] = ()
    listed: tuple[str, ...] = ()  # its `## Listed here` rows' names: aliases, no concept names

    @property
    def name(self) -> str:
        return self.path[:-3] if self.path.endswith(".md") else self.path


def content_sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def page_record(path: str, data: bytes) -> PageRecord:
    """The record of the page file `path` (relative to wiki/) holding `data`."""
    sha = content_sha(data)
    try:
        page = parse_page(path, data.decode("utf-8"))
    except UnicodeDecodeError:
        return _broken(path, sha, data.decode("utf-8", "replace"), f"{path} is not UTF-8 text")
    except PageError as exc:
        return _broken(path, sha, data.decode("utf-8", "replace"), exc.message)
    props = dict(page.props)
    updated = props.get("updated") or props.get("ingested") or ""
    masked = mask_code(page.body)  # block ids and headings outside code
    links = list(iter_links(page.body))
    sections = split_body(page.body)
    claims = page_claims(page, sections)
    return PageRecord(
        path=path,
        sha=sha,
        title=page.title,
        type=page.type,
        aliases=tuple(page.aliases),
        listed=tuple(listed_names(sections)),
        tags=tuple(str(t) for t in _as_list(props.get("tags"))),
        summary=page.summary,
        updated=_scalar_text(updated),
        source_count=len(page.sources),
        props_json=json.dumps(props, ensure_ascii=False, default=_scalar_text, sort_keys=True),
        prop_values=tuple(_prop_values(props)),
        search_body=_reader_text(page.body, links, _title_heading_end(page.body, page.title)),
        blocks=tuple(sorted(set(BLOCK_ID_RE.findall(masked)))),
        headings=tuple(HEADING_RE.findall(masked)),
        link_keys=tuple(
            dict.fromkeys(normalize_target(lnk.target) for *_, lnk in links if lnk.target)
        ),
        claims=tuple(claims),
        contradictions=tuple(page_contradictions(page, sections)),
        passages=tuple(page_passages(page, sections, claims)),
    )


def _title_heading_end(body: str, title: str) -> int:
    """Where the body starts after a first `# Title` line (0 if none): the title is indexed
    on its own, and a snippet should show the text."""
    start = len(body) - len(body.lstrip("\n"))
    end = body.find("\n", start)
    end = len(body) if end == -1 else end
    return end if body[start:end].strip() == f"# {title}".strip() else 0


def _broken(path: str, sha: str, text: str, error: str) -> PageRecord:
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    return PageRecord(
        path,
        sha,
        stem,
        "",
        (),
        (),
        "",
        "",
        0,
        "{}",
        (),
        search_text(text),
        (),
        (),
        (),
        (),
        (),
        broken=error,
    )


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


def _scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    return "" if value is None else str(value)


def prop_value_key(value: Any) -> str:
    """How a property value is compared by `--where` / `--tag`: text, case-folded, trimmed."""
    return " ".join(_scalar_text(value).split()).casefold()


def _prop_values(props: dict[str, Any]) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    for key, value in props.items():
        name = str(key).casefold()
        for item in _as_list(value):
            if isinstance(item, list | dict):
                continue  # nested values break Obsidian's rules; lint reports them
            text = prop_value_key(item)
            rows.append((name, text.lstrip("#") if name == "tags" else text))
            target = link_value(text)
            if target:  # `sources: ["[[sources/x]]"]` is also found by `sources=sources/x`
                rows.append((name, target))
    return list(dict.fromkeys(rows))


def link_value(value: str) -> str | None:
    """The normalized target of a property value that is one wikilink (`[[sources/x|X]]`)."""
    text = value.strip()
    if text.startswith("[[") and text.endswith("]]") and text.count("[[") == 1:
        inner = text[2:-2].split("|", 1)[0].split("#", 1)[0]
        return normalize_target(inner) or None
    return None


def _display(lnk: WikiLink) -> str:
    if lnk.alias:
        return lnk.alias
    if lnk.block is not None:
        return ""  # a citation is not prose
    return lnk.heading or lnk.target.rsplit("/", 1)[-1]


def search_text(body: str) -> str:
    """The body as a reader sees it: links shown as their text, block ids and markup dropped,
    so that `[[concepts/x|X]] ^f-1a2b` indexes as `X` and snippets read like prose."""
    return _reader_text(body, list(iter_links(body)), 0)


def _reader_text(body: str, links: list[tuple[int, int, WikiLink]], begin: int) -> str:
    parts: list[str] = []
    pos = begin
    for start, end, lnk in links:
        if start < begin:
            continue
        parts.append(body[pos:start])
        parts.append(_display(lnk))
        pos = end
    parts.append(body[pos:])
    text = BLOCK_ID_RE.sub("", "".join(parts))
    return _MD_NOISE_RE.sub("", text).replace("**", "")


def _strip_links(markdown: str, keep: bool) -> str:
    out: list[str] = []
    pos = 0
    for start, end, lnk in iter_links(markdown):
        out.append(markdown[pos:start])
        if keep:
            out.append(_display(lnk))
        pos = end
    out.append(markdown[pos:])
    return " ".join("".join(out).split())


def page_claims(page: Page, sections: Body | None = None) -> list[Claim]:
    facts = bullets((sections or split_body(page.body)).get(FACTS))
    return [
        Claim(
            page.path,
            i,
            b.block,
            _strip_links(b.text, keep=True),
            b.text,
            tuple(Citation(c.target, c.block) for c in b.citations),
        )
        for i, b in enumerate(facts)
    ]


def page_contradictions(page: Page, sections: Body | None = None) -> list[Contradiction]:
    found = []
    for i, b in enumerate(bullets((sections or split_body(page.body)).get(CONTRADICTIONS))):
        refs = tuple(
            ClaimRef(lnk.target or page.name, lnk.block, None if lnk.target else page.path)
            for lnk in b.links
            if lnk.block is not None
        )
        found.append(Contradiction(page.path, i, b.block, b.status, _note(b.text), b.text, refs))
    return found


def _note(text: str) -> str:
    """What disagrees: the text after the links (`… vs …: red or blue` → `red or blue`)."""
    rest = STATUS_RE.sub("", text)
    last_end = 0
    for _, end, _lnk in iter_links(rest):
        last_end = end
    tail = rest[last_end:].lstrip(" :—-–").strip()
    return tail or _strip_links(rest, keep=True).lstrip(" :—-–").strip()


_SUBHEADING_RE = re.compile(r"^#{3,6}[ \t]+(.+?)[ \t#]*$")
_BULLET_LINE_RE = re.compile(r"^[-*+] +")
_PARA_BLOCK_RE = re.compile(r"\s\^(p\d+)\s*$")
_BLOCK_RE = re.compile(r"\S(?:.|\n(?![ \t]*\n))*")  # a run of non-blank lines
_FENCE_RE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_ALONE_ID_RE = re.compile(r"^[ \t]*\^(p\d+)[ \t]*$")
_ITEM_RE = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+")  # a list item's marker


def _fact_sections(section_text: str | None) -> list[str]:
    """The `###` subheading above each top-level bullet of `## Facts`, in bullet order (the
    same bullets `sections.bullets` finds)."""
    found: list[str] = []
    current = ""
    for line in (section_text or "").split("\n"):
        heading = _SUBHEADING_RE.match(line)
        if heading:
            current = heading.group(1).strip()
        elif _BULLET_LINE_RE.match(line):
            found.append(current)
    return found


def _overview(page: Page, lead: str) -> str:
    """The first paragraph after the `# Title` line, else the summary property."""
    for block in re.split(r"\n\s*\n", lead):
        text = block.strip()
        if text and not text.startswith("#"):
            return " ".join(search_text(text).split())
    return " ".join(page.summary.split())


def page_passages(page: Page, sections: Body, claims: list[Claim]) -> list[Passage]:
    """The page's retrievable passages: its overview (not on a source page), its facts, and on
    a source page its numbered paragraphs (a paragraph ends with its `^pN` block id)."""
    found: list[Passage] = []
    overview = "" if page.type == "source" else _overview(page, sections.lead)
    if overview:  # a source page's lead is its summary: its paragraphs say it better
        found.append(Passage("overview", 0, None, overview))
    headings = _fact_sections(sections.get(FACTS))
    for claim in claims:
        cite = next((c for c in claim.citations if c.block), None)
        section = headings[claim.ordinal] if claim.ordinal < len(headings) else ""
        cited = f"{cite.target}#^{cite.block}" if cite else None
        found.append(Passage("fact", claim.ordinal, claim.block, claim.text, cited, section))
    if page.type == "source":
        labels = {b: section_label(path) for b, path in paragraph_paths(page.body).items()}
        found += [
            replace(p, section=labels.get(p.block or "", "")) for p in _source_blocks(page.body)
        ]
    return found


def section_label(path: Sequence[str]) -> str:
    """A source paragraph's section as retrieval shows it: the heading above it, after the
    release or day heading it sits under ("0.4 (2023-06-17): Continue previous chat"): a
    changelog's subsection says what changed, its parent when."""
    if not path:
        return ""
    heading = path[-1]
    release = next((h for h in reversed(path[:-1]) if names_release(h)), None)
    return f"{release}: {heading}" if release and not names_release(heading) else heading


def _source_blocks(body: str) -> list[Passage]:
    """A source page's numbered blocks: paragraphs (`para`), list items (`item`, one a line),
    tables (`table`, rows as text) and code blocks (`code`, their lines verbatim: a command a
    reader asks for is often only in its example). A line ending with `^pN` closes a block; a
    table's or code block's `^pN` stands alone below it."""
    found: list[Passage] = []
    masked = mask_code(body)  # offsets kept: a block id inside code is not one
    before = ""
    for m in _BLOCK_RE.finditer(masked):
        # from its line's start: a paragraph opening with inline code ("`rustc` has …") is
        # masked up to the code's end
        run = body[body.rfind("\n", 0, m.start()) + 1 : m.end()]
        alone = _ALONE_ID_RE.match(run)
        if alone and before.lstrip().startswith("|"):
            rows = [r.strip().strip("|") for r in before.split("\n")]
            text = "; ".join(" ".join(search_text(r).split()) for r in rows if r.strip(" |-:"))
            found.append(Passage("table", int(alone.group(1)[1:]), alone.group(1), text))
        elif alone and before.lstrip().startswith(">"):
            found.extend(_quote_block(before, alone.group(1)))
        before = run
        lines: list[str] = []
        for line in run.split("\n"):
            if not line.startswith("#"):  # a heading above the block
                lines.append(line)
            end = _PARA_BLOCK_RE.search(line)
            if not end:
                continue
            text = "\n".join(lines)[: -len(end.group(0))] if lines else ""
            prose = " ".join(search_text(_ITEM_RE.sub("", text)).split())
            kind = "item" if _ITEM_RE.match(text) else "para"
            if prose:
                found.append(Passage(kind, int(end.group(1)[1:]), end.group(1), prose))
            lines = []
    for block, code in _code_blocks(body.split("\n")):
        if code:
            found.append(Passage("code", int(block[1:]), block, code))
    return sorted(found, key=lambda x: x.ordinal)


_QUOTE_MARK_RE = re.compile(r"^[ \t]*(?:>[ \t]?)+", re.MULTILINE)


def _quote_block(text: str, block: str) -> list[Passage]:
    """A blockquote (a note, tip or warning: "> **Note:** > The Read Committed isolation level
    only takes effect in the pessimistic transaction mode.") as a paragraph: its `^pN` stands
    alone below it, as a table's does, and a fact copied from it cites it."""
    prose = " ".join(search_text(_QUOTE_MARK_RE.sub("", text)).split())
    return [Passage("para", int(block[1:]), block, prose)] if prose else []


def _code_blocks(lines: list[str]) -> list[tuple[str, str]]:
    """(block id, its non-blank lines: the query shows the lines a question is about) of each
    fenced block followed, after blank lines, by a `^pN` alone on its line (as
    `render_source_body` writes them, in list items too)."""
    found: list[tuple[str, str]] = []
    i = 0
    while i < len(lines):
        opening = _FENCE_RE.match(lines[i])
        if not opening:
            i += 1
            continue
        fence = opening.group(1)
        end = i + 1
        while end < len(lines) and not (
            (m := _FENCE_RE.match(lines[end]))
            and m.group(1)[0] == fence[0]
            and len(m.group(1)) >= len(fence)
            and not lines[end].strip()[len(m.group(1)) :].strip()
        ):
            end += 1
        after = end + 1
        while after < len(lines) and not lines[after].strip():
            after += 1
        alone = _ALONE_ID_RE.match(lines[after]) if after < len(lines) else None
        if alone:
            code = "\n".join(x.rstrip() for x in lines[i + 1 : end] if x.strip())
            found.append((alone.group(1), code))
        i = end + 1
    return found
