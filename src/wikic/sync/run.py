"""`wikic sync`: fetch the remote's commits, integrate them, push ours — under the writer lock.

Integrating is a fast-forward when only the remote moved, else a merge commit (`sync.merge`)
whose parents are our HEAD and the remote's; either lands all or nothing (`operation.landing`).
A push the remote rejects because it moved meanwhile starts again, `MAX_ATTEMPTS` times in
all. No remote, or one that cannot be reached, is a notice, not an error: the local commits
stand and the next sync sends them. A merge a person must finish is left open as git leaves
one; the next `wikic sync` commits it once its conflicts are resolved.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import git

from wikic.errors import GitStateError, OperationError, SyncConflictError
from wikic.fsutil import atomic_write
from wikic.operation.gitrepo import (
    MERGE_WAY_OUT,
    TRAILER_NAME,
    check_git_ready,
    has_head,
    open_repo,
    run_git,
)
from wikic.operation.identity import commit_identity
from wikic.operation.landing import land, land_open_merge
from wikic.operation.lock import writer_lock
from wikic.operation.transaction import CommitHook, recover
from wikic.paths import WikiPaths
from wikic.sync import remote as net
from wikic.sync.diff3 import has_markers
from wikic.sync.gitops import build_tree, commit_tree, count_commits, is_ancestor, merge_base
from wikic.sync.merge import Commits, TreeMerge, merge_commits
from wikic.vault.catalog import render_index
from wikic.vault.tree import Vault

log = logging.getLogger(__name__)
MAX_ATTEMPTS = 3
NO_REMOTE = "this wiki's git repository has no remote; the commits stay here"


@dataclass(frozen=True)
class SyncReport:
    upstream: str | None  # "origin/main"
    received: int = 0  # the remote's commits integrated
    sent: int = 0  # our commits the remote now has
    fast_forward: bool = False
    merge_commit: str | None = None
    merged: tuple[str, ...] = ()  # files both sides changed, merged (repo-relative)
    changed: tuple[str, ...] = ()  # files the sync changed here
    notice: str | None = None  # why nothing reached the remote; the next sync retries
    notes: tuple[str, ...] = ()  # recovered operations, a merge finished

    @property
    def synced(self) -> bool:
        return self.notice is None

    def to_dict(self) -> dict[str, object]:
        return {
            "upstream": self.upstream,
            "synced": self.synced,
            "received": self.received,
            "sent": self.sent,
            "fast_forward": self.fast_forward,
            "merge_commit": self.merge_commit,
            "merged": list(self.merged),
            "changed": list(self.changed),
            "notice": self.notice,
            "notes": list(self.notes),
        }


def sync(
    paths: WikiPaths,
    *,
    remote: str | None = None,
    wait: float | None = None,
    on_wait: Callable[[str], None] | None = None,
    on_commit: CommitHook | None = None,
    attempts: int = MAX_ATTEMPTS,
) -> SyncReport:
    """Sync the wiki with its git remote (see the module docstring)."""
    if not paths.config.git.commit:
        raise OperationError("sync needs git, and this wiki has git.commit set to false")
    repo = open_repo(paths.root)
    if repo is None or not has_head(repo):
        raise GitStateError(
            f"{paths.root} has no git history to sync",
            hint="Create the wiki with `wikic init`, or clone one with `git clone URL`.",
        )
    paths.raw.mkdir(
        parents=True, exist_ok=True
    )  # a fresh clone lacks it: git keeps no empty folder
    with writer_lock(paths.lock_file, op="sync", wait=wait, on_wait=on_wait):
        notes = list(recover(paths, repo))
        finished = finish_open_merge(paths, repo)
        if finished:
            notes.append(finished)
        check_git_ready(repo)
        up = net.upstream(repo, remote)
        if up is None:
            return SyncReport(None, notice=NO_REMOTE, notes=tuple(notes))
        return _Session(paths, repo, up, on_commit, notes).run(attempts)


class _Session:
    def __init__(
        self,
        paths: WikiPaths,
        repo: git.Repo,
        up: net.Upstream,
        on_commit: CommitHook | None,
        notes: list[str],
    ) -> None:
        self.paths, self.repo, self.up, self.on_commit = paths, repo, up, on_commit
        self.notes = notes
        self.received = 0
        self.fast_forward = False
        self.merge_commit: str | None = None
        self.merged: list[str] = []
        self.changed: list[str] = []
        self.top = Path(repo.working_tree_dir or paths.root).resolve()

    def report(self, *, sent: int = 0, notice: str | None = None) -> SyncReport:
        return SyncReport(
            upstream=str(self.up),
            received=self.received,
            sent=sent,
            fast_forward=self.fast_forward,
            merge_commit=self.merge_commit,
            merged=tuple(dict.fromkeys(self.merged)),
            changed=tuple(dict.fromkeys(self.changed)),
            notice=notice,
            notes=tuple(self.notes),
        )

    def run(self, attempts: int) -> SyncReport:
        for _ in range(max(1, attempts)):
            try:
                theirs = net.fetch(self.repo, self.up)
            except net.Unreachable as exc:
                return self.report(notice=f"{self.up.remote} could not be reached: {exc.reason}")
            head = self.repo.head.commit.hexsha
            if theirs is not None and theirs != head and not is_ancestor(self.repo, theirs, head):
                head = self.integrate(head, theirs)
            if theirs == head:
                return self.report()
            try:
                net.push(self.repo, self.up)
            except net.PushRejected:
                log.info("%s moved while we synced; integrating again", self.up)
                continue
            except net.Unreachable as exc:
                return self.report(notice=f"{self.up.remote} refused the push: {exc.reason}")
            return self.report(sent=count_commits(self.repo, theirs, head))
        raise OperationError(
            f"{self.up} kept moving: {attempts} attempts to sync were overtaken by other pushes; "
            "the local commits are safe",
            hint="Run `wikic sync` again.",
        )

    def integrate(self, head: str, theirs: str) -> str:
        """Bring the remote's commits in; the new HEAD."""
        base = merge_base(self.repo, head, theirs)
        if base is None:
            raise GitStateError(
                f"{self.up} and this wiki have no commit in common (two wikis made apart)",
                hint="Clone the remote (git clone URL), copy your sources into its raw/ and "
                "ingest them there.",
            )
        self.received += count_commits(self.repo, head, theirs)
        if base == head:
            changed = _changed_paths(self.repo, head, theirs)
            land(self.paths, self.repo, old=head, new=theirs, changed=changed)
            self.fast_forward = True
            self._landed(changed)
            return theirs
        wiki_dir = self.paths.wiki.resolve().relative_to(self.top).as_posix()
        wiki_dir = "" if wiki_dir == "." else wiki_dir
        commits = Commits(base, head, theirs, labels=("HEAD (this wiki)", str(self.up)))
        tm = merge_commits(self.repo, wiki_dir, commits)
        tree = build_tree(self.repo, head, tm.changes, self.paths.state / "sync-index")
        identity = commit_identity(self.paths.config.git, self.repo)
        message = _message(self.up, self.repo, head, theirs, tm)
        if tm.conflicts:
            self._open_merge(head, theirs, tree, tm, message)
        commit = commit_tree(self.repo, tree, [head, theirs], message, identity)
        land(self.paths, self.repo, old=head, new=commit, changed=list(tm.changes))
        self.merge_commit = commit
        self.merged += tm.merged
        self._landed(list(tm.changes))
        return commit

    def _open_merge(self, head: str, theirs: str, tree: str, tm: TreeMerge, message: str) -> None:
        conflicts = [c for c, _ in tm.conflicts]
        changed = list(dict.fromkeys([*tm.changes, *(c.path for c in conflicts)]))
        land_open_merge(
            self.paths,
            self.repo,
            old=head,
            tree=tree,
            merge_head=theirs,
            changed=changed,
            conflicts=conflicts,
            message=message,
        )
        self._landed(changed)
        lines = [f"{c.path}: {'; '.join(why)}" for c, why in tm.conflicts]
        raise SyncConflictError(
            f"the sync with {self.up} could not merge {len(lines)} file"
            f"{'s' if len(lines) != 1 else ''}; the merge is left open, nothing was lost:\n  "
            + "\n  ".join(lines),
            hint=MERGE_WAY_OUT,
        )

    def _landed(self, changed: Sequence[str]) -> None:
        self.changed += changed
        if self.on_commit is None:
            return
        rels = []
        for path in changed:
            with contextlib.suppress(ValueError):
                rels.append((self.top / path).relative_to(self.paths.root.resolve()).as_posix())
        self.on_commit(self.paths, rels)


