"""Sentences as facts (language/sentences.py) and sentence splitting (segmentation.py), stated
on constructed sentences."""

from __future__ import annotations

from wikic.language.segmentation import split_sentences
from wikic.language.sentences import (
    ends_whole,
    fact_sentences,
    points_elsewhere,
    reads_as_statement,
    refers_back,
    starts_sentence,
)
from wikic.vault.document import parse_document


def test_a_sentence_opening_with_a_pointer_refers_back() -> None:
    assert refers_back("This ensures its value is odd.")
    assert not refers_back("Thistle grows in fields.")
    # values given "respectively" pair with the names the sentence before lists
    assert refers_back("The default settings are 5 minutes and 1 GB, respectively.")


def test_a_sentence_opens_with_a_capital_or_a_digit_and_ends_with_a_stop() -> None:
    assert starts_sentence('"Quoted" words open it.') and starts_sentence("3 files remain.")
    assert not starts_sentence("and then it ends.")
    assert ends_whole("It ends.") and ends_whole("It ends (here).")
    assert not ends_whole("It is cut at")


def test_a_list_item_without_a_stop_is_a_statement_when_it_has_a_finite_verb() -> None:
    assert reads_as_statement("Major changes will be discussed before they become a PR")
    assert not reads_as_statement("But changes will be discussed before a PR")  # leans on
    assert not reads_as_statement("If a PR is opened without this process")  # no main clause
    assert not reads_as_statement("Changes discussed in the weekly meeting")  # no finite verb


def test_only_whole_statements_are_facts() -> None:
    doc = parse_document(
        "# Doc\n\nThe cache holds tokens. It is shared:\n\n- a lead-in item\n\nToo short.\n",
        filename="d.md",
    )
    assert [s.text for s in fact_sentences(doc)] == ["The cache holds tokens."]


def test_sentences_split_at_stops_but_not_inside_code_or_after_e_g() -> None:
    text = "Use e.g. this one. Then run pip install -e . today."
    start = text.index("pip")
    code = (start, start + len("pip install -e ."))
    assert split_sentences(text, [code]) == [
        "Use e.g. this one.",
        "Then run pip install -e . today.",
    ]


def test_a_word_nupunkt_takes_for_an_abbreviation_ends_a_sentence_where_it_is_a_word() -> None:
    # PyPA's guide: nupunkt's legal-text model knows "flag." as an abbreviation
    text = "Upgrade with the `--upgrade` flag. For example, install the newest requests:"
    assert len(split_sentences(text)) == 1
    doc = parse_document(f"# Pip\n\nSet the flag once.\n\n{text}\n", filename="p.md")
    assert [s.text for s in doc.blocks[1].sentences] == [
        "Upgrade with the --upgrade flag.",
        "For example, install the newest requests:",
    ]
    # an abbreviation the document always writes with its period stays one
    abbreviated = parse_document("# Fig\n\nSee the fig. For details, ask.\n", filename="f.md")
    assert len(abbreviated.blocks[0].sentences) == 1


def test_a_sentence_that_only_points_to_another_text_is_no_fact() -> None:
    # pointers the code-only development and held-out wikis held as facts (stop 48)
    pointers = (
        "See Activating the virtual environment.",
        "See also Registered Algorithms.",
        "See the export guide for comprehensive documentation on all export formats.",
        "For more information on supported version control systems, see pip's VCS Support.",
        "For details, see our `pip` compatibility guide.",
        "Refer to https://github.com/etcd-io/bbolt/pull/611 for more detailed info.",
    )
    for text in pointers:
        assert points_elsewhere(text), text
    for text in (
        "Seeing the log helps when a sync fails.",
        "For each package, see whether it is pinned: uv checks it.",
        "Check out a branch before running `uv lock`.",
        "For more speed, the pool uses see-through caches.",
    ):
        assert not points_elsewhere(text), text
    doc = parse_document(
        "# Doc\n\nThe lock file pins every version. " + " ".join(pointers) + "\n", filename="d.md"
    )
    assert [s.text for s in fact_sentences(doc)] == ["The lock file pins every version."]
