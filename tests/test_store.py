"""The store is derived from the pages: kept current by operations, by a freshness check on
read, rebuilt after corruption or a version change; claims and contradictions come from it."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers.storetools import sample_wiki, write_page
from tests.helpers.wikitools import commit_pages, git, page_text
from wikic.store import db as store_mod
from wikic.store.db import STALE_MARKER, Store, open_store
from wikic.store.schema import SCHEMA_VERSION
from wikic.undo import undo_last
from wikic.vault.links import WikiLink
from wikic.vault.pages import Page
from wikic.vault.tree import Vault


@pytest.fixture
def wiki(tmp_path: Path):
    return sample_wiki(tmp_path / "w")


def titles(store: Store, query: str) -> list[str]:
    return [h.title for h in store.search(query)]


def test_indexes_pages_with_their_properties(wiki) -> None:
    with open_store(wiki) as store:
        assert store.count() == 4
        info = store.page("concepts/prefix-cache.md")
        assert info is not None
        assert (info.title, info.type, info.aliases, info.tags) == (
            "Prefix cache",
            "concept",
            ("KV reuse",),
            ("ml/inference",),
        )
        assert info.updated == "2025-03-02" and info.source_count == 1
        assert info.props["sources"] == ["[[sources/paper]]"]
        assert store.counts()["types"] == {"concept": 2, "entity": 1, "source": 1}


def test_pages_by_title_or_alias(wiki) -> None:
    write_page(wiki, "entities/cafe.md", page_text("Café Crème", "A place."))
    with open_store(wiki) as store:
        assert [p.path for p in store.named("prefix  CACHE")] == ["concepts/prefix-cache.md"]
        assert [p.path for p in store.named("kv-reuse")] == ["concepts/prefix-cache.md"]
        assert [p.path for p in store.named("cafe creme")] == ["entities/cafe.md"]
        assert store.named("prefix") == [] and store.named("") == [] and store.named('"') == []


def test_claims_and_contradictions(wiki) -> None:
    with open_store(wiki) as store:
        claims = [c for c in store.all_claims() if c.page == "concepts/prefix-cache.md"]
        assert [c.block for c in claims] == ["f-aaa111", "f-bbb222"]
        assert claims[0].text == "Snapshots are taken at boundaries, never by trimming."
        assert claims[0].markdown.endswith("[[sources/paper#^p1]]")
        cit = claims[0].citations[0]
        assert (cit.target, cit.block, cit.page) == ("sources/paper", "p1", "sources/paper.md")
        assert len(store.all_claims()) == 3
        citing = [
            c for c in store.all_claims() if any(x.page == "sources/paper.md" for x in c.citations)
        ]
        assert {c.block for c in citing} == {
            "f-aaa111",
            "f-bbb222",
            "f-ccc333",
        }
        (contra,) = store.contradictions()
        assert (contra.status, contra.block, contra.note) == ("open", "c-1", "trimming or not")
        assert [(r.page, r.block) for r in contra.refs] == [
            ("concepts/prefix-cache.md", "f-aaa111"),
            ("concepts/sliding-window.md", "f-ccc333"),
        ]
        assert store.contradictions(status="resolved") == []


def test_links_and_resolution(wiki) -> None:
    with open_store(wiki) as store:
        assert store.resolve("sliding-window") == "concepts/sliding-window.md"
        assert store.resolve("Concepts/Sliding-Window.md") == "concepts/sliding-window.md"
        assert store.resolve("nope") is None
        assert store.link_exists(WikiLink("sources/paper", block="p2"))
        assert not store.link_exists(WikiLink("sources/paper", block="p9"))
        assert store.link_exists(WikiLink("sources/paper", heading="prefix caching paper"))
        assert store.link_exists(WikiLink("", block="f-aaa111"), on="concepts/prefix-cache.md")
        assert store.links_from("concepts/prefix-cache.md") == [
            "concepts/sliding-window.md",
            "sources/paper.md",
        ]
        assert store.backlinks("sources/paper.md") == [
            "concepts/prefix-cache.md",
            "concepts/sliding-window.md",
        ]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.sampled_from(["a", "b", "x/a", "x/b", "y/a", "y/z/a", "A", "x/A"]),
        min_size=1,
        max_size=6,
        unique=True,
    ),
    st.sampled_from(["a", "b", "x/a", "z/a", "y/z/a", "A.md", "/x/b", "q"]),
)
def test_resolution_matches_vault(tmp_path_factory, names: list[str], target: str) -> None:
    """Obsidian's rules as the Vault applies them: full path first, then shortest path."""
    wiki_dir = tmp_path_factory.mktemp("v") / "wiki"
    root = wiki_dir.parent
    (root / "wikic.yaml").write_text("{}\n")
    vault = Vault(wiki_dir)
    for name in names:
        path = wiki_dir / f"{name}.md"
        if path.exists():  # a case-insensitive file system folds A and a
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {name}\n")
        vault.add(Page(f"{name}.md", {}, f"# {name}\n"))
    from wikic.paths import open_paths

    with open_store(open_paths(root)) as store:
        expected = vault.resolve(target)
        assert store.resolve(target) == (expected.path if expected else None)


def test_operation_updates_rows_without_a_sync(wiki) -> None:
    with open_store(wiki):
        pass  # the hook keeps an existing index current; a missing one is built on first read
    commit_pages(wiki, {"wiki/concepts/zebra.md": page_text("Zebra", "Striped horse.")})
    with Store(wiki) as store:  # no freshness check: the commit hook must have done it
        assert titles(store, "striped") == ["Zebra"]


