"""End to end with the real default model: a second source updates a page the first made
(issue 32). PDM's excerpt on lock files makes the "Lock file" page; uv's excerpt, ingested
later in its own run, discusses the lockfile and adds its sentences there: the page's
`sources` grows, and a fact cites uv. Two short excerpts keep it to a minute or two.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.helpers.model_fixtures import test_models_dir
from tests.helpers.wikitools import make_wiki
from wikic.cli import app
from wikic.config import Config
from wikic.llm.models.resolve import ResolvedModel
from wikic.vault.sections import bullets, split_body
from wikic.vault.tree import Vault

pytestmark = [pytest.mark.real_model, pytest.mark.slow]
DATA = Path(__file__).parent / "data" / "shared"
PAGE = "concepts/lock-file.md"
runner = CliRunner()


def test_a_later_source_adds_its_sentences_to_the_page_an_earlier_one_made(
    tmp_path: Path,
    installed_model: Callable[[str], ResolvedModel],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    installed_model(Config().model)
    monkeypatch.setenv("WIKIC_MODELS_DIR", str(test_models_dir()))
    paths = make_wiki(tmp_path / "w")
    reports = []
    for name in ("pdm-lock.md", "uv-locking.md"):
        shutil.copy(DATA / name, paths.raw / name)
        result = runner.invoke(app, ["-C", str(paths.root), "ingest", "--all", "--json"])
        assert result.exit_code == 0, result.output
        (source,) = json.loads(result.stdout)["sources"]
        assert source["status"] == "ingested", source
        reports.append(source)
        if name == "pdm-lock.md":
            assert PAGE in source["created"], source
    assert PAGE in reports[1]["updated"], reports[1]
    page = Vault.load(paths.wiki).pages[PAGE]
    assert page.props["sources"] == ["[[sources/pdm-lock]]", "[[sources/uv-locking]]"]
    cited = {c.target for f in bullets(split_body(page.body).get("Facts")) for c in f.citations}
    assert cited == {"sources/pdm-lock", "sources/uv-locking"}, cited
