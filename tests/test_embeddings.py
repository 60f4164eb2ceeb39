"""Search by meaning: the offline embedding model, hash-keyed vectors, rank fusion, `--mode`,
CJK text, and the checks that use similarity where words miss (twin pages, consolidation
targets). Wikis of 120+ pages: below `MIN_CENTERED` hybrid ranks by words alone."""

from __future__ import annotations

import datetime as dt
import random
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.helpers.storetools import write_page
from tests.helpers.wikitools import make_wiki
from wikic.cli import app
from wikic.consolidate.episodes import Episode, EpisodeBlock
from wikic.consolidate.recurring import Recurring, Unit
from wikic.consolidate.targets import suggest_targets
from wikic.embed import model
from wikic.embed.model import EmbeddingError, StaticEmbedder, load_embedder
from wikic.lint import LintOptions, run_lint
from wikic.paths import WikiPaths
from wikic.store.db import Store, open_store
from wikic.store.fusion import rrf
from wikic.store.hybrid import PASSAGE_RRF_K, fuse_passages
from wikic.store.vectors import MIN_CENTERED
from wikic.vault.tree import Vault

runner = CliRunner()
_FILLER = [
    "river",
    "mountain",
    "bread",
    "cheese",
    "violin",
    "guitar",
    "football",
    "tennis",
    "garden",
    "flower",
    "winter",
    "summer",
    "castle",
    "king",
    "queen",
    "ocean",
    "boat",
    "train",
    "station",
    "ticket",
    "museum",
    "painting",
    "statue",
    "poem",
    "novel",
    "chapter",
    "kitchen",
    "recipe",
    "oven",
    "soup",
    "market",
    "price",
    "coin",
    "bank",
    "loan",
    "tax",
    "farm",
    "cow",
    "sheep",
    "wool",
    "forest",
    "wolf",
    "bird",
    "nest",
    "egg",
    "school",
    "teacher",
    "lesson",
    "exam",
    "hospital",
    "doctor",
    "nurse",
    "medicine",
]


def topic_page(title: str, facts: list[str], *, kind: str = "concept") -> str:
    bullets = "\n".join(f"- {f} [[sources/src#^p{n}]] ^f-{n:04x}" for n, f in enumerate(facts, 1))
    return (
        f"---\ntype: {kind}\ntitle: {title}\nsources: ['[[sources/src]]']\n---\n\n# {title}\n\n"
        f"{facts[0]}\n\n## Facts\n\n{bullets}\n"
    )


def filler_wiki(directory: Path, n: int = MIN_CENTERED + 20) -> WikiPaths:
    """A wiki of `n` unrelated topic pages about everyday things."""
    paths = make_wiki(directory)
    rng = random.Random(5)
    for i in range(n):
        words = rng.sample(_FILLER, 6)
        facts = [f"The {a} is next to the {b} near the {c}." for a, b, c in (words[:3], words[3:])]
        write_page(paths, f"concepts/filler-{i}.md", topic_page(f"{words[0]} {i}", facts))
    return paths


# -- the model ---------------------------------------------------------------------------------


def test_the_builtin_model_loads_with_the_network_blocked(monkeypatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the embedding model tried to use the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    model._load.cache_clear()
    embedder = load_embedder("wordllama")
    vecs = embedder.embed(["key-value cache", "KV cache", "", "violin"])
    assert vecs.shape == (4, 256)
    assert abs(float(vecs[0] @ vecs[0]) - 1) < 1e-5  # unit length
    assert not vecs[2].any()  # no tokens: zeros, not NaN
    assert float(vecs[0] @ vecs[1]) > float(vecs[0] @ vecs[3])


def test_an_unknown_model_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError, match="neither 'wordllama'"):
        load_embedder(str(tmp_path / "nowhere"))
    (tmp_path / "m").mkdir()
    with pytest.raises(EmbeddingError, match="missing"):
        load_embedder(str(tmp_path / "m"))


# -- vectors in the store ----------------------------------------------------------------------


