"""The freshness check of the store: which page files changed since they were indexed.

A file is known by its stat signature (mtime_ns, size, inode); wikic replaces files by rename,
so every write changes the inode. A file modified less than `RACY_NS` before it was read gets
the signature mtime -1, so the next sync reads it again (git's "racily clean" rule): a second
edit within the file system's timestamp granularity is never missed.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from wikic.store.concepts import CONCEPT_TABLES
from wikic.store.rows import PageRecord, content_sha, page_record
from wikic.store.schema import delete_page, insert_page
from wikic.store.vectors import Vectors, fill, prune, stale_model, touch
from wikic.vault.tree import SPECIAL_FILES

RACY_NS = 2_000_000_000
Progress = Callable[[int, int], None]  # (done, total)


# (mtime_ns, size, inode): plain tuples, compared by the thousand on every read
StatSig = tuple[int, int, int]


@dataclass(frozen=True)
class ReadRecord:
    """A page file as read: `record` is None when its bytes equal what is indexed."""

    path: str
    sig: StatSig
    record: PageRecord | None


@dataclass
class SyncReport:
    """What one sync did. Paths are relative to wiki/."""

    scanned: int = 0
    full: bool = False
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    broken: list[tuple[str, str]] = field(default_factory=list)  # (path, parse error)
    embedded: int = 0  # texts embedded (the others kept their vectors)
    seconds: float = 0.0

    @property
    def changed(self) -> int:
        return len(self.added) + len(self.updated) + len(self.removed)


def is_page_path(rel: str) -> bool:
    """Whether `rel` (relative to wiki/) is a page, by the rules of `vault.page_files`."""
    parts = rel.split("/")
    return (
        rel.endswith(".md")
        and rel not in SPECIAL_FILES
        and not any(p.startswith(".") or p in ("", "..") for p in parts)
    )


def scan_wiki(wiki: Path, *, only: set[str] | None = None) -> dict[str, StatSig]:
    """Stat signatures of the page files under `wiki` (or of those of `only` that exist)."""
    found: dict[str, StatSig] = {}
    if only is not None:
        for rel in only:
            if is_page_path(rel) and (wiki / rel).is_file():
                try:
                    st = (wiki / rel).stat()
                except OSError:
                    continue
                found[rel] = (st.st_mtime_ns, st.st_size, st.st_ino)
        return found
    stack = [(str(wiki), "")]
    while stack:  # os.walk, inlined: this loop runs for every page on every read
        directory, prefix = stack.pop()
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    name = entry.name
                    if name[0] == ".":
                        continue
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append((entry.path, f"{prefix}{name}/"))
                            continue
                        if not name.endswith(".md") or not entry.is_file():
                            continue
                        st = entry.stat()
                    except OSError:
                        continue  # vanished or unreadable while scanning: as if absent
                    found[prefix + name] = (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            continue
    for special in SPECIAL_FILES:
        found.pop(special, None)
    return found


def read_record(wiki: Path, rel: str, sig: StatSig, known_sha: str | None) -> ReadRecord | None:
    """Read one page file and parse it unless its hash is `known_sha` (None: it vanished or
    cannot be read)."""
    try:
        data = (wiki / rel).read_bytes()
    except OSError:
        return None
    if time.time_ns() - sig[0] < RACY_NS:
        sig = (-1, sig[1], sig[2])
    if known_sha is not None and content_sha(data) == known_sha:
        return ReadRecord(rel, sig, None)
    return ReadRecord(rel, sig, page_record(rel, data))


def sync_rows(
    conn: sqlite3.Connection,
    wiki: Path,
    *,
    full: bool,
    progress: Progress | None,
    only: set[str] | None = None,
    clear: bool = False,
    vectors: Vectors | None = None,
) -> SyncReport:
    """Bring the rows in line with the page files under `wiki`: all of them, or only those
    in `only`. `full` reads every file (not only those whose stat changed); `clear` drops all
    rows first, in the same transaction. With `vectors`, the new texts are embedded in that
    transaction too (every text when the model changed)."""
    started = time.perf_counter()
    on_disk = scan_wiki(wiki, only=only)
    rows = [] if clear else conn.execute("SELECT path, mtime_ns, size, ino FROM pages").fetchall()
    known: dict[str, StatSig] = {r[0]: r[1:] for r in rows if only is None or r[0] in only}
    removed = [p for p in known if p not in on_disk]
    todo = [p for p, sig in on_disk.items() if full or known.get(p) != sig]
    report = SyncReport(scanned=len(on_disk), full=full)
    shas = {} if clear else _shas(conn, [p for p in todo if p in known])
    records = []
    for i, rel in enumerate(todo):
        record = read_record(wiki, rel, on_disk[rel], shas.get(rel))
        if record is not None:
            records.append(record)
        if progress is not None:
            progress(i + 1, len(todo))
    if not removed and not records and not clear and not stale_model(conn, vectors):
        report.seconds = time.perf_counter() - started
        return report
    _apply(conn, report, removed, records, known, clear=clear, vectors=vectors)
    report.seconds = time.perf_counter() - started
    return report


def _apply(
    conn: sqlite3.Connection,
    report: SyncReport,
    removed: list[str],
    records: list[ReadRecord],
    known: dict[str, StatSig],
    *,
    clear: bool,
    vectors: Vectors | None,
) -> None:
    """Write what the read phase found, in one transaction (all rows or none)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        if clear:
            for table in ("pages", "props", "links", "claims", "citations", "contradictions"):
                conn.execute(f"DELETE FROM {table}")
            for table in ("passages", "passages_fts", "pages_fts", "vectors", *CONCEPT_TABLES):
                conn.execute(f"DELETE FROM {table}")
        dropped: list[bytes] = []
        inserted: list[int] = []
        for rel in removed:
            dropped += delete_page(conn, rel)
            report.removed.append(rel)
        for item in records:
            rec = item.record
            if rec is None:  # touched, not changed: remember the new stat
                conn.execute(
                    "UPDATE pages SET mtime_ns = ?, size = ?, ino = ? WHERE path = ?",
                    (*item.sig, item.path),
                )
                continue
            if rec.path in known:
                report.updated.append(rec.path)
            else:
                report.added.append(rec.path)
            # always: another process may have indexed the page since `known` was read
            dropped += delete_page(conn, rec.path)
            inserted.append(insert_page(conn, rec, item.sig))
            if rec.broken:
                report.broken.append((rec.path, rec.broken))
        if vectors is not None:
            report.embedded = fill(conn, vectors, None if clear else inserted)
        prune(conn, dropped)
        touch(conn)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _shas(conn: sqlite3.Connection, rels: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for i in range(0, len(rels), 500):
        chunk = rels[i : i + 500]
        sql = f"SELECT path, sha FROM pages WHERE path IN ({','.join('?' * len(chunk))})"
        found.update(conn.execute(sql, chunk).fetchall())
    return found
