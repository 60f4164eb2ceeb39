"""Symlinks in raw/: one that resolves to a file inside raw/ is a source; one that leaves raw/,
dangles or loops is skipped with a one-line reason by status, ingest --all and lint, and named
as the reason by `wikic ingest LINK`. Never a traceback."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.helpers.ingest_fakes import two_source_script
from tests.helpers.wikitools import make_wiki
from wikic.cli import app, backends
from wikic.errors import SourceError
from wikic.lint import LintOptions, run_lint
from wikic.paths import WikiPaths
from wikic.status import wiki_status
from wikic.vault.sources import resolve_source_path, scan_raw

DATA = Path(__file__).parent / "data" / "ingest"
runner = CliRunner()


@pytest.fixture
def wiki(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> WikiPaths:
    paths = make_wiki(tmp_path / "w")
    shutil.copy(DATA / "kv-cache.md", paths.raw / "kv-cache.md")
    (paths.raw / "sub").mkdir()
    shutil.copy(DATA / "sliding-window.md", paths.raw / "sub" / "sliding-window.md")
    outside = tmp_path / "outside.md"
    outside.write_text("# Outside\n\nA file outside the wiki.\n")
    (paths.raw / "inside-link.md").symlink_to("sub/sliding-window.md")
    (paths.raw / "passwd.md").symlink_to("/etc/passwd")
    (paths.raw / "elsewhere.md").symlink_to(outside)
    (paths.raw / "agents.md").symlink_to("../AGENTS.md")
    (paths.raw / "index.md").symlink_to("../wiki/index.md")
    (paths.raw / "dangling.md").symlink_to("no-such-file.md")
    (paths.raw / "loop-a.md").symlink_to("loop-b.md")
    (paths.raw / "loop-b.md").symlink_to("loop-a.md")
    (paths.raw / "folder-link").symlink_to("sub")
    os.mkfifo(paths.raw / "pipe.md")  # would block a reader forever
    fake = two_source_script().backend()
    monkeypatch.setattr(backends, "for_role", lambda paths, role, model=None: fake)
    return paths


SKIPPED = {
    "raw/passwd.md": "leaves raw/",
    "raw/elsewhere.md": "leaves raw/",
    "raw/agents.md": "leaves raw/",
    "raw/index.md": "leaves raw/",
    "raw/dangling.md": "dangles",
    "raw/loop-a.md": "dangles",
    "raw/loop-b.md": "dangles",
    "raw/folder-link": "folder",
    "raw/pipe.md": "not a regular file",
}


def test_scan_raw_keeps_links_inside_and_skips_the_rest(wiki: WikiPaths) -> None:
    listing = scan_raw(wiki)
    assert listing.files == ("raw/inside-link.md", "raw/kv-cache.md", "raw/sub/sliding-window.md")
    reasons = {s.rel: s.reason for s in listing.skipped}
    assert set(reasons) == set(SKIPPED)
    for rel, words in SKIPPED.items():
        assert words in reasons[rel], (rel, reasons[rel])
        assert "\n" not in reasons[rel]


def test_explicit_path_names_the_reason(wiki: WikiPaths, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(wiki.root)
    assert resolve_source_path(wiki, Path("raw/inside-link.md")) == "raw/inside-link.md"
    assert resolve_source_path(wiki, Path("raw")) == "raw"
    for rel, words in SKIPPED.items():
        if rel == "raw/pipe.md":
            continue  # not a symlink: load_source refuses it as "not a regular file"
        with pytest.raises(SourceError) as err:
            resolve_source_path(wiki, Path(rel))
        assert words in err.value.message, rel
    with pytest.raises(SourceError, match="must be inside raw/"):
        resolve_source_path(wiki, Path("raw/../AGENTS.md"))


def test_status_lists_skipped_files(wiki: WikiPaths) -> None:
    st = wiki_status(wiki)
    assert {s.raw for s in st.sources} == {
        "raw/inside-link.md",
        "raw/kv-cache.md",
        "raw/sub/sliding-window.md",
    }
    assert {s.rel for s in st.skipped} == set(SKIPPED)


def test_status_cli_warns_once_per_file(wiki: WikiPaths) -> None:
    result = runner.invoke(app, ["-C", str(wiki.root), "status", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {s["raw"] for s in data["skipped"]} == set(SKIPPED)
    result = runner.invoke(app, ["-C", str(wiki.root), "status"])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    for rel in SKIPPED:
        assert result.output.count(f"skipped  {rel}:") == 1


def test_ingest_all_skips_and_warns(wiki: WikiPaths) -> None:
    result = runner.invoke(app, ["-C", str(wiki.root), "ingest", "--all", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert sorted(s["raw"] for s in data["sources"]) == [
        "raw/inside-link.md",
        "raw/kv-cache.md",
        "raw/sub/sliding-window.md",
    ]
    assert {s["raw"] for s in data["skipped"]} == set(SKIPPED)
    assert "Warning: skipped raw/passwd.md: symlink to /etc/passwd leaves raw/" in result.stderr
    # nothing outside raw/ became a source page
    pages = sorted(p.name for p in (wiki.wiki / "sources").iterdir())
    assert not any(name.startswith(("passwd", "agents", "index", "elsewhere")) for name in pages)


def test_ingest_link_names_the_reason(wiki: WikiPaths) -> None:
    result = runner.invoke(app, ["-C", str(wiki.root), "ingest", str(wiki.raw / "passwd.md")])
    assert result.exit_code == 1
    assert "raw/passwd.md: symlink to /etc/passwd leaves raw/" in result.output
    assert "Traceback" not in result.output


def test_lint_reports_skipped_files(wiki: WikiPaths) -> None:
    report = run_lint(wiki, LintOptions(rules=("unusable-source", "uningested-source")))
    unusable = {f.page for f in report.findings if f.rule == "unusable-source"}
    assert unusable == set(SKIPPED)
    uningested = {f.page for f in report.findings if f.rule == "uningested-source"}
    assert uningested == {"raw/inside-link.md", "raw/kv-cache.md", "raw/sub/sliding-window.md"}
