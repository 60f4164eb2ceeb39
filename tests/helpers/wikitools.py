"""Helpers for tests that build wikis and compare their states."""

from __future__ import annotations

import datetime as dt
import subprocess
from pathlib import Path

from wikic.init import init_wiki
from wikic.operation.transaction import Plan, writing
from wikic.paths import WikiPaths, open_paths
from wikic.store.db import after_commit


def make_wiki(directory: Path) -> WikiPaths:
    init_wiki(directory)
    return open_paths(directory)


def commit_pages(paths: WikiPaths, pages: dict[str, str | None], title: str = "test op") -> None:
    with writing(paths, "test", on_commit=after_commit) as writer:
        plan = Plan("test", title)
        for rel, text in pages.items():
            if text is None:
                plan.delete(rel)
            else:
                plan.write(rel, text)
        writer.commit(plan)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the wiki except git's and wikic's machine state."""
    files = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith((".git/", ".wikic/")) or rel in (".git", ".wikic") or not path.is_file():
            continue
        files[rel] = path.read_bytes()
    return files


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def page_text(title: str, body: str = "Body.") -> str:
    return f"---\ntype: concept\ntitle: {title}\n---\n\n# {title}\n\n{body}\n"


def ingest_code_only(paths: WikiPaths, today: dt.date) -> WikiPaths:
    """`wikic ingest --all` with no model (every call answers nothing usable: code alone
    compiles); every source must be ingested."""
    from wikic.ingest.pipeline import IngestRequest, ingest
    from wikic.llm.fake import FakeBackend

    silent = FakeBackend(lambda call: "no model", name="no model")
    report = ingest(
        paths,
        IngestRequest(all_new=True),
        extract_backend=lambda: silent,
        write_backend=lambda: silent,
        today=today,
    )
    assert all(o.status == "ingested" for o in report.outcomes), report.outcomes
    return paths


def compile_files(
    root: Path, files: dict[str, str], today: dt.date, *, disable: str = ""
) -> WikiPaths:
    """A new wiki in `root` with `files` in raw/, compiled code only (`ingest_code_only`);
    `disable`: a topic finder switched off in its wikic.yaml."""
    paths = make_wiki(root)
    for name, text in files.items():
        (paths.raw / name).write_text(text, encoding="utf-8")
    if disable:
        config = paths.root / "wikic.yaml"
        text = config.read_text(encoding="utf-8")
        config.write_text(text.replace("disable_finders: []", f"disable_finders: [{disable}]"))
        paths = open_paths(paths.root)
    return ingest_code_only(paths, today)
