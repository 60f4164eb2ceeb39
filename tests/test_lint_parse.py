"""Lint's fast parsing equals the foundation's: properties, links, claims, names (property tests)."""

from __future__ import annotations

import datetime as dt

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from wikic.errors import PageError
from wikic.lint.page_scan import scan_page
from wikic.lint.parse import section_claims, split_block_id
from wikic.lint.yamlfast import fast_props
from wikic.vault.links import iter_links
from wikic.vault.names import name_key, near_duplicate_pairs, within_one_edit
from wikic.vault.pages import Page, parse_page, render_page
from wikic.vault.sections import FACTS, bullets, split_body

KEYS = st.sampled_from(
    ["type", "title", "tags", "aliases", "sources", "on", "yes", "null", "true", "x-y", "a_b", "n1"]
)
TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=30
) | st.sampled_from(
    [
        "",
        "~",
        "null",
        "yes",
        "No",
        "1_000",
        "0x1F",
        "1:20",
        "3.5e3",
        ".inf",
        "2026-01-02",
        "2026-01-02 10:00:00",
        "a: b",
        "C# tips",
        "x #y",
        "[[a]]",
        "it's",
        '"q"',
        "- item",
        "=",
        "<<",
    ]
)
SCALARS = TEXT | st.integers() | st.floats(allow_nan=False) | st.booleans() | st.none() | st.dates()
VALUES = SCALARS | st.lists(SCALARS, max_size=4)


def _head(props: dict[str, object]) -> str:
    rendered = render_page(Page("x.md", props, ""))
    return rendered[4 : rendered.rindex("\n---\n") + 1] if props else ""


def _load(text: str) -> object:
    return yaml.load(text, Loader=yaml.CSafeLoader)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(KEYS, VALUES, max_size=6))
def test_fast_props_equal_pyyaml_on_rendered_properties(props: dict[str, object]) -> None:
    text = _head(props)
    fast = fast_props(text)
    assert fast is None or fast == _load(text)


LINE = (
    st.sampled_from(
        [
            "key: value",
            "key:",
            "- a",
            "  - b",
            "- 'q'",
            "title: 'it''s'",
            'x: "d"',
            "n: 12",
            "d: 2026-01-02",
            "t: [[a]]",
            "e: []",
            "m: {}",
            "# c",
            "   ",
            "k: a: b",
            "k: v # c",
            "on: x",
            "k: &a v",
            "k: *a",
            "k: |",
            "k: !x v",
            "-x",
            "k:  two",
            "k: v ",
            "\tk: v",
        ]
    )
    | TEXT
)


@settings(max_examples=600, deadline=None)
@given(st.lists(LINE, max_size=8))
def test_fast_props_is_exact_or_declines_on_arbitrary_text(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    fast = fast_props(text)
    try:
        expected = _load(text)
    except (yaml.YAMLError, ValueError):
        assert fast is None
        return
    assert (
        fast is None
        or (isinstance(expected, dict) and fast == expected)
        or (expected is None and fast == {})
    )


def test_fast_props_handles_what_wikic_writes() -> None:
    props = {
        "type": "concept",
        "title": "KV cache",
        "aliases": ["KV"],
        "tags": ["concept"],
        "summary": "Keys and values, cached.",
        "sources": ["[[sources/a]]"],
        "contradictions": 2,
        "created": dt.date(2026, 1, 2),
        "updated": dt.date(2026, 1, 3),
    }
    assert fast_props(_head(props)) == props


BODY_PARTS = st.sampled_from(
    [
        "## Facts",
        "## Related",
        "## Contradictions",
        "## facts",
        "- Claim [[sources/a#^p1]] ^f-1",
        "- Plain",
        "* Star [[b]]",
        "  continued [[c#h]]",
        "",
        "```",
        "~~~",
        "`[[code]]`",
        "text ^p2",
        "- **open** — [[#^f-1]] vs [[#^f-2]]: x",
        "![[img.png]]",
        "[[a|b]] and [[x\\|y]]",
        "##  Facts ",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(BODY_PARTS, max_size=14), st.sampled_from(["concept", "source"]))
def test_scan_equals_parse_page_links_and_sections(parts: list[str], kind: str) -> None:
    body = "\n".join(parts)
    text = f"---\ntype: {kind}\ntitle: T\n---\n\n{body}\n"
    ps = scan_page("concepts/t.md", text, {}, {})
    page = parse_page("concepts/t.md", text)
    assert (ps.page.props, ps.page.body) == (dict(page.props), page.body)
    assert [(r.start, r.end, r.link) for r in ps.links] == list(iter_links(page.body))
    for heading in (FACTS, "Contradictions"):
        ours = section_claims(ps.page.body, heading, ps.links)
        theirs = bullets(split_body(page.body).get(heading))
        assert [(c.text, c.block) for c in ours] == [(b.text, b.block) for b in theirs]
        if "`" not in body and "~" not in body:
            # links inside code never count for lint (as in Obsidian); `bullets` parses each
            # bullet on its own and so still sees a link in a bullet inside a code block
            assert [c.links for c in ours] == [b.links for b in theirs]


@given(st.text(max_size=40))
def test_scan_reports_the_same_errors_as_parse_page(junk: str) -> None:
    text = f"---\n{junk}\n---\nbody\n"
    try:
        expected = parse_page("a.md", text)
    except (PageError, TypeError):
        expected = None
    try:
        got = scan_page("a.md", text, {}, {}).page
    except PageError:
        got = None
    assert (got is None) == (expected is None)
    if got is not None and expected is not None:
        assert (got.props, got.body) == (dict(expected.props), expected.body)


def test_split_block_id() -> None:
    assert split_block_id("A claim. ^f-1a") == ("A claim.", "f-1a")
    assert split_block_id("x^2") == ("x^2", None)
    assert split_block_id("a ^b ^") == ("a ^b ^", None)
    assert split_block_id("tab\t^id  ") == ("tab", "id")


def test_names() -> None:
    assert name_key("The Prefix-Caches") == name_key("prefix cache") == "prefixcach"
    # one rule for ingest and lint: these were one name to ingest and two to lint
    assert name_key("Entity") == name_key("Entities")
    assert name_key("LLMs") == name_key("LLM") and name_key("APIs") == name_key("API")
    assert name_key("The Cache") == name_key("cache") == name_key("Caché")
    assert name_key("KV cache") == name_key("kv-cache") == name_key("KV_Caches")
    assert name_key("Llama 2") != name_key("Llama 3")
    assert within_one_edit("transformer", "transfomer") and within_one_edit("abcd", "abdc")
    assert not within_one_edit("abcd", "bcde")
    keys = ["transformer", "transformers", "transfomer", "llama-2", "llama-3", "nr3431", "nr4331"]
    pairs = near_duplicate_pairs([name_key(k) for k in keys])
    assert pairs == {(name_key("transfomer"), name_key("transformer"))}
    # a first letter replaced or added is another name; two first letters swapped, a typo
    pairs = near_duplicate_pairs([name_key(k) for k in ["rqlite", "SQLite", "psqlite"]])
    assert pairs == set()
    assert near_duplicate_pairs(["qrlite", "rqlite"]) == {("qrlite", "rqlite")}
