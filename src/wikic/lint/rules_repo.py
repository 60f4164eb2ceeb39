"""Structural rules about the wiki's relation to raw/, git and the operation journal.

raw/ is immutable, so a raw file whose bytes no longer hash to the `sha256` its source page
recorded is an error (`raw-modified`), whether it was edited in place or replaced by a new
version: either way the wiki no longer describes it. The finding says which ingested paragraphs
changed (compared with the source page's `## Text`), and only pages citing a changed or vanished
paragraph are `stale-page`; a version that only adds paragraphs leaves existing citations true.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import posixpath
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import git

from wikic.lint.findings import Finding
from wikic.lint.page_scan import PageScan
from wikic.lint.scan import WikiScan
from wikic.operation.gitrepo import open_repo
from wikic.operation.journal import pending, unsafe
from wikic.paths import WikiPaths
from wikic.vault.document import parse_document
from wikic.vault.sources import TEXT_SUFFIXES, scan_raw, sha256_bytes


@dataclass
class SourceChange:
    """A source page whose raw file changed or vanished since it was ingested."""

    page: PageScan
    raw: str
    missing: bool
    changed: set[str] = field(default_factory=set)  # paragraph ids whose text changed or went
    added: int = 0
    known: bool = True  # False: the source page has no `## Text` to compare with


def _recorded_paragraphs(ps: PageScan) -> dict[str, str] | None:
    """Block id → normalised text of each paragraph in the source page's `## Text` section."""
    body = ps.body
    at = body.find("## Text\n")
    if at < 0:
        return None
    recorded: dict[str, str] = {}
    previous = at + len("## Text\n")
    for token, offset, valid in ps.block_defs:
        if offset < at or not valid:
            continue
        recorded[token] = " ".join(body[previous:offset].split())
        previous = offset + len(token) + 1
    return recorded


def _raw_file(paths: WikiPaths, rel: str, raw_prefix: str) -> str | None:
    """The absolute path of a source page's raw file if it is a file under raw/, else None.
    String checks first: resolving every path costs more than the rest of this rule."""
    norm = posixpath.normpath(rel)
    if not norm.startswith(raw_prefix) or os.path.isabs(norm):
        return None
    full = os.path.join(paths.root, norm)
    if os.path.islink(full) and not Path(full).resolve().is_relative_to(paths.raw.resolve()):
        return None
    return full if os.path.isfile(full) else None


def source_changes(scan: WikiScan) -> list[SourceChange]:
    """Every source page whose raw file is gone or no longer matches its recorded sha256."""
    paths = scan.paths
    raw_prefix = paths.rel(paths.raw) + "/"
    changes = []
    for ps in scan:
        raw = ps.page.props.get("raw")
        recorded = str(ps.page.props.get("sha256") or "")
        if ps.type != "source" or not isinstance(raw, str) or not raw:
            continue
        full = _raw_file(paths, raw, raw_prefix)
        if full is None:
            changes.append(SourceChange(ps, raw, missing=True))
            continue
        with open(full, "rb") as fh:
            digest = sha256_bytes(fh.read())
        if not recorded or digest == recorded:
            continue
        change = SourceChange(ps, raw, missing=False)
        old = _recorded_paragraphs(ps)
        try:
            text = (paths.root / raw).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError):
            text = None
        if old is None or text is None:
            change.known = False
        else:
            blocks = parse_document(text, filename=raw).blocks
            new = {b.id: " ".join(b.markdown.split()) for b in blocks}
            change.changed = {i for i, t in old.items() if i not in new or new[i] not in t}
            change.added = len(set(new) - set(old))
        changes.append(change)
    return changes


def check_sources(scan: WikiScan, changes: list[SourceChange]) -> Iterator[Finding]:
    """raw-modified, raw-missing."""
    for change in changes:
        rel = scan.rel(change.page.path)
        if change.missing:
            yield Finding(
                "warning",
                "raw-missing",
                rel,
                f"its raw file {change.raw} is gone (or outside raw/)",
                f"Restore {change.raw} (e.g. git checkout -- {change.raw}), or delete this "
                "source page and the facts citing it.",
            )
            continue
        ingested = change.page.page.props.get("ingested")
        when = f" on {ingested}" if ingested else ""
        if not change.known:
            what = "its content differs"
        elif change.changed or change.added:
            shown = ", ".join(sorted(change.changed, key=_para_order)[:8])
            parts = [f"paragraphs {shown} changed" if change.changed else ""]
            parts.append(f"{change.added} added" if change.added else "")
            what = "; ".join(p for p in parts if p)
        else:
            what = "only its formatting differs"
        yield Finding(
            "error",
            "raw-modified",
            change.raw,
            f"changed after it was ingested{when} (raw/ is immutable): {what}",
            f"If it is a new version of the source, re-ingest it: wikic ingest {change.raw} "
            f"(better: add new versions as new files). Otherwise restore it: "
            f"git checkout -- {change.raw}",
        )


def _para_order(block: str) -> tuple[int, str]:
    return (int(block[1:]), block) if block[1:].isdigit() else (0, block)


