"""Episodes: dated sources (daily notes, journals, logs), and the periods they are grouped in.

A source is an episode when it has a date: a `date:` front-matter property, a date in its file
name (`2026-04-03-standup.md`) or path (`2026/04/03.md`), or it lives under a folder listed in
`consolidate.episode_dirs` (dated then by its modification day) — unless its text reads as an
article (`reads_as_article`: a dated blog post or design document is about its subject, not a
note of its day). Pure functions: same input, same answer; a date that does not exist
(2026-02-30) is no date.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any, Literal

from wikic.config import Config
from wikic.language.stopwords import CALENDAR_WORDS
from wikic.vault.sources import body_text

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


ARTICLE_MIN_WORDS = 300
ARTICLE_MIN_SECTIONS = 2
# words of a day's note title: "Standup", "Daily notes", "Friday", "Weekly review 2026-W14"
_NOTE_WORDS = CALENDAR_WORDS | frozenset({
    "daily", "day", "note", "notes", "journal", "log", "diary", "standup", "stand-up", "meeting",
    "minutes", "weekly", "week", "review", "retro", "retrospective", "today", "todo", "jan", "feb",
    "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
})  # fmt: skip
_H1_RE = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_SECTION_RE = re.compile(r"^#{2,6}[ \t]+\S", re.MULTILINE)
_FENCE_RE = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1", re.MULTILINE | re.DOTALL)


def _own_words(text: str) -> list[str]:
    """The words of a title or file name besides dates and the words of a day's note."""
    return [w for w in re.findall(r"[A-Za-z][\w'’.+]*", text) if w.casefold() not in _NOTE_WORDS]


def reads_as_article(
    text: str, front_matter: Mapping[str, Any] | None = None, *, stem: str | None = None
) -> bool:
    """Whether a dated source is an article rather than a note of its day. A daily note is named
    by its date (`2026-04-03.md`, `2026-04-03-standup.md`) or titled by it ("Standup
    2026-04-03"); a dated blog post or design document has a name and a title of its own
    (`2020-04-03-cranelift-backend-for-rustc.md`, "Cranelift backend for rustc": two or more
    words besides the date and note words), at least `ARTICLE_MIN_SECTIONS` headed sections and
    `ARTICLE_MIN_WORDS` words. It is about its subject: it gets topic pages like any article.
    `stem`: the file name without its extension."""
    if stem is not None and len(_own_words(_NAME_DATE_RE.sub(" ", stem))) < 2:
        return False
    prose = _FENCE_RE.sub("", body_text(text.replace("\r\n", "\n")))
    h1 = _H1_RE.search(prose)
    titles = [str((front_matter or {}).get("title") or ""), h1.group(1) if h1 else ""]
    own = max((_own_words(t) for t in titles), key=len)
    sections = len(_SECTION_RE.findall(prose))
    return (
        len(own) >= 2
        and sections >= ARTICLE_MIN_SECTIONS
        and len(prose.split()) >= ARTICLE_MIN_WORDS
    )


def episode_date(
    rel_path: str,
    front_matter: Mapping[str, Any] | None,
    config: Config,
    *,
    modified: dt.date | None = None,
    text: str | None = None,
) -> dt.date | None:
    """The date of the source at `rel_path` (relative to the wiki root, e.g. `raw/x.md`) if it is
    an episode, else None. Precedence: `date:` property, file name, path, then an episode folder
    (dated by `modified`, the file's modification day, when nothing else dates it). With its
    `text`, a source that reads as an article (`reads_as_article`) is no episode."""
    found = _dated(rel_path, front_matter, config, modified)
    if found is None or text is None:
        return found
    stem = PurePosixPath(rel_path).stem
    return None if reads_as_article(text, front_matter, stem=stem) else found


def _dated(
    rel_path: str,
    front_matter: Mapping[str, Any] | None,
    config: Config,
    modified: dt.date | None,
) -> dt.date | None:
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