def test_an_unchanged_fact_is_never_embedded_again(tmp_path: Path, monkeypatch) -> None:
    paths = make_wiki(tmp_path / "w")
    facts = ["Ollama listens on port 11434.", "Models live in the models folder."]
    write_page(paths, "concepts/ollama.md", topic_page("Ollama", facts))
    seen: list[str] = []
    real = StaticEmbedder.embed

    def recording(self: StaticEmbedder, texts):  # type: ignore[no-untyped-def]
        seen.extend(texts)
        return real(self, texts)

    monkeypatch.setattr(StaticEmbedder, "embed", recording)
    with open_store(paths) as store:
        assert any("11434" in t for t in seen)
        seen.clear()
        write_page(paths, "concepts/ollama.md", topic_page("Ollama", [*facts, "It is fast."]))
        report = store.sync()
        # the new fact and the page (its text changed); the overview and both facts kept theirs
        assert report.embedded == 2 and len(seen) == 2
        assert any(t.endswith("It is fast.") for t in seen)
        assert "Ollama\nOllama listens on port 11434." not in seen  # the fact's own text
        seen.clear()
        assert store.rebuild().embedded >= 4  # reindex rebuilds every vector
        assert store.conn.execute("SELECT count(*) FROM vectors").fetchone()[0] >= 4


def test_a_deleted_page_takes_its_vectors_along(tmp_path: Path) -> None:
    paths = make_wiki(tmp_path / "w")
    write_page(paths, "concepts/a.md", topic_page("Alpha", ["Alpha is first."]))
    write_page(paths, "concepts/b.md", topic_page("Beta", ["Beta is second."]))
    with open_store(paths) as store:
        before = store.conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
        (paths.wiki / "concepts/b.md").unlink()
        store.sync()
        after = store.conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
    assert after < before


# -- fusion ------------------------------------------------------------------------------------


def test_rrf_puts_an_item_both_rankings_hold_first() -> None:
    fused = rrf([["a", "b", "c"], ["d", "c", "a"]], k=60)
    assert [item for item, _ in fused] == ["a", "c", "d", "b"]
    # ties keep the order of first appearance; weights scale a ranking
    assert [i for i, _ in rrf([["x"], ["y"]])] == ["x", "y"]
    assert [i for i, _ in rrf([["x"], ["y"]], weights=[1.0, 2.0])] == ["y", "x"]


def test_a_question_fuses_meaning_first_ahead_of_a_passage_both_rank_midway() -> None:
    """A paraphrase shares incidental words with many passages: words rank them first, and
    the answer (no word of the question) is meaning's first. A passage both rankings hold at
    ninth and tenth place must not push the answer out of the best two."""
    lexical = [*range(11, 20), 50]  # 50: tenth by words ...
    semantic = [99, *range(60, 67), 50]  # ... and ninth by meaning; 99: the answer
    assert [i for i, _ in fuse_passages(lexical, semantic, 10)][:2] == [11, 99]
    # with the paper's k of 60 the midway passage wins: the answer is not among the best two
    assert 99 not in [i for i, _ in rrf([lexical, semantic], k=60)[:2]]


def test_a_question_fuses_meaning_past_the_limit() -> None:
    """Meaning's ranking counts past `limit` (its best `SEMANTIC_POOL`): of two passages words
    rank next to each other, the one meaning ranks 150th goes first."""
    lexical = list(range(1, 41))
    semantic = [*range(1, 39), *range(100, 211), 40]  # 40: last by words, 150th by meaning
    fused = [i for i, _ in fuse_passages(lexical, semantic, 40)]
    assert fused.index(40) < fused.index(39)
    # meaning's best `limit` alone do not hold passage 40: the one words rank higher wins
    cut = [i for i, _ in rrf([lexical, semantic[:40]], k=PASSAGE_RRF_K)]
    assert cut.index(39) < cut.index(40)


# -- search ------------------------------------------------------------------------------------


@pytest.fixture
def meaning_wiki(tmp_path: Path) -> WikiPaths:
    paths = filler_wiki(tmp_path / "w")
    write_page(
        paths,
        "concepts/model-aliases.md",
        topic_page(
            "Model aliases",
            ["An alias is a short name for a language model.", "Aliases replace long IDs."],
        ),
    )
    return paths


def test_search_mode_lexical_semantic_hybrid(meaning_wiki: WikiPaths) -> None:
    def search(*args: str) -> list[str]:
        result = runner.invoke(app, ["-C", str(meaning_wiki.root), "search", "--json", *args])
        assert result.exit_code == 0, result.output
        import json

        return [h["path"] for h in json.loads(result.stdout)]

    assert search("--mode", "lexical", "nickname") == []  # no page has the word
    assert search("--mode", "semantic", "nickname", "-n", "1") == ["concepts/model-aliases.md"]
    assert search("nickname")[:1] == ["concepts/model-aliases.md"]  # hybrid, the default
    assert search("--mode", "hybrid", "zzqx") == []  # nothing alike enough: no noise
    bad = runner.invoke(app, ["-C", str(meaning_wiki.root), "search", "--mode", "fuzzy", "x"])
    assert bad.exit_code == 2 and "hybrid, lexical or semantic" in bad.output