def _changed_paths(repo: git.Repo, old: str, new: str) -> list[str]:
    out = run_git(repo, "diff-tree", "-r", "-z", "--no-renames", "--name-only", old, new)
    return [p for p in out.split("\0") if p]


def _message(up: net.Upstream, repo: git.Repo, head: str, theirs: str, tm: TreeMerge) -> str:
    authors = run_git(repo, "log", "--format=%an", f"{head}..{theirs}").splitlines()
    counts = {a: authors.count(a) for a in dict.fromkeys(authors)}
    by = ", ".join(f"{n} by {a}" for a, n in counts.items())
    lines = [f"sync: merge {up} ({by})", ""]
    if tm.merged:
        lines += ["Merged both sides' changes:", *(f"- {p}" for p in tm.merged), ""]
    if tm.moves:
        lines += ["Links followed:", *(f"- {a} → {b}" for a, b in tm.moves.items()), ""]
    if tm.conflicts:
        lines += ["Conflicts:", *(f"- {c.path}" for c, _ in tm.conflicts), ""]
    lines.append(f"{TRAILER_NAME}: sync")
    return "\n".join(lines) + "\n"


def finish_open_merge(paths: WikiPaths, repo: git.Repo) -> str | None:
    """Commit a merge `wikic sync` left open once a person resolved it (index.md generated
    again from the resolved pages); a note, or None when no merge was open."""
    gitdir = Path(repo.git_dir)
    try:
        merge_head = (gitdir / "MERGE_HEAD").read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    head = repo.head.commit.hexsha
    if merge_head and is_ancestor(repo, merge_head, head):
        for name in ("MERGE_HEAD", "MERGE_MSG", "MERGE_MODE"):  # a commit cut short before
            with contextlib.suppress(FileNotFoundError):
                (gitdir / name).unlink()
        return None
    message_file = gitdir / "MERGE_MSG"
    message = message_file.read_text(encoding="utf-8") if message_file.exists() else ""
    if f"{TRAILER_NAME}: sync" not in message:
        return None  # someone else's merge: check_git_ready names it
    stages = run_git(repo, "ls-files", "-u", "-z").split("\0")
    unmerged = sorted({line.split("\t", 1)[1] for line in stages if "\t" in line})
    unstaged = [p for p in run_git(repo, "diff", "--name-only", "-z").split("\0") if p]
    marked = [p for p in _staged(repo) if has_markers(_index_text(repo, p))]
    waiting = unmerged or marked or unstaged
    if waiting:
        shown = ", ".join(waiting[:5]) + (" …" if len(waiting) > 5 else "")
        what = "still conflicted" if unmerged or marked else "changed but not added"
        verb = "is" if len(waiting) == 1 else "are"
        raise SyncConflictError(
            f"the merge the last sync left open is not finished: {shown} {verb} {what}",
            hint=MERGE_WAY_OUT,
        )
    index_text = render_index(list(Vault.load(paths.wiki)))
    if not paths.index_md.exists() or paths.index_md.read_text(encoding="utf-8") != index_text:
        atomic_write(paths.index_md, index_text.encode("utf-8"))
        run_git(repo, "add", "--", str(paths.index_md.resolve()))
    env = commit_identity(paths.config.git, repo).env()
    run_git(repo, "commit", "--no-verify", "--quiet", "-F", str(message_file), env=env)
    return "finished the merge the last sync left open"


def _staged(repo: git.Repo) -> list[str]:
    return [p for p in run_git(repo, "diff", "--cached", "--name-only", "-z").split("\0") if p]


def _index_text(repo: git.Repo, path: str) -> str:
    try:
        return run_git(repo, "show", f":{path}")
    except git.GitCommandError:
        return ""


def sync_after_write(
    paths: WikiPaths,
    requested: bool,
    *,
    wait: float | None = None,
    on_wait: Callable[[str], None] | None = None,
    on_commit: CommitHook | None = None,
) -> SyncReport | None:
    """The sync a writing command makes after its commits: when asked (`--sync`) or when
    wikic.yaml says `sync: auto`; None when neither. Not reaching the remote is the report's
    notice, never an error: the command's commits have landed and stay."""
    if not requested and paths.config.sync != "auto":
        return None
    if not paths.config.git.commit:
        return SyncReport(None, notice="git.commit is false in wikic.yaml: nothing to sync")
    return sync(paths, wait=wait, on_wait=on_wait, on_commit=on_commit)
