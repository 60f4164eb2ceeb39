"""One page file as lint reads it: properties, links with offsets, block ids, headings, the
lead paragraph and the bullets of its Facts and Contradictions sections, each parsed lazily and
at most once.

`split_file` parses a page as `parse_page` does but faster (`yamlfast`) and also says where the
body starts, so findings can name file lines.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from functools import cached_property

from frontmatter.default_handlers import YAMLHandler

from wikic.errors import PageError
from wikic.lint.model import Claim, Link
from wikic.lint.parse import BLOCK_TOKEN_RE, LINK_RE, is_valid_block, section_claims
from wikic.lint.yamlfast import load_props
from wikic.vault.links import HEADING_RE, WikiLink, mask_code, parse_inner
from wikic.vault.pages import Page, parse_page, property_kind
from wikic.vault.sections import CONTRADICTIONS, FACTS, listed_names, split_body

_FM_BOUNDARY = YAMLHandler.FM_BOUNDARY
# exact types only (bool is an int subclass): anything else goes through property_kind
_SCALAR_KINDS = {
    str: "text", bool: "checkbox", int: "number", float: "number", dt.date: "date",
    dt.datetime: "datetime", type(None): "empty",
}  # fmt: skip
# python-frontmatter passes properties as keyword arguments: these names (and non-text keys) fail
_FRONTMATTER_RESERVED = ("content", "handler")
_BLOCK_ID_RE = re.compile(r"\s+\^[A-Za-z0-9-]+$")
_NUMBERED_RE = re.compile(r"\d+[.)]\s")
_NOT_PROSE = ("#", "-", "*", "+", ">", "|", "`", "~", "!", "<", "$", "%", "[[")


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
    def lead(self) -> tuple[str, int] | None:
        """The prose paragraph after the H1 and its offset in the body (`lead_paragraph`)."""
        return lead_paragraph(self.body)

    @cached_property
    def listed(self) -> frozenset[str]:
        """The names of its `## Listed here` rows: aliases that name a member of its subject
        (a flag, a field), not the page (read from the body when a rule first asks)."""
        return frozenset(listed_names(split_body(self.body)))

    def names_itself(self, name: str) -> bool:
        """Whether `name` (its title or an alias) names the page, not a member it lists."""
        return name == self.page.title or name not in self.listed

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


def lead_paragraph(body: str) -> tuple[str, int] | None:
    """The first paragraph after the H1 and its offset in `body`, if it is prose (not a list,
    quote, table, code, heading or embed); None when the body does not open with an H1."""
    start = len(body) - len(body.lstrip())
    if not body.startswith("# ", start):
        return None
    pos = body.find("\n", start)
    if pos < 0:
        return None
    while pos < len(body) and body[pos] in " \t\n":
        pos += 1
    end = body.find("\n\n", pos)
    text = _BLOCK_ID_RE.sub("", body[pos : end if end >= 0 else len(body)].strip())
    if not text or text.startswith(_NOT_PROSE) or _NUMBERED_RE.match(text):
        return None
    return text, pos


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


def property_links(page: Page) -> list[tuple[str, WikiLink]]:
    """(property, link) for every quoted `[[link]]` in the page's properties."""
    found = []
    for key, value in page.props.items():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and "[[" in item:
                found += [(key, parse_inner(m.group(1))) for m in LINK_RE.finditer(item)]
    return found
