"""What wikic last compiled into a file: its text as the newest commit of one operation wrote it,
before the user's hand edits were replayed onto it.

Hand edits are the difference between that text and the file now (`vault.hand_edits`). A commit
that replayed edits carries the text it compiled as a git note (`Plan.note`, a JSON mapping of
repository paths to texts); others hold it as their file. An operation `wikic undo` took back
does not count: the undo commit names it and is newer, so walking the file's history newest
first meets the undo before what it undid.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import git

from wikic.operation.gitrepo import (
    TRAILER_NAME,
    TRAILER_NOTE,
    TRAILER_OP,
    TRAILER_UNDOES,
    read_note,
    trailers_of,
)

MAX_COMMITS = 200  # of the file's history searched


@dataclass(frozen=True)
class Compiled:
    commit: str
    text: str | None  # None: the commit replayed edits and its note is gone (not cloned)


def repo_path(repo: git.Repo, file: Path) -> str | None:
    """`file` relative to the repository's top, posix; None when it lies outside."""
    top = Path(repo.working_tree_dir or ".").resolve()
    try:
        return file.resolve().relative_to(top).as_posix()
    except ValueError:
        return None


def compiled_note(notes: dict[str, str]) -> str:
    """The note of a commit whose files (repository paths → compiled texts) got hand edits."""
    return json.dumps(notes, ensure_ascii=False, sort_keys=True)


def last_compiled(repo: git.Repo, file: Path, op: str) -> Compiled | None:
    """What the newest not-undone commit of operation `op` that touched `file` compiled into
    it; None when there is none."""
    rel = repo_path(repo, file)
    if rel is None:
        return None
    try:
        log = repo.git.log(f"-n{MAX_COMMITS}", "--format=%H%x00%B%x00", "--", rel)
    except git.GitCommandError:
        return None
    fields = log.split("\x00")
    undone: set[str] = set()
    for sha, message in zip(fields[0::2], fields[1::2], strict=False):
        sha = sha.strip()
        trailers = trailers_of(message)
        if TRAILER_UNDOES in trailers:
            undone.add(trailers[TRAILER_UNDOES])
        if trailers.get(TRAILER_NAME) != op or trailers.get(TRAILER_OP) in undone:
            continue
        if TRAILER_NOTE in trailers:
            note = read_note(repo, sha)
            if note is None:
                return Compiled(sha, None)
            compiled = _from_note(note, rel)
            if compiled is not None:
                return Compiled(sha, compiled)
        try:
            return Compiled(sha, repo.git.show(f"{sha}:{rel}", strip_newline_in_stdout=False))
        except git.GitCommandError:
            return None  # the commit deleted it
    return None


def _from_note(note: str, rel: str) -> str | None:
    try:
        texts = json.loads(note)
    except ValueError:
        return None
    text = texts.get(rel) if isinstance(texts, dict) else None
    return text if isinstance(text, str) else None
