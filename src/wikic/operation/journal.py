"""The operation journal: all file changes of an operation land together or not at all.

prepare: every new file's bytes are written and fsynced inside `.wikic/journal/<id>/` (the only
step that needs disk space), then the manifest is written. apply: per file, the current version is
hard-linked into the journal (`old/`), then the new one renamed over it; renames and links need no
space. rollback: the `old/` links are renamed back and created files removed. Any crash leaves a
journal that `rollback` (or `discard`, once committed) finishes. A manifest is trusted only
if every path in it is one wikic could have written: relative, inside the wiki, outside raw/,
.git/ and .wikic/, with `old/<i>`/`new/<i>` entries; any other is left alone and reported.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from wikic.config import CONFIG_NAME, load_config
from wikic.errors import OperationError, UnsafeJournalError, WikicError
from wikic.fsutil import atomic_write, fsync_dir, write_durable

log = logging.getLogger(__name__)
MANIFEST = "manifest.json"
STATES = ("prepared", "applying", "committed")
MACHINE_DIRS = (".git", ".wikic")  # never written by an operation


@dataclass(frozen=True)
class Change:
    """One file an operation writes (`content`) or deletes (`content is None`).
    `path` is relative to the wiki root, posix."""

    path: str
    content: bytes | None


class Journal:
    """One operation's journal directory."""

    def __init__(self, directory: Path, root: Path, manifest: dict[str, Any]) -> None:
        self.dir = directory
        self.root = root
        self.manifest = manifest

    @property
    def id(self) -> str:
        return str(self.manifest["id"])

    @property
    def state(self) -> str:
        return str(self.manifest.get("state", "prepared"))

    @property
    def paths(self) -> list[str]:
        return [f["path"] for f in self.manifest["files"]]

    # -- creation -------------------------------------------------------------------------
    @classmethod
    def prepare(
        cls,
        journal_root: Path,
        root: Path,
        op_id: str,
        meta: dict[str, Any],
        changes: Sequence[Change],
    ) -> Journal:
        directory = journal_root / op_id
        try:
            (directory / "new").mkdir(parents=True)
            (directory / "old").mkdir()
            files = []
            for i, change in enumerate(changes):
                target = root / change.path
                entry: dict[str, Any] = {
                    "path": change.path,
                    "existed": target.exists() or target.is_symlink(),
                    "new": None,
                    "old": f"old/{i}",
                }
                if change.content is not None:
                    entry["new"] = f"new/{i}"
                    write_durable(directory / entry["new"], change.content)
                files.append(entry)
            manifest = {
                **meta,
                "id": op_id,
                "state": "prepared",
                "files": files,
                "created_dirs": [],
            }
            journal = cls(directory, root, manifest)
            journal._save()
            fsync_dir(directory / "new")
            return journal
        except OSError as exc:
            shutil.rmtree(directory, ignore_errors=True)
            if exc.errno == errno.ENOSPC:
                raise OperationError("the disk is full; nothing was changed") from None
            raise OperationError(
                f"could not prepare the operation: {exc}; nothing was changed"
            ) from None

    @classmethod
    def load(cls, directory: Path, root: Path) -> Journal | None:
        """A journal found on disk; None if its manifest was never completely written.
        UnsafeJournalError if it names a file wikic would never write."""
        if directory.is_symlink():
            raise UnsafeJournalError(
                f"{directory} is a symlink, not a journal wikic made; wikic will not touch it",
                hint=f"Remove {directory}.",
            )
        try:
            manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(manifest, dict) or manifest.get("state") not in STATES:
            return None
        problem = manifest_problem(manifest, root)
        if problem:
            raise UnsafeJournalError(
                f"the interrupted operation in {directory} {problem}; wikic will not touch it",
                hint=f"Inspect it, restore the wiki with git if needed, then remove {directory}.",
            )
        return cls(directory, root, manifest)

    def _save(self) -> None:
        atomic_write(self.dir / MANIFEST, json.dumps(self.manifest, indent=1).encode())

    def set_state(self, state: str) -> None:
        self.manifest["state"] = state
        self._save()

    # -- apply / undo ---------------------------------------------------------------------
    def apply(self) -> None:
        """Put every change in place. On any error, roll back and raise OperationError."""
        self.set_state("applying")
        try:
            for entry in self.manifest["files"]:
                self._apply_one(entry)
            for parent in {(self.root / e["path"]).parent for e in self.manifest["files"]}:
                fsync_dir(parent)
        except BaseException as exc:
            self.rollback()
            if isinstance(exc, OSError):
                reason = "the disk is full" if exc.errno == errno.ENOSPC else str(exc)
                raise OperationError(
                    f"could not write the wiki ({reason}); nothing was changed"
                ) from None
            raise

    def _apply_one(self, entry: dict[str, Any]) -> None:
        target = self.root / entry["path"]
        self._make_parents(target.parent)
        old = self.dir / entry["old"]
        if entry["existed"] and not old.exists():
            try:
                os.link(target, old)
            except OSError as exc:
                if exc.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK):
                    raise
                shutil.copy2(target, old)  # another file system: a copy keeps rollback possible
        if entry["new"] is not None:
            os.replace(self.dir / entry["new"], target)
        elif target.exists():
            target.unlink()

    def _make_parents(self, directory: Path) -> None:
        missing = []
        d = directory
        while not d.exists():
            missing.append(d)
            d = d.parent
        for d in reversed(missing):
            d.mkdir()
            self.manifest["created_dirs"].append(os.path.relpath(d, self.root))
        if missing:
            self._save()

    def rollback(self) -> None:
        """Restore every file to its state before `apply` (safe to run more than once)."""
        for entry in reversed(self.manifest["files"]):
            target = self.root / entry["path"]
            old = self.dir / entry["old"]
            if old.exists():
                os.replace(old, target)
            elif not entry["existed"]:
                with contextlib.suppress(FileNotFoundError):
                    target.unlink()
        for rel in reversed(self.manifest.get("created_dirs", [])):
            with contextlib.suppress(OSError):
                (self.root / rel).rmdir()
        self.discard()

    def discard(self) -> None:
        """Forget the journal (after a commit, or once rolled back)."""
        trash = self.dir.with_name(f".{self.dir.name}.discard")
        with contextlib.suppress(OSError):
            os.replace(self.dir, trash)
        shutil.rmtree(trash, ignore_errors=True)
        shutil.rmtree(self.dir, ignore_errors=True)


