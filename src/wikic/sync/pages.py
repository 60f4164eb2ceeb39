"""Three-way merge of one wiki page both sides changed, by the page logic wikic writes pages with.

Properties merge key by key: lists (aliases, sources, tags) are united, less what one side
removed; `updated`/`ingested`/`consolidated` take the later date, `created` the earlier; the
open-contradiction count is counted again. `## Facts` merges fact by fact under their block ids
(the id comes from the sentence, so a fact both sides added is one bullet, its citations
united), new facts filed under their source section; `## Sources` and `## Related` merge by the
page each item links, `## Contradictions` by entry id. Other text (the opening, `## Usage`,
sections of the user's) merges by lines, two additions at one place both kept.

What both sides changed differently goes to the side `Makers.prefer` names: a person's edit
over wikic's, and ours when wikic made both (two openings wikic wrote are not both kept). When
people changed it on both sides it is a conflict: the page is not merged and its conflicts say
what clashed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Literal

from wikic.errors import PageError
from wikic.sync.diff3 import Chunk, merge_lines, union_of_insertions
from wikic.vault.pages import Page, parse_page, render_page
from wikic.vault.sections import (
    CONTRADICTIONS,
    FACTS,
    RELATED,
    SOURCES,
    Body,
    Bullet,
    bullets,
    edit_bullets,
    items,
    join_groups,
    split_body,
    split_groups,
)
from wikic.vault.topic_page import Fact, add_facts, claim_text, fact_id, parse_facts

Side = Literal["ours", "theirs"]
Prefer = Callable[[], Side | None]
"""Which side's change wins where both changed one thing differently; None: a conflict."""


class Makers:
    """Who made each side's change to a page, wikic (True) or a person, asked only when a
    clash needs it (each answer reads git history)."""

    def __init__(self, ours: Callable[[], bool], theirs: Callable[[], bool]) -> None:
        self._ours, self._theirs = ours, theirs

    @classmethod
    def fixed(cls, ours_by_wikic: bool, theirs_by_wikic: bool) -> Makers:
        return cls(lambda: ours_by_wikic, lambda: theirs_by_wikic)

    @cached_property
    def by_wikic(self) -> tuple[bool, bool]:
        return self._ours(), self._theirs()

    def prefer(self) -> Side | None:
        ours, theirs = self.by_wikic
        if ours and theirs:
            return "ours"
        if ours != theirs:
            return "theirs" if ours else "ours"  # the person's edit
        return None

    def both_wikic(self) -> bool:
        return all(self.by_wikic)


LATEST = ("updated", "ingested", "consolidated")
EARLIEST = ("created",)
TOPIC_TYPES = ("entity", "concept")
_MISSING: Any = object()


@dataclass(frozen=True)
class PageMerge:
    text: str | None  # None when a conflict remains
    conflicts: tuple[str, ...] = ()


def merge_page(path: str, base: str | None, ours: str, theirs: str, makers: Makers) -> PageMerge:
    """Merge the page at `path` (relative to wiki/); `base` None when both sides added it."""
    try:
        b = parse_page(path, base) if base is not None else Page(path)
        o, t = parse_page(path, ours), parse_page(path, theirs)
    except PageError as exc:
        return PageMerge(None, (exc.message,))
    conflicts: list[str] = []
    props = merge_props(b.props, o.props, t.props, makers.prefer, conflicts)
    body = merge_body(b.body, o.body, t.body, makers, conflicts)
    if conflicts:
        return PageMerge(None, tuple(conflicts))
    if str(props.get("type") or "") in TOPIC_TYPES and body.get(CONTRADICTIONS) is not None:
        still_open = sum(1 for x in bullets(body.get(CONTRADICTIONS)) if x.status == "open")
        props.pop("contradictions", None)
        if still_open:
            props["contradictions"] = still_open
    return PageMerge(render_page(Page(path, props, body.render())))


# -- properties -----------------------------------------------------------------------------


def merge_props(
    base: Mapping[str, Any],
    ours: Mapping[str, Any],
    theirs: Mapping[str, Any],
    prefer: Prefer,
    conflicts: list[str],
) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for key in dict.fromkeys([*ours, *theirs, *base]):
        bv, ov, tv = (m.get(key, _MISSING) for m in (base, ours, theirs))
        value = _merge_value(key, bv, ov, tv, prefer, conflicts)
        if value is not _MISSING:
            merged[key] = value
    return merged


