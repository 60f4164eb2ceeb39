"""wikic never commits a file with uncommitted changes of the user's: an ingest that would update
a page the user edited by hand, and did not commit, refuses and names the page; the page and
the user's edit stay as they were. Committed hand edits are the user's to keep."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.helpers.ingest_fakes import two_source_script
from tests.helpers.wikitools import git, make_wiki
from wikic.cli import app, backends
from wikic.ingest.render import TopicEdit, apply_topic_edit
from wikic.paths import WikiPaths
from wikic.vault.pages import parse_page

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


def test_hand_edits_survive_an_update_and_a_forced_reingest(wiki: WikiPaths) -> None:
    page = wiki.wiki / "entities" / "gemma-3.md"
    text = page.read_text(encoding="utf-8")
    fact_line = next(line for line in text.split("\n") if line.startswith("- Gemma 3 interleaves"))
    fixed_line = fact_line.replace("sliding-window layers", "sliding window layers")
    text = text.replace(fact_line, fixed_line)  # a typo fix inside a fact
    text = text.replace("\n## Facts", "\nMy own paragraph about Gemma.\n\n## Facts")
    text = text.rstrip("\n") + "\n\nI also read the technical report.\n"  # a note under Sources
    page.write_text(text, encoding="utf-8")
    git(wiki.root, "commit", "-qam", "my edits")

    def kept() -> str:
        now = page.read_text(encoding="utf-8")
        assert "My own paragraph about Gemma." in now
        assert fixed_line in now
        assert now.rstrip("\n").endswith("I also read the technical report.")
        return now

    result = runner.invoke(app, ["-C", str(wiki.root), "ingest", "raw/sliding-window.md"])
    assert result.exit_code == 0, result.output
    now = kept()
    assert "interleaves 3 local" in now and "## Contradictions" in now  # the update landed
    assert "[[sources/sliding-window|Sliding-window attention]]" in now
    result = runner.invoke(app, ["-C", str(wiki.root), "ingest", "--force", "raw/kv-cache.md"])
    assert result.exit_code == 0, result.output
    kept()


def _edit(summary: str) -> TopicEdit:
    return TopicEdit(
        path="concepts/kv-cache.md",
        title="KV cache",
        type="concept",
        aliases=(),
        new_facts=(),
        summary=summary,
        contradictions=(),
        related=(),
        source_page="sources/b.md",
        source_title="B",
    )


PAGE = """---
type: concept
title: KV cache
summary: Old summary.
---

# KV cache

{lead}

## Facts

- A fact. [[sources/a#^p1]] ^f-aaaaaa
"""


def test_the_summary_paragraph_changes_and_paragraphs_the_user_added_stay() -> None:
    page = parse_page("concepts/kv-cache.md", PAGE.format(lead="Old summary.\n\nMine too."))
    new = apply_topic_edit(page, _edit("New summary."), dt.date(2026, 1, 2))
    assert "# KV cache\n\nNew summary.\n\nMine too.\n\n## Facts" in new.body
    assert new.props["summary"] == "New summary."


def test_an_edited_summary_paragraph_is_kept_and_reported(
    caplog: pytest.LogCaptureFixture,
) -> None:
    page = parse_page("concepts/kv-cache.md", PAGE.format(lead="My own words."))
    new = apply_topic_edit(page, _edit("New summary."), dt.date(2026, 1, 2))
    assert "# KV cache\n\nMy own words.\n\n## Facts" in new.body
    assert new.props["summary"] == "New summary."  # recorded: what wikic would have written
    assert "kept your edited opening paragraph of concepts/kv-cache.md" in caplog.text


def test_init_still_merges_an_uncommitted_gitignore(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / ".gitignore").write_text("*.tmp\n")
    result = runner.invoke(app, ["init", str(vault)])
    assert result.exit_code == 0, result.output
    assert "*.tmp" in git(vault, "show", "HEAD:.gitignore")
