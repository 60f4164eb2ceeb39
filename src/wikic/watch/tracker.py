"""Which files of raw/ arrived, changed or went, and which are ready to compile: settled.

The tracker sees raw/ as (size, mtime) per file, observed again and again. A file is settled
when its stat has not changed for `settle` seconds (or, seen unchanged twice, its mtime is that
old already); only settled files are compiled, so a file still being written waits. A file is
compiled once per stat: one that failed is tried again only when it changes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

Stat = tuple[int, int]  # (size, mtime_ns)


@dataclass(frozen=True)
class Notice:
    kind: str  # added | changed | deleted
    path: str  # relative to the wiki root, e.g. raw/a.md


@dataclass
class _File:
    stat: Stat
    seen: float  # clock time this stat was first observed
    looks: int = 1  # observations of this stat
    handled: Stat | None = None  # the stat at which it was last compiled, found unchanged or failed


class Tracker:
    def __init__(
        self,
        settle: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.settle = settle
        self.clock, self.wall = clock, wall
        self.files: dict[str, _File] = {}

    def start(self, stats: Mapping[str, Stat], pending: Collection[str]) -> None:
        """The files raw/ holds when watching starts; all but `pending` are compiled already."""
        now = self.clock()
        for rel, stat in stats.items():
            self.files[rel] = _File(stat, now, handled=None if rel in pending else stat)

    def observe(self, stats: Mapping[str, Stat]) -> list[Notice]:
        """Take a new look at raw/; what arrived, changed or went since the last one."""
        now = self.clock()
        notices = []
        for rel, stat in stats.items():
            known = self.files.get(rel)
            if known is None:
                self.files[rel] = _File(stat, now)
                notices.append(Notice("added", rel))
            elif known.stat != stat:
                if known.handled == known.stat:  # it was at rest: a new change begins
                    notices.append(Notice("changed", rel))
                known.stat, known.seen, known.looks = stat, now, 1
            else:
                known.looks += 1
        for rel in [r for r in self.files if r not in stats]:
            del self.files[rel]
            notices.append(Notice("deleted", rel))
        return notices

    def ready(self) -> dict[str, Stat]:
        """The settled files not compiled at their present stat, with that stat."""
        return {rel: f.stat for rel, f in sorted(self.files.items()) if self._due(f) == 0}

    def handled(self, rel: str, stat: Stat) -> None:
        if rel in self.files:
            self.files[rel].handled = stat

    def next_due(self) -> float | None:
        """Seconds until the next unhandled file settles (0: now), None if none is waiting."""
        waits = [d for f in self.files.values() if (d := self._due(f)) is not None]
        return min(waits) if waits else None

    def _due(self, f: _File) -> float | None:
        if f.handled == f.stat:
            return None
        waited = self.clock() - f.seen
        age = self.wall() - f.stat[1] / 1e9
        if f.looks >= 2 and age >= self.settle:
            return 0.0
        return max(0.0, self.settle - waited)
