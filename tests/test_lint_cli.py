"""`wikic lint` on the command line: output formats, exit codes, --json shape, busy lock."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.helpers.lint_fixtures import FixtureWiki, build_clean_wiki, fact_line, topic_page
from wikic.cli import app, backends
from wikic.lint import EXIT_BUSY, RULES
from wikic.llm.fake import FakeBackend
from wikic.operation.lock import writer_lock

runner = CliRunner()
KV = "wiki/concepts/kv-cache.md"


@pytest.fixture
def wiki(tmp_path: Path) -> FixtureWiki:
    return build_clean_wiki(tmp_path / "w")


def lint(wiki: FixtureWiki, *args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["-C", str(wiki.root), "lint", *args])


def add_warning(wiki: FixtureWiki) -> None:
    fact = fact_line("Nothing links to this lonely page.", "kv-cache", 1, "f-l1")
    lonely = topic_page("concept", "Lonely", [fact], [], ["kv-cache"])
    wiki.commit({"wiki/concepts/lonely.md": lonely})


def add_error(wiki: FixtureWiki) -> None:
    wiki.edit(KV, "- [[entities/gemma-3]]", "- [[entities/gemma-3]]\n- [[Quantum foam]]")


def test_clean_wiki_prints_one_summary_line(wiki: FixtureWiki) -> None:
    result = lint(wiki)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [result.stdout.strip()]
    assert result.stdout.startswith("wiki/: 7 pages checked, no problems found (")


def test_plain_lines_and_exit_codes(wiki: FixtureWiki) -> None:
    add_warning(wiki)
    result = lint(wiki)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "WARNING orphan-page wiki/concepts/lonely.md: no other page links here"
    assert lines[1].startswith("    Link it from a related page")
    assert lines[-1].startswith("wiki/: 8 pages checked: 1 warning (")
    assert lint(wiki, "--strict").exit_code == 1
    add_error(wiki)
    result = lint(wiki)
    assert result.exit_code == 1, result.output
    assert "ERROR broken-link wiki/concepts/kv-cache.md:" in result.stdout
    assert "1 error, 1 warning" in result.stdout.splitlines()[-1]


def test_quiet_leaves_out_info(wiki: FixtureWiki) -> None:
    (wiki.root / "raw" / "new.md").write_text("# New\n\nText.\n")
    assert "INFO uningested-source raw/new.md: not ingested yet" in lint(wiki).stdout
    quiet = lint(wiki, "--quiet")
    assert quiet.exit_code == 0 and len(quiet.stdout.splitlines()) == 1
    assert "1 info" in quiet.stdout


def test_json_shape(wiki: FixtureWiki) -> None:
    add_warning(wiki)
    add_error(wiki)
    result = lint(wiki, "--json")
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert set(data) >= {"findings", "counts", "by_rule", "pages", "rules", "exit_code", "fix"}
    assert data["counts"] == {"error": 1, "warning": 1, "info": 0}
    assert data["by_rule"] == {"broken-link": 1, "orphan-page": 1}
    first = data["findings"][0]
    assert set(first) == {"level", "rule", "page", "line", "message", "hint", "fixable"}
    assert (first["level"], first["rule"], first["page"]) == ("error", "broken-link", KV)
    assert isinstance(first["line"], int) and first["fixable"] is False
    assert data["rules"] == [r for r in RULES if not RULES[r].semantic]
    strict = json.loads(lint(wiki, "--json", "--strict", "--rule", "orphan-page").stdout)
    assert strict["exit_code"] == 1 and strict["rules"] == ["orphan-page"]


def test_rule_and_ignore_options(wiki: FixtureWiki) -> None:
    add_warning(wiki)
    add_error(wiki)
    assert lint(wiki, "--rule", "orphan-page").exit_code == 0
    assert lint(wiki, "--ignore", "broken-link").exit_code == 0
    assert lint(wiki, "-r", "broken-link", "-r", "orphan-page").exit_code == 1


def test_usage_errors_exit_2(wiki: FixtureWiki) -> None:
    result = lint(wiki, "--rule", "nope")
    assert result.exit_code == 2
    assert "unknown lint rule nope" in result.output and "broken-link" in result.output
    assert lint(wiki, "--no-such-option").exit_code == 2
    assert lint(wiki, "--rule", "contradiction").exit_code == 2  # needs --semantic


def test_config_error_lists_rules(wiki: FixtureWiki) -> None:
    wiki.set_config("lint:\n  ignore: [orphans]\n")
    result = lint(wiki)
    assert result.exit_code == 1
    assert "wikic.yaml lint.ignore: unknown lint rule orphans" in result.output
    assert "orphan-page" in result.output


def test_fix_busy_exits_75_and_changes_nothing(wiki: FixtureWiki) -> None:
    index = wiki.root / "wiki" / "index.md"
    index.write_text(index.read_text() + "\nhand edit\n")
    wiki.git_commit()
    with writer_lock(wiki.paths.lock_file, op="ingest", wait=0):
        result = lint(wiki, "--fix", "--wait", "0")
    assert result.exit_code == EXIT_BUSY, result.output
    assert "being changed by" in result.output
    assert index.read_text().endswith("hand edit\n")
    fixed = lint(wiki, "--fix")
    assert fixed.exit_code == 0, fixed.output
    assert fixed.stdout.startswith("Fixed 1 finding: 2 files changed (commit ")


def test_semantic_uses_the_lint_backend(wiki: FixtureWiki, monkeypatch: pytest.MonkeyPatch) -> None:
    roles: list[str] = []
    fake = FakeBackend(
        lambda call: (
            {"pairs": []}
            if call.schema.__name__ == "Contradictions"
            else {"questions": ["What next?"]}
        )
    )

    def for_role(paths, role, model=None):  # type: ignore[no-untyped-def]
        roles.append(role)
        return fake

    monkeypatch.setattr(backends, "for_role", for_role)
    result = lint(wiki, "--semantic", "--rule", "open-question", "--json")
    assert result.exit_code == 0, result.output
    assert roles == ["lint"]
    assert json.loads(result.stdout)["findings"][0]["message"] == "What next?"


def test_list_rules(wiki: FixtureWiki) -> None:
    result = runner.invoke(app, ["lint", "--list-rules", "--json"])
    assert result.exit_code == 0, result.output
    assert [r["rule"] for r in json.loads(result.stdout)] == list(RULES)
    text = runner.invoke(app, ["lint", "--list-rules"]).stdout
    assert "broken-link" in text and "[fixable]" in text


def test_help_documents_exit_codes() -> None:
    result = runner.invoke(app, ["lint", "--help"])
    assert result.exit_code == 0
    for needle in ("Exit codes", "75", "--strict", "cron", "--fix", "--semantic"):
        assert needle in result.stdout
