"""A page body as a sequence of units, the granularity at which hand edits are found and replayed.

A unit is a heading, a paragraph, a fenced code block (blank lines inside stay), a table, a block
id on its own line, or one item of a list whose lines are all items. Joining the units again
gives the body back with its blank lines normalised to one. A unit's `key` ignores a trailing
block id (`^p3`), so a paragraph is recognised after the ids of a changed source have shifted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_ID_RE = re.compile(r"\s+\^([A-Za-z0-9-]+)\s*$")
_ITEM_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
_FENCE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_H2_RE = re.compile(r"^## +(.+?) *$")


@dataclass(frozen=True)
class Unit:
    text: str
    tight: bool = False  # an item that follows the previous item of its list (one newline)

    @property
    def key(self) -> str:
        """What identifies the unit for matching: its text without a trailing block id."""
        stripped = _ID_RE.sub("", self.text.rstrip())
        return stripped if stripped else self.text.strip()

    @property
    def block_id(self) -> str | None:
        m = _ID_RE.search(self.text)
        return m.group(1) if m else None

    def with_block_id(self, block_id: str | None) -> Unit:
        """The same unit ending with `block_id` instead of its own (when both have one)."""
        if block_id is None or self.block_id is None:
            return self
        m = _ID_RE.search(self.text)
        assert m is not None
        return Unit(f"{self.text[: m.start()]} ^{block_id}", self.tight)


def split_units(body: str) -> list[Unit]:
    units: list[Unit] = []
    for chunk in _chunks(body):
        lines = chunk.split("\n")
        if len(lines) > 1 and all(_ITEM_RE.match(line) for line in lines):
            units += [Unit(line, tight=i > 0) for i, line in enumerate(lines)]
        else:
            units.append(Unit(chunk))
    return units


def join_units(units: Sequence[Unit]) -> str:
    out: list[str] = []
    for i, unit in enumerate(units):
        if i:
            out.append("\n" if unit.tight and _ITEM_RE.match(units[i - 1].text) else "\n\n")
        out.append(unit.text)
    return "".join(out) + "\n" if out else ""


def sections_of(units: Sequence[Unit]) -> list[str]:
    """The `## ` heading each unit is under ("" for the lead, before the first one)."""
    current = ""
    found = []
    for unit in units:
        m = _H2_RE.match(unit.text)
        if m:
            current = m.group(1)
        found.append(current)
    return found


def _chunks(body: str) -> list[str]:
    """Blank-line separated chunks; a fenced code block is never split."""
    chunks: list[str] = []
    current: list[str] = []
    fence: str | None = None
    for line in body.split("\n"):
        m = _FENCE_RE.match(line)
        if fence is None and m:
            fence = m.group(1)
        elif fence is not None and m and m.group(1).startswith(fence) and not line.strip(" `~"):
            fence = None
        if fence is None and not line.strip():
            if current:
                chunks.append("\n".join(current))
                current = []
        else:
            current.append(line)
    if current:
        chunks.append("\n".join(current))
    return chunks
