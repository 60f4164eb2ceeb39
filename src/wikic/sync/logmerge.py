"""Merge of `log.md`: the entries both sides appended since the base are all kept, once each, in
the order they were made; earlier entries take the side that rewrote their links.

log.md is append-only (`vault.logbook`): a side's log is the base's entries, their links
perhaps kept valid by a rename or delete, and then its own. Entries are ordered by their date
and then by when the commit that appended each was made (`times`), each side's own order kept.
A log someone reordered or cut by hand still loses nothing: every entry of either side stays.
An entry both sides appended alike (the same text) is kept once. The caller relinks the result
against the merged pages, as every operation does.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from wikic.vault.logbook import ENTRY_RE, LOG_HEADER


@dataclass(frozen=True)
class LogText:
    header: str
    entries: tuple[str, ...]  # each entry's text, from its heading to before the next one

    @classmethod
    def parse(cls, text: str) -> LogText:
        starts = [m.start() for m in ENTRY_RE.finditer(text)]
        if not starts:
            return cls(text if text.strip() else LOG_HEADER, ())
        ends = [*starts[1:], len(text)]
        return cls(
            text[: starts[0]],
            tuple(text[a:b].strip("\n") for a, b in zip(starts, ends, strict=True)),
        )

    def render(self) -> str:
        return self.header.rstrip("\n") + "".join(f"\n\n{e}" for e in self.entries) + "\n"


def entry_count(text: str) -> int:
    return len(ENTRY_RE.findall(text))


def _day(entry: str) -> str:
    m = ENTRY_RE.match(entry)
    return m.group(1) if m else ""


def _heading(entry: str) -> str:
    return entry.split("\n", 1)[0]


def merge_log(
    base: str,
    ours: str,
    theirs: str,
    times: tuple[Sequence[float], Sequence[float]] = ((), ()),
) -> str:
    """The merged log. `times[0][i]` is when ours' entry i was made (theirs: `times[1]`);
    a missing time counts as the latest."""
    b, o, t = LogText.parse(base), LogText.parse(ours), LogText.parse(theirs)
    n = len(b.entries)
    appended = all(
        len(side.entries) >= n
        and [_heading(e) for e in side.entries[:n]] == [_heading(e) for e in b.entries]
        for side in (o, t)
    )
    if not appended:
        return _kept_all(o, t)
    earlier = tuple(
        ours_e if theirs_e == base_e else theirs_e if ours_e == base_e else ours_e
        for base_e, ours_e, theirs_e in zip(b.entries, o.entries, t.entries, strict=False)
    )
    ours_new = Counter(o.entries[n:])
    theirs_new = []
    for i, entry in enumerate(t.entries):
        if i >= n and ours_new[entry] > 0:
            ours_new[entry] -= 1  # the same entry on both sides (a merge made twice): once
            continue
        theirs_new.append((i, entry))
    later = heapq.merge(
        _keyed(list(enumerate(o.entries))[n:], times[0], 0),
        _keyed([(i, e) for i, e in theirs_new if i >= n], times[1], 1),
    )
    return LogText(o.header, (*earlier, *(entry for *_, entry in later))).render()


def _keyed(
    entries: Sequence[tuple[int, str]], times: Sequence[float], rank: int
) -> list[tuple[str, float, int, int, str]]:
    """(position, entry) pairs of one side as (day, time, side, position, text): sorted within
    the side already, so `heapq.merge` interleaves the sides and keeps each side's order."""
    keyed = []
    for i, entry in entries:
        when = times[i] if i < len(times) else float("inf")
        keyed.append((_day(entry), when, rank, i, entry))
    # a side's own order wins over a day or time that went backwards (a clock set wrong)
    for k in range(1, len(keyed)):
        if keyed[k][:2] < keyed[k - 1][:2]:
            keyed[k] = (*keyed[k - 1][:2], *keyed[k][2:])
    return keyed


def _kept_all(ours: LogText, theirs: LogText) -> str:
    """Every entry of ours, then those of theirs ours lacks, by day (a stable sort)."""
    have = set(ours.entries)
    merged = [*ours.entries, *(e for e in theirs.entries if e not in have)]
    merged.sort(key=_day)
    return LogText(ours.header, tuple(merged)).render()
