"""`wikic status` and `wikic log`: what is in raw/ versus what has been compiled, read-only.

A source's state comes from comparing the sha256 of its raw file with the `sha256` property of
its source page: new (no page), changed (hashes differ), ingested (equal), missing (page whose
raw file is gone).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from wikic.consolidate.episodes import count_pending
from wikic.operation.journal import pending, unsafe
from wikic.paths import WikiPaths
from wikic.vault.logbook import LogEntry, parse_entries
from wikic.vault.sources import SkippedRaw, hash_raw, scan_raw
from wikic.vault.tree import Vault


@dataclass(frozen=True)
class SourceState:
    raw: str
    state: str  # new | changed | ingested | missing
    page: str | None  # source page path relative to wiki/


@dataclass(frozen=True)
class WikiStatus:
    root: str
    sources: list[SourceState]
    pages_by_type: dict[str, int]
    recent: list[LogEntry]
    interrupted: int = 0
    broken_pages: list[str] = field(default_factory=list)
    skipped: list[SkippedRaw] = field(default_factory=list)  # raw/ files that are not sources
    unsafe_journals: list[str] = field(default_factory=list)  # left alone by recovery: why
    episodes_pending: int = 0  # episodes (dated sources) not consolidated yet

    def count(self, state: str) -> int:
        return sum(1 for s in self.sources if s.state == state)


def source_pages_by_raw(vault: Vault) -> dict[str, list[str]]:
    by_raw: dict[str, list[str]] = {}
    for page in vault.by_type("source"):
        raw = page.props.get("raw")
        if raw:
            by_raw.setdefault(str(raw), []).append(page.path)
    return by_raw


def source_states(paths: WikiPaths, vault: Vault) -> list[SourceState]:
    by_raw = source_pages_by_raw(vault)
    states = []
    present = set(scan_raw(paths).files)
    for rel in sorted(present):
        pages = by_raw.get(rel)
        if not pages:
            states.append(SourceState(rel, "new", None))
            continue
        recorded = str(vault.pages[pages[0]].props.get("sha256") or "")
        try:
            state = "ingested" if recorded == hash_raw(paths, rel) else "changed"
        except OSError:
            state = "changed"  # unreadable now: ingest says why
        states.append(SourceState(rel, state, pages[0]))
    for raw, pages in sorted(by_raw.items()):
        if raw not in present:
            states.append(SourceState(raw, "missing", pages[0]))
    return states


def wiki_status(paths: WikiPaths, *, recent: int = 5) -> WikiStatus:
    vault = Vault.load(paths.wiki)
    counts = Counter(p.type or "other" for p in vault)
    entries = read_log(paths)
    return WikiStatus(
        root=str(paths.root),
        sources=source_states(paths, vault),
        pages_by_type=dict(sorted(counts.items())),
        recent=entries[-recent:] if recent else [],
        interrupted=len(pending(paths.journal, paths.root)),
        broken_pages=sorted(vault.broken),
        skipped=list(scan_raw(paths).skipped),
        unsafe_journals=[message for _, message in unsafe(paths.journal, paths.root)],
        episodes_pending=count_pending(paths, vault),
    )


def read_log(paths: WikiPaths) -> list[LogEntry]:
    try:
        text = paths.log_md.read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return []
    return parse_entries(text)