def test_search_by_meaning_with_embeddings_off_is_a_usage_error(tmp_path: Path) -> None:
    paths = make_wiki(tmp_path / "w")
    (paths.root / "wikic.yaml").write_text("search:\n  embedding_model: none\n")
    result = runner.invoke(app, ["-C", str(paths.root), "search", "--mode", "semantic", "x"])
    assert result.exit_code == 2 and "embedding_model" in result.output
    assert runner.invoke(app, ["-C", str(paths.root), "search", "x"]).exit_code == 0  # lexical


def test_a_cjk_source_is_found_by_a_cjk_query(tmp_path: Path) -> None:
    paths = make_wiki(tmp_path / "w")
    source = (
        "---\ntype: source\ntitle: 机器学习入门\nkind: article\n---\n\n# 机器学习入门\n\n"
        "机器学习是人工智能的一个分支，它让计算机从数据中学习。 ^p1\n\n"
        "東京は日本の首都です。 ^p2\n"
    )
    write_page(paths, "sources/ml-intro.md", source)
    write_page(paths, "concepts/other.md", topic_page("Other", ["Nothing in Chinese here."]))
    with open_store(paths) as store:
        hits = store.passages("什么是机器学习？", limit=5, ranking="lexical")
        assert [(h.path, h.block) for h in hits][:1] == [("sources/ml-intro.md", "p1")]
        assert [h.block for h in store.passages("日本の首都はどこ", limit=5)][:1] == ["p2"]
        assert [h.path for h in store.search("人工智能")] == ["sources/ml-intro.md"]
        assert store.search("智能计算机", mode="all") == []  # both bigram runs: no page has 能计


# -- similarity where words miss ---------------------------------------------------------------


def _episode(text: str) -> Episode:
    return Episode(
        "sources/2026-04-03-log.md",
        "raw/2026-04-03-log.md",
        "Log",
        dt.date(2026, 4, 3),
        "",
        (EpisodeBlock("p1", text, (text,)),),
        None,
        frozenset(),
    )


def test_consolidation_target_found_by_meaning_that_words_miss(meaning_wiki: WikiPaths) -> None:
    text = "Gave the chatbot a shorter nickname so the command stays brief."
    episode = _episode(text)
    words = ("chatbot", "shorter", "nickname", "command", "stays", "brief")
    unit = Unit(episode, episode.blocks[0], 0, text, frozenset(words))
    item = Recurring(words, (unit,), tuple((w, 1) for w in words))
    vault = Vault.load(meaning_wiki.wiki)
    with open_store(meaning_wiki) as store:
        found = store.search(" ".join(words), mode="any", ranking="lexical")
        assert "concepts/model-aliases.md" not in [h.path for h in found]
        targets = suggest_targets(store, vault.pages, item, limit=8)
    assert "concepts/model-aliases.md" in {t.page for t in targets}


def test_twin_pages_found_by_meaning_that_name_checks_miss(tmp_path: Path) -> None:
    paths = filler_wiki(tmp_path / "w")
    facts = [
        "A repetition penalty lowers the probability of tokens that already appeared.",
        "The repetition penalty stops the model from repeating the same phrase.",
    ]
    write_page(paths, "concepts/repetition-penalty.md", topic_page("Repetition penalty", facts))
    twin = [
        "A repeat penalty lowers the chance of tokens that were already generated.",
        "The repeat penalty keeps the model from saying the same phrase again.",
    ]
    write_page(paths, "concepts/repeat-penalty.md", topic_page("Repeat penalty", twin))
    report = run_lint(paths, LintOptions(semantic=True, rules=("twin-page", "duplicate-title")))
    rules = {(f.rule, f.page) for f in report.findings}
    assert ("twin-page", "wiki/concepts/repetition-penalty.md") in rules
    assert not any(r == "duplicate-title" for r, _ in rules)  # names alone do not tie them
    assert not any("filler" in p for r, p in rules if r == "twin-page")


def test_store_search_defaults_to_words(meaning_wiki: WikiPaths) -> None:
    with Store(meaning_wiki) as store:
        store.sync()
        assert store.search("nickname") == []  # callers picking pages by words get words
