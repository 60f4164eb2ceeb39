"""A name with its kind is the name, where a document says it is one (`language.kinds`, used
by `plan.Resolver`): "Read Committed isolation level" and "Read Committed" are one page when a
table headed "Isolation Level" lists it or a sentence says it is one; "WAL files" and "WAL"
stay two."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from tests.helpers.wikitools import compile_files
from wikic.ingest.extract import Topic
from wikic.ingest.plan import Resolver
from wikic.language.kinds import (
    KindEvidence,
    said_kinds,
    says_is_a,
    spelled_words,
    table_instances,
    table_kinds,
)
from wikic.language.openings import defining_text, subject_aliases
from wikic.vault.document import parse_document
from wikic.vault.names import name_key
from wikic.vault.pages import Page, render_page
from wikic.vault.tree import Vault

TABLE = (
    "# Isolation\n\n| Isolation Level | Dirty Read |\n| --- | --- |\n"
    "| Read uncommitted | Allowed |\n| **Read committed** | Not possible |\n"
)


def test_a_table_s_first_column_header_is_the_kind_of_its_rows() -> None:
    kinds = table_kinds(parse_document(TABLE, filename="t.md"))
    assert kinds[name_key("Read Committed")] == ["Isolation Level"]
    assert name_key("Dirty Read") not in kinds


def test_a_sentence_says_a_name_is_a_kind() -> None:
    said = ["*Read Committed* is the default isolation level in PostgreSQL."]
    assert says_is_a("Read Committed", "isolation level", said)
    assert not says_is_a("Repeatable Read", "isolation level", said)
    assert not says_is_a("WAL", "file", ["The WAL is a log that lives in a file."])


def _resolver(tmp_path: Path, texts: list[str]) -> Resolver:
    (tmp_path / "wiki").mkdir(parents=True)
    docs = [(parse_document(t, filename=f"d{i}.md"), [t]) for i, t in enumerate(texts)]
    return Resolver(Vault.load(tmp_path / "wiki"), kinds=KindEvidence(docs))


def test_a_name_with_its_kind_finds_the_name_and_back(tmp_path: Path) -> None:
    said = "Read Committed is the default isolation level. Serializable is the strictest."
    for i, (first, second) in enumerate(
        [("Read Committed isolation level", "Read Committed"),
         ("Read Committed", "Read Committed isolation level")]
    ):  # fmt: skip
        resolver = _resolver(tmp_path / str(i), [said])
        made = resolver.resolve(Topic(first, "concept", (), ()))
        assert resolver.find([second]) == made, (first, second)
    # no document says Serializable is an isolation level: two names, two pages
    resolver = _resolver(tmp_path / "s", [said])
    resolver.resolve(Topic("Serializable", "concept", (), ()))
    assert resolver.find(["Serializable isolation level"]) is None


def test_a_value_in_capitals_finds_the_page_of_its_words_where_a_kind_says_so(
    tmp_path: Path,
) -> None:
    """TiDB's `READ-COMMITTED` (the setting's value) is PostgreSQL's "Read Committed Isolation
    Level": a sentence says Read Committed is an isolation level. Without one, or for an
    identifier that is not words in capitals, it stays an identifier of its own."""
    assert spelled_words("READ-COMMITTED") == "READ COMMITTED"
    assert spelled_words("`REPEATABLE_READ`") == "REPEATABLE READ"
    for other in ("HTTP_PROXY2", "read-committed", "Read-Committed", "WAL", "X-Y"):
        assert spelled_words(other) is None, other
    said = "Read Committed is the default isolation level."
    resolver = _resolver(tmp_path / "said", [said])
    made = resolver.resolve(Topic("Read Committed Isolation Level", "concept", (), ()))
    assert resolver.find(["READ-COMMITTED"]) == made
    assert resolver.kind_names == {made.path: ["READ-COMMITTED"]}  # the alias as written
    resolver = _resolver(tmp_path / "unsaid", ["Read Committed sees committed data."])
    resolver.resolve(Topic("Read Committed Isolation Level", "concept", (), ()))
    assert resolver.find(["READ-COMMITTED"]) is None


def test_a_later_source_finds_the_page_an_earlier_one_named_with_the_kind(
    tmp_path: Path,
) -> None:
    """One ingest per document: PostgreSQL's "Read Committed Isolation Level" page exists; a
    TiDB source whose table lists Read Committed under "Isolation Level" finds it by the short
    name, and its sentences' kind finds it too."""
    wiki = tmp_path / "wiki"
    (wiki / "concepts").mkdir(parents=True)
    page = Page(
        "concepts/read-committed-isolation-level.md",
        {"type": "concept", "title": "Read Committed Isolation Level", "aliases": []},
        "# Read Committed Isolation Level\n",
    )
    (wiki / page.path).write_text(render_page(page), encoding="utf-8")
    for texts in ([TABLE], ["In TiDB, Read Committed is an isolation level of pessimistic mode."]):
        docs = [(parse_document(t, filename="tidb.md"), [t]) for t in texts]
        resolver = Resolver(Vault.load(wiki), kinds=KindEvidence(docs))
        found = resolver.find(["Read Committed"])
        assert found is not None and found.path == page.path, texts
        assert resolver.kind_names == {page.path: ["Read Committed"]}
    assert said_kinds("Read Committed", ["Read Committed is the default level."]) == [
        "default", "default level", "level",
    ]  # fmt: skip


