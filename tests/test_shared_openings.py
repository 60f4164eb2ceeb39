"""A page several sources share opens with what its subject is, not with what one tool does
(`language.openings.names_other_subject`), and its fact groups name their source
(`ingest.render.source_group`). English only."""

from __future__ import annotations

import pytest

from wikic.ingest.render import source_group
from wikic.language.openings import defining_text, names_other_subject, proper_names

TOOL = "PDM installs packages exclusively from the existing lock file."
GENERAL = "Lock files record the exact version of every dependency."


def test_a_shared_page_prefers_a_general_sentence_to_one_tools() -> None:
    assert defining_text("Lock file", [TOOL, GENERAL]) == TOOL  # one source: first of equals
    assert defining_text("Lock file", [TOOL, GENERAL], shared=True) == GENERAL


def test_a_definition_of_the_subject_still_wins_on_a_shared_page() -> None:
    defining = "A lock file is a record of the exact versions a project installs."
    assert defining_text("Lock file", [GENERAL, TOOL, defining], shared=True) == defining


def test_a_sentence_its_subject_opens_with_a_verb_of_it_says_what_it_does() -> None:
    """No defining verb ("is", "provides") says so, but the name and a present-tense verb of
    it open the sentence: bitsandbytes' page had opened with a sentence naming it last."""
    late = (
        "Once a model is quantized to 8-bit, you can't push the quantized weights to the Hub"
        " unless you're using the latest version of Transformers and bitsandbytes."
    )
    acts = "bitsandbytes features the LLM.int8 and QLoRA quantization to enable inference."
    assert defining_text("bitsandbytes", [late, acts]) == acts
    # a name and a plural noun is no verb: "members and …", "features are …"
    team = "Compiler team members and contributors can leave concerns asynchronously."
    asked = "The reviewer is asked to contact the compiler team."
    assert defining_text("Compiler team", [asked, team]) == asked


def test_a_name_in_code_opens_a_sentence_and_a_longer_code_name_is_another_thing() -> None:
    # the overlap compile of c6707e2: `pip` opened with "Pip is capable of …" though "`pip` is
    # the reference …" defines it (a code span counted as no sentence start), and `poetry`
    # with "`tool.poetry.exclude` is …", a key of its file, as if that sentence were about it
    capable = "Pip is capable of determining and installing the dependencies of packages."
    defines = "`pip` is the reference Python package manager."
    assert defining_text("pip", [capable, defines], shared=True) == defines
    key = "`tool.poetry.exclude` is additionally implicitly populated by your `.gitignore`."
    assumes = "Poetry assumes your package contains a package named after the project."
    assert defining_text("poetry", [key, assumes]) == assumes
    lock = "`uv.lock` is a human-readable TOML file."
    automatic = "Locking and syncing are automatic in uv."
    assert defining_text("uv", [lock, automatic]) == automatic


def test_what_opens_with_another_name() -> None:
    proper = proper_names(["It runs when Pipenv installs a package."])
    assert "Pipenv" in proper
    title = "Lock file"
    for text in (
        TOOL,  # an acronym
        "Pipenv creates the lock file.",  # written capitalised mid-sentence elsewhere
        "uv will raise an error when the lock file is stale.",  # lower case at the start
        "`pdm sync` installs from the lock file.",  # code
        "You should commit the lock file.",  # said to one tool's user
        "To refresh the lock file, run the lock command.",
        "See [the lock file format](format.md).",  # an imperative: a pointer, no definition
    ):
        assert names_other_subject(title, text, proper), text
    for text in (
        GENERAL,
        "The SQL standard defines four levels.",  # a common noun after the article
        "Locking resolves dependencies into a lock file.",
    ):
        assert not names_other_subject(title, text, proper), text
    # the page's own name is no other name
    assert not names_other_subject(
        "Read Committed isolation level",
        "Read Committed is the default level.",
        frozenset({"Read"}),
    )


def test_a_group_names_its_source_then_its_section() -> None:
    assert source_group("Basic usage", "Installing") == "Basic usage — Installing"
    assert source_group("Locking and syncing", "Locking and syncing") == "Locking and syncing"
    assert source_group("Basic usage", "") == "Basic usage"
    assert source_group("A", "A — Design") == "A — Design"  # named so already
    assert source_group("C# notes", "[[x]] `y`") == "C♯ notes — x y"  # Obsidian-safe


# the overlap compile (model replies replayed, stop 55): LiteFS opened "Because LiteFS is meant
# to be used in ephemeral deployments …, it cannot use …", PDM "If PDM is not able to find a
# resolution …, it will raise an error"; each page holds a sentence its name opens (the last)
SUBORDINATE = [
    (
        "LiteFS",
        "Because LiteFS is meant to be used in ephemeral deployments such as Kubernetes, it"
        " cannot use a distributed consensus algorithm.",
        "LiteFS is intended to provide easy, live, asynchronous replication.",
    ),
    (
        "PDM",
        "If PDM is not able to find a resolution, it will raise an error.",
        "Previously, the `pdm lock` command would record package metadata as it is.",
        # a present-tense verb and a plural object: PDM is what the sentence is about
        "PDM installs packages exclusively from the existing lock file `pdm.lock`.",
    ),
]


@pytest.mark.parametrize("case", SUBORDINATE, ids=[c[0] for c in SUBORDINATE])
def test_a_name_inside_a_subordinate_clause_is_not_the_sentence_s_subject(
    case: tuple[str, ...],
) -> None:
    title, *texts = case
    assert defining_text(title, texts) == texts[-1]


# the overlap compile (model replies replayed, stop 60): SQLite opened "Each transaction in
# SQLite is simply a collection of one or more pages to be written." (a transaction's subject),
# and a sentence on "Alternate lock files" is about a kind of lock file, not lock files
NARROWED = [
    (
        "SQLite",
        "Each transaction in SQLite is simply a collection of one or more pages to be written.",
        "SQLite has a journaling mode called WAL which writes page changes to a `-wal` file.",
    ),
    (
        "Lock file",
        "Alternate lock files are helpful when there exist conflicting dependencies.",
        "The lock file records the exact version of every package.",
    ),
]


@pytest.mark.parametrize("case", NARROWED, ids=[c[0] for c in NARROWED])
def test_a_name_after_a_lower_case_word_is_a_narrower_subject(case: tuple[str, ...]) -> None:
    title, *texts = case
    assert defining_text(title, texts) == texts[-1]
    assert defining_text(title, texts[::-1]) == texts[-1]


def test_an_article_possessive_or_name_before_the_title_leaves_it_the_subject() -> None:
    from wikic.language.openings import opening_faults

    for title, text in [
        ("KV cache", "The KV cache is a store of past keys and values."),
        ("QSBR", "Python's QSBR implementation is a scheme for freeing memory."),
        ("WAL mode", "SQLite WAL mode is a journaling mode."),
    ]:
        assert not opening_faults(title, text).no_subject, text
    assert opening_faults("lock file", "Alternate lock files are helpful.").no_subject