def test_edits_outside_wikic_are_picked_up_on_read(wiki) -> None:
    with open_store(wiki) as store:
        assert titles(store, "zebra") == []
    write_page(wiki, "concepts/zebra.md", page_text("Zebra", "Striped horse."))
    with open_store(wiki) as store:
        assert titles(store, "zebra") == ["Zebra"]
    os.remove(wiki.wiki / "entities" / "mlx.md")
    with open_store(wiki) as store:
        assert titles(store, "mlx") == [] and store.page("entities/mlx.md") is None
    write_page(wiki, "concepts/zebra.md", page_text("Zebra", "Now a spotted horse."))
    with open_store(wiki) as store:
        assert titles(store, "spotted") == ["Zebra"] and titles(store, "striped") == []


def test_same_size_edit_within_the_timestamp_granularity_is_seen(wiki) -> None:
    path = write_page(wiki, "concepts/zebra.md", page_text("Zebra", "aaaa"))
    with open_store(wiki) as store:
        assert titles(store, "aaaa") == ["Zebra"]
        st_before = path.stat()
        path.write_text(page_text("Zebra", "bbbb"), encoding="utf-8")  # same size, same inode
        os.utime(path, ns=(st_before.st_atime_ns, st_before.st_mtime_ns))  # same mtime too
        store.sync()
        assert titles(store, "bbbb") == ["Zebra"]


def test_undo_and_git_checkout_are_seen(wiki) -> None:
    commit_pages(wiki, {"wiki/concepts/zebra.md": page_text("Zebra", "Striped horse.")})
    with open_store(wiki) as store:
        assert titles(store, "zebra") == ["Zebra"]
    undo_last(wiki)
    with open_store(wiki) as store:
        assert titles(store, "zebra") == []
    git(wiki.root, "checkout", "HEAD~1", "--", "wiki/concepts/zebra.md")
    with open_store(wiki) as store:
        assert titles(store, "zebra") == ["Zebra"]


def test_corrupt_database_is_rebuilt_with_a_warning(wiki) -> None:
    with open_store(wiki):
        pass
    for suffix in ("-wal", "-shm"):
        Path(f"{wiki.db}{suffix}").unlink(missing_ok=True)
    wiki.db.write_bytes(b"this is not a database" * 100)
    with open_store(wiki) as store:
        assert any("rebuilding" in n for n in store.notes)
        assert titles(store, "sliding")[0] == "Sliding window"


def test_other_schema_version_is_rebuilt(wiki) -> None:
    with open_store(wiki):
        pass
    conn = sqlite3.connect(wiki.db)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with open_store(wiki) as store:
        assert any("another wikic version" in n for n in store.notes)
        assert store.count() == 4


def test_damage_found_while_reading_is_repaired(wiki) -> None:
    with open_store(wiki) as store:
        store.conn.execute("DROP TABLE claims")
        assert len([c for c in store.all_claims() if c.page == "concepts/prefix-cache.md"]) == 2
        assert any("broke" in n for n in store.notes)


def test_failed_index_update_never_fails_the_operation(wiki, monkeypatch) -> None:
    def boom(self, rels):
        raise sqlite3.OperationalError("disk I/O error")

    with open_store(wiki):
        pass
    monkeypatch.setattr(store_mod.Store, "refresh", boom)
    commit_pages(wiki, {"wiki/concepts/zebra.md": page_text("Zebra", "Striped horse.")})
    assert (wiki.wiki / "concepts" / "zebra.md").exists()
    assert git(wiki.root, "status", "--porcelain") == ""
    assert (wiki.state / STALE_MARKER).exists()
    monkeypatch.undo()
    with open_store(wiki) as store:
        assert titles(store, "zebra") == ["Zebra"]
    assert not (wiki.state / STALE_MARKER).exists()


def test_unreadable_page_is_reported_and_still_searchable(wiki) -> None:
    write_page(wiki, "concepts/bad.md", "---\ntitle: [unclosed\n---\n\nQuokka text.\n")
    with open_store(wiki) as store:
        assert any("concepts/bad.md" in n for n in store.notes)
        assert [h.path for h in store.search("quokka")] == ["concepts/bad.md"]
        info = store.page("concepts/bad.md")
        assert info is not None and info.broken


def test_reader_holding_a_snapshot_does_not_block_a_sync(wiki) -> None:
    with open_store(wiki) as reader, open_store(wiki) as other:
        reader.conn.execute("BEGIN")
        assert reader.conn.execute("SELECT count(*) FROM pages").fetchone()[0] == 4
        write_page(wiki, "concepts/zebra.md", page_text("Zebra", "Striped horse."))
        other.sync()  # WAL: the writer goes ahead while the reader keeps its snapshot
        assert reader.conn.execute("SELECT count(*) FROM pages").fetchone()[0] == 4
        reader.conn.execute("COMMIT")
        assert reader.count() == 5


def test_rebuild_reindexes_from_pages_alone(wiki) -> None:
    with open_store(wiki) as store:
        store.conn.execute("DELETE FROM pages_fts")
        assert store.search("sliding") == []
        report = store.rebuild()
        assert len(report.added) == 4
        assert titles(store, "sliding")[0] == "Sliding window"


def test_state_dir_unusable_falls_back_to_memory(tmp_path: Path) -> None:
    paths = sample_wiki(tmp_path / "w")
    import shutil

    shutil.rmtree(paths.state)
    paths.state.write_text("not a directory")
    with open_store(paths) as store:
        assert store.in_memory and titles(store, "sliding")[0] == "Sliding window"