def _merge_value(key: str, bv: Any, ov: Any, tv: Any, prefer: Prefer, conflicts: list[str]) -> Any:
    if ov == tv or tv == bv:
        return ov
    if ov == bv:
        return tv
    both = [v for v in (ov, tv) if v is not _MISSING and v is not None]
    if len(both) == 2 and key in LATEST + EARLIEST:
        return (max if key in LATEST else min)(both, key=str)
    if key == "contradictions":
        return ov  # counted again from the merged entries
    if all(v is _MISSING or v is None or isinstance(v, list) for v in (bv, ov, tv)):
        return united(_as_list(bv), _as_list(ov), _as_list(tv))
    side = prefer()
    if side is None:
        conflicts.append(f"the property '{key}' was changed two ways")
        return ov
    return ov if side == "ours" else tv


def _as_list(value: Any) -> list[Any]:
    return [] if value is _MISSING or value is None else list(value)


def united(base: Sequence[Any], ours: Sequence[Any], theirs: Sequence[Any]) -> list[Any]:
    """Ours' items and then theirs' new ones, less what either side removed from the base."""
    merged = [x for x in ours if not (x in base and x not in theirs)]
    merged += [x for x in theirs if x not in ours and x not in base]
    return list(dict.fromkeys(merged))


# -- body -----------------------------------------------------------------------------------

SectionMerge = Callable[[str, str, str, Prefer, list[str], str], str]


def merge_body(base: str, ours: str, theirs: str, makers: Makers, conflicts: list[str]) -> Body:
    b, o, t = split_body(base), split_body(ours), split_body(theirs)
    prefer = makers.prefer
    lead = b.lead, o.lead, t.lead
    if lead[1] != lead[2] and lead[0] not in lead[1:] and makers.both_wikic():
        opening = lead[1]  # ours: wikic's two openings are not both kept (the summary is ours)
    else:
        opening = merge_text(*lead, prefer, conflicts, "the opening")
    merged = Body(opening)
    headings = dict.fromkeys(h.casefold() for h, _ in [*o.sections, *t.sections])
    names = {h.casefold(): h for h, _ in [*t.sections, *o.sections]}
    for folded in headings:
        bs, os_, ts = b.get(folded), o.get(folded), t.get(folded)
        if os_ == ts or ts == bs:
            text = os_
        elif os_ == bs:
            text = ts
        else:
            merge = SECTION_MERGES.get(folded, merge_text)
            text = merge(bs or "", os_ or "", ts or "", prefer, conflicts, f"## {names[folded]}")
            if merge is not merge_text and not text.strip():
                text = None  # every item gone: the section goes, as when wikic empties it
        if text is not None:
            merged.set(names[folded], text)
    return merged


def merge_text(
    base: str, ours: str, theirs: str, prefer: Prefer, conflicts: list[str], where: str
) -> str:
    """Line merge; two insertions at one place are both kept, other clashes go to `prefer`."""

    def settle(chunk: Chunk) -> tuple[str, ...] | None:
        both = union_of_insertions(chunk)
        if both is not None:
            return both
        side = prefer()
        return None if side is None else chunk.ours if side == "ours" else chunk.theirs

    result = merge_lines(base.split("\n"), ours.split("\n"), theirs.split("\n"), settle=settle)
    if result.conflicts:
        conflicts.append(f"{where} was edited two ways")
        return ours
    return "\n".join(result.lines)


def _notes(text: str) -> list[str]:
    """The lines of a list section that are neither items nor sub-headings: a person's notes."""
    return [
        line
        for bullet, lines in items(text)
        if bullet is None
        for line in lines
        if line.strip() and not line.startswith("### ")
    ]


def _start(base: str, ours: str, theirs: str, prefer: Prefer) -> tuple[str, str, Prefer] | None:
    """(the side to edit, the other side, `prefer` as seen from the first): the side whose
    notes changed, so they stay; None when both changed theirs."""
    changed_ours, changed_theirs = _notes(ours) != _notes(base), _notes(theirs) != _notes(base)
    if changed_ours and changed_theirs and _notes(ours) != _notes(theirs):
        return None
    if changed_theirs and not changed_ours:

        def flipped() -> Side | None:
            side = prefer()
            return None if side is None else "theirs" if side == "ours" else "ours"

        return theirs, ours, flipped
    return ours, theirs, prefer