def manifest_problem(manifest: dict[str, Any], root: Path) -> str | None:
    """Why a manifest cannot be one wikic wrote (so recovery must not act on it), or None."""
    files = manifest.get("files")
    dirs = manifest.get("created_dirs", [])
    if not isinstance(files, list) or not isinstance(dirs, list):
        return "has no valid file list"
    protected = _protected(root)
    for i, entry in enumerate(files):
        if not isinstance(entry, dict):
            return "has a file entry that is not an object"
        problem = _path_problem(entry.get("path"), root, protected)
        if problem:
            return f"names {entry.get('path')!r}, {problem}"
        if entry.get("old") != f"old/{i}" or entry.get("new") not in (None, f"new/{i}"):
            return f"has journal copies of {entry['path']!r} outside its own directory"
        if not isinstance(entry.get("existed"), bool):
            return f"does not say whether {entry['path']!r} existed"
    for rel in dirs:
        problem = _path_problem(rel, root, protected)
        if problem:
            return f"names the folder {rel!r}, {problem}"
    return None


def _protected(root: Path) -> tuple[str, ...]:
    """First path parts no operation writes under: git's and wikic's state, and raw/."""
    try:
        raw = load_config(root / CONFIG_NAME).paths.raw
    except (WikicError, OSError):
        raw = "raw"
    return (*MACHINE_DIRS, PurePosixPath(raw).as_posix().strip("/"))


def _path_problem(rel: Any, root: Path, protected: tuple[str, ...]) -> str | None:
    if not isinstance(rel, str) or not rel or "\0" in rel or "\\" in rel:
        return "which is not a path"
    pure = PurePosixPath(rel)
    if pure.is_absolute() or any(part in ("", ".", "..") for part in rel.split("/")):
        return "which is outside the wiki"
    if any(rel == p or rel.startswith(p + "/") for p in protected):
        return "which wikic never writes"
    # a folder on the way may be a symlink out of the wiki: judge where the parent really is
    parent = Path(os.path.realpath(root / pure.parent))
    if not parent.is_relative_to(Path(os.path.realpath(root))):
        return "which is outside the wiki"
    return None


def pending(journal_root: Path, root: Path) -> list[tuple[Path, Journal | None]]:
    """Journal directories left by interrupted operations (None: manifest never written).
    Unsafe ones (see `manifest_problem`) are left alone: logged here, listed by `unsafe`."""
    found = []
    for directory in _journal_dirs(journal_root):
        try:
            found.append((directory, Journal.load(directory, root)))
        except UnsafeJournalError as exc:
            log.warning("%s", exc.message)
    return found


def unsafe(journal_root: Path, root: Path) -> list[tuple[Path, str]]:
    """(directory, message) of each journal recovery refuses to act on."""
    found = []
    for directory in _journal_dirs(journal_root):
        try:
            Journal.load(directory, root)
        except UnsafeJournalError as exc:
            found.append((directory, exc.message))
    return found


def _journal_dirs(journal_root: Path) -> list[Path]:
    if not journal_root.is_dir():
        return []
    found = []
    for directory in sorted(journal_root.iterdir()):
        if directory.name.startswith("."):
            shutil.rmtree(directory, ignore_errors=True)  # a discard that was cut short
            continue
        found.append(directory)
    return found
