"""Git through gitpython: one commit per operation, touching only the files wikic wrote.

Each wikic commit carries the trailers `Wikic-Op: <id>` and `Wikic-Operation: <name>`, which is
how recovery tells a committed operation from an interrupted one and how `undo` finds the last
operation. wikic refuses to commit while the user has staged changes of their own.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import git

from wikic.errors import GitStateError, OperationError

TRAILER_OP = "Wikic-Op"
TRAILER_NAME = "Wikic-Operation"
TRAILER_UNDOES = "Wikic-Undoes"
MERGE_WAY_OUT = (
    "Resolve the conflicts `git status` lists (edit each file, remove the <<<<<<< ======= >>>>>>> "
    "lines, `git add` it), then run `wikic sync` to finish the merge (or `git commit`); "
    "`git merge --abort` goes back to before it."
)
TRAILER_NOTE = "Wikic-Note"  # the commit has a note under NOTES_REF (it may be lost: not cloned)
NOTES_REF = "refs/notes/wikic"
_TRAILER_RE = re.compile(r"^(Wikic-[A-Za-z]+): (.+)$", re.MULTILINE)


@dataclass(frozen=True)
class OpCommit:
    sha: str
    op_id: str
    op: str
    subject: str
    undoes: str | None


def trailers_of(message: str) -> dict[str, str]:
    """The `Wikic-…` trailers of a commit message, values stripped."""
    return {k: v.strip() for k, v in _TRAILER_RE.findall(message)}


def open_repo(root: Path) -> git.Repo | None:
    try:
        return git.Repo(root, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None


def init_repo(root: Path) -> git.Repo:
    repo = git.Repo.init(root)
    with contextlib.suppress(git.GitCommandError):
        repo.git.symbolic_ref("HEAD", "refs/heads/main")  # default branch name for new wikis
    return repo


def has_head(repo: git.Repo) -> bool:
    try:
        repo.head.commit  # noqa: B018
    except ValueError:
        return False
    return True


def _identity_env(name: str, email: str) -> dict[str, str]:
    return {
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email,
    }


def check_git_ready(repo: git.Repo, *, index_lock: bool = True) -> None:
    """Raise GitStateError, naming the cause, if a commit could not be made now: a merge,
    rebase, cherry-pick or revert in progress, a detached HEAD, or (with `index_lock`) a
    `.git/index.lock` held by another git process or left by one that crashed."""
    gitdir = Path(repo.git_dir)
    for marker, what in (
        ("MERGE_HEAD", "a merge"),
        ("rebase-merge", "a rebase"),
        ("rebase-apply", "a rebase"),
        ("CHERRY_PICK_HEAD", "a cherry-pick"),
        ("REVERT_HEAD", "a revert"),
    ):
        if (gitdir / marker).exists():
            raise GitStateError(
                f"the git repository is in the middle of {what}",
                hint=MERGE_WAY_OUT
                if marker == "MERGE_HEAD"
                else "Finish or abort it, then run wikic again.",
            )
    if has_head(repo) and repo.head.is_detached:
        raise GitStateError(
            f"git's HEAD is detached (at {repo.head.commit.hexsha[:10]}); wikic commits on a branch",
            hint="Check out a branch (git switch main), then run wikic again.",
        )
    lock = gitdir / "index.lock"
    if index_lock and lock.exists():
        raise GitStateError(
            f"git's index is locked: {lock} exists",
            hint="Another git process is running, or one crashed. If none is running, remove "
            f"it (rm {lock}), then run wikic again.",
        )


def check_can_commit(repo: git.Repo, *, index_lock: bool = True) -> None:
    """Raise GitStateError if committing now could fail (`check_git_ready`) or mix wikic's
    changes with the user's."""
    check_git_ready(repo, index_lock=index_lock)
    staged = staged_paths(repo)
    if staged:
        shown = ", ".join(staged[:5]) + (" …" if len(staged) > 5 else "")
        raise GitStateError(
            f"you have staged changes of your own ({shown}); wikic commits only its own files "
            "and will not commit alongside them",
            hint="Commit or unstage them (git commit / git restore --staged), then run wikic again.",
        )


def staged_paths(repo: git.Repo) -> list[str]:
    if has_head(repo):
        out = repo.git.diff("--cached", "--name-only", "-z")
    else:
        out = repo.git.ls_files("--cached", "-z")
    return [p for p in out.split("\0") if p]


def remove_stale_index_lock(repo: git.Repo) -> None:
    """Remove `.git/index.lock` left by a git process wikic started and that was killed.
    Only called during recovery, while wikic holds its writer lock."""
    with contextlib.suppress(FileNotFoundError):
        (Path(repo.git_dir) / "index.lock").unlink()


def commit_paths(
    repo: git.Repo,
    paths: Sequence[Path],
    message: str,
    *,
    author_name: str,
    author_email: str,
) -> str | None:
    """Stage and commit exactly `paths`; return the commit sha, or None if nothing changed."""
    if not paths:
        return None
    str_paths = [str(p) for p in paths]
    with repo.git.custom_environment(**_identity_env(author_name, author_email)):
        try:
            repo.git.add("-A", "--", *str_paths)
            if has_head(repo):
                changed = repo.git.diff("--cached", "--name-only", "--", *str_paths)
                if not changed.strip():
                    return None
            tracked = set(repo.git.ls_files("--full-name", "--", *str_paths).splitlines())
            top = Path(repo.working_tree_dir or ".").resolve()
            commit_list = [
                p
                for p in str_paths
                if Path(p).exists()
                or Path(p).resolve().relative_to(top).as_posix() in tracked
                or _in_head(repo, Path(p).resolve().relative_to(top).as_posix())
            ]
            repo.git.commit("--no-verify", "--quiet", "-m", message, "--", *commit_list)
        except git.GitCommandError as exc:
            detail = (exc.stderr or str(exc)).strip().splitlines()
            raise OperationError(f"git commit failed: {detail[-1] if detail else exc}") from None
    return repo.head.commit.hexsha