def test_without_a_document_saying_so_a_name_with_a_kind_is_another_thing(tmp_path: Path) -> None:
    resolver = _resolver(tmp_path, ["The WAL records each change. WAL files are 16 MB."])
    resolver.resolve(Topic("WAL", "concept", (), ()))
    assert resolver.find(["WAL files"]) is None


def test_two_documents_on_isolation_levels_make_one_page_of_each_level(tmp_path: Path) -> None:
    files = {
        "pg.md": "# Transaction isolation\n\n"
        + TABLE.split("\n\n", 1)[1]
        + "\n## Read Committed Isolation Level\n\n"
        "The MySQL Read Committed isolation level is in line with the Consistent Read features "
        "in most cases. Read Committed is the default isolation level in PostgreSQL. A query sees only data "
        "committed before the query began. Two successive queries can see different data.\n",
        "tidb.md": "# TiDB isolation\n\nTiDB supports two levels of isolation.\n\n"
        "Read Committed sees the latest committed data of each statement. In Read Committed, "
        "each statement reads a new snapshot. Read Committed is used by pessimistic "
        "transactions only.\n",
    }
    paths = compile_files(tmp_path / "w", files, dt.date(2026, 11, 28))
    titles = {p.props.get("title") for p in Vault.load(paths.wiki).pages.values()}
    named = sorted(t for t in titles if t and "read committed" in t.casefold())
    assert len(named) == 1, named
    page = next(p for p in Vault.load(paths.wiki).pages.values() if p.props.get("title") in named)
    # it opens with what Read Committed is, not with the sentence about MySQL's level that
    # names the whole title (`openings.subject_aliases`)
    assert str(page.props["summary"]).startswith("Read Committed is the default"), page.props


def test_a_page_named_with_its_kind_opens_with_what_its_short_name_is() -> None:
    # the model-compiled overlap wiki's "Read Committed Isolation Level" (alias "Read
    # Committed", stop 47) opened with TiDB's sentence about MySQL's level: only the title
    # counted as the subject, and that sentence names the whole title
    title = "Read Committed Isolation Level"
    mysql = (
        "The MySQL Read Committed isolation level is in line with the Consistent Read features "
        "in most cases."
    )
    postgres = "Read Committed is the default isolation level in PostgreSQL."
    aliases = subject_aliases(title, "Read Committed", "RC", "start_ts", title)
    assert aliases == ("Read Committed",)
    assert defining_text(title, [mysql, postgres]) == mysql
    assert defining_text(title, [mysql, postgres], aliases=aliases) == postgres
    # an abbreviation is no shorter title: "Each pp and tg test …" is about the tests
    assert subject_aliases("Prompt processing", "pp") == ()


def test_a_page_titled_by_an_abbreviation_opens_with_the_sentence_defining_it_written_out() -> None:
    # the overlap wiki's "WAL" page (titled by Litestream's heading "Understanding the WAL")
    # opened with "The WAL also allows …": PostgreSQL's definition names it written out
    does = (
        "The WAL also allows read transactions to have their own snapshot view of the "
        "database at the time the transaction started."
    )
    definition = "Write-Ahead Logging (WAL) is a standard method for ensuring data integrity."
    aliases = subject_aliases("WAL", "WAL pages", "Write-Ahead Logging", "-wal")
    assert aliases == ("Write-Ahead Logging",)
    assert defining_text("WAL", [does, definition], aliases=aliases) == definition
    assert subject_aliases("WAL", "Write-ahead journal") == ()  # other initials


def test_a_table_s_instances_are_those_the_prose_names_as_it_spells_them() -> None:
    """A table headed by a kind lists its members; those the prose names are things of the
    document, titled as the prose writes them; a row no prose names, and a value written as
    code, are not."""
    doc = parse_document(
        "# Levels\n\n| Isolation Level | Dirty Read |\n| --- | --- |\n"
        "| Read uncommitted | Allowed |\n| Read committed | Not possible |\n"
        "| Snapshot | Not possible |\n| `sha256:abc` | Not possible |\n\n"
        "PostgreSQL's Read Uncommitted mode behaves like Read Committed. "
        "The digest `sha256:abc` is shown.\n",
        filename="levels.md",
    )
    assert table_instances(doc) == ["Read Uncommitted", "Read Committed"]
