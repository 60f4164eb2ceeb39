"""A user's hand edits on a compiled source page survive its recompile (`ingest --force`,
`--rebuild`, a changed source).

The user's edits are the difference between the page as wikic last compiled it (`base`: the
newest ingest commit that wrote it, from git) and the page now (`current`). They are replayed onto
the freshly compiled page (`new`), unit by unit (see `page_units`): an added section or
paragraph goes in at its place, a changed or deleted unit is changed or deleted again where the
new page still has it as it was. Where the new page changed that unit too, the new text wins -
except in the opening (the summary), where the user's wins, as on topic pages - and the edit is
reported. Properties: what the source says (`type`, `kind`, `raw`, `sha256`, `ingested`) is
always new; others the user changed or added are kept; `consolidated`/`gist` go (the episode
is consolidated again). Without a base (no git history), the base is assumed: the page now, with
the summary property as its summary paragraph and without sections ingest does not write.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from wikic.vault.page_units import Unit, join_units, sections_of, split_units
from wikic.vault.pages import Page

SOURCE_SECTIONS = ("Key claims", "Pages", "Outline", "Text")  # what ingest writes after the lead
MACHINE_PROPS = ("type", "kind", "raw", "sha256", "ingested")
DROPPED_PROPS = ("consolidated", "gist")
# what `wikic consolidate` adds to an episode's page: kept like the user's, but not called theirs
CONSOLIDATE_SECTIONS = ("Consolidated into",)
CONSOLIDATE_TAGS = ("episode",)
_H2_RE = re.compile(r"^## +(.+?) *$")


@dataclass(frozen=True)
class HandEdits:
    page: Page  # the new page with the user's edits replayed
    kept: tuple[str, ...]  # where edits were kept: "the summary", "## Notes", "the text (^p3)"
    replaced: tuple[str, ...]  # edits the new page replaced, where the source changed them too


def keep_hand_edits(new: Page, current: Page | None, base: Page | None) -> HandEdits:
    if current is None:
        return HandEdits(new, (), ())
    if base is None:
        base = assumed_base(current)
    b, c, n = split_units(base.body), split_units(current.body), split_units(new.body)
    merge = _Merge(b, c, n)
    for op in SequenceMatcher(None, _keys(b), _keys(c), autojunk=False).get_opcodes():
        if op[0] != "equal":
            for tag, i1, i2, j1, j2 in _fine(b, c, *op):
                merge.replay(tag, i1, i2, j1, j2)
    props, changed = _props(new.props, current.props, base.props)
    kept = list(dict.fromkeys(merge.kept + changed))
    if not (merge.replace_at or merge.insert_after or merge.replaced) and props == dict(new.props):
        return HandEdits(new, (), ())  # nothing of the user's: the page as compiled
    return HandEdits(
        Page(new.path, props, join_units(merge.result())),
        tuple(kept),
        tuple(dict.fromkeys(merge.replaced)),
    )


def assumed_base(current: Page) -> Page:
    """The page as ingest would have left it, guessed from the page alone: its summary
    paragraph is the `summary` property, and sections ingest does not write are the user's.
    (Edits inside the compiled parts cannot be told apart without the real base.)"""
    units = split_units(current.body)
    sections = sections_of(units)
    summary = str(current.props.get("summary") or "")
    kept: list[Unit] = []
    for i, (unit, section) in enumerate(zip(units, sections, strict=True)):
        if section and section not in SOURCE_SECTIONS:
            continue
        if section == "" and i > 0 and summary:
            if kept and kept[-1].text == summary:
                continue  # paragraphs the user added to the opening
            unit = Unit(summary)
        kept.append(unit)
    props = {k: v for k, v in current.props.items() if k not in ("tags", "aliases")}
    return Page(current.path, props, join_units(kept))


class _Merge:
    """Replays the base → current edits onto the new units."""

    def __init__(self, b: list[Unit], c: list[Unit], n: list[Unit]) -> None:
        self.b, self.c, self.n = b, c, n
        self.b_sections, self.c_sections = sections_of(b), sections_of(c)
        self.n_sections = sections_of(n)
        self.to_new: dict[int, int] = {}  # base unit → the same unit in the new page
        for blk in SequenceMatcher(None, _keys(b), _keys(n), autojunk=False).get_matching_blocks():
            for k in range(blk.size):
                self.to_new[blk.a + k] = blk.b + k
        self.replace_at: dict[int, list[Unit]] = {}
        self.insert_after: dict[int, list[Unit]] = {}
        self.kept: list[str] = []
        self.replaced: list[str] = []

    def replay(self, tag: str, i1: int, i2: int, j1: int, j2: int) -> None:
        mine = self.c[j1:j2]
        where = self._where(i1, i2, j1, j2)
        if tag == "insert":
            self.insert_after.setdefault(self._anchor(i1, mine), []).extend(mine)
            if not all(s in CONSOLIDATE_SECTIONS for s in self.c_sections[j1:j2]):
                self.kept.append(where)
            return
        taken = set(self.replace_at)
        if all(i in self.to_new for i in range(i1, i2)):
            first = self.to_new[i1]
            mapped = [self.to_new[i] for i in range(i1, i2)]
            if mapped == list(range(first, first + len(mapped))) and not taken & set(mapped):
                # the new page has these units as they were: make the user's change again
                self.replace_at[first] = _with_ids(mine, self.n[first : first + len(mapped)])
                for m in mapped[1:]:
                    self.replace_at[m] = []
                self.kept.append(where)
                return
        # the new page changed these units too: its text wins, but in the opening
        lo = max((self.to_new[i] for i in range(i1) if i in self.to_new), default=-1)
        hi = min(
            (self.to_new[i] for i in range(i2, len(self.b)) if i in self.to_new),
            default=len(self.n),
        )
        theirs = self.n[lo + 1 : hi]
        if _keys(theirs) == _keys(mine):
            return  # the new page made the same change
        in_lead = all(s == "" for s in self.b_sections[i1:i2]) and all(
            s == "" for s in self.c_sections[j1:j2]
        )
        if not in_lead or taken & set(range(lo + 1, hi)):
            self.replaced.append(where)
            return
        if hi > lo + 1:
            self.replace_at[lo + 1] = list(mine)
            for m in range(lo + 2, hi):
                self.replace_at[m] = []
        else:
            self.insert_after.setdefault(lo, []).extend(mine)
        self.kept.append(where)

    def result(self) -> list[Unit]:
        out = list(self.insert_after.get(-1, []))
        for k, unit in enumerate(self.n):
            out += self.replace_at.get(k, [unit])
            out += self.insert_after.get(k, [])
        return out

    def _anchor(self, i1: int, mine: Sequence[Unit]) -> int:
        """The new unit after which units inserted before base unit `i1` go."""
        own = _H2_RE.match(mine[0].text) if mine else None
        if own and own.group(1) not in SOURCE_SECTIONS and i1 > 0:
            # a section of the user's: after the new page's section it followed
            return self._section_end(self.b_sections[i1 - 1])
        if i1 > 0 and i1 - 1 in self.to_new:
            return self.to_new[i1 - 1]
        if i1 < len(self.b) and i1 in self.to_new:
            return self.to_new[i1] - 1
        if i1 >= len(self.b):
            return len(self.n) - 1
        earlier = [self.to_new[i] for i in range(i1) if i in self.to_new]
        return earlier[-1] if earlier else -1

    def _section_end(self, section: str) -> int:
        """The last new unit of `section` ("" the lead); the end if the page lacks it."""
        at = [k for k, s in enumerate(self.n_sections) if s == section]
        return at[-1] if at else len(self.n) - 1

    def _where(self, i1: int, i2: int, j1: int, j2: int) -> str:
        """Where an edit is, for people: "the summary", "## Notes", "the text (^p3, ^p4)"."""
        heads = [m.group(1) for u in self.c[j1:j2] if (m := _H2_RE.match(u.text))]
        if heads:
            return ", ".join(f"## {h}" for h in heads)
        section = (self.c_sections[j1:j2] or self.b_sections[i1:i2] or [""])[0]
        if section == "":
            return "the summary"
        if section == "Text":
            ids = [u.block_id for u in [*self.b[i1:i2], *self.c[j1:j2]] if u.block_id]
            shown = ", ".join(f"^{i}" for i in dict.fromkeys(ids))
            return f"the text ({shown})" if shown else "the text"
        return f"## {section}"


def _fine(
    b: Sequence[Unit], c: Sequence[Unit], tag: str, i1: int, i2: int, j1: int, j2: int
) -> list[tuple[str, int, int, int, int]]:
    """A changed range split into single-unit changes where units pair up by likeness (a typo
    fixed next to a section added is two edits, not one), and inserts and deletes between."""
    if tag != "replace":
        return [(tag, i1, i2, j1, j2)]
    pairs = _pairs([u.key for u in b[i1:i2]], [u.key for u in c[j1:j2]])
    ops: list[tuple[str, int, int, int, int]] = []
    i, j = i1, j1
    for pi, pj in [*pairs, (i2 - i1, j2 - j1)]:
        pi, pj = pi + i1, pj + j1
        if i < pi and j < pj:
            ops.append(("replace", i, pi, j, pj))
        elif i < pi:
            ops.append(("delete", i, pi, j, j))
        elif j < pj:
            ops.append(("insert", i, i, j, pj))
        if pi < i2:
            ops.append(("replace", pi, pi + 1, pj, pj + 1))
        i, j = pi + 1, pj + 1
    return ops


def _pairs(old: Sequence[str], mine: Sequence[str]) -> list[tuple[int, int]]:
    """The longest in-order pairing of units that are edits of one another (most of the text
    alike), by dynamic programming over the two short ranges."""
    alike = [[SequenceMatcher(None, o, m).ratio() >= 0.6 for m in mine] for o in old]
    best = [[0] * (len(mine) + 1) for _ in range(len(old) + 1)]
    for x in range(len(old) - 1, -1, -1):
        for y in range(len(mine) - 1, -1, -1):
            take = best[x + 1][y + 1] + 1 if alike[x][y] else 0
            best[x][y] = max(take, best[x + 1][y], best[x][y + 1])
    pairs, x, y = [], 0, 0
    while x < len(old) and y < len(mine):
        if alike[x][y] and best[x][y] == best[x + 1][y + 1] + 1:
            pairs.append((x, y))
            x, y = x + 1, y + 1
        elif best[x + 1][y] >= best[x][y + 1]:
            x += 1
        else:
            y += 1
    return pairs


def _keys(units: Sequence[Unit]) -> list[str]:
    return [u.key for u in units]


def _with_ids(mine: Sequence[Unit], olds: Sequence[Unit]) -> list[Unit]:
    """The user's units, with the block ids the new page gives the units they replace."""
    if len(mine) != len(olds):
        return list(mine)
    return [u.with_block_id(o.block_id) for u, o in zip(mine, olds, strict=True)]


def _props(
    new: Mapping[str, Any], current: Mapping[str, Any], base: Mapping[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """The new properties with the user's changes kept, and the names of those changed."""
    out = dict(new)
    changed: list[str] = []
    for key in dict.fromkeys([*current, *base]):
        if key in MACHINE_PROPS or key in DROPPED_PROPS:
            continue
        mine, was = current.get(key), base.get(key)
        if mine == was or (key not in current and key not in base):
            continue
        if isinstance(mine, list) and isinstance(new.get(key), list):
            old = was if isinstance(was, list) else []
            gone = [x for x in old if x not in mine]
            out[key] = [x for x in new[key] if x not in gone] + [
                x for x in mine if x not in old and x not in new[key]
            ]
        elif key in current:
            out[key] = mine
        else:
            out.pop(key, None)
        theirs = new.get(key)
        ours = set(theirs) | set(CONSOLIDATE_TAGS) if isinstance(theirs, list) else set()
        if out.get(key) != theirs and not (key == "tags" and set(out[key]) <= ours):
            changed.append(f"the property {key}")
    return out, changed
