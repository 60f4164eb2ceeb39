"""What a heading names (language/headings.py), stated on constructed headings."""

from __future__ import annotations

import pytest

from wikic.language.headings import (
    governed_name,
    heading_name,
    labels_a_part,
    question_names,
    specific_name,
    subject_name,
)
from wikic.vault.document import parse_document


@pytest.mark.parametrize(
    ("heading", "name"),
    [
        ("Installation", None),  # organises the document
        ("Core Implementation", None),  # label words only
        ("How to fuse adapters", None),  # an instruction
        ("Using the API", None),
        ("Text generation with different models", None),  # a phrase with no name in it
        ("2. Speculative decoding", "Speculative decoding"),  # numbering is no part of it
        ("Overview of the Cranelift backend", "Cranelift backend"),
        # a section that says what it does with a thing names the thing
        ("Dealing with dependency conflicts", "dependency conflicts"),
        ("Understanding the WAL", "WAL"),
        ("Handling Hash Verification Failures", "Hash Verification Failures"),
        ("Understanding your error message", None),  # the reader's case, not a thing
        ("Background: How rqlite uses SQLite", None),  # a label, then a question
        ("Tip: Speculative decoding", "Speculative decoding"),
        ("`llama-server`", "llama-server"),
        ("LoRA", "LoRA"),
        # a capitalised word inside a phrase is a name ("Python"): the phrase names a thing
        (
            "Installing into arbitrary Python environments",
            "Installing into arbitrary Python environments",
        ),
    ],
)
def test_a_heading_names_a_thing_or_organises(heading: str, name: str | None) -> None:
    assert heading_name(heading) == name


@pytest.mark.parametrize(
    ("heading", "name"),
    [
        ("Caveats & Limitations", None),  # labels alone, joined or not
        ("Configuration Reference", None),
        # a name, or a phrase, then a label: the section is about the thing before it
        ("WAL Configuration", "WAL"),
        ("Rolling checksum implementation", "Rolling checksum"),
        ("LoRA Usage", "LoRA"),
        # one plain word may be the label's adjective, or anything's: the heading stays
        ("Editable installation", "Editable installation"),
        ("Server configuration", "Server configuration"),
        ("Guidelines for Artifact Usage", None),  # a phrase with no name, not "… Artifact"
    ],
)
def test_a_label_after_a_name_is_no_part_of_it(heading: str, name: str | None) -> None:
    assert heading_name(heading) == name


def test_a_phrase_heading_the_document_defines_is_a_name() -> None:
    assert labels_a_part("Cost of a token")
    assert not labels_a_part("Cost of a token", terms=["cost of a token"])


def test_a_question_heading_asks_about_its_names_not_its_platforms() -> None:
    assert question_names("What is quantization?") == ["quantization"]
    assert question_names("Why is networking slow in WSL2 on Windows 10?") == ["WSL2"]
    assert question_names("Quantization") == []  # not a question


def test_a_question_heading_asks_about_a_thing_not_about_using_it() -> None:
    assert question_names("Why Use Lock Files?") == ["Lock Files"]  # not "Use Lock Files"
    assert question_names("What is a Lock File?") == ["Lock File"]
    assert question_names("How to Use LoRA?") == ["LoRA"]


def test_a_one_word_heading_takes_the_qualified_name_the_prose_gives_it() -> None:
    prose = ["The Git LFS server answers each batch request.", "A remote server may differ."]
    assert specific_name("Server", prose, "Git LFS Specification") == "Git LFS server"
    # a qualifier that shares no stem with the title is one server, not the page
    assert specific_name("Server", prose[1:], "Git LFS Specification") is None
    assert specific_name("LFS", prose, "Git LFS Specification") is None  # an acronym


def test_a_qualifier_shares_a_stem_with_the_title_not_its_first_letters() -> None:
    # "interning" and "intern" share a stem; "interpreter" shares only five letters
    assert specific_name("State", ["The intern state is kept."], "String interning") == (
        "intern state"
    )
    assert specific_name("State", ["The interpreter state is kept."], "String interning") is None


def test_a_heading_of_rules_names_what_they_govern_when_the_prose_does() -> None:
    prose = ["A tier 2 target must build.", "Tier 2 targets are tested."]
    assert governed_name("Tier 2 target policy", prose) == "Tier 2 target"
    assert governed_name("Retention policy", ["Logs are kept."]) is None
    assert governed_name("Tier 2 targets", prose) is None  # no word of rules


def test_the_title_names_a_subject_without_its_document_kind() -> None:
    def subject(title: str) -> tuple[str, tuple[str, ...]] | None:
        return subject_name(parse_document(f"# {title}\n\nText here.\n", filename="x.md"))

    assert subject("Git LFS Specification") == ("Git LFS", ())
    # the overlap set's LiteFS and rqlite documents: a design document is about its system
    assert subject("LiteFS Architecture") == ("LiteFS", ())
    assert subject("DB Package Design") == ("DB Package", ())
    assert subject("Quantization Concepts") == ("Quantization", ())  # a concept guide
    assert subject("Git Basics") == ("Git", ())
    assert subject("Core Concepts") is None  # a label, no subject
    assert subject("Byte pair encoding (BPE)") == ("Byte pair encoding", ("BPE",))
    assert subject("2026-04-05 standup") is None  # a dated note is about an event
