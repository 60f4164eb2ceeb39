"""Which candidates enough sentences name, and how they rank (language/evidence.py), stated on
constructed sentences."""

from __future__ import annotations

from wikic.language.evidence import (
    evidence_topics,
    is_subject,
    min_evidence,
    named_only_within,
    names_sentence,
    only_listed,
    part_of,
    reads_as_clause,
    said_of,
    topic_weight,
)
from wikic.language.sentences import Sentence


def _sentences(*texts: str) -> list[Sentence]:
    return [Sentence(f"s{i}", f"p{i}", t) for i, t in enumerate(texts, 1)]


def test_units_filler_and_letters_are_no_subjects() -> None:
    assert not is_subject("MB") and not is_subject("x") and not is_subject("following example")
    assert is_subject("prefix cache")


def test_a_phrase_used_mostly_inside_a_clause_names_nothing() -> None:
    assert reads_as_clause(
        "llama accepts", ["Llama accepts the flag.", "Then llama accepts a file."]
    )
    assert reads_as_clause("provide documentation", ["Targets must provide documentation."])
    assert not reads_as_clause("prefix cache", ["The prefix cache holds tokens."])


def test_a_name_right_before_a_verb_is_what_is_said_of() -> None:
    assert said_of("prefix cache", "Prefix caches are rare.")
    assert not said_of("prefix cache", "We use a prefix cache here.")


def test_a_code_name_listed_among_others_is_not_what_a_sentence_is_about() -> None:
    assert only_listed(["-r"], "With the exception of `-r`, `-o` and `-v`, flags are optional.")
    assert not only_listed(["-r"], "`-r` sets repetitions; `-o`, `-v` and `-p` do not.")


def test_a_shorter_run_of_a_name_is_part_of_it() -> None:
    assert part_of("Git LFS", "git lfs track") and not part_of("git lfs track", "Git LFS")
    sentences = _sentences("The KV cache grows.", "A KV cache is big.")
    assert named_only_within("KV", ("s1", "s2"), "KV cache", sentences)


def test_a_flag_is_part_only_of_a_command_line_that_writes_it() -> None:
    """Stemmed, `--locked` is "lock" and `--check` "check": words of `uv lock` and "Malware
    checks", of which the flags are no part; `--pre` is part of `pip install --pre`."""
    assert not part_of("--locked", "uv lock") and not part_of("--check", "Malware checks")
    assert part_of("--pre", "pip install --pre") and not part_of("--pre", "--pre")


def test_precise_names_need_fewer_sentences_than_phrases() -> None:
    assert min_evidence("--threads") == 1
    assert min_evidence("Homebrew") == min_evidence("pre-release") == 2
    assert min_evidence("Properties") == min_evidence("prefix cache") == 3  # a plural label


def test_code_names_match_verbatim_and_other_names_as_words() -> None:
    assert names_sentence("uv pip compile", "Run uv pip compile now.")
    assert not names_sentence("--json", "Pass --json-lines.")
    assert not names_sentence("rust", "Rust is fast.", verbatim=True)


def test_a_word_written_as_code_and_in_prose_is_matched_uninflected() -> None:
    """The `add` of "the `add` command" (a kind name: matched as a word, not verbatim) is in
    "Use add to …" and "the add command", not in "Added in 2.25.0.": PDM's changelog lines
    had made a page "add" of them once the page cap left room."""
    assert names_sentence("add", "Use the add command.", as_word=True)
    assert names_sentence("filter", "Both Filters run.", as_word=True)
    assert not names_sentence("add", "Added in 2.25.0.", as_word=True)
    assert not names_sentence("add", "It is adding a package.", as_word=True)
    assert names_sentence("add", "Added in 2.25.0.")  # a plain name: any inflection
    sentences = _sentences(
        "Added in 2.25.0.",
        "Added experimental support for the pylock format.",
        "You can use the `add` command.",
    )
    assert evidence_topics(["add"], sentences, set(), limit=4, known=["add"]) != []
    kept = evidence_topics(["add"], sentences, set(), limit=4, known=["add"], as_words={"add"})
    assert kept == [("add", ("s3",))]


def test_a_term_of_every_text_weighs_nothing() -> None:
    assert topic_weight("URL", 5) == 0
    assert topic_weight("--threads", 1) == 3  # one sentence and the weight of a precise name


def test_a_candidate_named_by_enough_sentences_is_a_topic() -> None:
    sentences = _sentences(
        "The prefix cache holds tokens.",
        "A prefix cache is reused across requests.",
        "Each prefix cache entry has a key.",
        "The weights file is read once.",
    )
    found = evidence_topics(["prefix cache", "weights file"], sentences, set(), limit=4)
    assert found == [("prefix cache", ("s1", "s2", "s3"))]  # the weights file: one sentence
