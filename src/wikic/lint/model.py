"""The value types lint's parsing produces: a link with its offsets in a page body, and a bullet
of a `## Facts` or `## Contradictions` section. Plain values with no lint imports, so every lint
module can share them without an import cycle."""

from __future__ import annotations

from typing import NamedTuple

from wikic.vault.links import WikiLink
from wikic.vault.sections import STATUS_RE


class Link(NamedTuple):
    """A wikilink in a page body; `start`/`end` are offsets in the body."""

    start: int
    end: int
    link: WikiLink


class Claim(NamedTuple):
    """A top-level bullet of a section: a fact, or a contradiction entry."""

    text: str  # without the marker and the trailing block id
    block: str | None
    start: int  # offsets of the bullet's lines in the body
    end: int
    links: tuple[WikiLink, ...]

    @property
    def status(self) -> str | None:
        m = STATUS_RE.match(self.text)
        return m.group(1) if m else None
