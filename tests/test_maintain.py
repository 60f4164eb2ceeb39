"""rename, merge and delete on a wiki with every link form: no broken link after, lint clean,
merge keeps every fact and contradiction, one commit each, --dry-run changes nothing, and
`wikic undo` restores every file byte for byte (log.md keeps the entries, plus the undo's)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.helpers.maintain_fixtures import FA, FB, FC, FD, FE, link_wiki
from tests.helpers.wikitools import git, snapshot
from wikic.cli import app
from wikic.errors import GitStateError, OperationError, PageError, UsageError
from wikic.lint import LintOptions, run_lint
from wikic.maintain.delete import delete_page
from wikic.maintain.merge import merge_pages
from wikic.maintain.rename import rename_page
from wikic.paths import WikiPaths
from wikic.store.db import open_store
from wikic.undo import undo_last
from wikic.vault.sections import CONTRADICTIONS, bullets, split_body
from wikic.vault.topic_page import parse_facts
from wikic.vault.tree import Vault

runner = CliRunner()
# the fixture has two near-duplicate pages on purpose: that is what merge is for
EXPECTED_BEFORE_MERGE = {"duplicate-title", "duplicate-from-one-ingest", "twin-facts"}


@pytest.fixture
def wiki(tmp_path: Path) -> WikiPaths:
    return link_wiki(tmp_path / "w")


def _problems(paths: WikiPaths) -> set[str]:
    report = run_lint(paths, LintOptions())
    return {f.rule for f in report.findings if f.level in ("error", "warning")}


def _all_links_resolve(paths: WikiPaths) -> None:
    vault = Vault.load(paths.wiki)
    for page in vault:
        for lnk in vault.links_from(page):
            assert vault.link_exists(lnk, on=page), (page.path, lnk.render())
    for name in ("index.md", "log.md"):
        from wikic.vault.links import parse_links

        for lnk in parse_links((paths.wiki / name).read_text(encoding="utf-8")):
            assert vault.link_exists(lnk), (name, lnk.render())


def _undo_restores(paths: WikiPaths, before: dict[str, bytes]) -> None:
    undo_last(paths)
    after = snapshot(paths.root)
    log = "wiki/log.md"
    assert {k: v for k, v in after.items() if k != log} == {
        k: v for k, v in before.items() if k != log
    }
    assert after[log].startswith(before[log].rstrip(b"\n"))
    assert b"] undo | " in after[log][len(before[log]) :]
    assert git(paths.root, "status", "--porcelain") == ""


def _one_commit(paths: WikiPaths, head: str, op: str) -> None:
    assert git(paths.root, "rev-list", "--count", f"{head}..HEAD").strip() == "1"
    assert f"Wikic-Operation: {op}" in git(paths.root, "log", "-1", "--format=%B")
    assert git(paths.root, "status", "--porcelain") == ""


# -- rename -------------------------------------------------------------------------------------


def test_rename_rewrites_every_link_form(wiki: WikiPaths) -> None:
    before = snapshot(wiki.root)
    head = git(wiki.root, "rev-parse", "HEAD").strip()
    result = rename_page(wiki, "concepts/kv-cache", "Key-value cache")
    _one_commit(wiki, head, "rename")
    assert result.moved == (("concepts/kv-cache.md", "concepts/key-value-cache.md"),)
    assert not (wiki.wiki / "concepts" / "kv-cache.md").exists()
    page = (wiki.wiki / "concepts" / "key-value-cache.md").read_text()
    assert "title: Key-value cache" in page and "- KV cache\n" in page  # old title: an alias
    assert "\n# Key-value cache\n" in page
    assert "[[concepts/key-value-cache#Facts|the facts above]]" in page  # its link to itself
    prefix = (wiki.wiki / "concepts" / "prefix-cache.md").read_text()
    for form in (
        "[[concepts/key-value-cache]] of a prompt",  # plain
        "[[concepts/key-value-cache|the cache]]",  # bare name, aliased
        "[[concepts/key-value-cache#Facts]]",  # heading
        "[[concepts/key-value-cache#Key-value cache|its title]]",  # the title heading
        f"[[concepts/key-value-cache#^{FA}]]",  # block
        "- [[concepts/key-value-cache|Key-value cache]]",  # alias equal to the old title
        "summary: A prefix cache reuses the [[concepts/key-value-cache|Key-value cache]]",
        "- '[[concepts/key-value-cache]]'",  # property list
        "[[concepts/kv-cache]] inside code stays",  # code is not a link
    ):
        assert form in prefix, form
    log = wiki.log_md.read_text()
    assert f"[[concepts/key-value-cache#^{FA}]]" in log  # earlier entries follow the move
    assert "[[concepts/key-value-cache|KV cache]]" in log
    assert "[[concepts/key-value-cache|Key-value cache]]" in (wiki.wiki / "index.md").read_text()
    with open_store(wiki) as store:  # the search index follows
        assert store.resolve("concepts/key-value-cache") is not None
        assert store.resolve("concepts/kv-cache") is None
    _all_links_resolve(wiki)
    assert _problems(wiki) <= EXPECTED_BEFORE_MERGE
    _undo_restores(wiki, before)


def test_rename_dry_run_changes_nothing(wiki: WikiPaths) -> None:
    before = snapshot(wiki.root)
    result = rename_page(wiki, "KV cache", "Key-value cache", dry_run=True)
    assert result.dry_run and result.commit is None
    assert ("wiki/concepts/key-value-cache.md", "write") in result.changes
    assert ("wiki/concepts/kv-cache.md", "delete") in result.changes
    assert snapshot(wiki.root) == before


def test_rename_title_only_keeps_the_file(wiki: WikiPaths) -> None:
    result = rename_page(wiki, "concepts/kv-cache", "KV Cache")
    assert result.moved == ()
    assert "title: KV Cache" in (wiki.wiki / "concepts" / "kv-cache.md").read_text()
    _all_links_resolve(wiki)


def test_rename_bad_input(wiki: WikiPaths) -> None:
    with pytest.raises(PageError, match="no page 'nothing'"):
        rename_page(wiki, "nothing", "X")
    with pytest.raises(UsageError, match="empty"):
        rename_page(wiki, "concepts/kv-cache", "  ")
    with pytest.raises(UsageError, match="already titled"):
        rename_page(wiki, "concepts/kv-cache", "KV cache")


# -- merge --------------------------------------------------------------------------------------


def test_merge_keeps_every_fact_and_contradiction(wiki: WikiPaths) -> None:
    before = snapshot(wiki.root)
    head = git(wiki.root, "rev-parse", "HEAD").strip()
    result = merge_pages(wiki, "concepts/kv-caches", "concepts/kv-cache")
    _one_commit(wiki, head, "merge")
    assert result.deleted == ("concepts/kv-caches.md",)
    assert not (wiki.wiki / "concepts" / "kv-caches.md").exists()
    text = (wiki.wiki / "concepts" / "kv-cache.md").read_text()
    body = split_body(text.split("\n---\n", 1)[1])
    facts = parse_facts(body)
    assert [f.id for f in facts] == [FA, FB, FD, FE, FC]  # FB and FE once each
    entries = {b.block: b.status for b in bullets(body.get(CONTRADICTIONS))}
    assert entries == {"x-aaaaaa": "open", "x-bbbbbb": "resolved"}
    assert "- KV caches\n" in text  # the merged page's title: an alias
    assert "Written by hand: plural pages are a habit of small models." in text
    assert "contradictions: 1" in text
    assert "[[concepts/kv-cache|KV cache]]" not in body.get("Related") or ""  # no self-link
    prefix = (wiki.wiki / "concepts" / "prefix-cache.md").read_text()
    assert f"[[concepts/kv-cache#^{FC}|evicting]]" in prefix  # block link to a moved fact
    assert prefix.count("- [[concepts/kv-cache") == 1  # Related lists it once
    assert prefix.count("- '[[concepts/kv-cache") == 1  # and so does see_also
    analysis = (wiki.wiki / "analyses" / "how-big.md").read_text()
    assert f"([[concepts/kv-cache#^{FC}]])" in analysis
    _all_links_resolve(wiki)
    # the merged page now holds the Prefix cache page's one fact: lint names that twin, with
    # the merge to make, and nothing else
    twins = [f for f in run_lint(wiki, LintOptions()).findings if f.rule == "twin-facts"]
    assert [(f.page, f.hint) for f in twins] == [
        (
            "wiki/concepts/prefix-cache.md",
            "Make them one page: wikic merge concepts/prefix-cache concepts/kv-cache",
        )
    ]
    assert _problems(wiki) == {"twin-facts"}
    _undo_restores(wiki, before)


def test_merge_refuses_sources_and_itself(wiki: WikiPaths) -> None:
    with pytest.raises(UsageError, match="only entity and concept pages merge"):
        merge_pages(wiki, "sources/notes", "concepts/kv-cache")
    with pytest.raises(UsageError, match="same page"):
        merge_pages(wiki, "KV cache", "concepts/kv-cache")


# -- delete -------------------------------------------------------------------------------------


def test_delete_makes_prose_links_plain_text(wiki: WikiPaths) -> None:
    before = snapshot(wiki.root)
    head = git(wiki.root, "rev-parse", "HEAD").strip()
    result = delete_page(wiki, "concepts/kv-caches")
    _one_commit(wiki, head, "delete")
    assert result.deleted == ("concepts/kv-caches.md",)
    prefix = (wiki.wiki / "concepts" / "prefix-cache.md").read_text()
    assert "Plural: KV caches and evicting." in prefix
    assert "kv-caches" not in prefix  # the Related item and the property value went
    kv = (wiki.wiki / "concepts" / "kv-cache.md").read_text()
    assert "kv-caches" not in kv
    analysis = (wiki.wiki / "analyses" / "how-big.md").read_text()
    assert "(KV caches)." in analysis and "consulted:\n- '[[concepts/kv-cache]]'\n" in analysis
    assert "[[concepts/kv-caches|KV caches]]" not in wiki.log_md.read_text()
    assert "KV caches" in wiki.log_md.read_text()
    _all_links_resolve(wiki)
    assert _problems(wiki) == set()
    _undo_restores(wiki, before)


def test_delete_refuses_a_source_page_whose_raw_file_exists(wiki: WikiPaths) -> None:
    before = snapshot(wiki.root)
    with pytest.raises(OperationError, match=r"raw/notes\.md, which still exists"):
        delete_page(wiki, "sources/notes")
    assert snapshot(wiki.root) == before
    result = delete_page(wiki, "sources/notes", force=True)
    assert any("still exists" in n for n in result.notes)
    _all_links_resolve(wiki)
    assert not (wiki.wiki / "sources" / "notes.md").exists()
    assert (wiki.raw / "notes.md").exists()  # raw/ is never touched


# -- user edits ---------------------------------------------------------------------------------


def test_uncommitted_user_edits_are_never_committed(wiki: WikiPaths) -> None:
    prefix = wiki.wiki / "concepts" / "prefix-cache.md"
    prefix.write_text(prefix.read_text() + "\nMy own note.\n")
    before = snapshot(wiki.root)
    with pytest.raises(GitStateError, match=r"prefix-cache\.md has uncommitted changes of yours"):
        rename_page(wiki, "concepts/kv-cache", "Key-value cache")
    assert snapshot(wiki.root) == before
    result = rename_page(wiki, "concepts/kv-cache", "Key-value cache", include_my_edits=True)
    assert result.commit is not None
    assert "My own note." in git(wiki.root, "show", "HEAD:wiki/concepts/prefix-cache.md")


def test_a_page_wikic_does_not_change_may_hold_user_edits(wiki: WikiPaths) -> None:
    source = wiki.wiki / "sources" / "notes.md"
    source.write_text(source.read_text() + "\nA remark.\n")
    rename_page(wiki, "concepts/kv-caches", "KV cache family")
    assert git(wiki.root, "status", "--porcelain").strip() == "M wiki/sources/notes.md"


# -- CLI ----------------------------------------------------------------------------------------


def test_cli_json_and_dry_run(wiki: WikiPaths) -> None:
    result = runner.invoke(
        app,
        ["-C", str(wiki.root), "merge", "KV caches", "concepts/kv-cache", "--dry-run", "--json"],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["dry_run"] and data["deleted"] == ["concepts/kv-caches.md"]
    result = runner.invoke(app, ["-C", str(wiki.root), "rename", "concepts/kv-cache", "Key cache"])
    assert result.exit_code == 0, result.output
    assert "move     concepts/kv-cache.md → concepts/key-cache.md" in result.stdout
    result = runner.invoke(app, ["-C", str(wiki.root), "delete", "sources/notes"])
    assert result.exit_code == 1 and "--force" in result.output
    result = runner.invoke(app, ["-C", str(wiki.root), "delete", "no such page"])
    assert result.exit_code == 1 and "no page 'no such page'" in result.output


def test_lint_suggests_the_exact_merge_command(wiki: WikiPaths) -> None:
    report = run_lint(wiki, LintOptions(rules=("duplicate-title",)))
    (finding,) = report.findings
    assert "wikic merge concepts/kv-caches concepts/kv-cache" in finding.hint


def test_rename_never_overwrites_another_file(wiki: WikiPaths) -> None:
    (wiki.wiki / "concepts" / "key-value-cache.md").write_text("---\ntitle: [broken\n---\n")
    git(wiki.root, "add", "-A")
    git(wiki.root, "commit", "-qm", "an unreadable page")
    result = rename_page(wiki, "concepts/kv-cache", "Key-value cache")
    assert result.moved == (("concepts/kv-cache.md", "concepts/key-value-cache-2.md"),)
    assert (wiki.wiki / "concepts" / "key-value-cache.md").read_text().startswith("---\ntitle: [")
