"""Checks a writing command makes before any model work, so it never fails at its commit.

Git's state (merge or rebase in progress, detached HEAD, a held `index.lock`, staged changes of
the user's) is checked again under the writer lock; this early pass only moves the failure to
before the minutes of model work, naming the cause.
"""

from __future__ import annotations

from wikic.operation.gitrepo import check_can_commit, open_repo
from wikic.operation.journal import pending
from wikic.paths import WikiPaths


def preflight(paths: WikiPaths) -> None:
    """Raise GitStateError if the operation could not commit now."""
    if not paths.config.git.commit:
        return
    repo = open_repo(paths.root)
    if repo is None:
        return
    # a lock left by a wikic process that was killed mid-commit goes with the recovery of its
    # journal; only a lock no interrupted operation explains is the user's problem
    check_can_commit(repo, index_lock=not pending(paths.journal, paths.root))
