"""Episodes: dated sources (daily notes, journals, logs), and the periods they are grouped in.

A source is an episode when it has a date: a `date:` front-matter property, a date in its file
name (`2026-04-03-standup.md`) or path (`2026/04/03.md`), or it lives under a folder listed in
`consolidate.episode_dirs` (dated then by its modification day). Pure functions: same input, same
answer; a date that does not exist (2026-02-30) is no date.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any, Literal

from wikic.config import Config

Period = Literal["week", "day"]
_NAME_DATE_RE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_PATH_DATE_RE = re.compile(r"(?<!\d)(\d{4})/(\d{2})/(\d{2})(?!\d)")
_WEEK_RE = re.compile(r"^(\d{4})-W(\d{2})$")


def _date(year: str, month: str, day: str) -> dt.date | None:
    try:
        return dt.date(int(year), int(month), int(day))
    except ValueError:
        return None


def parse_date(value: Any) -> dt.date | None:
    """A date from a front-matter value: a YAML date, or text starting with YYYY-MM-DD."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        m = re.match(r"\s*(\d{4})-(\d{2})-(\d{2})(?!\d)", value)
        return _date(*m.groups()) if m else None
    return None


def episode_date(
    rel_path: str,
    front_matter: Mapping[str, Any] | None,
    config: Config,
    *,
    modified: dt.date | None = None,
) -> dt.date | None:
    """The date of the source at `rel_path` (relative to the wiki root, e.g. `raw/x.md`) if it is
    an episode, else None. Precedence: `date:` property, file name, path, then an episode folder
    (dated by `modified`, the file's modification day, when nothing else dates it)."""
    if front_matter:
        found = parse_date(front_matter.get("date"))
        if found:
            return found
    path = PurePosixPath(rel_path)
    for m in _NAME_DATE_RE.finditer(path.stem):
        found = _date(*m.groups())
        if found:
            return found
    for m in _PATH_DATE_RE.finditer(str(path.with_suffix(""))):
        found = _date(*m.groups())
        if found:
            return found
    if modified is not None and in_episode_dir(rel_path, config):
        return modified
    return None


def in_episode_dir(rel_path: str, config: Config) -> bool:
    path = PurePosixPath(rel_path)
    for folder in config.consolidate.episode_dirs:
        base = PurePosixPath(folder.strip("/"))
        if base.parts and path.parts[: len(base.parts)] == base.parts:
            return True
    return False


def period_key(day: dt.date, period: Period) -> str:
    """`2026-W14` (ISO week) or `2026-04-03`."""
    if period == "day":
        return day.isoformat()
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


def period_bounds(key: str) -> tuple[dt.date, dt.date]:
    """First and last day of a period key."""
    m = _WEEK_RE.match(key)
    if m:
        start = dt.date.fromisocalendar(int(m.group(1)), int(m.group(2)), 1)
        return start, start + dt.timedelta(days=6)
    day = dt.date.fromisoformat(key)
    return day, day


def period_title(key: str) -> str:
    """`Week 2026-W14 (2026-03-30 – 2026-04-05)` or `Day 2026-04-03`."""
    start, end = period_bounds(key)
    if start == end:
        return f"Day {key}"
    return f"Week {key} ({start.isoformat()} – {end.isoformat()})"
