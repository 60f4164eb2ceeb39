"""Hand edits on a source page are replayed onto its recompiled page: the rules, on constructed
pages (base: as ingest last wrote it; current: with the user's edits; new: compiled again)."""

from __future__ import annotations

import datetime as dt

import pytest

from wikic.vault.hand_edits import keep_hand_edits
from wikic.vault.page_units import join_units, split_units
from wikic.vault.pages import Page

SUMMARY = "How decoders keep past keys and values."
P1 = "A transformer decoder stores the keys and values of past tokens. ^p1"
P2 = "The KV cache grows linearly with the context length. ^p2"
P3 = "Gemma 3 interleaves 5 local layers with 1 global layer. ^p3"


def page(
    summary: str = SUMMARY,
    text: tuple[str, ...] = (P1, P2, P3),
    pages: tuple[str, ...] = ("[[concepts/kv-cache|KV cache]]",),
    tail: str = "",
    **props: object,
) -> Page:
    body = "\n\n".join(
        [
            "# The KV cache",
            summary,
            "## Pages",
            "\n".join(f"- {p}" for p in pages),
            "## Text",
            "### The KV cache",
            *text,
        ]
    )
    base_props = {
        "type": "source",
        "title": "The KV cache",
        "tags": ["source", "note"],
        "summary": summary,
        "raw": "raw/kv-cache.md",
        "sha256": "sha256:1",
        "ingested": dt.date(2026, 1, 1),
    }
    return Page("sources/kv-cache.md", {**base_props, **props}, body + tail + "\n")


def edited(base: Page, old: str, new: str) -> Page:
    assert old in base.body
    return Page(base.path, base.props, base.body.replace(old, new))


NOTES = "\n\n## Notes\n\nI read this on the train."


def test_a_page_nobody_edited_is_the_new_page() -> None:
    new = page(summary="A new summary.", sha256="sha256:2")
    result = keep_hand_edits(new, page(), page())
    assert result.page is new and result.kept == () and result.replaced == ()


def test_a_notes_section_stays_at_the_end_though_the_text_before_it_changed() -> None:
    base = page()
    current = Page(base.path, base.props, base.body.rstrip("\n") + NOTES + "\n")
    new = page(text=(P1, P2, "Gemma 3 interleaves 6 local layers with 1 global layer. ^p3"))
    result = keep_hand_edits(new, current, base)
    assert result.page.body.endswith("with 1 global layer. ^p3" + NOTES + "\n")
    assert result.kept == ("## Notes",) and result.replaced == ()


def test_a_section_added_after_the_opening_stays_there() -> None:
    base = page()
    current = edited(
        base, f"{SUMMARY}\n\n## Pages", f"{SUMMARY}\n\n## My view\n\nGood.\n\n## Pages"
    )
    result = keep_hand_edits(page(summary="A new summary."), current, base)
    assert "# The KV cache\n\nA new summary.\n\n## My view\n\nGood.\n\n## Pages" in result.page.body


def test_a_typo_fixed_in_the_text_stays_where_the_source_did_not_change() -> None:
    base = page()
    current = edited(base, "grows linearly", "grows linearly (one entry per token)")
    new = page(text=(P1, P2, "Gemma 3 interleaves 6 local layers with 1 global layer. ^p3"))
    result = keep_hand_edits(new, current, base)
    assert "grows linearly (one entry per token) with the context length. ^p2" in result.page.body
    assert "interleaves 6 local" in result.page.body  # the source's own change landed too
    assert result.kept == ("the text (^p2)",)


def test_a_fixed_paragraph_keeps_the_block_id_the_changed_source_gives_it() -> None:
    base = page()
    current = edited(base, "A transformer decoder", "A Transformer decoder")
    new_p0 = "A new first paragraph. ^p1"
    shifted = (new_p0, P1.replace("^p1", "^p2"), P2.replace("^p2", "^p3"), P3.replace("^p3", "^p4"))
    result = keep_hand_edits(page(text=shifted), current, base)
    assert (
        "A Transformer decoder stores the keys and values of past tokens. ^p2" in result.page.body
    )
    assert new_p0 in result.page.body


