from __future__ import annotations

from wikic.query.attribution import attribute

PAGES = [
    (
        "entities/gemma-3.md",
        "# Gemma 3\n\n## Facts\n\n- Gemma 3 uses a sliding window of 512 tokens in its local layers. "
        "[[sources/prefix-caching#^p4]] ^f-044494\n",
    ),
    (
        "sources/debug.md",
        "## Text\n\nOnce a prompt is longer than the window, the rotating cache wraps and the "
        "stored prefix cannot be reused. ^p2\n",
    ),
]


def test_paraphrases_get_the_passage_citation() -> None:
    answer = (
        "Gemma 3 uses a sliding window of 512 tokens in its local layers. "
        "When the prompt is longer than the window the rotating cache wraps, so the stored prefix "
        "cannot be reused! Bananas are yellow."
    )
    text, added = attribute(answer, PAGES)
    assert added == 2
    assert "local layers [[sources/prefix-caching#^p4]]." in text
    assert "cannot be reused [[sources/debug#^p2]]!" in text
    assert text.endswith("Bananas are yellow.")


def test_cited_or_unrelated_sentences_are_left_alone() -> None:
    answer = "Gemma 3 uses 512 tokens [[entities/gemma-3]]. The moon is made of cheese."
    assert attribute(answer, PAGES) == (answer, 0)
    assert attribute("", PAGES) == ("", 0)
    assert attribute("Anything at all here.", []) == ("Anything at all here.", 0)
