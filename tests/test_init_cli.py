"""`wikic init`, `status`, `log` and `undo` through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tests.helpers.wikitools import commit_pages, git, page_text
from wikic.cli import app
from wikic.paths import open_paths

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, list(args))


def test_init_creates_a_committed_wiki(tmp_path: Path) -> None:
    result = invoke("init", str(tmp_path / "w"), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["created_repo"] is True
    root = tmp_path / "w"
    for rel in ("AGENTS.md", "wikic.yaml", ".gitignore", "wiki/index.md", "wiki/log.md"):
        assert (root / rel).is_file(), rel
    assert (root / "raw").is_dir()
    assert git(root, "status", "--porcelain") == ""
    assert "/.wikic/" in (root / ".gitignore").read_text()
    assert invoke("--help").exit_code == 0


def test_init_inside_an_existing_repo_and_vault_touches_nothing_else(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / ".obsidian" / "app.json").write_text("{}")
    (vault / "my-note.md").write_text("# mine\n")
    (vault / ".gitignore").write_text("*.tmp\n")
    git(vault.parent, "init", "-q", str(vault))
    git(vault, "add", ".gitignore")
    git(vault, "commit", "-qm", "user commit")
    result = invoke("init", str(vault))
    assert result.exit_code == 0, result.output
    committed = git(vault, "show", "--name-only", "--format=", "HEAD").split()
    assert sorted(committed) == [
        ".gitignore",
        "AGENTS.md",
        "wiki/index.md",
        "wiki/log.md",
        "wikic.yaml",
    ]
    assert (vault / ".gitignore").read_text().startswith("*.tmp\n")
    assert (vault / ".obsidian" / "app.json").read_text() == "{}"
    assert "?? my-note.md" in git(vault, "status", "--porcelain")


def test_init_refuses_to_overwrite(tmp_path: Path) -> None:
    assert invoke("init", str(tmp_path / "w")).exit_code == 0
    result = invoke("init", str(tmp_path / "w"))
    assert result.exit_code == 1 and "already a wiki" in result.output
    other = tmp_path / "o"
    other.mkdir()
    (other / "AGENTS.md").write_text("my agent instructions")
    result = invoke("init", str(other))
    assert result.exit_code == 1 and "AGENTS.md already exists" in result.output
    assert (other / "AGENTS.md").read_text() == "my agent instructions"
    assert not (other / "wikic.yaml").exists()


def test_status_log_and_undo(tmp_path: Path) -> None:
    root = tmp_path / "w"
    invoke("init", str(root))
    paths = open_paths(root)
    (paths.raw / "a.md").write_text("# A\n\nSome text about a thing.\n")
    commit_pages(paths, {"wiki/concepts/x.md": page_text("X")}, "add x")
    data = json.loads(invoke("-C", str(root), "status", "--json").stdout)
    assert data["counts"] == {"new": 1, "changed": 0, "ingested": 0, "missing": 0}
    assert data["pages"] == {"concept": 1}
    assert [e["op"] for e in data["recent"]] == ["init", "test"]
    log = json.loads(invoke("-C", str(root), "log", "--json").stdout)
    assert log[-1]["title"] == "add x"
    result = invoke("-C", str(root), "undo")
    assert result.exit_code == 0, result.output
    assert "Undid: test: add x" in result.stdout
    assert not (paths.wiki / "concepts" / "x.md").exists()
    assert invoke("-C", str(root), "undo").exit_code == 1


def test_commands_outside_a_wiki_say_what_to_do(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = invoke("status")
    assert result.exit_code == 1
    assert "no wiki found" in result.output and "wikic init" in result.output
