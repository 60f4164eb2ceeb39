"""`wikic search`: ranking, filters, safe query parsing, and the CLI (incl. `wikic reindex`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tests.helpers.storetools import sample_wiki, write_page
from tests.helpers.wikitools import page_text
from wikic.cli import app
from wikic.errors import UsageError
from wikic.store.db import Store, open_store
from wikic.store.search import Term, fts_expression, parse_query, parse_where

runner = CliRunner()


@pytest.fixture
def wiki(tmp_path: Path):
    return sample_wiki(tmp_path / "w")


@pytest.fixture
def store(wiki):
    with open_store(wiki) as opened:  # one store for all examples of a hypothesis test
        yield opened


def paths_of(store: Store, query: str, **filters) -> list[str]:
    return [h.path for h in store.search(query, **filters)]


def test_title_outranks_many_body_mentions(wiki) -> None:
    body = " ".join(["Wombats dig burrows."] * 30)
    write_page(wiki, "concepts/digging.md", page_text("Digging", body))
    write_page(wiki, "entities/wombat.md", page_text("Wombat", "A marsupial."))
    with open_store(wiki) as store:
        assert paths_of(store, "wombat") == ["entities/wombat.md", "concepts/digging.md"]


def test_alias_and_summary_outrank_body(wiki) -> None:
    write_page(wiki, "concepts/other.md", page_text("Other", "Mentions kv reuse in passing."))
    with open_store(wiki) as store:
        assert paths_of(store, "kv reuse")[0] == "concepts/prefix-cache.md"


def test_snippet_marks_the_hit_and_reads_like_prose(wiki) -> None:
    with open_store(wiki) as store:
        (hit, *_) = store.search("checksum")
    assert hit.path == "sources/paper.md"
    assert "**checksum**" in hit.snippet
    assert "^p3" not in hit.snippet and "[[" not in hit.snippet


def test_prefix_phrase_exclusion_and_diacritics(wiki) -> None:
    write_page(wiki, "entities/cafe.md", page_text("Café Crème", "A place near the lab."))
    with open_store(wiki) as store:
        assert "concepts/sliding-window.md" in paths_of(store, "slid")  # last word as a prefix
        assert paths_of(store, "cafe creme") == ["entities/cafe.md"]  # accents ignored
        assert paths_of(store, '"shared prompt prefix"')[0] == "concepts/prefix-cache.md"
        assert paths_of(store, '"prefix shared prompt"') == []
        both = paths_of(store, "snapshots")
        assert "sources/paper.md" in both
        assert "sources/paper.md" not in paths_of(store, "snapshots -checksum")
        assert "concepts/prefix-cache.md" in paths_of(store, "caches", prefix_last=False)  # stems


def test_all_words_first_then_any_word(wiki) -> None:
    with open_store(wiki) as store:
        assert paths_of(store, "checksum lock") == ["sources/paper.md"]
        assert paths_of(store, "checksum zanzibar") == ["sources/paper.md"]  # falls back
        assert paths_of(store, "zanzibar") == []


def test_filters(wiki) -> None:
    with open_store(wiki) as store:
        assert paths_of(store, "cache", types=["source"]) == ["sources/paper.md"]
        assert set(paths_of(store, "", types=["concept", "entity"])) == {
            "concepts/prefix-cache.md",
            "concepts/sliding-window.md",
            "entities/mlx.md",
        }
        # a tag matches itself and its nested tags, case-insensitively, with or without #
        assert set(paths_of(store, "", tags=["ML"])) == {
            "concepts/prefix-cache.md",
            "concepts/sliding-window.md",
        }
        assert paths_of(store, "", tags=["#ml/inference"]) == ["concepts/prefix-cache.md"]
        assert paths_of(store, "", tags=["ml", "software"]) == []
        assert paths_of(store, "", where=parse_where(["updated=2025-03-02"])) == [
            "concepts/prefix-cache.md"
        ]
        # list properties: membership; link values also by their target
        for value in ("[[sources/paper]]", "sources/paper", "SOURCES/PAPER"):
            found = paths_of(store, "", where=parse_where([f"sources={value}"]))
            assert found == ["concepts/prefix-cache.md", "concepts/sliding-window.md"], value
        assert paths_of(store, "", where=parse_where(["aliases=kv reuse"])) == [
            "concepts/prefix-cache.md"
        ]
        assert paths_of(store, "snapshots", where=parse_where(["kind=paper"])) == [
            "sources/paper.md"
        ]


def test_bad_where_and_limit() -> None:
    with pytest.raises(UsageError):
        parse_where(["novalue"])
    with pytest.raises(UsageError):
        parse_where(["=x"])
    assert parse_where(["Status = Draft  one"]) == [("status", "draft one")]


def test_parse_query() -> None:
    assert parse_query('"a phrase" -not word*') == [
        Term("a phrase", phrase=True),
        Term("not", exclude=True),
        Term("word*"),
    ]
    assert parse_query('unbalanced "quote') == [Term("unbalanced"), Term("quote")]
    assert parse_query("-- : * ( )") == []
    expr = fts_expression(parse_query('AND "x" NEAR(a'), mode="all", prefix_last=True)
    assert expr == '"AND" AND "x" AND "NEAR(a"*'


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(query=st.text(max_size=60), type_=st.text(max_size=8), where=st.text(max_size=12))
def test_any_query_never_raises(store, query: str, type_: str, where: str) -> None:
    for mode in ("auto", "all", "any"):
        store.search(query, mode=mode)  # type: ignore[arg-type]
    store.search(query, types=[type_], tags=[type_], where=[(where, query)], limit=3)


FTS_SYNTAX = st.lists(
    st.sampled_from(
        [
            '"',
            "-",
            ":",
            "*",
            "AND",
            "OR",
            "NOT",
            "NEAR",
            "(",
            ")",
            "^",
            "+",
            "{",
            "}",
            "cache",
            "prefix",
            " ",
            "é",
            "''",
            "\\",
            "/",
        ]
    ),
    max_size=12,
).map("".join)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(query=FTS_SYNTAX)
def test_fts_syntax_in_queries_never_raises(store, query: str) -> None:
    store.search(query)
    store.search(query, mode="any", prefix_last=False)


# -- CLI -------------------------------------------------------------------------------------


def run(wiki, *args: str):
    return runner.invoke(app, ["--wiki", str(wiki.root), *args])


def test_cli_search_json_shape(wiki) -> None:
    result = run(wiki, "search", "prefix", "cache", "--json")
    assert result.exit_code == 0, result.output
    hits = json.loads(result.stdout)
    assert hits[0]["path"] == "concepts/prefix-cache.md"
    assert set(hits[0]) == {"path", "file", "title", "type", "score", "snippet", "summary"}
    assert hits[0]["file"] == "wiki/concepts/prefix-cache.md"


def test_cli_search_human_output_and_filters(wiki) -> None:
    result = run(wiki, "search", "snapshots", "--type", "concept", "--limit", "1")
    assert result.exit_code == 0, result.output
    assert "Prefix cache" in result.stdout and "wiki/concepts/prefix-cache.md" in result.stdout
    result = run(wiki, "search", "--where", "kind=paper")
    assert result.exit_code == 0, result.output
    assert "Prefix Caching Paper" in result.stdout


def test_cli_search_says_when_nothing_matches(wiki) -> None:
    result = run(wiki, "search", "zanzibar")
    assert result.exit_code == 0, result.output
    assert "No pages match 'zanzibar'" in result.stdout
    result = run(wiki, "search", "cache", "--type", "person")
    assert "No pages of type person" in result.stdout
    assert json.loads(run(wiki, "search", "zanzibar", "--json").stdout) == []


def test_cli_search_usage_errors(wiki) -> None:
    result = run(wiki, "search")
    assert result.exit_code == 2 and "nothing to search for" in result.output
    result = run(wiki, "search", "x", "--where", "oops")
    assert result.exit_code == 2 and "KEY=VALUE" in result.output
    result = run(wiki, "search", '"AND -:*')
    assert result.exit_code == 0, result.output


def test_cli_reindex(wiki) -> None:
    result = run(wiki, "reindex", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["pages"], data["claims"], data["contradictions"]) == (4, 3, 1)
    assert data["types"] == {"concept": 2, "entity": 1, "source": 1}
    result = run(wiki, "reindex")
    assert result.exit_code == 0, result.output
    assert "Indexed 4 pages (3 claims, 1 contradiction, 1 open)" in result.stdout
