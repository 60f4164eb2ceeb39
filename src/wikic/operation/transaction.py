"""Every writing operation goes through here: lock → recover → plan → journal → apply → commit.

`writing()` holds the writer lock, finishes or rolls back interrupted operations, and yields a
`Writer`. `Writer.commit(plan)` adds the regenerated index.md and the log.md entry to the plan's
page changes and makes them land together, in one git commit, or not at all.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import secrets
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import git

from wikic.errors import GitStateError, LockBusyError, OperationError
from wikic.operation.gitrepo import (
    add_note,
    check_can_commit,
    commit_paths,
    find_op_commit,
    message_with_trailers,
    open_repo,
    remove_stale_index_lock,
    reset_paths,
    working_tree_dirty,
)
from wikic.operation.identity import commit_identity
from wikic.operation.journal import Change, Journal, pending
from wikic.operation.landing import pending_landing, recover_landing
from wikic.operation.lock import writer_lock
from wikic.operation.signals import signals_deferred
from wikic.paths import WikiPaths
from wikic.vault.catalog import render_index
from wikic.vault.logbook import LogEntry, append_entry, relink
from wikic.vault.pages import parse_page
from wikic.vault.tree import SPECIAL_FILES, Vault

log = logging.getLogger(__name__)


@dataclass
class Plan:
    """What an operation wants to change. Paths are relative to the wiki root (posix).
    `changes[path] = None` deletes the file."""

    op: str
    title: str
    changes: dict[str, str | None] = field(default_factory=dict)
    log_bullets: list[str] = field(default_factory=list)
    append_log: bool = True
    undoes: str | None = None
    # pages this operation moves (old link name → new link name, relative to wiki/, no .md):
    # earlier log.md entries that link the old name are pointed at the new one
    moves: dict[str, str] = field(default_factory=dict)
    # a git note for the operation's commit (refs/notes/wikic): what ingest compiled before it
    # replayed the user's hand edits, so the next compile can tell them apart
    note: str | None = None

    def write(self, path: str, text: str) -> None:
        self.changes[path] = text

    def delete(self, path: str) -> None:
        self.changes[path] = None


@dataclass(frozen=True)
class OpResult:
    op_id: str | None
    commit: str | None
    changed: tuple[str, ...]  # paths written or deleted, relative to the wiki root


def new_op_id() -> str:
    return f"{dt.datetime.now().strftime('%Y%m%dT%H%M%S')}-{secrets.token_hex(3)}"


def recover(paths: WikiPaths, repo: git.Repo | None) -> list[str]:
    """Finish or roll back operations a crash interrupted. Caller holds the writer lock."""
    notes: list[str] = []
    landed = recover_landing(paths, repo)  # a sync (logs its own note)
    for directory, journal in pending(paths.journal, paths.root):
        if journal is None:
            shutil.rmtree(directory, ignore_errors=True)
            continue
        committed = journal.state == "committed" or (
            repo is not None and find_op_commit(repo, journal.id) is not None
        )
        if committed:
            journal.discard()
            notes.append(f"completed interrupted operation {journal.id}")
            continue
        if repo is not None:
            remove_stale_index_lock(repo)
        journal.rollback()
        if repo is not None:
            reset_paths(repo, [paths.root / p for p in journal.paths])
        notes.append(
            f"rolled back interrupted operation {journal.id} ({journal.manifest.get('op')})"
        )
    for note in notes:
        log.warning(note)
    return ([landed] if landed else []) + notes


CommitHook = Callable[[WikiPaths, Sequence[str]], None]
"""Told the paths (relative to the wiki root) that an operation changed, after its commit.
Must never raise: the operation has landed. The store passes its index update here."""


class Writer:
    """Makes the plans of one locked session land. Obtain it from `writing()`."""

    def __init__(
        self,
        paths: WikiPaths,
        repo: git.Repo | None,
        recovered: list[str],
        on_commit: CommitHook | None = None,
        *,
        include_my_edits: bool = False,
    ) -> None:
        self.paths = paths
        self.repo = repo
        self.recovered = recovered
        self.on_commit = on_commit
        self.include_my_edits = include_my_edits
        # who the log entries name: the commits' author (the configured one without git)
        self.author = (
            commit_identity(paths.config.git, repo).name
            if repo is not None and paths.config.git.commit
            else paths.config.git.author_name or ""
        )

    def commit(self, plan: Plan, *, today: dt.date | None = None) -> OpResult:
        changes = self._full_changes(plan, today or dt.date.today())
        if not changes:
            return OpResult(None, None, ())
        if plan.op != "init":  # init merges the user's own .gitignore on purpose
            self._check_no_user_edits(changes)
        op_id = new_op_id()
        with signals_deferred():  # Ctrl-C takes effect once the operation has landed
            sha = self._land(plan, op_id, changes)
            if self.on_commit is not None:
                self.on_commit(self.paths, list(changes))
        return OpResult(op_id, sha, tuple(changes))

    def _land(self, plan: Plan, op_id: str, changes: Mapping[str, str | None]) -> str | None:
        """Journal, apply and commit `changes`: all of them land, or none."""
        meta = {"op": plan.op, "title": plan.title}
        journal = Journal.prepare(
            self.paths.journal,
            self.paths.root,
            op_id,
            meta,
            [Change(p, None if t is None else t.encode("utf-8")) for p, t in changes.items()],
        )
        journal.apply()
        try:
            sha = self._git_commit(plan, op_id, list(changes))
            journal.set_state("committed")
        except BaseException as exc:
            landed = find_op_commit(self.repo, op_id, limit=1) if self.repo is not None else None
            if landed is not None:  # git made the commit, then failed (killed): it is done
                journal.discard()
                if isinstance(exc, Exception):
                    return landed
                raise
            journal.rollback()
            if self.repo is not None:
                reset_paths(self.repo, [self.paths.root / p for p in changes])
            raise
        journal.discard()
        return sha

    def _check_no_user_edits(self, changes: Mapping[str, str | None]) -> None:
        """Refuse to commit a file that has uncommitted changes of the user's: they would land
        in wikic's commit, and `wikic undo` of it would take them away."""
        if self.repo is None or self.include_my_edits or not self.paths.config.git.commit:
            return
        dirty = working_tree_dirty(self.repo, [self.paths.root / p for p in changes])
        if dirty:
            shown = ", ".join(dirty[:3]) + (f" and {len(dirty) - 3} more" if len(dirty) > 3 else "")
            raise GitStateError(
                f"{shown} {'has' if len(dirty) == 1 else 'have'} uncommitted changes of yours, "
                "and this operation would commit them with its own; nothing was changed",
                hint="Commit them first (git add … && git commit), or discard them, then run "
                "wikic again (rename, merge and delete also take --include-my-edits).",
            )

    def _full_changes(self, plan: Plan, today: dt.date) -> dict[str, str | None]:
        """The plan's changes plus index.md and log.md, minus writes that change nothing."""
        for path in plan.changes:
            self._check_writable(path)
        changes = {p: t for p, t in plan.changes.items() if t != self._current(p)}
        wiki_rel = self.paths.rel(self.paths.wiki)
        if not changes and not plan.undoes:
            return {}
        index_rel = f"{wiki_rel}/index.md"
        log_rel = f"{wiki_rel}/log.md"
        touches_pages = any(
            p.startswith(f"{wiki_rel}/") and p not in (index_rel, log_rel) for p in changes
        )
        after: Vault | None = None
        if touches_pages or index_rel in plan.changes:
            after = self._vault_after(changes)
            index_text = render_index(list(after))
            if index_text != self._current(index_rel):
                changes[index_rel] = index_text
        if plan.append_log:
            current_log = changes.get(log_rel) or self._current(log_rel) or ""
            entry = LogEntry(today, plan.op, plan.title, tuple(plan.log_bullets), self.author)
            changes[log_rel] = append_entry(current_log, entry)
        if log_rel in changes and changes[log_rel] is not None:
            # log.md links only pages that exist: names of pages gone become plain text
            log_text = changes[log_rel] or ""
            pages = after or self._vault_after(changes)
            relinked = relink(log_text, pages.link_exists, plan.moves)
            if relinked != self._current(log_rel):
                changes[log_rel] = relinked
        return changes

    def _check_writable(self, rel: str) -> None:
        target = (self.paths.root / rel).resolve()
        root = self.paths.root.resolve()
        if not target.is_relative_to(root):
            raise OperationError(f"refusing to write {rel}: outside the wiki")
        for forbidden, why in (
            (self.paths.raw, "raw/ holds immutable sources"),
            (self.paths.state, ".wikic/ is machine state"),
            (root / ".git", ".git/ belongs to git"),
        ):
            if target == forbidden.resolve() or target.is_relative_to(forbidden.resolve()):
                raise OperationError(f"refusing to write {rel}: {why}")

    def _current(self, rel: str) -> str | None:
        path = self.paths.root / rel
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (UnicodeDecodeError, IsADirectoryError):
            raise OperationError(
                f"{rel} is not a UTF-8 text file; wikic will not overwrite it",
                hint="Move it aside or fix it, then run the command again.",
            ) from None

    def _vault_after(self, changes: Mapping[str, str | None]) -> Vault:
        vault = Vault.load(self.paths.wiki)
        wiki_rel = self.paths.rel(self.paths.wiki)
        for rel, text in changes.items():
            if not rel.startswith(f"{wiki_rel}/") or not rel.endswith(".md"):
                continue
            page_rel = rel[len(wiki_rel) + 1 :]
            if page_rel in SPECIAL_FILES or any(
                part.startswith(".") for part in page_rel.split("/")
            ):
                continue
            if text is None:
                vault.remove(page_rel)
            else:
                with contextlib.suppress(Exception):
                    vault.add(parse_page(page_rel, text))
        return vault

    def _git_commit(self, plan: Plan, op_id: str, changed: list[str]) -> str | None:
        if self.repo is None or not self.paths.config.git.commit:
            return None
        body = "Files:\n" + "\n".join(f"- {p}" for p in sorted(changed))
        message = message_with_trailers(
            f"{plan.op}: {plan.title}",
            body,
            op_id,
            plan.op,
            undoes=plan.undoes,
            note=bool(plan.note),
        )
        identity = commit_identity(self.paths.config.git, self.repo)
        sha = commit_paths(
            self.repo,
            [self.paths.root / p for p in changed],
            message,
            author_name=identity.name,
            author_email=identity.email,
        )
        if sha is not None and plan.note:
            try:
                add_note(self.repo, sha, plan.note)
            except OperationError as exc:  # the commit has landed; the trailer says a note is due
                log.warning("%s; the next compile treats the page as if it had no history", exc)
        return sha


