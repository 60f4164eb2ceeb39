"""The git plumbing a sync needs: reading trees and blobs of commits, writing blobs, a tree and a
merge commit without touching the work tree or the index, and what a commit's history says.

Paths are relative to the repository's top, posix. Nothing here changes a ref or a work tree
file: that is `operation.landing`'s.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import git
from gitdb.base import IStream

from wikic.operation.gitrepo import TRAILER_NAME, run_git
from wikic.operation.identity import Identity

ZERO = "0" * 40


@dataclass(frozen=True)
class Entry:
    """A file of a tree: its mode ("100644") and blob sha."""

    mode: str
    sha: str


def tree_files(repo: git.Repo, rev: str | None) -> dict[str, Entry]:
    """Every file of `rev`'s tree by path (submodules and symlinks included, as entries)."""
    if rev is None:
        return {}
    out = repo.git.ls_tree("-r", "-z", "--full-tree", rev)
    files = {}
    for record in out.split("\0"):
        if not record:
            continue
        meta, path = record.split("\t", 1)
        mode, _kind, sha = meta.split()
        files[path] = Entry(mode, sha)
    return files


def read_blob(repo: git.Repo, sha: str) -> bytes:
    return bytes(repo.odb.stream(bytes.fromhex(sha)).read())


def write_blob(repo: git.Repo, data: bytes) -> str:
    return str(repo.odb.store(IStream(b"blob", len(data), io.BytesIO(data))).hexsha.decode())


def renames(repo: git.Repo, base: str, tip: str) -> dict[str, str]:
    """Files `tip` has under a new path since `base` (old path → new path), as git finds them."""
    out = repo.git.diff_tree("-r", "-z", "-M", "--name-status", "--diff-filter=R", base, tip)
    fields = [f for f in out.split("\0") if f]
    found = {}
    for i in range(0, len(fields) - 2, 3):
        if fields[i].startswith("R"):
            found[fields[i + 1]] = fields[i + 2]
    return found


def merge_base(repo: git.Repo, a: str, b: str) -> str | None:
    try:
        return str(repo.git.merge_base(a, b)).strip() or None
    except git.GitCommandError:
        return None  # unrelated histories


def is_ancestor(repo: git.Repo, a: str, b: str) -> bool:
    try:
        repo.git.merge_base("--is-ancestor", a, b)
    except git.GitCommandError:
        return False
    return True


def count_commits(repo: git.Repo, exclude: str | None, tip: str) -> int:
    spec = [tip] if exclude is None else [f"{exclude}..{tip}"]
    return int(repo.git.rev_list("--count", *spec))


def made_by_wikic(repo: git.Repo, base: str, tip: str, path: str) -> bool:
    """Whether every commit after `base` up to `tip` that changed `path` is a wikic commit: a
    person's edit of it, committed with git, makes it False."""
    out = repo.git.log(
        f"--format=%x00%(trailers:key={TRAILER_NAME},valueonly,separator=%x2C)",
        f"{base}..{tip}",
        "--",
        path,
    )
    return all(part.strip() for part in out.split("\0")[1:])


def appended_times(
    repo: git.Repo, base: str, tip: str, path: str, count: Callable[[str], int]
) -> list[float]:
    """For each entry of `path` (a log) at `tip`, when the commit that appended it was made:
    entry i is dated by the first commit after `base` (first parents) whose log has > i."""
    out = repo.git.log(
        "--first-parent", "--reverse", "--format=%H %ct", f"{base}..{tip}", "--", path
    )
    times: list[float] = []
    for line in out.splitlines():
        sha, when = line.split()
        try:
            text = repo.git.show(f"{sha}:{path}", strip_newline_in_stdout=False)
        except git.GitCommandError:
            continue
        while len(times) < count(text):
            times.append(float(when))
    return times


def build_tree(
    repo: git.Repo, start: str, changes: Mapping[str, Entry | None], index_file: Path
) -> str:
    """The tree of `start` with `changes` (path → new entry, None: removed), written through a
    private index file so git's own index and the work tree are untouched."""
    index_file.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileNotFoundError):
        index_file.unlink()
    env = {"GIT_INDEX_FILE": str(index_file)}
    records = "".join(
        f"0 {ZERO}\t{p}\0" if e is None else f"{e.mode} {e.sha}\t{p}\0" for p, e in changes.items()
    )
    try:
        run_git(repo, "read-tree", start, env=env)
        if records:
            run_git(repo, "update-index", "-z", "--index-info", stdin=records.encode(), env=env)
        return run_git(repo, "write-tree", env=env).strip()
    finally:
        with contextlib.suppress(FileNotFoundError):
            index_file.unlink()


def commit_tree(
    repo: git.Repo, tree: str, parents: list[str], message: str, identity: Identity
) -> str:
    args = ["commit-tree", tree]
    for parent in parents:
        args += ["-p", parent]
    return run_git(repo, *args, "-F", "-", stdin=message.encode(), env=identity.env()).strip()
