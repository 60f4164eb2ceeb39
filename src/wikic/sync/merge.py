"""The merge of two commits of a wiki, file by file, computed from git's objects alone.

A file one side changed takes that side; a page both changed merges by the page logic
(`sync.pages`), `log.md` keeps both sides' entries (`sync.logmerge`), and `index.md` is never
merged: it is generated again from the merged pages, as every operation does. A page one side
renamed (git finds the move) takes the other side's changes under its new name, and links the
other side wrote to the old name follow it. What cannot be merged — a text people changed two
ways, a file deleted on one side and changed on the other, binary files — is a conflict: its
file gets git's markers and its three stages, as `git merge` leaves it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import git

from wikic.operation.landing import OpenConflict, Stage
from wikic.store.sync import is_page_path
from wikic.sync.diff3 import merge_lines
from wikic.sync.gitops import (
    Entry,
    appended_times,
    made_by_wikic,
    read_blob,
    renames,
    tree_files,
    write_blob,
)
from wikic.sync.logmerge import entry_count, merge_log
from wikic.sync.pages import Makers, merge_page
from wikic.vault.catalog import render_index
from wikic.vault.links import WikiLink, iter_links, normalize_target
from wikic.vault.logbook import relink
from wikic.vault.pages import parse_page
from wikic.vault.tree import Vault

TEXT_MODES = ("100644", "100755")


@dataclass(frozen=True)
class Commits:
    base: str
    ours: str
    theirs: str
    labels: tuple[str, str] = ("ours", "theirs")  # conflict marker labels


@dataclass
class TreeMerge:
    """The merge as changes to ours' tree (path → entry, None: removed); `conflicts` hold what a
    person must resolve, their paths keeping ours' version in `changes`' tree."""

    changes: dict[str, Entry | None] = field(default_factory=dict)
    conflicts: list[tuple[OpenConflict, tuple[str, ...]]] = field(default_factory=list)
    merged: list[str] = field(default_factory=list)  # paths both sides changed, merged
    moves: dict[str, str] = field(default_factory=dict)  # page names followed: old → new


class _Merger:
    def __init__(self, repo: git.Repo, wiki_dir: str, commits: Commits) -> None:
        self.repo = repo
        self.wiki = wiki_dir.strip("/")  # the wiki folder relative to the repository's top
        self.c = commits
        self.base = tree_files(repo, commits.base)
        self.ours = tree_files(repo, commits.ours)
        self.theirs = tree_files(repo, commits.theirs)
        self.result: dict[str, Entry] = dict(self.ours)
        self.texts: dict[str, bytes] = {}  # merged contents, written as blobs at the end
        self.out = TreeMerge()

    # -- paths ----------------------------------------------------------------------------
    @property
    def index_md(self) -> str:
        return f"{self.wiki}/index.md" if self.wiki else "index.md"

    @property
    def log_md(self) -> str:
        return f"{self.wiki}/log.md" if self.wiki else "log.md"

    def page_rel(self, path: str) -> str | None:
        """`path` relative to the wiki folder if it is a page, else None."""
        prefix = f"{self.wiki}/" if self.wiki else ""
        if not path.startswith(prefix):
            return None
        rel = path[len(prefix) :]
        return rel if is_page_path(rel) else None

    # -- the merge ------------------------------------------------------------------------
    def run(self) -> TreeMerge:
        moved_ours = renames(self.repo, self.c.base, self.c.ours)
        moved_theirs = renames(self.repo, self.c.base, self.c.theirs)
        later: list[tuple[str, str, str]] = []  # (base path, ours path, theirs path)
        for path in sorted(set(self.base) | set(self.ours) | set(self.theirs)):
            b, o, t = self.base.get(path), self.ours.get(path), self.theirs.get(path)
            if o == t or t == b or path in (self.index_md, self.log_md):
                continue
            if o == b:
                self._take(path, t)
            elif o is None and path in moved_ours:
                later.append((path, moved_ours[path], path))
            elif t is None and path in moved_theirs:
                later.append((path, path, moved_theirs[path]))
            else:
                self._merge_file(path, path, path, path)
        for base_path, ours_path, theirs_path in later:
            target = ours_path if ours_path != base_path else theirs_path
            self._take(base_path, None)
            self._merge_file(target, base_path, ours_path, theirs_path)
        self._follow_moves(moved_ours, moved_theirs)
        vault = self._vault()
        self._merge_log(vault)
        self._set_text(self.index_md, render_index(list(vault)).encode("utf-8"))
        for path, data in self.texts.items():
            mode = self.result[path].mode if path in self.result else "100644"
            self.result[path] = Entry(mode, write_blob(self.repo, data))
        for path in set(self.result) | set(self.ours):
            if self.result.get(path) != self.ours.get(path):
                self.out.changes[path] = self.result.get(path)
        return self.out

    def _take(self, path: str, entry: Entry | None) -> None:
        self.texts.pop(path, None)
        if entry is None:
            self.result.pop(path, None)
        else:
            self.result[path] = entry

    def _set_text(self, path: str, data: bytes) -> None:
        current = self.texts.get(path)
        if current is None and path in self.result:
            current = self._read(self.result[path])
        if data != current:
            self.texts[path] = data

    def _read(self, entry: Entry) -> bytes:
        return read_blob(self.repo, entry.sha)

    def _merge_file(self, target: str, base_path: str, ours_path: str, theirs_path: str) -> None:
        """Merge into `target` the base, ours and theirs versions found at the three paths."""
        b = self.base.get(base_path)
        o, t = self.ours.get(ours_path), self.theirs.get(theirs_path)
        if o is None or t is None or any(e.mode not in TEXT_MODES for e in (b, o, t) if e):
            if o is None or t is None:
                why = "it was deleted on one side and changed on the other"
            else:
                why = "it is not a text file both sides changed the same way"
            self._conflict(target, b, o, t, (why,), (self._read(o or t),) if o or t else ())  # type: ignore[arg-type]
            return
        texts = [self._decode(e) for e in (b, o, t)]
        if texts[1] is None or texts[2] is None or (b is not None and texts[0] is None):
            self._conflict(target, b, o, t, ("both sides changed a binary file",), (self._read(o),))
            return
        base_text, ours_text, theirs_text = texts
        page = self.page_rel(target)
        if page is not None:
            makers = Makers(
                lambda: made_by_wikic(self.repo, self.c.base, self.c.ours, ours_path),
                lambda: made_by_wikic(self.repo, self.c.base, self.c.theirs, theirs_path),
            )
            merged = merge_page(page, base_text, ours_text or "", theirs_text or "", makers)
            if merged.text is not None:
                self._set_text(target, merged.text.encode("utf-8"))
                self.result.setdefault(target, o)
                self.out.merged.append(target)
                return
            reasons = merged.conflicts
        else:
            reasons = ("both sides changed the same lines",)
        lines = merge_lines(
            (base_text or "").split("\n"),
            (ours_text or "").split("\n"),
            (theirs_text or "").split("\n"),
            labels=self.c.labels,
        )
        if not lines.conflicts:  # a file outside the pages that git's own rules merge
            self._set_text(target, "\n".join(lines.lines).encode("utf-8"))
            self.result.setdefault(target, o)
            self.out.merged.append(target)
            return
        self._conflict(target, b, o, t, reasons, ("\n".join(lines.lines).encode("utf-8"),))

    def _decode(self, entry: Entry | None) -> str | None:
        if entry is None:
            return None
        try:
            return self._read(entry).decode("utf-8")
        except UnicodeDecodeError:
            return None

    def _conflict(
        self,
        path: str,
        b: Entry | None,
        o: Entry | None,
        t: Entry | None,
        reasons: tuple[str, ...],
        text: tuple[bytes, ...],
    ) -> None:
        stages = tuple(Stage(n, e.mode, e.sha) for n, e in ((1, b), (2, o), (3, t)) if e)
        self.texts.pop(path, None)
        if o is None:
            self.result.pop(path, None)
        else:
            self.result[path] = o  # the commit-to-be keeps ours; the work tree shows both
        self.out.conflicts.append((OpenConflict(path, text[0] if text else b"", stages), reasons))

    # -- what follows from the merged pages ------------------------------------------------
    def _follow_moves(self, moved_ours: Mapping[str, str], moved_theirs: Mapping[str, str]) -> None:
        """Links to a page one side moved, in the pages of the merge, point at its new name."""
        moves: dict[str, str] = {}
        for old, new in [*moved_ours.items(), *moved_theirs.items()]:
            old_rel, new_rel = self.page_rel(old), self.page_rel(new)
            if old_rel and new_rel and old not in self.result:
                moves[old_rel[:-3]] = new_rel[:-3]
        self.out.moves = moves
        if not moves:
            return
        keys = {normalize_target(k): v for k, v in moves.items()}
        conflicted = {c.path for c, _ in self.out.conflicts}
        for path, entry in list(self.result.items()):
            if self.page_rel(path) is None or path in conflicted:
                continue
            data = self.texts.get(path) or self._read(entry)
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                continue
            followed = follow_moves(text, keys)
            if followed != text:
                self.texts[path] = followed.encode("utf-8")

    def _vault(self) -> Vault:
        """The merged pages (a page that does not parse is left out, as in an operation)."""
        vault = Vault(Path(self.repo.working_tree_dir or ".") / self.wiki)
        for path, entry in sorted(self.result.items()):
            rel = self.page_rel(path)
            if rel is None:
                continue
            data = self.texts.get(path) or self._read(entry)
            try:
                vault.add(parse_page(rel, data.decode("utf-8")))
            except Exception as exc:  # a broken page is lint's to report, as in an operation
                vault.broken[rel] = str(exc)
        return vault

    def _merge_log(self, vault: Vault) -> None:
        b, o, t = (self._log_text(m) for m in (self.base, self.ours, self.theirs))
        if o == t or t == b:
            merged = o
        elif o == b:
            merged = t
        else:
            times = tuple(
                appended_times(self.repo, self.c.base, tip, self.log_md, entry_count)
                for tip in (self.c.ours, self.c.theirs)
            )
            merged = merge_log(b, o, t, (times[0], times[1]))
        if merged or self.log_md in self.result:
            merged = relink(merged, vault.link_exists, self.out.moves)
            self._set_text(self.log_md, merged.encode("utf-8"))

    def _log_text(self, tree: Mapping[str, Entry]) -> str:
        entry = tree.get(self.log_md)
        return "" if entry is None else self._read(entry).decode("utf-8", "replace")


def follow_moves(text: str, moves: Mapping[str, str]) -> str:
    """`text` with each link whose target (normalised) is a key of `moves` pointing at the new
    name, its heading, block and alias kept."""
    parts: list[str] = []
    last = 0
    for start, end, lnk in iter_links(text):
        new = moves.get(normalize_target(lnk.target)) if lnk.target else None
        if new is None:
            continue
        moved = WikiLink(new, lnk.heading, lnk.block, lnk.alias, lnk.embed).render()
        parts += [text[last:start], moved]
        last = end
    return "".join(parts) + text[last:] if parts else text


def merge_commits(repo: git.Repo, wiki_dir: str, commits: Commits) -> TreeMerge:
    """Merge `commits.theirs` into `commits.ours` (their merge base `commits.base`); nothing
    is written but git objects."""
    return _Merger(repo, wiki_dir, commits).run()