@contextlib.contextmanager
def writing(
    paths: WikiPaths,
    op: str,
    *,
    wait: float | None = None,
    on_wait: Callable[[str], None] | None = None,
    on_commit: CommitHook | None = None,
    include_my_edits: bool = False,
) -> Iterator[Writer]:
    """Hold the writer lock for one writing session; recover first, check git, yield a Writer.

    `on_commit` keeps derived state current (the store's `after_commit`); without it the store
    still catches up on its next read by its stat pass, only later."""
    with writer_lock(paths.lock_file, op=op, wait=wait, on_wait=on_wait):
        repo = open_repo(paths.root) if paths.config.git.commit else None
        recovered = recover(paths, repo)
        if repo is not None:
            check_can_commit(repo)
        yield Writer(paths, repo, recovered, on_commit, include_my_edits=include_my_edits)


def recover_if_idle(paths: WikiPaths) -> list[str]:
    """For readers: tidy up after a crash if no writer is running; never waits."""
    journals = paths.journal.is_dir() and any(paths.journal.iterdir())
    if not journals and not pending_landing(paths):
        return []
    try:
        with writer_lock(paths.lock_file, op="recover", wait=0):
            return recover(paths, open_repo(paths.root) if paths.config.git.commit else None)
    except LockBusyError:
        return []
