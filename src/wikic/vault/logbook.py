"""`log.md`: the append-only record of operations.

Each entry is a heading `## [YYYY-MM-DD] <op> | <title>` followed by bullets, so
`grep "^## \\[" wiki/log.md` lists the operations; the first bullet, `- by <name>`, names who ran
it (the author of its commit) when known. Entries are appended; earlier ones change
only so their links stay valid (`relink`): a link to a page that is gone becomes its plain name,
a link to a page that moved points to its new name.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from wikic.vault.links import WikiLink, iter_links, normalize_target

LOG_HEADER = "# Log\n\nWhat wikic did to this wiki, oldest first.\n"
AUTHOR_BULLET = "- by "
ENTRY_RE = re.compile(r"^## \[(\d{4}-\d{2}-\d{2})\] ([A-Za-z][\w-]*) \| (.*)$", re.MULTILINE)


@dataclass(frozen=True)
class LogEntry:
    date: dt.date
    op: str
    title: str
    bullets: Sequence[str] = field(default_factory=tuple)
    author: str = ""

    def render(self) -> str:
        title = " ".join(self.title.split())
        lines = [f"## [{self.date.isoformat()}] {self.op} | {title}"]
        if self.author.strip():
            lines.append(f"{AUTHOR_BULLET}{' '.join(self.author.split())}")
        lines += [f"- {' '.join(b.split())}" for b in self.bullets]
        return "\n".join(lines) + "\n"


def append_entry(log_text: str, entry: LogEntry) -> str:
    """`log_text` with `entry` appended (a blank line between entries)."""
    base = log_text if log_text.strip() else LOG_HEADER
    return base.rstrip("\n") + "\n\n" + entry.render()


def parse_entries(log_text: str) -> list[LogEntry]:
    matches = list(ENTRY_RE.finditer(log_text))
    entries = []
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(log_text)
        block = log_text[m.end() : end]
        lines = [line for line in block.splitlines() if line.startswith("- ")]
        author = ""
        if lines and lines[0].startswith(AUTHOR_BULLET):
            author = lines.pop(0)[len(AUTHOR_BULLET) :].strip()
        bullets = tuple(line[2:].strip() for line in lines)
        try:
            date = dt.date.fromisoformat(m.group(1))
        except ValueError:
            continue
        entries.append(LogEntry(date, m.group(2), m.group(3).strip(), bullets, author))
    return entries


def relink(
    log_text: str, exists: Callable[[WikiLink], bool], moved: Mapping[str, str] | None = None
) -> str:
    """`log_text` with its links kept valid: a link to a `moved` page (normalised old name →
    new name) points at the new name; one whose heading or block is gone links the page; one
    whose page is gone becomes plain text (its alias, else the target's last name). Text
    outside links, and links that resolve, keep their bytes."""
    moved = {normalize_target(k): v for k, v in (moved or {}).items()}
    parts: list[str] = []
    last = 0
    for start, end, lnk in iter_links(log_text):
        new_target = moved.get(normalize_target(lnk.target))
        if new_target is not None:
            lnk = WikiLink(new_target, lnk.heading, lnk.block, lnk.alias, lnk.embed)
        elif not lnk.target or exists(lnk):
            continue  # left exactly as written
        page_only = WikiLink(lnk.target, alias=lnk.alias, embed=lnk.embed)
        if exists(lnk):
            replacement = lnk.render()
        elif exists(page_only):
            replacement = page_only.render()
        else:
            replacement = lnk.alias or lnk.target.rsplit("/", 1)[-1]
        parts += [log_text[last:start], replacement]
        last = end
    if not parts:
        return log_text
    return "".join(parts) + log_text[last:]
