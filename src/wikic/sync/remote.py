"""The git remote a wiki syncs with: which one, fetching its branch, pushing ours.

Network commands never prompt (a sync runs from cron and from agents: `GIT_TERMINAL_PROMPT=0`,
ssh in batch mode) and give up after `NETWORK_TIMEOUT_S`; an unreachable remote is
`Unreachable`, a push the remote refused because it moved on is `PushRejected`.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass

import git

from wikic.errors import UsageError
from wikic.operation.gitrepo import GitFailed, run_git

NETWORK_TIMEOUT_S = 120.0
_REJECTED = ("[rejected]", "(fetch first)", "(non-fast-forward)", "stale info")


class Unreachable(Exception):
    """The remote could not be reached (or refused us for a reason a retry will not fix)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class PushRejected(Exception):
    """The remote's branch moved since we fetched it."""


@dataclass(frozen=True)
class Upstream:
    remote: str
    branch: str  # the branch's name on the remote
    tracked: bool  # whether the local branch already tracks it

    @property
    def ref(self) -> str:
        return f"refs/remotes/{self.remote}/{self.branch}"

    def __str__(self) -> str:
        return f"{self.remote}/{self.branch}"


def upstream(repo: git.Repo, remote: str | None = None) -> Upstream | None:
    """The remote branch to sync with: the one the branch tracks, else `origin` (or the only
    remote) under the branch's own name; None when the repository has no remote."""
    branch = repo.active_branch
    names = [r.name for r in repo.remotes]
    tracking = branch.tracking_branch()
    if remote is not None:
        if remote not in names:
            raise UsageError(
                f"no git remote named '{remote}'",
                hint=f"Remotes here: {', '.join(names)}."
                if names
                else "Add one: git remote add origin URL.",
            )
        if tracking is not None and tracking.remote_name == remote:
            return Upstream(remote, tracking.remote_head, True)
        return Upstream(remote, branch.name, False)
    if tracking is not None and tracking.remote_name in names:
        return Upstream(tracking.remote_name, tracking.remote_head, True)
    if "origin" in names:
        return Upstream("origin", branch.name, False)
    if len(names) == 1:
        return Upstream(names[0], branch.name, False)
    return None


def _env() -> dict[str, str]:
    return {
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_SSH_COMMAND": os.environ.get("GIT_SSH_COMMAND") or "ssh -o BatchMode=yes",
    }


def _network(repo: git.Repo, *args: str) -> str:
    try:
        return run_git(repo, *args, env=_env(), timeout=NETWORK_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise Unreachable(f"no answer within {NETWORK_TIMEOUT_S:.0f} s") from None


def fetch(repo: git.Repo, up: Upstream) -> str | None:
    """Fetch the remote branch; its commit, or None when the remote has no such branch yet."""
    refspec = f"+refs/heads/{up.branch}:{up.ref}"
    try:
        _network(repo, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", up.remote, refspec)
    except GitFailed as exc:
        if "couldn't find remote ref" in exc.err_text:
            return None
        raise Unreachable(exc.last_line) from None
    return str(repo.git.rev_parse(up.ref)).strip()


def push(repo: git.Repo, up: Upstream) -> None:
    """Push HEAD to the remote branch (and track it, the first time)."""
    args = ["push", "--porcelain", "--quiet"]
    if not up.tracked:
        args.append("--set-upstream")
    try:
        _network(repo, *args, up.remote, f"HEAD:refs/heads/{up.branch}")
    except GitFailed as exc:
        if any(mark in exc.out_text or mark in exc.err_text for mark in _REJECTED):
            raise PushRejected(exc.last_line) from None
        raise Unreachable(exc.last_line) from None
