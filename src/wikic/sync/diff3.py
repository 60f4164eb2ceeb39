"""Three-way merge of line lists (diff3): what one side changed from the base is taken, what
both changed the same way once; a stretch both changed differently is a conflict, which the
caller may settle (`Settle`) or leave to a person with git's conflict markers.

Stable lines are those the base shares with both sides (difflib's matching blocks); between two
stable lines lies one chunk of (base, ours, theirs) lines.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

MARK_OURS = "<<<<<<<"
MARK_SPLIT = "======="
MARK_THEIRS = ">>>>>>>"


@dataclass(frozen=True)
class Chunk:
    base: tuple[str, ...]
    ours: tuple[str, ...]
    theirs: tuple[str, ...]

    @property
    def stable(self) -> bool:
        return self.base == self.ours == self.theirs

    def resolved(self) -> tuple[str, ...] | None:
        """The chunk's lines when at most one side changed it (or both alike), else None."""
        if self.ours == self.theirs or self.theirs == self.base:
            return self.ours
        if self.ours == self.base:
            return self.theirs
        return None


# a conflicting chunk → its lines, or None to leave it a conflict
Settle = Callable[[Chunk], Sequence[str] | None]


def _matches(base: Sequence[str], other: Sequence[str]) -> dict[int, int]:
    found: dict[int, int] = {}
    matcher = SequenceMatcher(None, list(base), list(other), autojunk=False)
    for a, b, size in matcher.get_matching_blocks():
        for k in range(size):
            found[a + k] = b + k
    return found


def chunks(base: Sequence[str], ours: Sequence[str], theirs: Sequence[str]) -> list[Chunk]:
    """The three versions cut into stable lines and the chunks between them, in order."""
    to_ours, to_theirs = _matches(base, ours), _matches(base, theirs)
    stable = [i for i in range(len(base)) if i in to_ours and i in to_theirs]
    out: list[Chunk] = []
    i = j = k = 0
    for n in [*stable, len(base)]:
        jn, kn = (to_ours[n], to_theirs[n]) if n < len(base) else (len(ours), len(theirs))
        if n > i or jn > j or kn > k:
            out.append(Chunk(tuple(base[i:n]), tuple(ours[j:jn]), tuple(theirs[k:kn])))
        if n < len(base):
            line = (base[n],)
            out.append(Chunk(line, line, line))
        i, j, k = n + 1, jn + 1, kn + 1
    return out


@dataclass(frozen=True)
class LineMerge:
    lines: tuple[str, ...]  # the merge, with conflict markers around what is left unsettled
    conflicts: int


def merge_lines(
    base: Sequence[str],
    ours: Sequence[str],
    theirs: Sequence[str],
    *,
    settle: Settle | None = None,
    labels: tuple[str, str] = ("ours", "theirs"),
) -> LineMerge:
    """Merge three line lists; an unsettled conflict is written between git's markers."""
    out: list[str] = []
    conflicts = 0
    for chunk in chunks(base, ours, theirs):
        lines = chunk.resolved()
        if lines is None and settle is not None:
            settled = settle(chunk)
            lines = None if settled is None else tuple(settled)
        if lines is None:
            conflicts += 1
            out += [f"{MARK_OURS} {labels[0]}", *chunk.ours, MARK_SPLIT]
            out += [*chunk.theirs, f"{MARK_THEIRS} {labels[1]}"]
        else:
            out += lines
    return LineMerge(tuple(out), conflicts)


def union_of_insertions(chunk: Chunk) -> tuple[str, ...] | None:
    """Settle a chunk where both sides only added lines at one place: ours, then the lines of
    theirs ours lacks. Nothing either side wrote is lost, and no line was edited two ways."""
    if chunk.base:
        return None
    kept = set(chunk.ours)
    return (*chunk.ours, *(line for line in chunk.theirs if line not in kept or not line.strip()))


def has_markers(text: str) -> bool:
    """Whether `text` holds a line git writes around a conflict (`=======` alone is also a
    markdown heading underline, so the opening and closing lines are what count)."""
    return any(line.startswith((f"{MARK_OURS} ", f"{MARK_THEIRS} ")) for line in text.split("\n"))
