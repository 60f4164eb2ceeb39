"""A concept several sources discuss is one page citing each of them (issue 32): what a document
discusses (`language.discussed`), the concepts a batch shares whatever spelling each source uses
(`ingest.shared`), the `shared-concepts` finder switched on and off, and the golden page three
authors' excerpts on lock files compile into."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

from tests.helpers.golden import assert_matches_golden
from tests.helpers.wikitools import compile_files
from wikic.ingest.shared import concept_name, shared_concepts
from wikic.language.discussed import (
    about,
    can_name_concept,
    coined_words,
    discussed_names,
    discussed_nouns,
    discussed_words,
    heading_terms,
)
from wikic.language.finders import Reading, field_terms
from wikic.language.sentences import fact_sentences
from wikic.paths import WikiPaths
from wikic.vault.document import parse_document
from wikic.vault.tree import Vault

DATA = Path(__file__).parent / "data" / "shared"
GOLDEN = Path(__file__).parent / "golden" / "shared"
DAY = dt.date(2026, 11, 22)


def _discussed(text: str) -> tuple[list[str], list[str]]:
    doc = parse_document(text, filename="x.md")
    sentences = fact_sentences(doc)
    return discussed_names(doc, sentences), discussed_words(sentences)


def test_a_sentence_about_a_name_opens_with_it_says_something_of_it_or_defines_it() -> None:
    assert about("lock file", "The lock file records the exact versions.")
    assert about("snapshot", "Old snapshots are removed after a week.")
    assert not about("lock file", "Run the installer, which reads the lock file.")


def test_a_document_discusses_what_several_sentences_name_not_a_passing_mention() -> None:
    names, _ = _discussed(
        "# Notes\n\nThe write-ahead log records each change. A crash replays the write-ahead "
        "log. Readers skip the page cache.\n"
    )
    assert "write-ahead log" in names and "page cache" not in names


def test_a_heading_makes_a_plain_word_a_term_but_not_a_verb() -> None:
    doc = parse_document(
        "# Backups\n\n## Compaction & snapshots\n\nA snapshot is a full copy. Old snapshots go."
        "\n\n## Create\n\nCreate one now.\n",
        filename="x.md",
    )
    texts = [s.text for s in fact_sentences(doc)]
    assert heading_terms(doc, texts) == ["snapshot"]


def test_plain_words_a_document_discusses_count_only_towards_another_source_s_concept() -> None:
    # "file" is discussed by both, but by a plain word only: no concept
    words = ["file", "snapshot"]
    assert shared_concepts([([], words), ([], words)]) == []
    # a heading of the first names "snapshot": the second's prose joins it
    assert shared_concepts([(["snapshot"], ["file"]), ([], words)]) == ["snapshot"]


def test_one_concept_whatever_spelling_each_source_uses() -> None:
    found = shared_concepts(
        [(["lock file", "WAL"], []), (["lockfile", "write-ahead log"], []), (["Lock files"], [])]
    )
    assert found == ["lock file", "WAL"]


def test_distinct_names_stay_apart() -> None:
    assert shared_concepts([(["AWQ", "tier 1"], []), (["DWQ", "tier 2"], [])]) == []


def test_a_name_of_two_letters_is_no_concept_several_authors_share() -> None:
    # rqlite's `db` package and bbolt's `DB` type: each project's own abbreviation
    assert not can_name_concept("DB") and can_name_concept("WAL")


def test_a_concept_is_named_in_lower_case_where_a_source_writes_it_so() -> None:
    assert concept_name(["CHECKPOINT", "checkpoint"]) == "checkpoint"
    assert concept_name(["WAL", "wal"]) == "wal"
    assert concept_name(["TXID"]) == "TXID"


def _compile(root: Path, files: dict[str, str], *, disable: str = "") -> WikiPaths:
    return compile_files(root, files, DAY, disable=disable)


SNAPSHOTS = {
    "a.md": "# Backups\n\nBackups run every night.\n\n## Compaction & snapshots\n\nA snapshot is "
    "a full copy of the database. The tool takes a snapshot every day. Old files are removed "
    "once a snapshot covers them.\n",
    "b.md": "# Replication\n\nEach replica copies changes from the primary.\n\nA new replica "
    "first loads the latest snapshot. Snapshots are compressed before upload. The primary keeps "
    "one snapshot per day.\n",
}


def test_switching_shared_concepts_off(tmp_path: Path) -> None:
    """One document's heading names snapshots, the other's prose discusses them: with the
    finder, one page cites both; without it, no page is about snapshots."""
    on = Vault.load(_compile(tmp_path / "on", SNAPSHOTS).wiki)
    page = on.pages["concepts/snapshot.md"]
    assert page.props["sources"] == ["[[sources/a]]", "[[sources/b]]"]
    off = Vault.load(_compile(tmp_path / "off", SNAPSHOTS, disable="shared-concepts").wiki)
    assert "concepts/snapshot.md" not in off.pages


def test_a_generic_word_written_as_code_makes_no_page(tmp_path: Path) -> None:
    # Poetry's and PDM's `name` (a TOML key) gathered seven unrelated sentences on one page
    files = {
        "a.md": "# Project\n\nThe `name` key is required. Set `name` before you publish. The "
        "`name` must be unique on the index. The `version` key is required too.\n",
        "b.md": "# Packages\n\nEach `name` is normalised first. A `name` may use dashes. Pass "
        "the `name` of the package to install it.\n",
    }
    wiki = Vault.load(_compile(tmp_path / "w", files).wiki)
    assert not any(p.props.get("title") == "name" for p in wiki.pages.values())


def test_three_authors_on_lock_files_make_one_golden_page(tmp_path: Path) -> None:
    """Excerpts of the uv, Poetry and PDM documentation (tests/data/shared/SOURCES.md),
    compiled code only: one "Lock file" page whose opening names it, with each source's
    facts under that source's section, every source cited."""
    files = {p.name: p.read_text(encoding="utf-8") for p in sorted(DATA.glob("*-lock*.md"))}
    assert len(files) == 3
    paths = _compile(tmp_path / "w", files)
    page = Vault.load(paths.wiki).pages["concepts/lock-file.md"]
    sources = ["[[sources/pdm-lock]]", "[[sources/poetry-lock]]", "[[sources/uv-locking]]"]
    assert page.props["sources"] == sources
    facts = page.body.split("## Facts", 1)[1].split("## Related", 1)[0]
    assert all(s.strip("[]") + "#^" in facts for s in sources)  # every source cited in a fact
    assert "lock file" in page.props["summary"].casefold()
    kept = tmp_path / "page"
    (kept / "concepts").mkdir(parents=True)
    shutil.copy(paths.wiki / "concepts/lock-file.md", kept / "concepts/lock-file.md")
    assert_matches_golden(kept, GOLDEN)


