"""Defence in depth: recovery acts only on journals wikic could have written; git states that
would make a commit fail are named before any model work; a question is capped in size."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.helpers.wikitools import commit_pages, git, make_wiki, page_text, snapshot
from wikic.cli import app, backends
from wikic.errors import GitStateError
from wikic.lint import LintOptions, run_lint
from wikic.operation.journal import pending, unsafe
from wikic.operation.preflight import preflight
from wikic.operation.transaction import recover, writing
from wikic.paths import WikiPaths

runner = CliRunner()


@pytest.fixture
def wiki(tmp_path: Path) -> WikiPaths:
    paths = make_wiki(tmp_path / "w")
    commit_pages(paths, {"wiki/concepts/a.md": page_text("Alpha")})
    return paths


def _journal(paths: WikiPaths, name: str, files: list[dict[str, object]], **extra: object) -> Path:
    directory = paths.journal / name
    (directory / "old").mkdir(parents=True)
    (directory / "new").mkdir()
    manifest = {"id": name, "op": "ingest", "state": "applying", "files": files, **extra}
    manifest.setdefault("created_dirs", [])
    (directory / "manifest.json").write_text(json.dumps(manifest))
    return directory


HOSTILE = {
    "parent": [{"path": "../victim.txt", "existed": False, "new": None, "old": "old/0"}],
    "absolute": [{"path": "/tmp/victim.txt", "existed": False, "new": None, "old": "old/0"}],
    "raw": [{"path": "raw/paper.md", "existed": False, "new": None, "old": "old/0"}],
    "git": [{"path": ".git/config", "existed": False, "new": None, "old": "old/0"}],
    "old-elsewhere": [
        {"path": "wiki/concepts/a.md", "existed": True, "new": None, "old": "../../../victim.txt"}
    ],
    "not-a-list": "files",
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_recovery_refuses_a_hostile_manifest(wiki: WikiPaths, kind: str) -> None:
    victim = wiki.root.parent / "victim.txt"
    victim.write_text("precious")
    (wiki.raw / "paper.md").write_text("# Paper\n\nText.\n")
    directory = _journal(wiki, "20260101T000000-evil", HOSTILE[kind])  # type: ignore[arg-type]
    before = snapshot(wiki.root)
    # a reader's recovery, then a writer's: neither touches anything
    result = runner.invoke(app, ["-C", str(wiki.root), "status"])
    assert result.exit_code == 0, result.output
    commit_pages(wiki, {"wiki/concepts/b.md": page_text("Beta")})
    assert victim.read_text() == "precious"
    assert (wiki.raw / "paper.md").exists()
    assert directory.is_dir(), "the journal is left for a person to inspect"
    after = snapshot(wiki.root)
    assert {k for k in after if k not in before} == {"wiki/concepts/b.md"}
    assert pending(wiki.journal, wiki.root) == []
    ((found, message),) = unsafe(wiki.journal, wiki.root)
    assert found == directory and "will not touch it" in message
    # reported by lint
    report = run_lint(wiki, LintOptions(rules=("interrupted-operation",)))
    (f,) = report.findings
    assert f.level == "error" and "will not touch it" in f.message and not f.fixable


def test_recovery_refuses_a_journal_reached_through_a_symlink(
    wiki: WikiPaths, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "old").mkdir(parents=True)
    (elsewhere / "old" / "0").write_text("planted")
    entry = {"path": "wiki/concepts/a.md", "existed": True, "new": None, "old": "old/0"}
    (elsewhere / "manifest.json").write_text(
        json.dumps({"id": "x", "state": "applying", "files": [entry], "created_dirs": []})
    )
    wiki.journal.mkdir(parents=True, exist_ok=True)
    (wiki.journal / "x").symlink_to(elsewhere)
    before = (wiki.wiki / "concepts" / "a.md").read_bytes()
    with writing(wiki, "test") as writer:
        assert writer.recovered == []
    assert (wiki.wiki / "concepts" / "a.md").read_bytes() == before
    assert (elsewhere / "old" / "0").read_text() == "planted"


def test_recovery_still_rolls_back_a_real_interrupted_operation(wiki: WikiPaths) -> None:
    page = wiki.wiki / "concepts" / "a.md"
    before = page.read_bytes()
    directory = _journal(
        wiki,
        "20260101T000000-real",
        [{"path": "wiki/concepts/a.md", "existed": True, "new": None, "old": "old/0"}],
    )
    os.link(page, directory / "old" / "0")
    page.unlink()  # as apply does: the new version is renamed over, the old inode kept
    page.write_text("half-written")
    assert recover(wiki, None)
    assert page.read_bytes() == before
    assert not directory.exists()


# -- git preconditions ------------------------------------------------------------------------


def test_index_lock_is_named_before_any_work(wiki: WikiPaths) -> None:
    lock = Path(wiki.root / ".git" / "index.lock")
    lock.write_text("")
    with pytest.raises(GitStateError) as err:
        preflight(wiki)
    assert str(lock) in err.value.message
    with pytest.raises(GitStateError, match=r"index\.lock"):
        commit_pages(wiki, {"wiki/concepts/b.md": page_text("Beta")})
    lock.unlink()
    preflight(wiki)


def test_detached_head_and_merge_are_refused(wiki: WikiPaths) -> None:
    git(wiki.root, "checkout", "-q", "--detach")
    with pytest.raises(GitStateError, match="detached"):
        preflight(wiki)
    git(wiki.root, "checkout", "-q", "main")
    (wiki.root / ".git" / "MERGE_HEAD").write_text(git(wiki.root, "rev-parse", "HEAD"))
    with pytest.raises(GitStateError, match="middle of a merge"):
        preflight(wiki)


def test_ingest_fails_on_index_lock_before_the_model_is_made(
    wiki: WikiPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    (wiki.raw / "a.md").write_text("# A\n\nAlpha is a letter.\n")
    (wiki.root / ".git" / "index.lock").write_text("")

    def no_model(*args: object, **kwargs: object) -> None:
        raise AssertionError("the model must not be loaded")

    monkeypatch.setattr(backends, "for_role", no_model)
    result = runner.invoke(app, ["-C", str(wiki.root), "ingest", "--all"])
    assert result.exit_code == 1
    assert "index.lock" in result.output and str(wiki.root / ".git") in result.output


def test_query_save_fails_on_git_state_before_the_model(
    wiki: WikiPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(wiki.root, "checkout", "-q", "--detach")
    monkeypatch.setattr(backends, "for_role", lambda *a, **k: pytest.fail("model loaded"))
    result = runner.invoke(app, ["-C", str(wiki.root), "query", "What is Alpha?", "--save"])
    assert result.exit_code == 1 and "detached" in result.output


# -- question size ----------------------------------------------------------------------------


def test_a_huge_question_is_refused_at_once(wiki: WikiPaths) -> None:
    question = "why " * 25_000  # 100 KB
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "wikic", "-C", str(wiki.root), "query", question],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2, proc.stderr
    assert "100,000 characters long; the limit is 4,000" in proc.stderr
    assert time.perf_counter() - started < 30  # no search, no model: only Python's start-up


# -- warnings printed once ----------------------------------------------------------------------


def test_unsafe_journal_warning_is_printed_once_by_status(wiki: WikiPaths) -> None:
    _journal(wiki, "20260101T000000-evil", HOSTILE["parent"])  # type: ignore[arg-type]
    result = runner.invoke(app, ["-C", str(wiki.root), "status"])
    assert result.exit_code == 0, result.output
    assert result.stderr.count("will not touch it") == 1
    data = json.loads(runner.invoke(app, ["-C", str(wiki.root), "status", "--json"]).stdout)
    assert len(data["unsafe_journals"]) == 1


def test_store_warning_is_printed_once(wiki: WikiPaths) -> None:
    wiki.state.mkdir(exist_ok=True)
    wiki.db.write_bytes(b"not a database at all" * 100)
    result = runner.invoke(app, ["-C", str(wiki.root), "search", "Alpha"])
    assert result.exit_code == 0, result.output
    assert result.stderr.count("Warning:") == 1, result.stderr
    assert result.stderr.count("rebuilding it") == 1, result.stderr
