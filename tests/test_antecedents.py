"""A fact that refers back goes on a page with the sentence it points at, or not at all
(`ingest.antecedents`): constructed documents, English only."""

from __future__ import annotations

from wikic.ingest.antecedents import chain, with_antecedents
from wikic.language.sentences import fact_sentences
from wikic.vault.document import parse_document

TEXT = """# Storage

The log grows without end. This process is called checkpointing. That is what the tool copies.

The lock file holds exact versions.

This ensures that every machine installs the same packages.
"""


def _parts() -> tuple[dict[str, str], dict, object]:
    doc = parse_document(TEXT, filename="storage.md")
    sentences = {s.id: s for s in fact_sentences(doc)}
    ids = {s.text.split()[1]: s.id for s in sentences.values()}  # second word → id
    return ids, sentences, doc


def test_a_refer_back_fact_brings_its_antecedents_in_order() -> None:
    ids, sentences, doc = _parts()
    crux = ids["is"]  # "That is what the tool copies."
    assert chain(crux, sentences, doc) == [ids["log"], ids["process"], crux]
    got = with_antecedents([crux, ids["lock"]], sentences, doc)
    assert got == (ids["log"], ids["process"], crux, ids["lock"])


def test_values_given_respectively_come_after_the_names_they_pair_with() -> None:
    doc = parse_document(
        "# WAL\n\nA checkpoint starts every `checkpoint_timeout` seconds or at `max_wal_size`. "
        "The default settings are 5 minutes and 1 GB, respectively.\n",
        filename="wal.md",
    )
    sentences = {s.id: s for s in fact_sentences(doc)}
    first, defaults = list(sentences)
    assert chain(defaults, sentences, doc) == [first, defaults]
    assert with_antecedents([defaults], sentences, doc, add=False) == ()  # never alone


def test_a_refer_back_fact_that_opens_its_paragraph_is_left_out() -> None:
    ids, sentences, doc = _parts()
    ensures = ids["ensures"]  # its antecedent is another paragraph
    assert chain(ensures, sentences, doc) is None
    assert with_antecedents([ids["lock"], ensures], sentences, doc) == (ids["lock"],)
    assert with_antecedents([ensures], sentences, doc) == ()  # nothing else: the caller decides


def test_without_adding_a_fact_stays_only_beside_its_chosen_antecedent() -> None:
    ids, sentences, doc = _parts()
    called = ids["process"]
    assert with_antecedents([called, ids["lock"]], sentences, doc, add=False) == (ids["lock"],)
    both = with_antecedents([ids["log"], called], sentences, doc, add=False)
    assert both == (ids["log"], called)
