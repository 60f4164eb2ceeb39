"""`lint --fix`: deterministic fixes in one commit, nothing else changed, idempotent, cron-safe."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.lint_fixtures import DAY, FixtureWiki, build_clean_wiki
from tests.helpers.wikitools import git, snapshot
from wikic.errors import GitStateError, LockBusyError
from wikic.lint import LintOptions, run_lint
from wikic.operation.journal import Change, Journal
from wikic.operation.lock import writer_lock
from wikic.vault.logbook import parse_entries

KV = "wiki/concepts/kv-cache.md"
GEMMA = "wiki/entities/gemma-3.md"
INDEX = "wiki/index.md"


@pytest.fixture
def wiki(tmp_path: Path) -> FixtureWiki:
    return build_clean_wiki(tmp_path / "w")


def fix(wiki: FixtureWiki, **options: object):  # type: ignore[no-untyped-def]
    return run_lint(wiki.paths, LintOptions(fix=True, wait=0, **options), today=DAY)  # type: ignore[arg-type]


def commits(wiki: FixtureWiki) -> int:
    return int(git(wiki.root, "rev-list", "--count", "HEAD"))


def break_fixably(wiki: FixtureWiki) -> None:
    kv = wiki.read(KV).replace(
        "- [[entities/gemma-3]]",
        "- [[entities/gemma-3]]\n- [[Prefix Caching]]\n- [[Quantum foam]]\n\n"
        "| model | note |\n|---|---|\n| [[Gemma three\\|G3]] | hybrid |",
    )
    kv = kv.replace("created:", "see: [[concepts/prefix-caching]]\ncreated:", 1)
    gemma = wiki.read(GEMMA).replace(
        "tags:\n- entity\n", "tag: '#model, hybrid'\nalias: G3\ntags:\n- entity\n"
    )
    wiki.commit({KV: kv, GEMMA: gemma})
    index = wiki.root / INDEX
    index.write_text(index.read_text() + "\n- a line someone added\n")
    wiki.git_commit("hand edit of the index")


def test_fix_repairs_everything_deterministic_in_one_commit(wiki: FixtureWiki) -> None:
    break_fixably(wiki)
    before_rules = {f.rule for f in wiki.lint().findings}
    assert before_rules == {
        "broken-link",
        "unquoted-link-property",
        "deprecated-property",
        "index-drift",
    }
    before, n = snapshot(wiki.root), commits(wiki)
    kv_before = wiki.read(KV)

    report = fix(wiki)
    assert report.fix is not None and report.fix.commit is not None
    assert report.fix.fixed == {
        "broken-link": 2,
        "unquoted-link-property": 1,
        "deprecated-property": 2,
        "index-drift": 1,
    }
    assert commits(wiki) == n + 1
    assert sorted(report.fix.changed) == sorted([GEMMA, KV, INDEX, "wiki/log.md"])
    # what is left is what no code can decide
    assert [(f.rule, f.message) for f in report.findings] == [
        ("broken-link", "[[Quantum foam]]: no page 'Quantum foam'")
    ]

    after = snapshot(wiki.root)
    assert {k for k in after if after[k] != before.get(k)} == {GEMMA, KV, INDEX, "wiki/log.md"}
    kv = wiki.read(KV)
    body_before = kv_before.split("\n---\n", 1)[1]
    assert kv.split("\n---\n", 1)[1] == body_before.replace(
        "[[Prefix Caching]]", "[[concepts/prefix-caching|Prefix Caching]]"
    ).replace("[[Gemma three\\|G3]]", "[[entities/gemma-3\\|G3]]")
    assert "see: '[[concepts/prefix-caching]]'" in kv
    gemma = wiki.read(GEMMA)
    assert (
        "tags:\n- entity\n- model\n- hybrid\n" in gemma
        and "aliases:\n- Gemma three\n- G3\n" in gemma
    )
    assert "\ntag:" not in gemma and "\nalias:" not in gemma
    log = parse_entries(wiki.read("wiki/log.md"))
    assert (log[-1].op, log[-1].title) == ("lint", "fixed 6 findings")
    assert "regenerated index.md" in log[-1].bullets


def test_fix_is_idempotent(wiki: FixtureWiki) -> None:
    break_fixably(wiki)
    fix(wiki)
    state, n = snapshot(wiki.root), commits(wiki)
    report = fix(wiki)
    assert report.fix is None  # nothing fixable left: the lock is not even taken
    assert snapshot(wiki.root) == state and commits(wiki) == n
    assert {f.rule for f in wiki.lint().findings} == {"broken-link"}


def test_fix_of_a_clean_wiki_changes_nothing(wiki: FixtureWiki) -> None:
    state, n = snapshot(wiki.root), commits(wiki)
    report = fix(wiki)
    assert report.findings == () and report.fix is None
    assert snapshot(wiki.root) == state and commits(wiki) == n


def test_fix_only_touches_enabled_rules(wiki: FixtureWiki) -> None:
    break_fixably(wiki)
    report = fix(wiki, rules=("index-drift",))
    assert report.fix is not None and report.fix.fixed == {"index-drift": 1}
    assert "[[Prefix Caching]]" in wiki.read(KV) and "\ntag:" in wiki.read(GEMMA)


def test_fix_finishes_interrupted_operations(wiki: FixtureWiki) -> None:
    Journal.prepare(
        wiki.paths.journal,
        wiki.root,
        "20260301T000000-abcdef",
        {"op": "ingest"},
        [Change(KV, b"x")],
    )
    assert {f.rule for f in wiki.lint().findings} == {"interrupted-operation"}
    report = fix(wiki)
    assert report.fix is not None and report.fix.fixed == {"interrupted-operation": 1}
    assert "rolled back interrupted operation" in report.fix.recovered[0]
    assert report.findings == () and not any(wiki.paths.journal.iterdir())


def test_fix_gives_up_when_another_writer_holds_the_lock(wiki: FixtureWiki) -> None:
    break_fixably(wiki)
    state = snapshot(wiki.root)
    with writer_lock(wiki.paths.lock_file, op="ingest", wait=0):
        assert {f.rule for f in wiki.lint().findings} >= {"index-drift"}  # readers never block
        with pytest.raises(LockBusyError, match="being changed by pid"):
            fix(wiki)
    assert snapshot(wiki.root) == state


def test_fix_leaves_pages_with_uncommitted_edits_alone(wiki: FixtureWiki) -> None:
    break_fixably(wiki)
    (wiki.root / KV).write_text(wiki.read(KV) + "\nMy half-done edit.\n")
    report = fix(wiki)
    assert report.fix is not None and report.fix.skipped == (KV,)
    assert "[[Prefix Caching]]" in wiki.read(KV) and wiki.read(KV).endswith("My half-done edit.\n")
    assert KV not in report.fix.changed and GEMMA in report.fix.changed
    assert git(wiki.root, "status", "--porcelain", "--", KV).startswith(" M")


def test_fix_refuses_to_commit_with_staged_user_changes(wiki: FixtureWiki) -> None:
    break_fixably(wiki)
    (wiki.root / "notes.md").write_text("mine")
    git(wiki.root, "add", "notes.md")
    with pytest.raises(GitStateError, match="staged changes of your own"):
        fix(wiki)
