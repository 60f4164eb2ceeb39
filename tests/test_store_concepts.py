"""The concept index lives in the store: written with a page's rows after each commit, rebuilt
by `reindex`, and planning looks names up in it instead of reading every page."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from tests.helpers.storetools import sample_wiki
from tests.helpers.wikitools import commit_pages, page_text
from wikic.ingest.extract import Extraction, Topic
from wikic.ingest.plan import Resolver, held_keys, plan_batch
from wikic.ingest.write import prepare_write
from wikic.language.sentences import Sentence
from wikic.store.concepts import StoredConcepts
from wikic.store.db import Store, open_concepts, open_store
from wikic.vault.document import parse_document
from wikic.vault.names import name_key
from wikic.vault.pages import Page
from wikic.vault.sources import Source
from wikic.vault.tree import Vault


def _stored(store: Store, name: str) -> str | None:
    found = StoredConcepts(store.conn).page(name_key(name))
    return None if found is None else found[0].path


def test_a_commit_updates_the_stored_names_of_its_pages(tmp_path: Path) -> None:
    paths = sample_wiki(tmp_path / "w")
    with open_store(paths) as store:
        assert _stored(store, "KV reuse") == "concepts/prefix-cache.md"  # an alias
        assert _stored(store, "mlx-lm") == "entities/mlx.md"
        assert _stored(store, "Prefix Caching Paper") is None  # a source page is no concept
    text = "---\ntype: concept\ntitle: Prefix cache\naliases:\n- prompt cache\n---\n\n# P\n"
    commit_pages(paths, {"wiki/concepts/prefix-cache.md": text, "wiki/entities/mlx.md": None})
    with Store(paths) as store:  # no sync: the commit hook wrote the rows
        assert _stored(store, "prompt caches") == "concepts/prefix-cache.md"
        assert _stored(store, "KV reuse") is None and _stored(store, "MLX") is None
        assert StoredConcepts(store.conn).slug_taken("entities", "mlx") is False
        assert StoredConcepts(store.conn).slug_taken("sources", "PAPER") is True


def test_reindex_rebuilds_the_stored_names(tmp_path: Path) -> None:
    paths = sample_wiki(tmp_path / "w")
    with open_store(paths) as store:
        store.conn.execute("DELETE FROM concepts")
        assert _stored(store, "Sliding window") is None
        store.rebuild()
        assert _stored(store, "sliding windows") == "concepts/sliding-window.md"


def test_the_first_page_by_path_holds_a_shared_name() -> None:
    pages = [
        Page("concepts/b.md", {"type": "concept", "title": "B", "aliases": ["WAL"]}),
        Page("concepts/a.md", {"type": "concept", "title": "A", "aliases": ["wal"]}),
        Page("concepts/a.md".replace("a", "c"), {"type": "concept", "title": "WAL"}),
    ]
    found = StoredConcepts.from_pages(pages).page(name_key("WAL"))
    assert found is not None and (found[0].path, found[1]) == ("concepts/a.md", "wal")


class NoScan(Vault):
    """A wiki that fails when planning or writing reads every page."""

    def __iter__(self):  # type: ignore[no-untyped-def]
        raise AssertionError("planning read every page")


def _extraction(sentences: list[str], topics: list[Topic]) -> Extraction:
    text = "# Notes\n\n" + " ".join(sentences) + "\n"
    source = Source("raw/notes.md", text, "sha256:0", "article")
    doc = parse_document(text, filename="notes.md")
    by_id = {f"s{i}": Sentence(f"s{i}", "p1", s) for i, s in enumerate(sentences, 1)}
    return Extraction(source, "Notes", sentences[0], doc, by_id, topics)


def test_planning_and_writing_a_new_source_look_names_up_without_reading_every_page(
    tmp_path: Path,
) -> None:
    paths = sample_wiki(tmp_path / "w")
    vault = Vault.load(paths.wiki)
    big = NoScan(paths.wiki, dict(vault.pages))
    topics = [
        Topic("KV reuse", "concept", (), ("s1",)),  # an alias of an existing page
        Topic("Mlx", "concept", (), ("s2",)),  # names a page by key
        Topic("Rope scaling", "concept", (), ("s3",)),  # new
    ]
    sentences = [
        "KV reuse saves prefill.",
        "MLX runs on Apple silicon.",
        "Rope scaling stretches positions.",
    ]
    ex = _extraction(sentences, topics)
    with open_concepts(paths, vault) as concepts:
        (plan,) = plan_batch([ex], big, existing_source_pages={}, max_pages=5, concepts=concepts)
    targets = {t.title: (t.path, t.exists) for _, t in plan.topics}
    assert targets["Prefix cache"] == ("concepts/prefix-cache.md", True)
    assert targets["MLX"] == ("entities/mlx.md", True)
    assert targets["Rope scaling"] == ("concepts/rope-scaling.md", False)
    prepare_write(plan, big, agents_md="", today=dt.date(2026, 1, 1))  # retracts nothing


def test_a_new_page_takes_a_file_name_no_page_has_whatever_its_case(tmp_path: Path) -> None:
    paths = sample_wiki(tmp_path / "w")  # has sources/paper.md
    commit_pages(paths, {"wiki/sources/Notes.md": page_text("Notes")})
    with open_store(paths) as store:
        resolver = Resolver(Vault.load(paths.wiki), StoredConcepts(store.conn))
        taken = [resolver.reserve_source_page(s) for s in ("Paper", "paper", "notes", "other")]
    assert taken[:2] == ["sources/paper-2.md", "sources/paper-3.md"]
    assert taken[2:] == ["sources/notes-2.md", "sources/other.md"]


def test_the_keys_of_a_batch_s_own_pages_come_by_path_not_by_listing(tmp_path: Path) -> None:
    paths = sample_wiki(tmp_path / "w")
    resolver = Resolver(Vault.load(paths.wiki))
    new = resolver.resolve(Topic("Rope scaling", "concept", ("RS",), ("s1",)))
    with pytest.raises(TypeError):
        list(resolver.index.by_key)  # the stored index is looked up, never listed
    keys = held_keys(resolver.index, {"concepts/prefix-cache.md", new.path})
    assert keys == {name_key(n) for n in ("Prefix cache", "KV reuse", "Rope scaling", "RS")}


def test_a_later_source_resolves_through_the_store_the_commit_kept_current(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from tests.helpers.ingest_fakes import two_source_script
    from tests.helpers.wikitools import make_wiki
    from wikic.ingest.pipeline import IngestRequest, ingest

    data = Path(__file__).parent / "data" / "ingest"
    paths = make_wiki(tmp_path / "w")
    for name in ("kv-cache.md", "sliding-window.md"):
        shutil.copy(data / name, paths.raw / name)
    open_store(paths).close()  # the wiki has a store: ingest plans through it
    fake = two_source_script().backend()

    def run(name: str):  # type: ignore[no-untyped-def]
        request = IngestRequest((paths.raw / name,))
        return ingest(paths, request, extract_backend=lambda: fake, write_backend=lambda: fake)

    first = run("kv-cache.md").outcomes[0]
    assert "entities/gemma-3.md" in first.created
    with Store(paths) as store:  # no sync: the commit wrote the page's concept rows
        assert _stored(store, "Gemma 3") == "entities/gemma-3.md"

    def no_rebuild(*args: object) -> None:
        raise AssertionError("the index was built from every page")

    monkeypatch.setattr(StoredConcepts, "from_pages", no_rebuild)  # the store's is used
    second = run("sliding-window.md").outcomes[0]
    assert second.status == "ingested", second.error
    assert "entities/gemma-3.md" in second.updated and "entities/gemma-3-2.md" not in second.created
