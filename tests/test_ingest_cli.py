from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.helpers.ingest_fakes import two_source_script
from tests.helpers.wikitools import make_wiki
from wikic.cli import app, backends

DATA = Path(__file__).parent / "data" / "ingest"
runner = CliRunner()


@pytest.fixture
def wiki(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    paths = make_wiki(tmp_path / "w")
    for name in ("kv-cache.md", "sliding-window.md"):
        shutil.copy(DATA / name, paths.raw / name)
    fake = two_source_script().backend()
    monkeypatch.setattr(backends, "for_role", lambda paths, role, model=None: fake)
    return paths


def test_ingest_all_json(wiki) -> None:
    result = runner.invoke(app, ["-C", str(wiki.root), "ingest", "--all", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [s["status"] for s in data["sources"]] == ["ingested", "ingested"]
    assert data["sources"][1]["contradictions"][0]["page"] == "entities/gemma-3.md"
    assert data["stats"]["calls"] > 0 and "cached_tokens" in data["stats"]
    stages = data["stages"]  # where the time went, stage by stage
    assert set(stages) == {"extract", "write"}
    for stage in stages.values():
        assert stage["calls"] > 0 and stage["decode_tokens"] > 0 and stage["wall_s"] >= 0
        assert stage["rows_per_step"] >= 1 and stage["idle_s"] >= 0
        assert {"prefill_s", "prefill_tokens", "decode_s", "forced_tokens"} <= set(stage)
    assert stages["write"]["rows_per_step"] > 1  # both sources' write calls in one batch
    again = runner.invoke(app, ["-C", str(wiki.root), "ingest", str(wiki.raw / "kv-cache.md")])
    assert again.exit_code == 0, again.output
    assert "unchanged  raw/kv-cache.md" in again.stdout


def test_ingest_dry_run_text(wiki) -> None:
    result = runner.invoke(
        app, ["-C", str(wiki.root), "ingest", "--dry-run", str(wiki.raw / "kv-cache.md")]
    )
    assert result.exit_code == 0, result.output
    assert "planned    raw/kv-cache.md → sources/kv-cache.md" in result.stdout
    assert "  create   entities/gemma-3.md" in result.stdout
    assert not (wiki.wiki / "sources").exists()


def test_ingest_errors(wiki, tmp_path: Path) -> None:
    result = runner.invoke(app, ["-C", str(wiki.root), "ingest"])
    assert result.exit_code == 2 and "--all" in result.output
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# x\n\nsome text here.\n")
    result = runner.invoke(app, ["-C", str(wiki.root), "ingest", str(outside)])
    assert result.exit_code == 1
    assert "sources must be inside raw/" in result.output