def test_an_edit_of_a_paragraph_the_source_changed_too_gives_way_and_is_reported() -> None:
    base = page()
    current = edited(base, "5 local layers", "five local layers")
    new = page(text=(P1, P2, "Gemma 3 interleaves 6 local layers with 1 global layer. ^p3"))
    result = keep_hand_edits(new, current, base)
    assert "interleaves 6 local layers" in result.page.body and "five" not in result.page.body
    assert result.replaced == ("the text (^p3)",) and result.kept == ()


def test_a_rewritten_summary_is_kept_even_when_the_new_one_differs() -> None:
    base = page()
    current = edited(base, SUMMARY, "My own summary of it.")
    new = page(summary="A new summary.")
    result = keep_hand_edits(new, current, base)
    assert "# The KV cache\n\nMy own summary of it.\n\n## Pages" in result.page.body
    assert result.page.props["summary"] == "A new summary."  # what wikic would have written
    assert result.kept == ("the summary",)


def test_a_link_added_to_a_list_stays_in_it() -> None:
    base = page()
    current = edited(
        base,
        "- [[concepts/kv-cache|KV cache]]",
        "- [[concepts/kv-cache|KV cache]]\n- [[concepts/attention|Attention]]",
    )
    new = page(pages=("[[concepts/kv-cache|KV cache]]", "[[entities/gemma-3|Gemma 3]]"))
    body = keep_hand_edits(new, current, base).page.body
    assert (
        "- [[concepts/kv-cache|KV cache]]\n- [[concepts/attention|Attention]]\n"
        "- [[entities/gemma-3|Gemma 3]]\n" in body
    )


def test_a_deleted_part_stays_deleted() -> None:
    base = page()
    current = Page(base.path, base.props, base.body.replace(f"\n\n{P2}", ""))
    result = keep_hand_edits(page(sha256="sha256:2"), current, base)
    assert P2 not in result.page.body and P3 in result.page.body


def test_properties_the_user_set_stay_and_what_the_source_says_is_new() -> None:
    base = page(consolidated=dt.date(2026, 1, 2), gist="A gist.")
    current = Page(
        base.path,
        {**base.props, "tags": ["source", "note", "to-read"], "rating": 5},
        base.body,
    )
    new = page(sha256="sha256:2", ingested=dt.date(2026, 2, 1))
    props = keep_hand_edits(new, current, base).page.props
    assert props["tags"] == ["source", "note", "to-read"] and props["rating"] == 5
    assert props["sha256"] == "sha256:2" and props["ingested"] == dt.date(2026, 2, 1)
    assert "consolidated" not in props and "gist" not in props  # consolidated again


def test_without_history_the_summary_and_added_sections_are_still_kept() -> None:
    base = page()
    current = edited(base, SUMMARY, "My own summary.")
    current = Page(current.path, current.props, current.body.rstrip("\n") + NOTES + "\n")
    current = edited(current, "grows linearly", "grows linearly (fixed)")
    result = keep_hand_edits(page(summary="A new summary."), current, None)
    assert "My own summary." in result.page.body and result.page.body.endswith(NOTES[2:] + "\n")
    # inside the compiled text an edit cannot be told from the source without the base
    assert "(fixed)" not in result.page.body
    assert set(result.kept) == {"the summary", "## Notes"}


@pytest.mark.parametrize(
    "body",
    [
        "# T\n\nA paragraph. ^p1\n\n```python\nx = 1\n\ny = 2\n```\n\n^p2\n\n- a ^p3\n- b ^p4\n",
        "# T\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n^p1\n\n- one\n  continued\n- two\n",
    ],
)
def test_units_join_back_into_the_body(body: str) -> None:
    assert join_units(split_units(body)) == body


def test_what_consolidate_added_stays_and_is_not_called_the_users() -> None:
    base = page()
    consolidated = "\n\n## Consolidated into\n\n- [[digests/2026-W14|2026-W14]] ^c-2026-w14-1a2b3c"
    current = Page(
        base.path,
        {**base.props, "tags": ["source", "note", "episode"], "consolidated": dt.date(2026, 4, 7)},
        base.body.rstrip("\n") + consolidated + "\n",
    )
    result = keep_hand_edits(page(sha256="sha256:2"), current, base)
    assert result.page.body.endswith(consolidated + "\n")
    assert result.page.props["tags"] == ["source", "note", "episode"]
    assert "consolidated" not in result.page.props  # consolidated again: it changed
    assert result.kept == ()
