"""A task several sources each give a section of their own is one page citing each section
(issue 32): which headings name one action (`language.actions`), how a batch's sections
group into tasks (`ingest.shared.shared_sections`), the `shared-sections` finder switched on
and off, and a page that gives way to an unrelated one leaving no alias behind
(`ingest.twins`). Headings from the overlapping development set (scripts/data/overlap)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from tests.helpers.wikitools import compile_files
from wikic.ingest.shared import SharedSection, shared_sections
from wikic.ingest.twins import named_alike
from wikic.language.actions import (
    ActionHeading,
    action_headings,
    action_title,
    heading_words,
    is_gerund,
    prose_verbs,
    shared_action,
    task_object,
)
from wikic.paths import WikiPaths
from wikic.vault.document import parse_document
from wikic.vault.tree import Vault

DAY = dt.date(2026, 11, 28)


def _shared(a: str, b: str) -> tuple[str, ...]:
    return shared_action(heading_words(a), heading_words(b))


@pytest.mark.parametrize(
    ("a", "b", "shared"),
    [
        # Pipenv and PDM: one task, one heading a gerund, the other an imperative
        ("Installing from Lock Files", "Install the packages pinned in lock file", 3),
        # uv and PDM: "lockfile" holds the stem of "locked"
        ("Exporting the lockfile", "Export locked packages to alternative formats", 2),
        # Pipenv and Poetry: both gerunds, a word of each is the other's
        ("Updating Specific Dependencies", "Updating dependencies to their latest versions", 2),
    ],
)
def test_headings_of_two_documents_that_name_one_task(a: str, b: str, shared: int) -> None:
    assert len(_shared(a, b)) == shared
    assert len(_shared(b, a)) == shared


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # nouns first, no gerund: the verb's place is not known to hold a verb
        ("Lock file freshness", "Lock File Out of Date"),
        ("Install a package", "Install the packages pinned in lock file"),
        # one verb, nothing else in common: two tasks
        ("Installing dependencies", "Installing from Lock Files"),
        # two verbs
        ("Creating a virtual environment", "Activating a virtual environment"),
        # one verb, different objects
        ("Exporting the lockfile", "Export metrics to Prometheus"),
    ],
)
def test_headings_that_name_different_tasks(a: str, b: str) -> None:
    assert _shared(a, b) == () and _shared(b, a) == ()


def test_a_gerund_is_a_verb_s_ing_form_not_a_noun_ending_in_ing() -> None:
    assert is_gerund("installing") and is_gerund("updating")
    assert not is_gerund("string") and not is_gerund("thing") and not is_gerund("ring")


def test_a_task_is_titled_after_its_gerund_heading() -> None:
    assert action_title("Installing from Lock Files", ("installing", "lock", "files")) == (
        "Installing from Lock Files"
    )
    # words the other heading does not share are left out
    assert action_title("Updating Specific Dependencies", ("updating", "dependencies")) == (
        "Updating Dependencies"
    )


def _headings(*texts: str) -> list[ActionHeading]:
    doc = parse_document(
        "# Doc\n\n" + "".join(f"## {t}\n\nText.\n\n" for t in texts), filename="x.md"
    )
    return action_headings(doc)


def test_sections_of_a_batch_group_into_tasks_one_section_per_source() -> None:
    pipenv = _headings("Installing from Lock Files", "Updating Specific Dependencies")
    pdm = _headings("Install the packages pinned in lock file", "Change lock file format")
    poetry = _headings("Installing dependencies", "Updating dependencies to their latest versions")
    found = shared_sections([pipenv, pdm, poetry])
    assert found == [
        SharedSection("Installing from Lock Files", ((0, pipenv[0].section), (1, pdm[0].section))),
        SharedSection("Updating Dependencies", ((0, pipenv[1].section), (2, poetry[1].section))),
    ]


def test_a_third_source_joins_a_task_only_with_every_word_of_its_title() -> None:
    a = _headings("Installing from Lock Files")
    b = _headings("Install the packages pinned in lock file")
    c = _headings("Installing packages")  # shares "packages" with b, not "lock files"
    d = _headings("Install from a lock file")
    assert [len(t.members) for t in shared_sections([a, b, c])] == [2]
    assert [len(t.members) for t in shared_sections([a, b, c, d])] == [3]


PIPENV = (
    "# Locking Dependencies\n\nLocking dependencies records exact versions in a lock file. "
    "Locking dependencies makes builds repeatable. Locking dependencies also records hashes. "
    "Locking dependencies runs the resolver once. Locking dependencies is done by `pipenv lock`. "
    "Locking dependencies again updates the hashes.\n\n"
    "## Installing from Lock Files\n\n"
    "Pipenv installs every package exactly as pinned. "
    "The environment then matches the one on every other machine. "
    "Deployment servers run the same install in their pipelines.\n"
)
PDM = (
    "# Lock file\n\nPDM writes the lock file after each resolution.\n\n"
    "## Install the packages pinned in lock file\n\n"
    "PDM installs the pinned packages without resolving again. "
    "Packages that are not pinned are left out of the environment.\n"
)


def _compile(root: Path, files: dict[str, str], *, disable: str = "") -> WikiPaths:
    return compile_files(root, files, DAY, disable=disable)


def test_switching_shared_sections_off(tmp_path: Path) -> None:
    """Two documents give installing from the lock file a section: with the finder, one page
    cites both sections; without it, no page is about the task."""
    files = {"pipenv.md": PIPENV, "pdm.md": PDM}
    on = Vault.load(_compile(tmp_path / "on", files).wiki)
    page = on.pages["concepts/installing-from-lock-files.md"]
    assert page.props["sources"] == ["[[sources/pdm]]", "[[sources/pipenv]]"]
    assert "without resolving again" in page.body and "every other machine" in page.body
    off = Vault.load(_compile(tmp_path / "off", files, disable="shared-sections").wiki)
    assert "concepts/installing-from-lock-files.md" not in off.pages


def test_a_page_gives_way_without_its_name_where_the_names_are_unrelated() -> None:
    # a command named after the task it does is another name of the task's page
    assert named_alike("pdm export", "Exporting the lockfile")
    assert named_alike("KV", "key value")
    # a term merged into a broad page, a heading's label: no alias
    assert not named_alike("TXID", "SQLite")
    assert not named_alike("Clearing the Cache", "pipenv lock")


@pytest.mark.parametrize(
    ("heading", "thing"),
    [
        # a verb of the document's prose or a gerund, then an article, qualifier or preposition
        ("Deactivate a virtual environment", "virtual environment"),
        ("Create a new virtual environment", "virtual environment"),
        ("Using a requirements file", "requirements file"),
        ("Install from other package indexes", "package indexes"),
        ("Exporting the lockfile", "lockfile"),
        ("Specify another lock file to use", "lock file"),
        ("Setting a Python Version", "Python Version"),
        # no task of a thing: a plain word, a verb's form that qualifies a noun, no article
        ("Upgrading packages", None),
        ("Install a package from source", None),
        ("Inherit the metadata from parents", None),
        ("Read Committed isolation level", None),
        ("Rolling checksum implementation", None),
        ("Install extras", None),
        ("Lock strategies", None),
        ("Deploy", None),
    ],
)
def test_a_task_heading_names_what_it_works_on(heading: str, thing: str | None) -> None:
    verbs = prose_verbs(
        "You need to activate it. Then deactivate it. You can create one. You can install "
        "packages. You can use a file. You can export the lockfile. You can specify a file. "
        "You can inherit markers. You can read rows. You can set a version. You can upgrade "
        "pip. To lock, run it."
    )
    assert task_object(heading, verbs) == thing


def test_a_task_section_is_a_page_of_what_it_works_on_where_its_sentences_name_it() -> None:
    """pip's "Create a new virtual environment" and "Using a requirements file" are about the
    virtual environment and the requirements file. Not where the verb is a command the
    document writes as code (`deactivate`: the section is the command's), nor where only the
    heading names the thing ("local archives", `TASK_OBJECT_SENTENCES`)."""
    from wikic.language.section_topics import TASK_OBJECT_SENTENCES, section_topics
    from wikic.language.sentences import fact_sentences

    doc = parse_document(
        "# Guide\n\nYou can install packages. Then create the environment. You can use "
        "files. You may deactivate it.\n\n"
        "## Create a new virtual environment\n\nA virtual environment isolates packages. The "
        "virtual environment lives in `.venv`.\n\n"
        "## Deactivate a virtual environment\n\nTo leave the virtual environment, run "
        "`deactivate`. Nothing else changes.\n\n"
        "## Using a requirements file\n\npip reads a requirements file with `-r`. Each line of "
        "the requirements file names a package.\n\n"
        "## Install from local archives\n\nThis is useful offline with local archives. "
        "Download the files first.\n",
        filename="g.md",
    )
    topics = {t.section: t.name for t in section_topics(doc, fact_sentences(doc))}
    assert TASK_OBJECT_SENTENCES == 2
    assert topics[1] == "virtual environment" and topics[3] == "requirements file"
    assert topics.get(2) != "virtual environment"  # `deactivate` is a command here
    assert "archive" not in topics.get(4, "").casefold()  # one sentence names it
