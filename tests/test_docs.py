"""The README documents every command, every command has help, and the repo's AGENTS.md is the
schema `wikic init` writes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from wikic.cli import app
from wikic.init import agents_template

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text(encoding="utf-8")
runner = CliRunner()


def _commands() -> list[list[str]]:
    group = typer.main.get_command(app)
    found = []
    for name, cmd in group.commands.items():  # type: ignore[attr-defined]
        sub = getattr(cmd, "commands", None)
        if sub:
            found += [[name, s] for s in sub]
        else:
            found.append([name])
    return sorted(found)


COMMANDS = _commands()


def test_all_commands_are_registered() -> None:
    names = {c[0] for c in COMMANDS}
    assert {
        "init",
        "status",
        "log",
        "undo",
        "ingest",
        "query",
        "search",
        "reindex",
        "lint",
        "ask",
        "model",
        "cache",
    } <= names


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_has_help_and_is_in_the_readme(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--help"])
    assert result.exit_code == 0, result.output
    assert len(result.output.strip().splitlines()) > 3
    if len(command) == 1:
        assert re.search(rf"`wikic {command[0]}\b", README), f"README lacks `wikic {command[0]}`"
    else:
        assert re.search(rf"`wikic {command[0]} [^`]*\b{command[1]}\b", README), (
            f"README lacks `wikic {' '.join(command)}`"
        )


def test_readme_starts_with_the_two_setup_commands() -> None:
    block = README.split("```bash\n", 1)[1].split("```", 1)[0].strip().splitlines()
    assert [line.split()[0] for line in block] == ["scripts/demo.sh", "scripts/test.sh"]
    ci = (REPO / ".ci" / "run").read_text()
    assert "exec scripts/test.sh" in ci


def test_repo_agents_md_is_the_init_schema() -> None:
    assert (REPO / "AGENTS.md").read_text(encoding="utf-8") == agents_template()


def test_top_level_help() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for name in {c[0] for c in COMMANDS}:
        assert name in result.output