def check_stale(scan: WikiScan, changes: list[SourceChange]) -> Iterator[Finding]:
    """stale-page: pages citing paragraphs of a source that changed or vanished."""
    by_source = {c.page.path: c for c in changes}
    if not by_source:
        return
    for ps in scan:
        if ps.type == "source":
            continue
        cited: dict[str, set[str]] = {}
        links = [ref.link for ref in ps.links] + [lnk for _, lnk in ps.prop_links]
        for lnk in links:
            target = scan.resolve(ps, lnk.target)
            if target is not None and target.path in by_source:
                cited.setdefault(target.path, set()).update([lnk.block] if lnk.block else [])
        for source, blocks in sorted(cited.items()):
            change = by_source[source]
            if change.missing:
                why = f"its raw file {change.raw} is gone"
            elif not change.known:
                why = f"{change.raw} changed since ingest"
            elif blocks & change.changed:
                shown = ", ".join(f"^{b}" for b in sorted(blocks & change.changed, key=_para_order))
                why = f"{shown} changed in {change.raw} since ingest"
            else:
                continue
            yield Finding(
                "warning",
                "stale-page",
                scan.rel(ps.path),
                f"cites {scan.rel(source)}, but {why}",
                f"Re-ingest the source (wikic ingest {change.raw}), then review these facts.",
            )


def check_uningested(scan: WikiScan) -> Iterator[Finding]:
    """uningested-source, and unusable-source for raw/ files that cannot be sources."""
    listing = scan_raw(scan.paths)
    known = {str(ps.page.props.get("raw")) for ps in scan if ps.type == "source"}
    for rel in listing.files:
        if rel not in known and PurePosixPath(rel).suffix.lower() in TEXT_SUFFIXES:
            yield Finding(
                "info", "uningested-source", rel, "not ingested yet", f"wikic ingest {rel}"
            )
    for skipped in listing.skipped:
        yield Finding(
            "warning",
            "unusable-source",
            skipped.rel,
            f"skipped: {skipped.reason}",
            "Copy the file into raw/ instead of linking to it, or remove the link.",
        )


def writer_running(paths: WikiPaths) -> bool:
    """Whether a wikic process holds the writer lock now (checked without waiting)."""
    try:
        fd = os.open(paths.lock_file, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing drops our shared lock at once
    return False


def check_journal(scan: WikiScan) -> Iterator[Finding]:
    """interrupted-operation: journals left by a crash (not those of a writer running now),
    and journals naming files wikic never writes, which recovery leaves alone."""
    for directory, message in unsafe(scan.paths.journal, scan.paths.root):
        shown = os.path.relpath(directory, scan.paths.root)
        yield Finding(
            "error",
            "interrupted-operation",
            shown,
            message,
            f"Inspect it, restore the wiki with git if needed, then remove {shown}.",
        )
    found = pending(scan.paths.journal, scan.paths.root)
    if not found or writer_running(scan.paths):
        return
    for directory, journal in found:
        what = (
            f"operation '{journal.manifest.get('op', '?')}' ({journal.id}, {journal.state})"
            if journal is not None
            else f"an operation ({directory.name}) that never finished preparing"
        )
        yield Finding(
            "error",
            "interrupted-operation",
            scan.paths.rel(directory),
            f"{what} was interrupted",
            "`wikic lint --fix` (or any writing command) finishes or rolls it back.",
            fixable=True,
        )


_STATUS_WORDS = {"?": "untracked", "D": "deleted", "A": "added", "R": "renamed", "M": "modified"}


def uncommitted(paths: WikiPaths) -> dict[str, str]:
    """Files under wiki/ that differ from the last commit: root-relative path → git's XY code."""
    repo = open_repo(paths.root) if paths.config.git.commit else None
    if repo is None or not paths.wiki.is_dir():
        return {}
    try:
        out = repo.git.status(
            "--porcelain=v1", "-z", "--untracked-files=all", "--", str(paths.wiki)
        )
    except git.GitCommandError:
        return {}
    top = Path(repo.working_tree_dir or paths.root).resolve()
    found: dict[str, str] = {}
    entries = iter(out.split("\0"))
    for entry in entries:
        if len(entry) < 4:
            continue
        code, rel_top = entry[:2], entry[3:]
        if "R" in code or "C" in code:
            next(entries, None)  # the original path of a rename or copy
        with contextlib.suppress(ValueError):
            found[paths.rel(top / rel_top)] = code
    return found


def check_uncommitted(scan: WikiScan) -> Iterator[Finding]:
    for rel, code in sorted(uncommitted(scan.paths).items()):
        state = next((w for c, w in _STATUS_WORDS.items() if c in code), "changed")
        staged = " (staged)" if code[0] not in " ?" else ""
        yield Finding(
            "warning",
            "uncommitted-changes",
            rel,
            f"{state}, not committed{staged}",
            f"Commit it (git add {rel} && git commit) or discard it; wikic commits only the "
            "files it writes, and --fix leaves such pages alone.",
        )
