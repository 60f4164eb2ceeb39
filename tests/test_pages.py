from __future__ import annotations

import datetime as dt

import pytest
import yaml

from wikic.errors import PageError
from wikic.vault.catalog import render_index
from wikic.vault.logbook import LogEntry, append_entry, parse_entries
from wikic.vault.pages import Page, is_valid_tag, parse_page, render_page, to_tag


def test_render_is_deterministic_and_parses_back() -> None:
    page = Page(
        "concepts/kv.md",
        {
            "updated": dt.date(2026, 11, 22),
            "title": "KV cache",
            "type": "concept",
            "sources": ["[[sources/a]]", "[[sources/b]]"],
            "aliases": ["key-value cache"],
            "tags": ["concept", "ml/inference"],
        },
        "# KV cache\n\nBody ^p1\n",
    )
    text = render_page(page)
    assert text == render_page(parse_page(page.path, text))
    assert text.splitlines()[1] == "type: concept"  # canonical order
    back = parse_page(page.path, text)
    assert back.props["sources"] == ["[[sources/a]]", "[[sources/b]]"]  # links stay quoted strings
    assert back.props["updated"] == dt.date(2026, 11, 22)
    assert "'[[sources/a]]'" in text or '"[[sources/a]]"' in text


def test_tags() -> None:
    assert to_tag("Machine Learning") == "machine-learning"
    assert to_tag("#2024") == "n2024"
    assert is_valid_tag("y2024") and is_valid_tag("a/b_c-d")
    assert not is_valid_tag("2024") and not is_valid_tag("a b") and not is_valid_tag("")


def test_broken_yaml_is_a_page_error() -> None:
    with pytest.raises(PageError, match=r"bad\.md"):
        parse_page("bad.md", "---\ntitle: [unclosed\n---\nbody")


def test_index_groups_sorts_and_is_stable() -> None:
    pages = [
        Page(
            "sources/b.md", {"type": "source", "title": "B source", "ingested": dt.date(2026, 1, 2)}
        ),
        Page(
            "concepts/z.md",
            {
                "type": "concept",
                "title": "Zeta",
                "summary": "Last\nletter.",
                "sources": ["[[sources/b]]"],
            },
        ),
        Page(
            "concepts/a.md", {"type": "concept", "title": "alpha", "updated": dt.date(2026, 1, 3)}
        ),
    ]
    text = render_index(pages)
    assert text == render_index(list(reversed(pages)))
    lines = text.splitlines()
    assert lines.index("## Concepts") < lines.index("## Sources")
    assert "- [[concepts/a|alpha]] (0 sources, updated 2026-01-03)" in lines
    assert "- [[concepts/z|Zeta]] — Last letter. (1 source)" in lines
    assert lines.index("- [[concepts/a|alpha]] (0 sources, updated 2026-01-03)") < lines.index(
        "- [[concepts/z|Zeta]] — Last letter. (1 source)"
    )


def test_log_append_and_parse() -> None:
    text = append_entry("", LogEntry(dt.date(2026, 11, 22), "ingest", "Paper A", ("created x",)))
    text = append_entry(text, LogEntry(dt.date(2026, 11, 23), "query", "What  is\nB?"))
    entries = parse_entries(text)
    assert [(e.op, e.title) for e in entries] == [("ingest", "Paper A"), ("query", "What is B?")]
    assert entries[0].bullets == ("created x",)
    headings = [line for line in text.splitlines() if line.startswith("## [")]
    assert headings == ["## [2026-11-22] ingest | Paper A", "## [2026-11-23] query | What is B?"]


def test_yaml_dump_has_no_nested_values_for_lists() -> None:
    page = Page("a.md", {"aliases": ["x"], "tags": ["t"]}, "b")
    props = yaml.safe_load(render_page(page).split("---")[1])
    assert props == {"aliases": ["x"], "tags": ["t"]}


def test_properties_named_like_frontmatter_internals_parse() -> None:
    page = parse_page("x.md", "---\ncontent: a\nhandler: b\n---\nbody\n")
    assert page.props == {"content": "a", "handler": "b"} and page.body == "body\n"
    with pytest.raises(PageError, match="text keys"):
        parse_page("x.md", "---\n1: a\n---\nbody\n")
