"""`wikic consolidate` on the command line: --json, --dry-run, bad options, --no-wait (exit 75)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from tests.helpers.consolidate_fakes import ConsolidateScript, add_episodes
from tests.helpers.wikitools import make_wiki
from tests.test_consolidate import DIGEST, NAME, NOTES, PATTERN, page
from wikic.cli import app, backends
from wikic.operation.lock import writer_lock
from wikic.paths import WikiPaths

runner = CliRunner()


@pytest.fixture
def wiki(tmp_path) -> WikiPaths:
    paths = make_wiki(tmp_path / "w")
    add_episodes(paths, NOTES)
    return paths


@pytest.fixture
def fake_cli(monkeypatch):
    script = ConsolidateScript(DIGEST, [PATTERN])
    backend = script.backend()
    monkeypatch.setattr(backends, "for_role", lambda paths, role, model=None: backend)
    return backend


def test_cli_json_then_noop(wiki, fake_cli) -> None:
    result = runner.invoke(app, ["-C", str(wiki.root), "consolidate", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["episodes_consolidated"] == 4 and data["pending_before"] == 4
    assert data["periods"][0]["patterns"][0]["name"] == NAME
    again = runner.invoke(app, ["-C", str(wiki.root), "consolidate"])
    assert again.exit_code == 0, again.output
    assert "Nothing to consolidate" in again.output


def test_cli_dry_run_and_bad_options(wiki, fake_cli) -> None:
    result = runner.invoke(app, ["-C", str(wiki.root), "consolidate", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "planned       2026-W14: 4 episode(s)" in result.output
    assert fake_cli.history == []
    bad = runner.invoke(app, ["-C", str(wiki.root), "consolidate", "--since", "April"])
    assert bad.exit_code == 2 and "not a date" in bad.output
    bad = runner.invoke(app, ["-C", str(wiki.root), "consolidate", "--period", "month"])
    assert bad.exit_code == 2


def test_cli_no_wait_exits_75_when_another_process_writes(wiki, fake_cli) -> None:
    with writer_lock(wiki.lock_file, op="test", wait=0):
        result = runner.invoke(app, ["-C", str(wiki.root), "consolidate", "--no-wait"])
    assert result.exit_code == 75, result.output
    assert page(wiki, "wiki/sources/2026-04-01-log.md").props.get("consolidated") is None


def test_status_counts_episodes_not_yet_consolidated(wiki, fake_cli) -> None:
    result = runner.invoke(app, ["-C", str(wiki.root), "status", "--json"])
    assert json.loads(result.stdout)["episodes_pending"] == 4
    assert (
        "Episodes not consolidated: 4"
        in runner.invoke(app, ["-C", str(wiki.root), "status"]).output
    )
    runner.invoke(app, ["-C", str(wiki.root), "consolidate"])
    result = runner.invoke(app, ["-C", str(wiki.root), "status", "--json"])
    assert json.loads(result.stdout)["episodes_pending"] == 0
