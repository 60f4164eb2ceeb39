"""The body layout of entity and concept pages, shared by ingest (writes it) and lint (checks it).

    # Title
    Summary paragraph.
    ## Facts            - Claim. [[sources/s#^p3]] ^f-1a2b3c     (one claim per bullet, cited;
                        under `### Heading`s of their source sections when from two or more)
    ## Usage            ```code``` + its citation: examples from the source, verbatim
    ## Listed here      - `--flag` — [[sources/s#^p4]]   (members whose facts the page holds)
    ## Related          - [[concepts/x|X]]
    ## Contradictions   - **open** — [[#^f-1a2b3c]] vs [[#^f-4d5e6f]]: what disagrees
    ## Sources          - [[sources/s|Source title]]

Sections wikic does not know are kept as they are, in place.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from wikic.vault.links import WikiLink, parse_links

FACTS = "Facts"
USAGE = "Usage"
RELATED = "Related"
CONTRADICTIONS = "Contradictions"
SOURCES = "Sources"
LISTED = "Listed here"  # rows of the commands, options and keys whose facts the page holds
KNOWN_SECTIONS = (FACTS, USAGE, RELATED, CONTRADICTIONS, SOURCES)
_H2_RE = re.compile(r"^## +(.+?) *$")
_H3_RE = re.compile(r"^### +(.+?) *$")
_BULLET_RE = re.compile(r"^[-*+] +(.*)$")
_TRAILING_BLOCK_RE = re.compile(r"\s+\^([A-Za-z0-9-]+)\s*$")
STATUS_RE = re.compile(r"^\*\*(open|resolved)\*\*")


@dataclass
class Body:
    """A page body split at `## ` headings. `lead` is everything before the first one."""

    lead: str = ""
    sections: list[tuple[str, str]] = field(default_factory=list)  # (heading, text) in order

    def get(self, heading: str) -> str | None:
        for name, text in self.sections:
            if name.casefold() == heading.casefold():
                return text
        return None

    def set(self, heading: str, text: str) -> None:
        """Replace a section's text, or add it after the known sections that precede it."""
        for i, (name, _) in enumerate(self.sections):
            if name.casefold() == heading.casefold():
                self.sections[i] = (name, text)
                return
        order = {h.casefold(): n for n, h in enumerate(KNOWN_SECTIONS)}
        rank = order.get(heading.casefold(), len(KNOWN_SECTIONS))
        at = len(self.sections)
        for i, (name, _) in enumerate(self.sections):
            if order.get(name.casefold(), -1) > rank:
                at = i
                break
        self.sections.insert(at, (heading, text))

    def remove(self, heading: str) -> None:
        self.sections = [(n, t) for n, t in self.sections if n.casefold() != heading.casefold()]

    def render(self) -> str:
        parts = [self.lead.strip("\n")]
        for name, text in self.sections:
            parts.append(f"## {name}\n\n{text.strip(chr(10))}".rstrip())
        return "\n\n".join(p for p in parts if p) + "\n"


def split_body(body: str) -> Body:
    lead, sections = _split_at(body, _H2_RE)
    return Body(lead, sections)


def split_groups(section_text: str | None) -> tuple[str, list[tuple[str, str]]]:
    """A section's text split at its `### ` sub-headings: (the text before the first one,
    [(sub-heading, text)] in order)."""
    return _split_at(section_text or "", _H3_RE)


def join_groups(lead: str, groups: Sequence[tuple[str, str]]) -> str:
    """The inverse of `split_groups`, one blank line around each sub-heading."""
    parts = [lead.strip("\n")]
    parts += [f"### {name}\n\n{text.strip(chr(10))}".rstrip() for name, text in groups]
    return "\n\n".join(p for p in parts if p)


def _split_at(text: str, heading_re: re.Pattern[str]) -> tuple[str, list[tuple[str, str]]]:
    """Text split at the lines `heading_re` matches outside code fences."""
    lead = ""
    parts: list[tuple[str, str]] = []
    current: str | None = None
    buf: list[str] = []
    in_fence = False
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        m = None if in_fence else heading_re.match(line)
        if m:
            if current is None:
                lead = "\n".join(buf)
            else:
                parts.append((current, "\n".join(buf)))
            current, buf = m.group(1), []
        else:
            buf.append(line)
    if current is None:
        lead = "\n".join(buf)
    else:
        parts.append((current, "\n".join(buf)))
    return lead, parts


@dataclass(frozen=True)
class Bullet:
    text: str  # without the marker and the trailing block id
    block: str | None
    links: tuple[WikiLink, ...]

    @property
    def citations(self) -> tuple[WikiLink, ...]:
        """Links to a block of a source page."""
        return tuple(
            lnk for lnk in self.links if lnk.block and lnk.target.casefold().startswith("sources/")
        )

    @property
    def status(self) -> str | None:
        m = STATUS_RE.match(self.text)
        return m.group(1) if m else None


def bullets(section_text: str | None) -> list[Bullet]:
    """Top-level bullets of a section (continuation lines joined)."""
    if not section_text:
        return []
    items: list[list[str]] = []
    for line in section_text.split("\n"):
        m = _BULLET_RE.match(line)
        if m:
            items.append([m.group(1)])
        elif items and line.startswith((" ", "\t")) and line.strip():
            items[-1].append(line.strip())
    result = []
    for parts in items:
        text = " ".join(parts)
        block = None
        bm = _TRAILING_BLOCK_RE.search(text)
        if bm:
            block = bm.group(1)
            text = text[: bm.start()]
        result.append(Bullet(text.strip(), block, tuple(parse_links(text))))
    return result


def edit_bullets(
    section_text: str | None,
    replace: Callable[[Bullet], str | None] | None = None,
    append: Sequence[str] = (),
) -> str:
    """A section's text with some top-level bullets changed and new ones added, every other
    line (a note the user wrote under a list, a nested item) kept as it is.

    `replace(bullet)` gives the item's new text (starting `- `), "" to remove it, or None to
    keep it byte for byte; `append`ed items go after the last item (else at the end)."""
    out: list[str] = []
    last_item_end = -1
    for bullet, group in items(section_text):
        new = replace(bullet) if bullet is not None and replace is not None else None
        if new != "":  # kept as written, or replaced
            out += group if new is None else new.split("\n")
            if bullet is not None:
                last_item_end = len(out)
    if append:
        at = last_item_end if last_item_end >= 0 else len(out)
        if at == len(out):
            while out and not out[-1].strip():
                out.pop()
            at = len(out)
        out[at:at] = list(append)
    return "\n".join(out)


def items(section_text: str | None) -> list[tuple[Bullet | None, list[str]]]:
    """A section's lines in runs: each top-level bullet with its continuation lines (and the
    bullet parsed), every other line alone (None)."""
    lines = (section_text or "").split("\n")
    found: list[tuple[Bullet | None, list[str]]] = []
    i = 0
    while i < len(lines):
        if not _BULLET_RE.match(lines[i]):
            found.append((None, [lines[i]]))
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j].startswith((" ", "\t")) and lines[j].strip():
            j += 1
        found.append((bullets("\n".join(lines[i:j]))[0], lines[i:j]))
        i = j
    return found


def listed_names(body: Body) -> list[str]:
    """The names of a page's `LISTED` rows (`- `--no-root` — [[sources/s#^p4]]`): members of
    its subject, each an alias a reader and a link find the page by, but not a name of the
    page for another source (`store.concepts`)."""
    return [b.text.split(" — ", 1)[0].strip().strip("`") for b in bullets(body.get(LISTED))]
