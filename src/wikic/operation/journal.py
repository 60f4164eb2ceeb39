"""The operation journal: all file changes of an operation land together or not at all.

prepare: every new file's bytes are written and fsynced inside `.wikic/journal/<id>/` (the only
step that needs disk space), then the manifest is written. apply: per file, the current version is
hard-linked into the journal (`old/`), then the new one renamed over it; renames and links need no
space. rollback: the `old/` links are renamed back and created files removed. Any crash leaves a
journal that `rollback` (or `discard`, once committed) finishes.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikic.errors import OperationError
from wikic.fsutil import atomic_write, fsync_dir, write_durable

MANIFEST = "manifest.json"
STATES = ("prepared", "applying", "committed")


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
        """A journal found on disk; None if its manifest was never completely written."""
        try:
            manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(manifest, dict) or manifest.get("state") not in STATES:
            return None
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


def pending(journal_root: Path, root: Path) -> list[tuple[Path, Journal | None]]:
    """Journal directories left by interrupted operations (None: manifest never written)."""
    if not journal_root.is_dir():
        return []
    found = []
    for directory in sorted(journal_root.iterdir()):
        if directory.name.startswith("."):
            shutil.rmtree(directory, ignore_errors=True)  # a discard that was cut short
            continue
        found.append((directory, Journal.load(directory, root)))
    return found
