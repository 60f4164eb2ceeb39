"""Landing a commit made elsewhere (a sync's merge commit, or the remote's commits on a
fast-forward): HEAD moves to it and git's index and the work tree follow, all or nothing. Or
landing a merge left for a person: files and index as `git merge` leaves a conflict.

Before anything moves, `.wikic/landing.json` records the paths that change (and, for a merge
left open, the commit MERGE_HEAD will name), fsynced. The commit point is the ref update (`git
update-ref`, atomic) or the write of MERGE_HEAD, last. `recover_landing`, under the writer
lock, makes every recorded path match HEAD again — the old commit if the ref did not move, the
new one if it did — so a kill at any point leaves the state before the landing or after it.
Paths are relative to the repository's top.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import git

from wikic.errors import GitStateError
from wikic.fsutil import atomic_write
from wikic.operation.gitrepo import (
    GitFailed,
    remove_stale_index_lock,
    run_git,
    working_tree_dirty,
)
from wikic.paths import WikiPaths

log = logging.getLogger(__name__)
ZERO = "0" * 40


@dataclass(frozen=True)
class Stage:
    """One side of a conflicted file in git's index: stage 1 base, 2 ours, 3 theirs."""

    stage: int
    mode: str
    sha: str


@dataclass(frozen=True)
class OpenConflict:
    """A file a merge leaves to a person: its text with conflict markers, and its stages."""

    path: str
    text: bytes
    stages: tuple[Stage, ...]


def record_path(paths: WikiPaths) -> Path:
    return paths.state / "landing.json"


def pending_landing(paths: WikiPaths) -> bool:
    return record_path(paths).exists()


def land(paths: WikiPaths, repo: git.Repo, *, old: str, new: str, changed: Sequence[str]) -> None:
    """Move the checked-out branch from `old` to `new`, the index and work tree with it."""
    _check_clean(repo, changed)
    ref = _branch_ref(repo)
    _write_record(paths, {"kind": "head", "old": old, "new": new, "ref": ref, "paths": changed})
    try:
        _read_tree(repo, old, new)
        _write_git_file(repo, "ORIG_HEAD", old)  # `git reset --hard ORIG_HEAD` undoes a sync
        _update_ref(repo, ref, new, old)
    except BaseException:
        recover_landing(paths, repo)
        raise
    _clear_record(paths)


def land_open_merge(
    paths: WikiPaths,
    repo: git.Repo,
    *,
    old: str,
    tree: str,
    merge_head: str,
    changed: Sequence[str],
    conflicts: Sequence[OpenConflict],
    message: str,
) -> None:
    """Leave the repository as `git merge` leaves a conflict: `tree` (the merge, with ours'
    version of each conflicted file) in the index and work tree, each conflicted file with its
    markers and its three stages, MERGE_MSG, and MERGE_HEAD naming `merge_head`."""
    _check_clean(repo, changed)
    record = {"kind": "merge", "old": old, "merge_head": merge_head, "ref": _branch_ref(repo)}
    _write_record(paths, {**record, "paths": changed})
    try:
        _read_tree(repo, old, tree)
        top = Path(repo.working_tree_dir or ".")
        records = []
        for conflict in conflicts:
            target = top / conflict.path
            target.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(target, conflict.text)
            records.append(f"0 {ZERO}\t{conflict.path}\0")
            records += [f"{s.mode} {s.sha} {s.stage}\t{conflict.path}\0" for s in conflict.stages]
        run_git(repo, "update-index", "-z", "--index-info", stdin="".join(records).encode())
        _write_git_file(repo, "ORIG_HEAD", old)
        _write_git_file(repo, "MERGE_MSG", message.rstrip("\n"))
        _write_git_file(repo, "MERGE_HEAD", merge_head)  # the commit point
    except BaseException:
        recover_landing(paths, repo)
        raise
    _clear_record(paths)


