"""Several machines, one wiki: clones of a bare repository ingest, rename and edit by hand, then
`wikic sync` in every order; every clone ends with every page, a generated index.md, each log
entry once, no conflict markers, lint clean, and each commit naming who made it."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest

from tests.helpers.sync_fixtures import (
    PAGED,
    SHARED,
    assert_consistent,
    clone,
    do_sync,
    first_machine,
    git,
    hand_edit,
    ingest_source,
    log_entries,
    notes_source,
)
from wikic.maintain.rename import rename_page
from wikic.paths import open_paths
from wikic.vault.pages import parse_page
from wikic.vault.sections import split_body
from wikic.vault.topic_page import parse_facts

NAMES = ("alice", "bob", "carol")
NOTE = "Carol's note: the cache is per request."


def _relocate(base: Path, template: Path) -> dict[str, Path]:
    """A copy of the template's remote and clones under `base`, each clone's origin the copy."""
    shutil.copytree(template, base, dirs_exist_ok=True)
    for name in NAMES:
        git(base / name, "remote", "set-url", "origin", str(base / "remote.git"))
    return {name: base / name for name in NAMES}


@pytest.fixture(scope="module")
def three_machines(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """alice starts the wiki with one source; bob and carol clone it; then, unsynced, alice
    ingests a second source (it adds facts to the KV cache page) and renames Prefix caching,
    bob ingests a third (it adds a fact to Prefix caching, under its old name), and carol
    edits the KV cache page by hand."""
    root = tmp_path_factory.mktemp("machines")
    from tests.helpers.sync_fixtures import bare_remote

    remote = bare_remote(root / "remote.git")
    alice = first_machine(root / "alice", remote, "alice")
    ingest_source(alice, "kv-cache.md")
    do_sync(alice)
    bob = clone(remote, root / "bob", "bob")
    carol = clone(remote, root / "carol", "carol")
    ingest_source(alice, "sliding-window.md")
    rename_page(alice, "concepts/prefix-caching", "Prompt prefix caching")
    ingest_source(bob, "paged-attention.md", PAGED)
    hand_edit(
        carol,
        "wiki/concepts/kv-cache.md",
        lambda text: (
            text.replace("\n## Facts", f"\n{NOTE}\n\n## Facts", 1)
            + "\n## Notes\n\nAsk Bob about eviction.\n"
        ),
        "notes on the KV cache",
    )
    return root


@pytest.mark.parametrize("order", list(itertools.permutations(NAMES)), ids="-".join)
def test_every_sync_order_ends_in_one_consistent_wiki(
    three_machines: Path, tmp_path: Path, order: tuple[str, ...]
) -> None:
    roots = _relocate(tmp_path, three_machines)
    before = {name: {e.title for e in log_entries(open_paths(r))} for name, r in roots.items()}
    for name in [*order, *order]:  # the second round brings the first syncs the rest
        report = do_sync(open_paths(roots[name]))
        assert report.synced, report.notice
    heads = {git(r, "rev-parse", "HEAD").strip() for r in roots.values()}
    assert len(heads) == 1, "the clones did not end on one commit"
    paths = open_paths(roots[order[0]])
    assert_consistent(paths)
    wiki = paths.wiki
    pages = {p.relative_to(wiki).as_posix() for p in wiki.rglob("*.md")}
    assert {
        "sources/kv-cache.md", "sources/sliding-window.md", "sources/paged-attention.md",
        "concepts/kv-cache.md", "concepts/sliding-window-attention.md",
        "entities/pagedattention.md", "entities/gemma-3.md", "concepts/prompt-prefix-caching.md",
    } <= pages  # fmt: skip
    # vLLM's one fact names PagedAttention, whose page holds it: no twin page (ingest.twins)
    assert "concepts/prefix-caching.md" not in pages  # alice's rename held
    # bob's fact reached the renamed page, and his source page links it by its new name
    renamed = (wiki / "concepts/prompt-prefix-caching.md").read_text()
    assert "shares the blocks of a common prompt prefix" in renamed
    assert "[[concepts/prefix-caching" not in (wiki / "sources/paged-attention.md").read_text()
    # carol's edits and alice's new facts on one page
    kv = parse_page("concepts/kv-cache.md", (wiki / "concepts/kv-cache.md").read_text())
    assert NOTE in kv.body and "Ask Bob about eviction." in kv.body
    facts = parse_facts(split_body(kv.body))
    assert any("keeps only the last window" in f.text for f in facts)
    assert len({f.id for f in facts}) == len(facts)
    # every operation of every machine is logged once
    titles = [e.title for e in log_entries(paths)]
    assert set(titles) == set().union(*before.values())
    authors = set(git(paths.root, "log", "--format=%an").split("\n")) - {""}
    assert {"alice", "bob", "carol"} <= authors
    assert {e.author for e in log_entries(paths) if e.op == "ingest"} == {"alice", "bob"}


@pytest.fixture(scope="module")
def two_on_one_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """alice and bob, from a wiki with no page yet, each ingest a source whose facts go to the
    KV cache and Gemma 3 pages: both sides create those pages."""
    root = tmp_path_factory.mktemp("one-page")
    from tests.helpers.sync_fixtures import bare_remote

    remote = bare_remote(root / "remote.git")
    alice = first_machine(root / "alice", remote, "alice")
    bob = clone(remote, root / "bob", "bob")
    ingest_source(alice, "kv-cache.md")
    ingest_source(bob, "sliding-window.md")
    return root


@pytest.mark.parametrize("first", ["alice", "bob"])
def test_a_page_both_sides_wrote_holds_both_sources_facts_once(
    two_on_one_page: Path, tmp_path: Path, first: str
) -> None:
    shutil.copytree(two_on_one_page, tmp_path, dirs_exist_ok=True)
    for name in ("alice", "bob"):
        git(tmp_path / name, "remote", "set-url", "origin", str(tmp_path / "remote.git"))
    facts_before: dict[str, set[str]] = {}
    for name in ("alice", "bob"):
        page = (tmp_path / name / "wiki/concepts/kv-cache.md").read_text()
        facts_before[name] = {
            f.text for f in parse_facts(split_body(parse_page("x.md", page).body))
        }
    second = "bob" if first == "alice" else "alice"
    for name in (first, second, first):
        assert do_sync(open_paths(tmp_path / name)).synced
    paths = open_paths(tmp_path / first)
    assert_consistent(paths)
    page = parse_page("concepts/kv-cache.md", (paths.wiki / "concepts/kv-cache.md").read_text())
    facts = parse_facts(split_body(page.body))
    assert sorted(f.text for f in facts) == sorted(facts_before["alice"] | facts_before["bob"])
    assert set(page.sources) == {"[[sources/kv-cache]]", "[[sources/sliding-window]]"}
    # one opening: wikic wrote both, so the merging side's stays
    assert split_body(page.body).lead.count("\n\n") == 1
    gemma = (paths.wiki / "entities/gemma-3.md").read_text()
    # bob's Gemma 3 topic held the same two sentences as his source's subject, Sliding-window
    # attention, so ingest made no Gemma 3 page on his side (ingest.twins): alice's stays
    assert "interleaves 5 local" in gemma
    swa = (paths.wiki / "concepts/sliding-window-attention.md").read_text()
    assert "interleaves 3 local" in swa


@pytest.mark.parametrize("first", ["alice", "bob"])
def test_a_fact_both_sides_cited_anew_is_one_bullet_with_both_citations(
    tmp_path: Path, first: str
) -> None:
    from tests.helpers.sync_fixtures import bare_remote

    remote = bare_remote(tmp_path / "remote.git")
    machines = {"alice": first_machine(tmp_path / "alice", remote, "alice")}
    ingest_source(machines["alice"], "kv-cache.md")
    do_sync(machines["alice"])
    machines["bob"] = clone(remote, tmp_path / "bob", "bob")
    ingest_source(machines["alice"], "notes-a.md", notes_source("Cache notes A"))
    ingest_source(machines["bob"], "notes-b.md", notes_source("Cache notes B"))
    second = "bob" if first == "alice" else "alice"
    for name in (first, second, first):
        assert do_sync(machines[name]).synced
    paths = machines[first]
    assert_consistent(paths)
    page = parse_page("concepts/kv-cache.md", (paths.wiki / "concepts/kv-cache.md").read_text())
    facts = parse_facts(split_body(page.body))
    shared = [f for f in facts if f.text == SHARED]
    assert len(shared) == 1
    assert {c.split("#")[0] for c in shared[0].citations} == {
        "[[sources/kv-cache", "[[sources/notes-a", "[[sources/notes-b",
    }  # fmt: skip
    texts = [f.text for f in facts]
    assert len(texts) == len(set(texts)) == 5
    assert {"[[sources/notes-a]]", "[[sources/notes-b]]"} <= set(page.sources)
