"""Wikis on several machines for sync tests: a bare repository as the remote, clones with their
own git identity (repo config, never ~), ingests on the fake backend, edits a person commits."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from tests.helpers.ingest_fakes import IngestScript, ScriptedTopic, two_source_script
from tests.helpers.wikitools import git
from wikic.ingest.pipeline import IngestRequest, ingest
from wikic.init import init_wiki
from wikic.lint import LintOptions, run_lint
from wikic.paths import WikiPaths, open_paths
from wikic.store.db import after_commit
from wikic.sync import SyncReport, sync
from wikic.sync.diff3 import has_markers
from wikic.vault.catalog import render_index
from wikic.vault.logbook import parse_entries
from wikic.vault.tree import Vault

DATA = Path(__file__).resolve().parent.parent / "data" / "ingest"
PAGED = """# PagedAttention

PagedAttention stores the KV cache in fixed-size blocks that need not be contiguous.

vLLM introduced PagedAttention to serve many requests from one GPU.

## Prefix caching

Prefix caching shares the blocks of a common prompt prefix between requests.
"""


NOTES = {  # two sources that state one fact of the KV cache page again, and one more each
    "Cache notes A": "Quantizing the KV cache to 8 bits halves its memory.",
    "Cache notes B": "Offloading the KV cache to CPU memory frees GPU memory.",
}
SHARED = "The KV cache grows linearly with the context length."


def notes_source(title: str) -> str:
    return f"# {title}\n\n{SHARED} {NOTES[title]}\n"


def script() -> IngestScript:
    """The two sources of `ingest_fakes`, a third, PagedAttention, that adds a fact to the
    Prefix caching page, and the two cache notes."""
    s = two_source_script()
    s.topics["PagedAttention"] = [
        ScriptedTopic("PagedAttention", "concept", ("stores the KV cache in fixed-size",)),
        ScriptedTopic("Prefix caching", "concept", ("shares the blocks",)),
        ScriptedTopic("vLLM", "entity", ("vLLM introduced",)),
    ]
    for title, fact in NOTES.items():
        s.topics[title] = [ScriptedTopic("KV cache", "concept", (SHARED[:30], fact[:30]))]
    return s


def identify(root: Path, name: str) -> None:
    git(root, "config", "user.name", name)
    git(root, "config", "user.email", f"{name}@example.com")


def bare_remote(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True, capture_output=True)
    git(path, "symbolic-ref", "HEAD", "refs/heads/main")
    return path


def first_machine(root: Path, remote: Path, name: str) -> WikiPaths:
    """`wikic init` on one machine, pushed to the empty remote."""
    init_wiki(root)
    identify(root, name)
    git(root, "remote", "add", "origin", str(remote))
    paths = open_paths(root)
    do_sync(paths)
    return paths


def clone(remote: Path, root: Path, name: str) -> WikiPaths:
    subprocess.run(["git", "clone", "-q", str(remote), str(root)], check=True, capture_output=True)
    identify(root, name)
    return open_paths(root)


def do_sync(paths: WikiPaths, **options: object) -> SyncReport:
    return sync(paths, on_commit=after_commit, **options)  # type: ignore[arg-type]


def add_source(paths: WikiPaths, name: str, text: str | None = None) -> Path:
    """A source the person puts in raw/ and commits (raw/ is theirs; wikic never commits it)."""
    paths.raw.mkdir(exist_ok=True)
    target = paths.raw / name
    if text is None:
        shutil.copy(DATA / name, target)
    else:
        target.write_text(text)
    git(paths.root, "add", f"raw/{name}")
    git(paths.root, "commit", "-q", "-m", f"add {name}")
    return target


def ingest_source(paths: WikiPaths, name: str, text: str | None = None) -> None:
    raw = add_source(paths, name, text)
    fake = script().backend()
    report = ingest(
        paths,
        IngestRequest((raw,)),
        extract_backend=lambda: fake,
        write_backend=lambda: fake,
    )
    assert [o.status for o in report.outcomes] == ["ingested"], report.outcomes


def hand_edit(paths: WikiPaths, rel: str, edit: Callable[[str], str], message: str) -> None:
    """A person edits a file and commits it with git."""
    target = paths.root / rel
    target.write_text(edit(target.read_text()))
    git(paths.root, "commit", "-q", "-am", message)


def files_with_markers(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith((".git/", ".wikic/")) or not path.is_file():
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        if has_markers(text):
            found.append(rel)
    return found


def assert_consistent(paths: WikiPaths) -> None:
    """What every synced wiki must be: no conflict markers, index.md equal to a regeneration,
    log entries each once, git clean, lint clean (an open contradiction is information)."""
    assert files_with_markers(paths.root) == []
    assert paths.index_md.read_text() == render_index(list(Vault.load(paths.wiki)))
    entries = [(e.date, e.op, e.title, e.author, e.bullets) for e in log_entries(paths)]
    assert len(entries) == len(set(entries)), "a log entry is there twice"
    assert git(paths.root, "status", "--porcelain") == ""
    report = run_lint(paths, LintOptions())
    found = [(f.rule, f.page, f.message) for f in report.findings if f.level != "info"]
    assert found == [], found


def log_entries(paths: WikiPaths):  # type: ignore[no-untyped-def]
    return parse_entries(paths.log_md.read_text())
