"""The long form of an abbreviation: Schwartz–Hearst, initials first, one X skipped."""

from __future__ import annotations

import pytest

from wikic.language.abbreviations import abbreviates, long_form


@pytest.mark.parametrize(
    ("short", "before", "expected"),
    [
        ("WAL", "This is Write-Ahead Logging", "Write-Ahead Logging"),  # hyphened words
        ("PITR", "known as point-in-time recovery", "point-in-time recovery"),
        ("MVCC", "a model, Multiversion Concurrency Control", "Multiversion Concurrency Control"),
        ("pp", "Prompt processing", "Prompt processing"),
        # initials first: the algorithm alone stops at the S inside "Snapshot"
        (
            "SSI",
            "PostgreSQL has Serializable Snapshot Isolation",
            "Serializable Snapshot Isolation",
        ),
        # the fewest words: alone it reads "the next … transaction ID", the X in "next"
        ("TXID", "the next monotonically incrementing _transaction ID_", "transaction ID"),
        ("LTX", "Lite Transaction Files", "Lite Transaction Files"),  # X spelled by no letter
        ("XOR", "exclusive or", None),  # the first letter is never skipped
        ("USB", "Installing on Linux", None),
        ("DB", "the DB", None),  # the long form never holds the short form
        ("A", "Alpha", None),  # one letter abbreviates nothing
    ],
)
def test_the_long_form_of_an_abbreviation(short: str, before: str, expected: str | None) -> None:
    assert long_form(short, before) == expected


def test_only_one_x_is_skipped() -> None:
    assert long_form("TXX", "transaction") is None
    assert long_form("TX", "transmit queue") is None  # T and X: x is spelled nowhere; T alone


def test_an_abbreviation_of_the_whole_name_only() -> None:
    assert abbreviates("LTX", "Lite Transaction Files")
    assert abbreviates("SSI", "Serializable Snapshot Isolation")
    assert not abbreviates("LTX", "Files")
    assert not abbreviates("LTX", "Litestream")  # one word: a name of its own, not the long form
    assert not abbreviates("DB", "database")
    assert not abbreviates("SI", "Serializable Snapshot Isolation")  # "Snapshot Isolation" only
