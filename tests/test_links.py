from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from wikic.vault.links import (
    FORBIDDEN_IN_ALIAS,
    FORBIDDEN_IN_TARGET,
    WikiLink,
    block_ids,
    headings,
    link,
    parse_links,
)

_target_chars = st.characters(
    blacklist_characters="".join(FORBIDDEN_IN_TARGET), blacklist_categories=("Cs",)
)
_alias_chars = st.characters(
    blacklist_characters="".join(FORBIDDEN_IN_ALIAS), blacklist_categories=("Cs",)
)
targets = st.text(_target_chars, min_size=1, max_size=40).filter(
    lambda t: t.strip() == t and t and not t.endswith("\\") and "`" not in t
)
aliases = st.text(_alias_chars, min_size=1, max_size=40).filter(
    lambda a: "`" not in a and "]" not in a
)
blocks = st.from_regex(r"[A-Za-z0-9-]{1,12}", fullmatch=True)


@given(
    target=targets,
    anchor=st.one_of(st.none(), st.tuples(st.just("h"), targets), st.tuples(st.just("b"), blocks)),
    alias=st.one_of(st.none(), aliases),
    embed=st.booleans(),
)
def test_render_parse_round_trip(target, anchor, alias, embed) -> None:
    heading = anchor[1] if anchor and anchor[0] == "h" else None
    block = anchor[1] if anchor and anchor[0] == "b" else None
    original = WikiLink(target, heading, block, alias, embed)
    text = f"before {original.render()} after"
    assert parse_links(text) == [original]


def test_all_link_forms() -> None:
    text = "[[Page]] [[Page|alias]] [[Page#Heading]] [[sources/x#^p12]] ![[img.png]] [[a\\|b]]"
    assert parse_links(text) == [
        WikiLink("Page"),
        WikiLink("Page", alias="alias"),
        WikiLink("Page", heading="Heading"),
        WikiLink("sources/x", block="p12"),
        WikiLink("img.png", embed=True),
        WikiLink("a", alias="b"),
    ]


def test_links_in_code_are_ignored() -> None:
    text = (
        "real [[A]] and `[[inline]]` and ``[[double]]``\n\n"
        "```python\nx = '[[fenced]]'\n```\n"
        "~~~\n[[tilde]]\n~~~\n"
        "after [[B]]\n"
    )
    assert [lnk.target for lnk in parse_links(text)] == ["A", "B"]


def test_unclosed_fence_hides_the_rest() -> None:
    assert parse_links("[[A]]\n```\n[[B]]\n") == [WikiLink("A")]


def test_link_helper_cleans_and_drops_redundant_alias() -> None:
    assert link("concepts/x", alias="concepts/x") == "[[concepts/x]]"
    assert link("a|b[c]", alias="x|y") == "[[a b c|x y]]"
    assert link("sources/s", block="p3") == "[[sources/s#^p3]]"


def test_block_ids_and_headings() -> None:
    text = "# Title\n\npara one ^p1\n\n## Facts\n- fact ^c-1\n\n```\nnot ^p9\n```\n"
    assert block_ids(text) == {"p1", "c-1"}
    assert headings(text) == ["Title", "Facts"]
