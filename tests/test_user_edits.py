"""wikic never commits a file with uncommitted changes of the user's: an ingest that would update
a page the user edited by hand, and did not commit, refuses and names the page; the page and
the user's edit stay as they were. Committed hand edits are the user's to keep."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.helpers.ingest_fakes import two_source_script
from tests.helpers.wikitools import git, make_wiki
from wikic.cli import app, backends
from wikic.paths import WikiPaths

DATA = Path(__file__).parent / "data" / "ingest"
runner = CliRunner()


@pytest.fixture
def wiki(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> WikiPaths:
    paths = make_wiki(tmp_path / "w")
    for name in ("kv-cache.md", "sliding-window.md"):
        shutil.copy(DATA / name, paths.raw / name)
    fake = two_source_script().backend()
    monkeypatch.setattr(backends, "for_role", lambda paths, role, model=None: fake)
    result = runner.invoke(app, ["-C", str(paths.root), "ingest", "raw/kv-cache.md"])
    assert result.exit_code == 0, result.output
    return paths


def test_ingest_refuses_to_commit_an_uncommitted_hand_edit(wiki: WikiPaths) -> None:
    page = wiki.wiki / "entities" / "gemma-3.md"
    edited = page.read_text(encoding="utf-8").replace(
        "\n## Facts", "\nMy own paragraph.\n\n## Facts"
    )
    page.write_text(edited, encoding="utf-8")
    head = git(wiki.root, "rev-parse", "HEAD")
    result = runner.invoke(app, ["-C", str(wiki.root), "ingest", "raw/sliding-window.md", "--json"])
    assert result.exit_code == 1
    (outcome,) = json.loads(result.stdout)["sources"]
    assert outcome["status"] == "failed"
    assert "entities/gemma-3.md has uncommitted changes of yours" in outcome["error"]
    assert git(wiki.root, "rev-parse", "HEAD") == head  # nothing committed
    assert page.read_text(encoding="utf-8") == edited  # the edit is still there, uncommitted
    assert git(wiki.root, "status", "--porcelain", "wiki").strip() == "M wiki/entities/gemma-3.md"
    # once the user commits it, the ingest goes through and `wikic undo` keeps the edit
    git(wiki.root, "commit", "-qam", "my paragraph")
    result = runner.invoke(app, ["-C", str(wiki.root), "ingest", "raw/sliding-window.md"])
    assert result.exit_code == 0, result.output
    assert runner.invoke(app, ["-C", str(wiki.root), "undo"]).exit_code == 0
    assert page.read_text(encoding="utf-8") == edited