COMPACTION = {
    "a.md": "# Storage engine\n\nThe engine writes sorted files to disk.\n\nCompaction merges "
    "small files into larger ones. The compaction runs in the background. A compaction never "
    "blocks writers. Each file is read once per compaction.\n",
    "b.md": "# Tuning the server\n\nThe server keeps recent writes in memory.\n\nCompaction "
    "reclaims the space of deleted rows. Set the interval of the compaction in the "
    "configuration file. A long compaction slows reads. Every file is checked after a "
    "compaction.\n",
}


def test_switching_field_terms_off(tmp_path: Path) -> None:
    """Two documents discuss compaction in prose alone, no heading naming it: a word general
    English rarely writes is a term of the field, one page citing both. "file", which both
    name as often, is too common a word to be a page; without the finder, compaction is none."""
    on = Vault.load(_compile(tmp_path / "on", COMPACTION).wiki)
    page = on.pages["concepts/compaction.md"]
    assert page.props["sources"] == ["[[sources/a]]", "[[sources/b]]"]
    assert not any(p.props.get("title", "").casefold() == "file" for p in on.pages.values())
    off = Vault.load(_compile(tmp_path / "off", COMPACTION, disable="field-terms").wiki)
    assert "concepts/compaction.md" not in off.pages


def test_a_field_term_is_a_noun_a_document_discusses_not_a_verb_or_common_word() -> None:
    doc = parse_document(COMPACTION["a.md"], filename="a.md")
    sentences = fact_sentences(doc)
    assert "compaction" in discussed_nouns(sentences)
    assert "files" in discussed_words(sentences)  # discussed, but every text writes it
    assert field_terms(Reading(doc, sentences, sentences)).discussed == ("compaction",)


def test_a_coined_word_is_a_name_plain_words_and_code_are_not() -> None:
    """A lower-case word general English lacks, written in prose in four sentences, is a name
    made for one thing; a rare English word ("checksum") and one written as code are not, nor
    one three sentences write."""
    text = (
        "# Notes\n\nThe db package is rqlite's wrapper around SQLite. rqlite runs SQLite in "
        "WAL mode. Reads in rqlite use a second connection. The checksum of rqlite is kept "
        "per page.\n\nThe `walfile` holds frames. Each `walfile` is truncated. A `walfile` is "
        "never shared. The `walfile` has a checksum.\n\nThe bboltx store is small. The bboltx "
        "store is fast. The bboltx store is old.\n"
    )
    doc = parse_document(text, filename="notes.md")
    assert coined_words(fact_sentences(doc)) == ["rqlite"]
