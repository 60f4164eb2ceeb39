"""log.md stays valid: its entries link only pages that exist. A page that goes away leaves its
name as plain text in earlier entries; a moved page is linked by its new name; `ingest
--rebuild` leaves no broken link; lint checks the links of index.md and log.md too."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.helpers.ingest_fakes import two_source_script
from tests.helpers.wikitools import commit_pages, make_wiki, page_text
from wikic.cli import app, backends
from wikic.lint import LintOptions, run_lint
from wikic.operation.transaction import Plan, writing
from wikic.paths import WikiPaths
from wikic.vault.links import WikiLink, parse_links
from wikic.vault.logbook import relink
from wikic.vault.tree import Vault

DATA = Path(__file__).parent / "data" / "ingest"
runner = CliRunner()
LINK_RULES = ("broken-link", "broken-anchor")


def test_relink_plain_texts_gone_pages_and_follows_moves() -> None:
    text = (
        "## [2026-01-01] ingest | X\n"
        "- created: [[concepts/a|A]], [[concepts/b|B]], [[c]], `[[code]]`\n"
        "- fact: [[concepts/d#^f-1|D fact]] and [[concepts/d]]\n"
    )

    def exists(lnk: WikiLink) -> bool:
        return lnk.target in {"concepts/b", "concepts/e"}

    assert relink(text, exists, {"concepts/d": "concepts/e"}) == (
        "## [2026-01-01] ingest | X\n"
        "- created: A, [[concepts/b|B]], c, `[[code]]`\n"
        "- fact: [[concepts/e#^f-1|D fact]] and [[concepts/e]]\n"
    )
    assert relink(text, lambda lnk: True) == text


def _log_targets(paths: WikiPaths) -> list[str]:
    return [lnk.target for lnk in parse_links(paths.log_md.read_text(encoding="utf-8"))]


def test_deleting_a_page_keeps_its_name_in_earlier_entries(tmp_path: Path) -> None:
    paths = make_wiki(tmp_path / "w")
    with writing(paths, "test") as writer:
        plan = Plan("test", "add", log_bullets=["created: [[concepts/a|Alpha]], [[concepts/b|B]]"])
        plan.write("wiki/concepts/a.md", page_text("Alpha"))
        plan.write("wiki/concepts/b.md", page_text("B"))
        writer.commit(plan)
    commit_pages(paths, {"wiki/concepts/a.md": None}, "remove alpha")
    log = paths.log_md.read_text(encoding="utf-8")
    assert "- created: Alpha, [[concepts/b|B]]" in log
    assert _log_targets(paths) == ["concepts/b"]
    report = run_lint(paths, LintOptions(rules=LINK_RULES))
    assert report.findings == ()


@pytest.fixture
def ingested(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> WikiPaths:
    paths = make_wiki(tmp_path / "w")
    for name in ("kv-cache.md", "sliding-window.md"):
        shutil.copy(DATA / name, paths.raw / name)
    fake = two_source_script().backend()
    monkeypatch.setattr(backends, "for_role", lambda paths, role, model=None: fake)
    result = runner.invoke(app, ["-C", str(paths.root), "ingest", "--all"])
    assert result.exit_code == 0, result.output
    return paths


def test_rebuild_leaves_no_broken_link_in_the_log(ingested: WikiPaths) -> None:
    result = runner.invoke(app, ["-C", str(ingested.root), "ingest", "--rebuild"])
    assert result.exit_code == 0, result.output
    vault = Vault.load(ingested.wiki)
    targets = _log_targets(ingested)
    assert targets, "the new entries link the recompiled pages"
    assert all(vault.resolve(t) is not None for t in targets)
    assert run_lint(ingested, LintOptions(rules=LINK_RULES)).findings == ()


def test_lint_checks_and_fixes_links_in_log_and_index(ingested: WikiPaths) -> None:
    log = ingested.log_md.read_text(encoding="utf-8")
    # a page removed by hand, outside wikic: its log links and index line now dangle
    (victim,) = [t for t in _log_targets(ingested) if t.startswith("entities/")][:1]
    (ingested.wiki / f"{victim}.md").unlink()
    report = run_lint(ingested, LintOptions(rules=LINK_RULES))
    pages = {f.page for f in report.findings if f.rule == "broken-link"}
    assert {"wiki/log.md", "wiki/index.md"} <= pages
    assert all(f.fixable for f in report.findings if f.page == "wiki/log.md")
    assert log.count(f"[[{victim}") == sum(1 for f in report.findings if f.page == "wiki/log.md")
    fixed = run_lint(ingested, LintOptions(rules=(*LINK_RULES, "index-drift"), fix=True))
    assert not [f for f in fixed.findings if f.page in ("wiki/log.md", "wiki/index.md")]
    assert f"[[{victim}" not in ingested.log_md.read_text(encoding="utf-8")
