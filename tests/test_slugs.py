from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wikic.errors import PageError
from wikic.vault.slugs import MAX_SLUG_BYTES, safe_page_path, slugify, unique_slug

NASTY = [
    "../x", "../../etc/passwd", "/etc/passwd", "a\x00b", "CON", "nul", "Com1", "index", "log",
    "x" * 300, "é" * 200, "🙂🙂", "שלום עולם", "مرحبا بالعالم", ".hidden", "..", ".", "",
    "a/b\\c", "C:\\Windows\\system32", "\u202eevil\u202c.md", "tab\there", "  spaced  out  ",
]  # fmt: skip


@pytest.mark.parametrize("title", NASTY)
def test_nasty_titles_give_safe_slugs(tmp_path: Path, title: str) -> None:
    slug = slugify(title)
    assert slug and "/" not in slug and "\\" not in slug and "\x00" not in slug
    assert not slug.startswith(".")
    assert len(slug.encode()) <= MAX_SLUG_BYTES
    rel = safe_page_path(tmp_path, "concepts", slug)
    assert (tmp_path / rel).resolve().is_relative_to(tmp_path.resolve())


def test_readable_slugs_keep_scripts() -> None:
    assert slugify("Prefix Cache (KV)") == "prefix-cache-kv"
    assert slugify("Café au lait") == "café-au-lait"
    assert slugify("שלום עולם") == "שלום-עולם"
    assert slugify("CON") == "con-page"
    assert slugify("🙂").startswith("page-")


def test_long_titles_stay_distinct() -> None:
    a, b = slugify("x" * 300 + "a"), slugify("x" * 300 + "b")
    assert a != b


def test_unique_slug_is_case_insensitive() -> None:
    assert unique_slug("a", ["A", "a-2"]) == "a-3"
    assert unique_slug("b", ["a"]) == "b"


def test_safe_page_path_rejects_unsafe_input(tmp_path: Path) -> None:
    for bad in ("..", "../x", "a/b", ".x"):
        with pytest.raises(PageError):
            safe_page_path(tmp_path, "concepts", bad)
    with pytest.raises(PageError):
        safe_page_path(tmp_path, "", "index")


@settings(max_examples=400)
@given(st.text(min_size=0, max_size=400))
def test_any_title_gives_a_path_inside_the_wiki(title: str) -> None:
    slug = slugify(title)
    root = Path("/tmp/wikic-slug-test/wiki")
    rel = safe_page_path(root, "entities", slug)
    assert rel.parts[0] == "entities" and len(rel.parts) == 2
    assert len(slug.encode()) <= MAX_SLUG_BYTES
    assert slugify(title) == slug  # stable
