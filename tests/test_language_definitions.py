"""Terms a document defines (language/definitions.py), on small constructed documents."""

from __future__ import annotations

from wikic.language.definitions import (
    defined_abbreviations,
    defined_terms,
    kind_names,
    linked_names,
    short_names,
)
from wikic.vault.document import Document, parse_document


def _doc(body: str) -> Document:
    return parse_document(f"# Widget\n\n{body}\n", filename="w.md")


def test_bold_terms_and_capitalised_names_with_an_abbreviation_are_defined_terms() -> None:
    doc = _doc("**Fast mode** is a setting. Prompt Processing (PP) reads it. Go (optional) works.")
    assert defined_terms(doc) == ["Fast mode", "Prompt Processing"]  # "(optional)" is no name


def test_a_bold_participle_of_a_verb_the_document_writes_labels_a_state() -> None:
    doc = _doc(
        "Each checkpoint tries to truncate the log. The outcomes:\n\n"
        "- **Truncated**: the log is reset.\n- **Seed**: the first value.\n"
        "- **Locked**: no writer may enter."
    )
    # "Truncated" of "truncate": an outcome; "Locked" of no verb the text writes stays a term
    assert defined_terms(doc) == ["Seed", "Locked"]


def test_an_abbreviation_defines_the_words_whose_initials_it_spells() -> None:
    doc = _doc("Memory is freed by safe memory reclamation (SMR). It costs (a lot) of time.")
    assert defined_abbreviations(doc) == {"Safe memory reclamation": ("SMR",)}


def test_an_abbreviation_defines_the_words_its_letters_spell_in_order() -> None:
    doc = _doc(
        "Write-Ahead Logging (WAL) is standard. It allows point-in-time recovery (PITR). "
        "Each sync assigns the next monotonically incrementing _transaction ID_ (TXID). "
        "Data sits in the database (DB)."
    )
    # hyphened words; an X that the long form does not spell (TXID: not "the next …", whose
    # "next" holds an x); one word, "database", is each project's own shortening: no term
    assert defined_abbreviations(doc) == {
        "Write-Ahead Logging": ("WAL",),
        "Point-in-time recovery": ("PITR",),
        "Transaction ID": ("TXID",),
    }


def test_a_code_name_the_document_shortens_has_the_short_name_as_alias() -> None:
    doc = _doc("The `widget_long_name` or `wln` for short is the main module.")
    assert short_names(doc) == {"widget_long_name": ("wln",)}
    assert short_names(_doc("Say hello or hi for short.")) == {}  # not code names


def test_a_one_word_code_name_and_its_kind_word_make_a_name() -> None:
    doc = _doc("Run the `clean` filter, then the `smudge` filters and the `Big` hook.")
    assert kind_names(doc) == ["clean filter", "smudge filter"]  # singular; `Big` is no word


def test_a_link_whose_text_ends_its_address_names_a_project() -> None:
    doc = _doc(
        "See [ruff](https://github.com/astral-sh/ruff), [the docs](https://example.com/docs) "
        "and [Windows](https://docs.docker.com/desktop/settings/windows/)."
    )
    assert linked_names(doc) == ["ruff"]  # a page deep in a site names no project
