"""What code finds recurring across a history of episodes, how it names it, and when a later
note takes back an earlier one; each rule on small constructed episodes."""

from __future__ import annotations

import datetime as dt

from wikic.consolidate.episodes import Episode, EpisodeBlock
from wikic.consolidate.evolve import changes, takes_back
from wikic.consolidate.recurring import find_recurring, phrase, term_key


def ep(day: str, *paragraphs: str | tuple[str, ...]) -> Episode:
    """An episode of `day` (MM-DD); a paragraph given as a tuple is several sentences."""
    blocks = []
    for i, para in enumerate(paragraphs, 1):
        sentences = para if isinstance(para, tuple) else (para,)
        blocks.append(EpisodeBlock(f"p{i}", " ".join(sentences), sentences))
    date = dt.date.fromisoformat(f"2026-{day}")
    return Episode(f"sources/2026-{day}.md", "", day, date, "", tuple(blocks), None, frozenset())


EXPORT = [
    ep("04-27", "The nightly export job died on the staging runner: the orders file passed 2 GB."),
    ep("04-30", "Dentist at four.", "The export job ran out of memory on the staging runner."),
    ep(  # the next week
        "05-05",
        ("Export job out of memory on the staging runner again.", "Restarted it by hand."),
    ),
]


def test_a_claim_in_three_notes_of_two_weeks_is_one_item_with_each_of_its_sentences() -> None:
    (item,) = find_recurring(EXPORT, min_episodes=3)
    assert [e.date.day for e in item.episodes] == [27, 30, 5]
    assert [u.text for u in item.units] == [
        "The nightly export job died on the staging runner: the orders file passed 2 GB.",
        "The export job ran out of memory on the staging runner.",
        "Export job out of memory on the staging runner again.",
    ]  # not "Dentist at four." nor "Restarted it by hand.": one-offs beside it
    assert {term_key(w) for w in ("export", "job", "staging", "runner")} <= set(item.words)
    assert find_recurring(EXPORT[:2], min_episodes=3) == []  # two notes: not yet


def test_two_notes_sharing_two_words_by_coincidence_are_no_recurrence() -> None:
    notes = [
        ep("04-01", "Friday pizza with the team at the office."),
        ep("04-02", "Moved the plants out of the office on Friday."),
        ep("04-03", "Submitted the tax form before Friday; the office was closed."),
    ]
    # "Friday" and "office" are in all three, and nothing else any two of them say
    assert find_recurring(notes, min_episodes=2) == []


def test_two_items_sharing_a_word_stay_apart() -> None:
    notes = [
        *EXPORT,
        ep("04-28", "test_upload_retry failed on the staging runner: the mock S3 server was slow."),
        ep("05-07", "Another red build from test_upload_retry; the mock S3 server was slow again."),
        ep("05-13", "test_upload_retry flaked because the mock S3 server starts slowly."),
    ]
    items = find_recurring(notes, min_episodes=3)
    assert len(items) == 2
    by_word = {("export" in i.words): {e.date.day for e in i.episodes} for i in items}
    assert by_word == {True: {27, 30, 5}, False: {28, 7, 13}}


def test_terms_are_words_and_whole_identifiers_never_bare_numbers() -> None:
    assert term_key("max_tokens") == "max_tokens"
    assert term_key("S3") == "s3"
    assert term_key("OpenBLAS") is not None
    assert term_key("2") is None and term_key("2.3") is None
    assert term_key("the") is None and term_key("again") is None  # stop and everyday words


def test_an_item_is_named_by_a_phrase_of_one_clause_not_a_word() -> None:
    (item,) = find_recurring(EXPORT, min_episodes=3)
    name = phrase(item)
    assert len(name.split()) >= 3
    assert name in {u.text for u in item.units} or any(name in u.text for u in item.units)
    assert ":" not in name and "," not in name  # one clause
    assert "export job" in name.casefold()


def test_a_later_note_that_takes_back_an_earlier_one_is_a_change() -> None:
    fixed = "Raising max_tokens to 800 fixed the truncated JSON for now."
    not_fixed = "Raising max_tokens did not fix the truncated JSON after all."
    assert takes_back(fixed, not_fixed) == "one statement negates the other"
    # one clause of a longer sentence is enough
    assert takes_back(fixed, f"{not_fixed[:-1]}: the grammar constraint did.")
    # the state of a day is not a claim taken back
    assert (
        takes_back(
            "With OpenBLAS preloaded again, prefill was fast.", "OpenBLAS was not preloaded."
        )
        is None
    )
    assert takes_back(fixed, "The truncated JSON is gone with the grammar constraint.") is None
    notes = [
        ep("04-06", "The small model returned truncated JSON.", fixed),
        ep("04-07", "Truncated JSON again from the small model, even with max_tokens at 800."),
        ep("04-09", not_fixed),
    ]
    (item,) = find_recurring(notes, min_episodes=3)
    (change,) = changes(item.units)
    assert (change.before.text, change.after.text) == (fixed, not_fixed)
    avoid = [change.before.ref, change.after.ref]
    assert "fix" not in phrase(item, avoid).casefold()  # a change does not name what recurs
