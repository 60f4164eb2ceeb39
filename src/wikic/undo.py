"""`wikic undo`: revert the last wikic operation as a new operation (and a new commit).

The files the operation's commit changed go back to their content before it; log.md is
append-only, so it gets an `undo` entry instead of losing the undone one. Refused when later
commits or uncommitted edits touch the same files, so undo never discards someone's work.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import git

from wikic.errors import OperationError
from wikic.operation.gitrepo import OpCommit, op_commits, working_tree_dirty
from wikic.operation.transaction import OpResult, Plan, writing
from wikic.paths import WikiPaths
from wikic.store.db import after_commit


@dataclass(frozen=True)
class UndoResult:
    undone: OpCommit
    result: OpResult


def last_undoable(repo: git.Repo) -> OpCommit | None:
    undone: set[str] = set()
    for commit in op_commits(repo):
        if commit.undoes:
            undone.add(commit.undoes)
            continue
        if commit.op_id in undone:
            continue
        return None if commit.op == "init" else commit
    return None


def _changed_files(repo: git.Repo, sha: str) -> list[tuple[str, str]]:
    """(status letter, repo-relative path) for each file the commit changed."""
    out = repo.git.diff_tree("--no-commit-id", "--name-status", "-r", "-z", "--no-renames", sha)
    fields = [f for f in out.split("\0") if f]
    return [(fields[i], fields[i + 1]) for i in range(0, len(fields) - 1, 2)]


def _blob(repo: git.Repo, rev: str, repo_rel: str) -> str | None:
    try:
        return str(repo.git.rev_parse(f"{rev}:{repo_rel}"))
    except git.GitCommandError:
        return None


def _show(repo: git.Repo, rev: str) -> str | None:
    try:
        return str(repo.git.show(rev, strip_newline_in_stdout=False))
    except git.GitCommandError:
        return None


def _log_before(repo: git.Repo, sha: str, repo_rel: str, log_md: Path) -> str | None:
    """log.md with the earlier entries as they were before the operation, when the operation
    rewrote their links (rename, merge, delete); its own entry and later ones stay. None when
    it only appended (the usual case: the log is then left as it is)."""
    before = _show(repo, f"{sha}^:{repo_rel}")
    at_op = _show(repo, f"{sha}:{repo_rel}")
    if before is None or at_op is None or at_op.startswith(before.rstrip("\n")):
        return None
    try:
        now = log_md.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    start = at_op.rfind("\n## [")
    if not now.startswith(at_op) or start < 0:
        return None  # changed since in ways undo cannot tell apart: keep it
    return before.rstrip("\n") + "\n" + at_op[start:] + now[len(at_op) :]


def undo_last(
    paths: WikiPaths, *, wait: float | None = None, on_wait: Callable[[str], None] | None = None
) -> UndoResult:
    with writing(paths, "undo", wait=wait, on_wait=on_wait, on_commit=after_commit) as writer:
        repo = writer.repo
        if repo is None:
            raise OperationError("undo needs git: this wiki has git.commit set to false")
        target = last_undoable(repo)
        if target is None:
            raise OperationError("there is no wikic operation to undo")
        top = Path(repo.working_tree_dir or paths.root).resolve()
        changed = _changed_files(repo, target.sha)
        abs_files = [top / rel for _, rel in changed]
        index_log = {paths.rel(paths.index_md), paths.rel(paths.log_md)}
        for _status, repo_rel in changed:
            if paths.rel(top / repo_rel) in index_log:
                continue  # regenerated / append-only: never a conflict
            if _blob(repo, target.sha, repo_rel) != _blob(repo, "HEAD", repo_rel):
                raise OperationError(
                    f"cannot undo '{target.subject}': {repo_rel} was changed by a later commit",
                    hint="Revert that change first, or revert by hand with git.",
                )
        dirty = working_tree_dirty(repo, abs_files)
        if dirty:
            raise OperationError(
                f"cannot undo '{target.subject}': uncommitted edits to {', '.join(dirty[:3])}",
                hint="Commit or discard them first.",
            )
        plan = Plan("undo", target.subject, undoes=target.op_id)
        log_rel = paths.rel(paths.log_md)
        for _status, repo_rel in changed:
            rel = paths.rel(top / repo_rel)
            if rel == log_rel:
                restored = _log_before(repo, target.sha, repo_rel, paths.log_md)
                if restored is not None:
                    plan.write(rel, restored)
                continue
            try:
                before = repo.git.show(f"{target.sha}^:{repo_rel}", strip_newline_in_stdout=False)
            except git.GitCommandError:
                plan.delete(rel)
            else:
                plan.write(rel, before)
        plan.log_bullets.append(f"reverted operation {target.op_id} ({target.subject})")
        result = writer.commit(plan)
        return UndoResult(target, result)