def recover_landing(paths: WikiPaths, repo: git.Repo | None) -> str | None:
    """Finish or undo a landing a crash interrupted (caller holds the writer lock); a note
    saying which, or None when there was none."""
    record = _read_record(paths)
    if record is None:
        return None
    if repo is None:
        _clear_record(paths)
        return None
    gitdir = Path(repo.git_dir)
    ref = str(record.get("ref") or "")
    if ref and ref.startswith("refs/heads/"):
        with contextlib.suppress(FileNotFoundError):
            (gitdir / f"{ref}.lock").unlink()  # an update-ref killed before its rename
    remove_stale_index_lock(repo)
    merge_head = _git_file(repo, "MERGE_HEAD")
    opened = record.get("kind") == "merge" and merge_head == record.get("merge_head")
    if not opened:
        if record.get("kind") == "merge":
            with contextlib.suppress(FileNotFoundError):
                (gitdir / "MERGE_MSG").unlink()  # written just before MERGE_HEAD would have been
        _restore_to_head(repo, [str(p) for p in record.get("paths", [])])
    _clear_record(paths)
    head = repo.head.commit.hexsha if repo.head.is_valid() else ""
    if opened:
        note = "completed an interrupted sync: the merge is left open for you to finish"
    elif head == record.get("new"):
        note = "completed an interrupted sync"
    else:
        note = "rolled back an interrupted sync"
    log.warning(note)
    return note


# -- the steps (named, so crash tests can stop a process at each) ----------------------------


def _check_clean(repo: git.Repo, changed: Sequence[str]) -> None:
    top = Path(repo.working_tree_dir or ".")
    dirty = working_tree_dirty(repo, [top / p for p in changed])
    if dirty:
        shown = ", ".join(dirty[:3]) + (f" and {len(dirty) - 3} more" if len(dirty) > 3 else "")
        raise GitStateError(
            f"{shown} {'has' if len(dirty) == 1 else 'have'} uncommitted changes (or untracked "
            "files) that the sync would overwrite; nothing was changed",
            hint="Commit them (git add … && git commit) or move them aside, then sync again.",
        )


def _branch_ref(repo: git.Repo) -> str:
    return str(repo.git.symbolic_ref("HEAD")).strip()


def _write_record(paths: WikiPaths, record: dict[str, Any]) -> None:
    record = {**record, "paths": list(record["paths"])}
    atomic_write(record_path(paths), json.dumps(record, indent=1).encode())


def _read_record(paths: WikiPaths) -> dict[str, Any] | None:
    try:
        record = json.loads(record_path(paths).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        _clear_record(paths)  # never completely written: nothing had moved yet
        return None
    paths_ok = isinstance(record, dict) and all(
        isinstance(p, str) and p and not p.startswith("/") and ".." not in p.split("/")
        for p in record.get("paths", [])
    )
    if not paths_ok:
        raise GitStateError(
            f"{record_path(paths)} is not a record wikic wrote; wikic will not act on it",
            hint="Inspect it, check `git status`, then remove it.",
        )
    return record


def _clear_record(paths: WikiPaths) -> None:
    with contextlib.suppress(FileNotFoundError):
        record_path(paths).unlink()


def _read_tree(repo: git.Repo, old: str, new: str) -> None:
    try:
        run_git(repo, "read-tree", "-m", "-u", old, new)
    except GitFailed as exc:
        raise GitStateError(
            f"git could not update the work tree: {exc.last_line}",
            hint="Commit or move aside what it names, then sync again.",
        ) from None


def _update_ref(repo: git.Repo, ref: str, new: str, old: str) -> None:
    run_git(repo, "update-ref", "-m", "wikic sync", ref, new, old)


def _write_git_file(repo: git.Repo, name: str, text: str) -> None:
    atomic_write(Path(repo.git_dir) / name, (text + "\n").encode())


def _git_file(repo: git.Repo, name: str) -> str | None:
    try:
        return (Path(repo.git_dir) / name).read_text(encoding="utf-8").strip() or None
    except FileNotFoundError:
        return None


def _restore_to_head(repo: git.Repo, changed: Sequence[str]) -> None:
    """Index and work tree of `changed` as HEAD has them (files HEAD lacks removed)."""
    if not changed:
        return
    listed = "".join(f"{p}\0" for p in changed).encode()
    run_git(
        repo, "reset", "-q", "HEAD", "--pathspec-from-file=-", "--pathspec-file-nul", stdin=listed
    )
    in_head = set(run_git(repo, "ls-tree", "-r", "-z", "--name-only", "HEAD").split("\0"))
    kept = [p for p in changed if p in in_head]
    if kept:
        listed = "".join(f"{p}\0" for p in kept).encode()
        run_git(repo, "checkout-index", "-f", "-z", "--stdin", stdin=listed)
    top = Path(repo.working_tree_dir or ".")
    for rel in changed:
        target = top / rel
        if rel not in in_head and (target.is_file() or target.is_symlink()):
            target.unlink()  # written by this landing: the path was clean and absent before
