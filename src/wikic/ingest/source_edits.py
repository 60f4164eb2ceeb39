"""A recompiled source page keeps the user's hand edits (`vault.hand_edits`): they are found
against what the last ingest compiled into the page, from git (`operation.history`), and this
compile records what it compiled in a git note when edits changed it, for the next one."""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass

import git

from wikic.errors import PageError
from wikic.operation.history import compiled_note, last_compiled, repo_path
from wikic.paths import WikiPaths
from wikic.vault.hand_edits import keep_hand_edits
from wikic.vault.pages import Page, parse_page, render_page

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SourceEdits:
    page: Page  # what to write
    kept: tuple[str, ...]  # where the user's edits were kept
    replaced: tuple[str, ...]  # edits of parts the source changed too, replaced by its text
    note: str | None  # the git note of the commit: what was compiled (None: nothing was edited)


def replay_hand_edits(
    paths: WikiPaths, repo: git.Repo | None, raw: str, compiled: Page, current: Page | None
) -> SourceEdits:
    """`compiled` (the freshly compiled source page of `raw`) with the user's edits of
    `current` (the page before this compile) replayed onto it."""
    if current is None:
        return SourceEdits(compiled, (), (), None)
    file = paths.wiki / compiled.path
    base = None
    found = last_compiled(repo, file, "ingest") if repo is not None else None
    if found is not None and found.text is not None:
        with contextlib.suppress(PageError):
            base = parse_page(compiled.path, found.text)
    edits = keep_hand_edits(compiled, current, base)
    shown = f"{paths.rel(paths.wiki)}/{compiled.path}"
    for where in edits.replaced:
        log.warning(
            "%s: your edit of %s was replaced, because %s changed it too "
            "(your version is in git: git log -p -- %s)",
            shown,
            where,
            raw,
            shown,
        )
    rel = repo_path(repo, file) if repo is not None else None
    note = None
    if edits.page is not compiled and rel is not None:
        note = compiled_note({rel: render_page(compiled)})
    return SourceEdits(edits.page, edits.kept, edits.replaced, note)
