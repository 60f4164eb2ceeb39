"""Obsidian wikilinks: parse and render `[[Page]]`, `[[Page|alias]]`, `[[Page#Heading]]`,
`[[Page#^block]]` and embeds `![[…]]`.

Links inside fenced code blocks and inline code spans are not links. Rendering then parsing a
`WikiLink` gives it back unchanged (property-tested).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

# Characters Obsidian does not allow in link targets; aliases may not hold `]]`, `|` or newlines.
FORBIDDEN_IN_TARGET = set("[]|#^\n\r")
FORBIDDEN_IN_ALIAS = set("[]|\n\r")
_LINK_RE = re.compile(r"\[\[([^\[\]\n\r]+?)\]\]")  # literal-first: the engine can skip ahead
_FENCE_RE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})", re.MULTILINE)
_CODE_SPAN_RE = re.compile(r"(?<!`)(`+)(?!`)((?:(?!\n[ \t]*\n).)+?)(?<!`)\1(?!`)", re.DOTALL)
BLOCK_ID_RE = re.compile(r"(?:^|\s)\^([A-Za-z0-9-]+)[ \t]*$", re.MULTILINE)
HEADING_RE = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


@dataclass(frozen=True)
class WikiLink:
    target: str
    heading: str | None = None
    block: str | None = None
    alias: str | None = None
    embed: bool = False

    def render(self) -> str:
        inner = self.target
        if self.block is not None:
            inner += f"#^{self.block}"
        elif self.heading is not None:
            inner += f"#{self.heading}"
        if self.alias is not None:
            inner += f"|{self.alias}"
        return f"{'!' if self.embed else ''}[[{inner}]]"

    def __str__(self) -> str:
        return self.render()


def link(
    target: str, *, alias: str | None = None, heading: str | None = None, block: str | None = None
) -> str:
    """Render a link, dropping an alias that equals the target and cleaning characters that
    would break the link syntax."""
    target = clean_target(target)
    if alias is not None:
        alias = clean_alias(alias)
        if not alias or alias == target:
            alias = None
    if heading is not None:
        heading = clean_target(heading)
    return WikiLink(target, heading, block, alias).render()


def clean_target(text: str) -> str:
    return "".join(" " if c in FORBIDDEN_IN_TARGET else c for c in text).strip()


def clean_alias(text: str) -> str:
    return " ".join("".join(" " if c in FORBIDDEN_IN_ALIAS else c for c in text).split())


def parse_inner(inner: str, *, embed: bool = False) -> WikiLink:
    """Parse what stands between `[[` and `]]`."""
    alias: str | None = None
    if "|" in inner:
        inner, alias = inner.split("|", 1)
        # tables escape the pipe as `\|`; the backslash belongs to the table, not the target
        if inner.endswith("\\"):
            inner = inner[:-1]
    heading: str | None = None
    block: str | None = None
    if "#" in inner:
        inner, anchor = inner.split("#", 1)
        if anchor.startswith("^"):
            block = anchor[1:]
        else:
            heading = anchor
    return WikiLink(inner.strip(), heading, block, alias, embed)


def mask_code(text: str) -> str:
    """`text` with fenced code blocks and inline code spans blanked out (offsets kept)."""
    if "`" not in text and "~~~" not in text:
        return text
    chars = list(text)

    def blank(start: int, end: int) -> None:
        for i in range(start, end):
            if chars[i] != "\n":
                chars[i] = " "

    pos = 0
    while True:
        m = _FENCE_RE.search(text, pos)
        if not m:
            break
        fence = m.group("fence")
        closing = re.compile(
            rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$", re.MULTILINE
        )
        line_end = text.find("\n", m.end())
        body_start = len(text) if line_end == -1 else line_end + 1
        c = closing.search(text, body_start)
        end = len(text) if not c else c.end()
        blank(m.start(), end)
        pos = end
    masked = "".join(chars)
    for m in _CODE_SPAN_RE.finditer(masked):
        blank(m.start(), m.end())
    return "".join(chars)


def iter_links(text: str) -> Iterator[tuple[int, int, WikiLink]]:
    """(start, end, link) for every wikilink or embed outside code."""
    masked = mask_code(text) if "[[" in text else text
    for m in _LINK_RE.finditer(masked):
        embed = m.start() > 0 and text[m.start() - 1] == "!"
        start = m.start() - 1 if embed else m.start()
        yield start, m.end(), parse_inner(text[m.start(1) : m.end(1)], embed=embed)


def parse_links(text: str) -> list[WikiLink]:
    return [lnk for _, _, lnk in iter_links(text)]


def block_ids(text: str) -> set[str]:
    """Block ids (`^id` at the end of a line) defined outside code."""
    return set(BLOCK_ID_RE.findall(mask_code(text)))


def headings(text: str) -> list[str]:
    return HEADING_RE.findall(mask_code(text))


def normalize_target(target: str) -> str:
    """The key Obsidian resolves a link target by: no `.md`, forward slashes, case-folded."""
    t = target.strip().replace("\\", "/").lstrip("/")
    if t.lower().endswith(".md"):
        t = t[:-3]
    return t.casefold()