def merge_facts(
    base: str, ours: str, theirs: str, prefer: Prefer, conflicts: list[str], where: str
) -> str:
    """`## Facts` merged fact by fact (see the module docstring)."""
    started = _start(base, ours, theirs, prefer)
    if started is None:
        return merge_text(base, ours, theirs, prefer, conflicts, where)
    start, other, pick = started
    b, s, x = _facts(base), _facts(start), _facts(other)
    merged: dict[str, Fact | None] = {}
    for fid in dict.fromkeys([*s, *x]):
        fact = merge_fact(b.get(fid), s.get(fid), x.get(fid), pick)
        if fact == "conflict":
            conflicts.append(f"{where}: the fact ^{fid} was edited two ways")
            fact = s.get(fid)
        merged[fid] = fact

    def edited(bullet: Bullet) -> str | None:
        fid = bullet.block or fact_id(claim_text(bullet))
        if fid not in s:
            return None
        fact = merged.get(fid)
        if fact is None:
            return ""
        return (
            None
            if (fact.text, fact.citations) == (s[fid].text, s[fid].citations)
            else fact.render()
        )

    body = Body(sections=[(FACTS, edit_bullets(start, edited))])
    added = [f for fid, f in merged.items() if f is not None and fid not in s]
    if added:
        add_facts(body, added)
    return _tidy(body.get(FACTS) or "")


def _facts(text: str) -> dict[str, Fact]:
    return {f.id: f for f in parse_facts(Body(sections=[(FACTS, text)]))}


def merge_fact(
    base: Fact | None, start: Fact | None, other: Fact | None, prefer: Prefer
) -> Fact | Literal["conflict"] | None:
    """One fact from the side being edited (`start`) and the other; None: it goes."""

    def key(f: Fact | None) -> tuple[str, tuple[str, ...]] | None:
        return None if f is None else (f.text, f.citations)

    if key(start) == key(other) or key(other) == key(base):
        return start
    if key(start) == key(base):
        return other
    if start is None or other is None:  # removed on one side, changed on the other
        kept = start or other
        assert kept is not None
        if base is not None and kept.text == base.text:
            cites = tuple(c for c in kept.citations if c not in base.citations)
            return replace(kept, citations=cites) if cites else None
        return kept  # a sentence someone edited is not dropped with its old citations
    text = start.text if start.text == other.text else None
    if text is None and base is not None:
        text = (
            other.text
            if start.text == base.text
            else start.text
            if other.text == base.text
            else None
        )
    if text is None:
        side = prefer()
        if side is None:
            return "conflict"
        text = start.text if side == "ours" else other.text
    old = base.citations if base is not None else ()
    cites = tuple(
        c
        for c in dict.fromkeys([*start.citations, *other.citations])
        if not (c in old and (c not in start.citations or c not in other.citations))
    )
    return Fact(start.id, text, cites, start.section)


def _tidy(text: str) -> str:
    """Facts text without sub-headings left empty, flat again when one group is left."""
    lead, groups = split_groups(text)
    kept = [(h, t) for h, t in groups if t.strip()]
    if len(kept) == len(groups) and len(kept) != 1:
        return text
    if len(kept) == 1:
        return "\n".join(p for p in (lead.strip("\n"), kept[0][1].strip("\n")) if p)
    return join_groups(lead, kept)


def _link_key(bullet: Bullet) -> str:
    return bullet.links[0].target.casefold() if bullet.links else bullet.text


def _entry_key(bullet: Bullet) -> str:
    return bullet.block or bullet.text


def _item_merge(key: Callable[[Bullet], str]) -> SectionMerge:
    """A list section merged item by item, items known by `key`."""

    def merge(
        base: str, ours: str, theirs: str, prefer: Prefer, conflicts: list[str], where: str
    ) -> str:
        started = _start(base, ours, theirs, prefer)
        if started is None:
            return merge_text(base, ours, theirs, prefer, conflicts, where)
        start, other, pick = started
        b, s, x = _items(base, key), _items(start, key), _items(other, key)
        chosen: dict[str, str | None] = {}
        for k in dict.fromkeys([*s, *x]):
            chunk = Chunk(*((m[k],) if k in m else () for m in (b, s, x)))
            lines = chunk.resolved()
            if lines is None:
                side = pick()
                if side is None:
                    conflicts.append(f"{where}: the item '{k}' was edited two ways")
                lines = chunk.ours if side != "theirs" else chunk.theirs
            chosen[k] = lines[0] if lines else None

        def edited(bullet: Bullet) -> str | None:
            k = key(bullet)
            if k not in s:
                return None
            new = chosen.get(k)
            return "" if new is None else None if new == s[k] else new

        added = [text for k, text in chosen.items() if text is not None and k not in s]
        return edit_bullets(start, edited, append=added)

    return merge


def _items(text: str, key: Callable[[Bullet], str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for bullet, lines in items(text):
        if bullet is not None:
            found.setdefault(key(bullet), "\n".join(lines))
    return found


SECTION_MERGES: dict[str, SectionMerge] = {
    FACTS.casefold(): merge_facts,
    SOURCES.casefold(): _item_merge(_link_key),
    RELATED.casefold(): _item_merge(_link_key),
    CONTRADICTIONS.casefold(): _item_merge(_entry_key),
}
