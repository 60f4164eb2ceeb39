"""`log.md`: the append-only record of operations.

Each entry is a heading `## [YYYY-MM-DD] <op> | <title>` followed by bullets, so
`grep "^## \\[" wiki/log.md` lists the operations. Entries are only ever appended.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

LOG_HEADER = "# Log\n\nWhat wikic did to this wiki, oldest first.\n"
ENTRY_RE = re.compile(r"^## \[(\d{4}-\d{2}-\d{2})\] ([A-Za-z][\w-]*) \| (.*)$", re.MULTILINE)


@dataclass(frozen=True)
class LogEntry:
    date: dt.date
    op: str
    title: str
    bullets: Sequence[str] = field(default_factory=tuple)

    def render(self) -> str:
        title = " ".join(self.title.split())
        lines = [f"## [{self.date.isoformat()}] {self.op} | {title}"]
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
        bullets = tuple(line[2:].strip() for line in block.splitlines() if line.startswith("- "))
        try:
            date = dt.date.fromisoformat(m.group(1))
        except ValueError:
            continue
        entries.append(LogEntry(date, m.group(2), m.group(3).strip(), bullets))
    return entries