def add_note(repo: git.Repo, sha: str, text: str) -> None:
    """Attach `text` to commit `sha` under NOTES_REF (through a file: it may be large)."""
    with tempfile.TemporaryDirectory(prefix="wikic-note-") as tmp:
        note = Path(tmp) / "note"
        note.write_text(text, encoding="utf-8")
        try:
            repo.git.notes("--ref", NOTES_REF, "add", "-f", "-F", str(note), sha)
        except git.GitCommandError as exc:
            detail = (exc.stderr or str(exc)).strip().splitlines()
            raise OperationError(f"git notes failed: {detail[-1] if detail else exc}") from None


def read_note(repo: git.Repo, sha: str) -> str | None:
    """The note of commit `sha` under NOTES_REF, or None."""
    try:
        return str(repo.git.notes("--ref", NOTES_REF, "show", sha, strip_newline_in_stdout=False))
    except git.GitCommandError:
        return None


def _in_head(repo: git.Repo, rel: str) -> bool:
    if not has_head(repo):
        return False
    try:
        repo.head.commit.tree[rel]
    except KeyError:
        return False
    return True


def reset_paths(repo: git.Repo, paths: Sequence[Path]) -> None:
    """Make the index match HEAD for `paths` again (undo a `git add` of an interrupted op)."""
    if not paths:
        return
    with contextlib.suppress(git.GitCommandError):
        if has_head(repo):
            repo.git.reset("-q", "HEAD", "--", *[str(p) for p in paths])
        else:
            repo.git.rm("--cached", "-q", "--ignore-unmatch", "-r", "--", *[str(p) for p in paths])


def message_with_trailers(
    subject: str,
    body: str,
    op_id: str,
    op: str,
    undoes: str | None = None,
    *,
    note: bool = False,
) -> str:
    trailers = [f"{TRAILER_OP}: {op_id}", f"{TRAILER_NAME}: {op}"]
    if undoes:
        trailers.append(f"{TRAILER_UNDOES}: {undoes}")
    if note:
        trailers.append(f"{TRAILER_NOTE}: {NOTES_REF}")
    parts = [subject.strip()]
    if body.strip():
        parts.append(body.strip())
    parts.append("\n".join(trailers))
    return "\n\n".join(parts) + "\n"


def op_commits(repo: git.Repo, limit: int = 500) -> Iterator[OpCommit]:
    """wikic commits on HEAD's first-parent history, newest first."""
    if not has_head(repo):
        return
    for commit in repo.iter_commits("HEAD", first_parent=True, max_count=limit):
        text = commit.message if isinstance(commit.message, str) else commit.message.decode()
        trailers = dict(_TRAILER_RE.findall(text))
        if TRAILER_OP in trailers:
            yield OpCommit(
                commit.hexsha,
                trailers[TRAILER_OP].strip(),
                trailers.get(TRAILER_NAME, "?").strip(),
                text.splitlines()[0] if text else "",
                trailers.get(TRAILER_UNDOES, "").strip() or None,
            )


def find_op_commit(repo: git.Repo, op_id: str, limit: int = 50) -> str | None:
    for c in op_commits(repo, limit):
        if c.op_id == op_id:
            return c.sha
    return None


def working_tree_dirty(repo: git.Repo, paths: Sequence[Path]) -> list[str]:
    """Which of `paths` differ from HEAD in the working tree or index."""
    if not paths:
        return []
    out = repo.git.status(
        "--porcelain", "-z", "--untracked-files=all", "--", *[str(p) for p in paths]
    )
    return [entry[3:] for entry in out.split("\0") if len(entry) > 3]


def run_git(
    repo: git.Repo,
    *args: str,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float | None = None,
) -> str:
    """One git command in the repository with `stdin` fed to it (pathspecs literal: a file
    named `*.md` is that file); GitCommandError when it fails (its stdout and stderr kept),
    subprocess.TimeoutExpired past `timeout` seconds."""
    proc = subprocess.run(
        ["git", "--literal-pathspecs", *args],
        cwd=repo.working_tree_dir or repo.git_dir,
        input=stdin,
        capture_output=True,
        env={**os.environ, **(env or {})},
        check=False,
        timeout=timeout,
    )
    out = proc.stdout.decode("utf-8", "replace")
    if proc.returncode != 0:
        raise GitFailed(
            ["git", *args], proc.returncode, proc.stderr.decode("utf-8", "replace"), out
        )
    return out


class GitFailed(git.GitCommandError):
    """A `run_git` command that failed; `err_text` and `out_text` as git wrote them."""

    def __init__(self, command: list[str], status: int, err_text: str, out_text: str) -> None:
        super().__init__(command, status, err_text, out_text)
        self.err_text = err_text
        self.out_text = out_text

    @property
    def last_line(self) -> str:
        lines = [line for line in (self.err_text or self.out_text).splitlines() if line.strip()]
        return lines[-1].strip() if lines else f"git exited with {self.status}"
