"""The README documents every command, every command has help, docs/cli.md is the CLI's own help,
every relative link in the documentation resolves, and the repo's AGENTS.md is the schema
`wikic init` writes."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest
import typer
from typer.testing import CliRunner

from wikic.cli import app
from wikic.init import agents_template

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text(encoding="utf-8")
RESULTS = REPO / "scripts" / "results"
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), RESULTS / "README.md"]
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


def test_the_readme_has_one_line_for_each_top_level_command() -> None:
    table = README.split("\n| command | what it does |\n", 1)[1].split("\n\n", 1)[0]
    rows = re.findall(r"^\| `wikic ([a-z-]+)", table, flags=re.M)
    assert sorted(rows) == sorted({c[0] for c in COMMANDS}), (
        "the README's command table needs exactly one row per top-level command"
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


# --- the generated command reference -------------------------------------------------------


def _gen_cli_reference() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "gen_cli_reference", REPO / "scripts/gen_cli_reference.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_cli_reference"] = module
    spec.loader.exec_module(module)
    return module


def test_docs_cli_md_is_the_cli_s_own_help() -> None:
    expected = _gen_cli_reference().render()
    current = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    assert current == expected, "docs/cli.md is out of date: run scripts/gen_cli_reference.py"


def test_the_reference_holds_every_command_and_subcommand_once() -> None:
    text = _gen_cli_reference().render()
    for command in COMMANDS:
        title = " ".join(["wikic", *command])
        assert text.count(f"\n## {title}\n") == 1, title
        assert f"Usage: {title} " in text


def test_the_reference_does_not_follow_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    module = _gen_cli_reference()
    before = module.render()
    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.setenv("TERMINAL_WIDTH", "40")
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert module.render() == before


# --- the documentation's own links and figures ---------------------------------------------


def _outside_code_blocks(text: str) -> str:
    return re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)


def _anchors(path: Path) -> set[str]:
    """GitHub's heading ids: lower case, punctuation dropped, spaces to '-', repeats numbered."""
    seen: dict[str, int] = {}
    found = set()
    text = _outside_code_blocks(path.read_text(encoding="utf-8"))
    for heading in re.findall(r"^#{1,6} (.+)$", text, re.M):
        raw = re.sub(r"`([^`]*)`", r"\1", heading)
        slug = re.sub(r"[^\w\- ]", "", raw.strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def _links(path: Path) -> list[str]:
    text = _outside_code_blocks(path.read_text(encoding="utf-8"))
    # inline code may sit inside a link's text ([`x.json`](x.json)): drop it, keep the link
    text = re.sub(r"`[^`\n]*`", "", text)
    return re.findall(r"\[[^\]]*\]\(([^)\s]+)\)", text)


def test_the_anchor_rule_matches_github() -> None:
    page = REPO / "README.md"
    assert "repairing-pages-wikic-rename-merge-delete" in _anchors(page)
    assert "agents-wikic-mcp" in _anchors(page)


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_points_at_an_existing_file_and_heading(doc: Path) -> None:
    broken = []
    for target in _links(doc):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        dest = (doc.parent / file_part).resolve() if file_part else doc
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            broken.append(f"{target}: no heading #{anchor} in {dest.relative_to(REPO)}")
    assert not broken, f"{doc.relative_to(REPO)}: " + "; ".join(broken)


def test_the_readme_stays_a_manual() -> None:
    size = len(README.encode("utf-8"))
    assert size <= 25_000, (
        f"README.md is {size:,} bytes: move design notes to docs/ and history to "
        "scripts/results/README.md"
    )


def test_current_results_name_a_committed_result_file_and_a_command() -> None:
    section = README.split("\n## Current results\n", 1)[1].split("\n## ", 1)[0]
    rows = [r for r in section.splitlines() if r.startswith("| ") and not r.startswith("| metric")]
    assert 0 < len(rows) <= 10
    for row in rows:
        files = re.findall(r"`(bench_[\w.-]+\.json)`", row)
        assert files, f"no result file: {row[:80]}"
        assert all((RESULTS / f).is_file() for f in files), row[:80]
        assert re.search(r"`(?:[A-Z_]+=\S+ )?scripts/[\w.]+\.py[^`]*`", row), (
            f"no command: {row[:80]}"
        )


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_result_file_the_documentation_names_is_committed(doc: Path) -> None:
    named = set(re.findall(r"\b(bench_[\w.-]+\.json)\b", doc.read_text(encoding="utf-8")))
    missing = sorted(f for f in named if not (RESULTS / f).is_file())
    assert not missing, (
        f"{doc.relative_to(REPO)} names result files not in scripts/results/: {missing}"
    )
