"""How common a word is in general English (`language.frequency`, from wordfreq's shipped
lists): a rare plain word is a term of its field; a capitalised common word names its thing
only with its capital."""

from __future__ import annotations

from wikic.ingest.resolve import ConceptIndex, shared_mentions
from wikic.language.evidence import names_sentence
from wikic.language.frequency import base_forms, capital_only, is_coined, is_field_term, zipf
from wikic.language.sentences import Sentence
from wikic.vault.names import name_key


def test_a_word_rare_in_general_english_in_every_form_is_a_term_of_its_field() -> None:
    assert zipf("the") > 7 and zipf("fsync") == 0.0
    for term in ("snapshot", "checkpoints", "checksum", "compaction", "replication", "fsync"):
        assert is_field_term(term), term
    # common words, and the plural or inflection of one ("databases": "database" is common)
    for word in ("file", "version", "package", "transaction", "databases", "reduces"):
        assert not is_field_term(word), word


def test_the_forms_a_word_may_inflect() -> None:
    assert {"database", "databas"} <= base_forms("databases")
    assert "dependency" in base_forms("dependencies")
    assert {"lock", "locke"} <= base_forms("locking")
    assert base_forms("go") == {"go"}


def test_a_capitalised_common_word_names_its_thing_only_with_its_capital() -> None:
    assert capital_only("Go") and capital_only("Black")
    # lower case, a rarer word, a name with capitals inside, two words: as before
    assert not capital_only("go") and not capital_only("Poetry")
    assert not capital_only("SQLite") and not capital_only("Read Committed")
    assert names_sentence("Go", "The library is written in Go.")
    assert not names_sentence("Go", "All access has to go through the process.")
    assert names_sentence("Poetry", "Install it with poetry first.")


def test_a_page_named_by_a_common_word_joins_only_sentences_with_its_capital() -> None:
    index: ConceptIndex[str] = ConceptIndex()
    index.add(["Go"], "go.md")
    sentences = [
        Sentence("s1", "p1", "Bolt is a key/value store for Go programs."),
        Sentence("s2", "p1", "Writes go through a single writer."),
    ]
    assert shared_mentions(sentences, index, skip=set()) == {name_key("Go"): ["s1"]}


def test_a_word_english_lacks_in_every_form_is_coined() -> None:
    for name in ("fsync", "fsyncs", "upsert", "lockfile"):
        assert is_coined(name), name
    for word in ("checksum", "mmap", "snapshots", "checkpointing", ""):
        assert not is_coined(word), word
