"""The contradiction heuristic (language/conflicts.py) on constructed pairs of facts."""

from __future__ import annotations

from wikic.language.conflicts import conflict_reason


def test_the_same_statement_with_other_numbers_conflicts() -> None:
    reason = conflict_reason(
        "Water boils at 100 degrees at sea level.", "Water boils at 90 degrees at sea level."
    )
    assert reason is not None and "100 vs 90" in reason


def test_a_statement_and_its_negation_conflict() -> None:
    assert (
        conflict_reason(
            "The cache is shared between threads.", "The cache is not shared between threads."
        )
        == "one statement negates the other"
    )


def test_statements_about_different_things_do_not_conflict() -> None:
    assert conflict_reason("The cache holds 4 GB.", "The tokenizer splits 3 words.") is None


def test_stop_words_count_for_no_overlap() -> None:
    # only "cache" and "large" are content words: half of them shared is below the overlap
    assert conflict_reason("The cache is large.", "The tokenizer is large and it was not.") is None


def test_version_notes_that_name_nothing_do_not_conflict() -> None:
    """ "Added in 2.13.0." under one section and "Added in 2.26.9." under another share one
    content word: each is about its own section's feature, not one statement twice."""
    assert conflict_reason("Added in 2.13.0.", "Added in 2.26.9.") is None
    reason = conflict_reason("The option was added in 2.13.0.", "The option was added in 2.26.9.")
    assert reason is not None and "2.13.0 vs 2.26.9" in reason
