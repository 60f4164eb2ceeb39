"""Sources ingested one at a time compound as one batch does (issue 32, `ingest.revisit`): an
earlier source that discusses what a later one discusses is read again and revisited, so the
concept they share gets one page citing both; the earlier source's own pages stay as they were;
`ingest.revisit_sources: 0` switches it off; a task two sources give a section is one page in
either order. Also the cheap test that picks the earlier sources
(`naming`), the facts a revisit must leave where they are (`held_facts`, `held_sentences`), and
a table row that names a page by its first cell, not by its column labels."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.helpers.wikitools import git, make_wiki
from tests.test_shared_sections import PDM, PIPENV
from wikic.cli import app, backends
from wikic.config import IngestConfig
from wikic.ingest.extract import Extraction, Topic, reread
from wikic.ingest.pipeline import IngestReport, IngestRequest, ingest
from wikic.ingest.plan import (
    PageTarget,
    Resolver,
    SourcePlan,
    _held_page,
    _row_labels_dropped,
    add_shared_sections,
)
from wikic.ingest.revisit import HeldPage, held_sentences, naming
from wikic.language.sentences import Sentence
from wikic.llm.fake import FakeBackend
from wikic.paths import WikiPaths, open_paths
from wikic.undo import undo_last
from wikic.vault.document import parse_document
from wikic.vault.sources import Source
from wikic.vault.tree import Vault

DAY = dt.date(2026, 11, 28)
SILENT = FakeBackend(lambda call: "no model", name="no model")  # code alone compiles

# each document discusses the write-ahead log in a section of its own; one page per source
# (`max_pages_per_source: 1`) leaves those sentences on no page of their source
BACKUPS = (
    "# Backups\n\nBackups run every night. Each backup is kept for a week. Backups are verified "
    "after upload.\n\n## Logs\n\nThe write-ahead log is copied before the backup starts. A "
    "write-ahead log segment is removed once it is copied. The tool compresses every write-ahead "
    "log segment.\n"
)
RECOVERY = (
    "# Recovery\n\nRecovery starts from the last backup. It restores every table first.\n\n"
    "## Replay\n\nThe write-ahead log is replayed after the restore. Each write-ahead log record "
    "is applied in order. Recovery stops at the end of the write-ahead log.\n"
)
FILES = {"a.md": BACKUPS, "b.md": RECOVERY}
WAL = "concepts/write-ahead-log.md"


def _wiki(root: Path, *, revisit: int | None = None) -> WikiPaths:
    paths = make_wiki(root)
    config = paths.root / "wikic.yaml"
    text = re.sub(r"(max_pages_per_source:) \d+", r"\1 1", config.read_text(encoding="utf-8"))
    if revisit is not None:
        text = re.sub(r"(revisit_sources:) \d+", rf"\1 {revisit}", text)
    config.write_text(text, encoding="utf-8")
    paths = open_paths(paths.root)
    for name, body in FILES.items():
        (paths.raw / name).write_text(body, encoding="utf-8")
    return paths


def _ingest(paths: WikiPaths, request: IngestRequest) -> IngestReport:
    return ingest(
        paths, request, extract_backend=lambda: SILENT, write_backend=lambda: SILENT, today=DAY
    )


def _facts(page_text: str) -> list[str]:
    return re.findall(r"^- (.+?) \[\[", page_text, flags=re.MULTILINE)


def test_one_at_a_time_a_shared_concept_gets_the_page_one_batch_gives_it(tmp_path: Path) -> None:
    batch = _wiki(tmp_path / "batch")
    _ingest(batch, IngestRequest(all_new=True))
    expected = (batch.wiki / WAL).read_text(encoding="utf-8")

    paths = _wiki(tmp_path / "one")
    first = _ingest(paths, IngestRequest(paths=[paths.raw / "a.md"]))
    assert first.revisited == [] and not (paths.wiki / WAL).exists()
    source_a = (paths.wiki / "sources/a.md").read_bytes()
    second = _ingest(paths, IngestRequest(paths=[paths.raw / "b.md"]))
    assert [o.status for o in second.outcomes] == ["ingested"]
    assert [(o.raw, o.status, o.updated) for o in second.revisited] == [
        ("raw/a.md", "revisited", [WAL])
    ]
    page = Vault.load(paths.wiki).pages[WAL]
    assert page.props["sources"] == ["[[sources/b]]", "[[sources/a]]"]
    text = (paths.wiki / WAL).read_text(encoding="utf-8")
    # the facts the batch gave it, the one the earlier source's own page holds too: the page is
    # new and of a concept the earlier source discusses, so its sentences on it go there as
    # they would in one batch (a sentence the wiki holds goes on no page it already had)
    assert set(_facts(text)) == set(_facts(expected))
    backups = (paths.wiki / "concepts/backups.md").read_text(encoding="utf-8")
    assert "The write-ahead log is copied before the backup starts." in backups
    # every citation of the earlier source lands on a block its source page holds
    held = set(re.findall(r"\^(p\d+)$", source_a.decode(), flags=re.MULTILINE))
    assert held and set(re.findall(r"\[\[sources/a#\^(p\d+)\]\]", text)) <= held
    # the earlier source's page is as its own ingest wrote it; the revisit is a commit of its own
    assert (paths.wiki / "sources/a.md").read_bytes() == source_a
    subjects = git(paths.root, "log", "--format=%s").splitlines()
    assert subjects[:2] == ["revisit: Backups", "ingest: Recovery"]
    log = paths.log_md.read_text(encoding="utf-8")
    assert "## [2026-11-28] revisit | Backups" in log
    assert "revisited [[sources/a|Backups]] (raw/a.md) for pages made since" in log


def test_switching_revisits_off(tmp_path: Path) -> None:
    paths = _wiki(tmp_path / "off", revisit=0)
    for name in FILES:
        report = _ingest(paths, IngestRequest(paths=[paths.raw / name]))
        assert report.revisited == []
    assert not (paths.wiki / WAL).exists()  # each discussed it alone, when it came


def test_a_source_changed_since_its_ingest_is_not_revisited(tmp_path: Path) -> None:
    paths = _wiki(tmp_path / "w")
    _ingest(paths, IngestRequest(paths=[paths.raw / "a.md"]))
    (paths.raw / "a.md").write_text(BACKUPS + "\nBackups are encrypted.\n", encoding="utf-8")
    report = _ingest(paths, IngestRequest(paths=[paths.raw / "b.md"]))
    assert report.revisited == []  # its re-ingest, not a revisit, brings what it says now


def test_a_dry_run_lists_the_revisit_and_writes_nothing(tmp_path: Path) -> None:
    paths = _wiki(tmp_path / "w")
    _ingest(paths, IngestRequest(paths=[paths.raw / "a.md"]))
    before = git(paths.root, "rev-parse", "HEAD")
    report = _ingest(paths, IngestRequest(paths=[paths.raw / "b.md"], dry_run=True))
    assert [(o.raw, o.status, o.updated) for o in report.revisited] == [
        ("raw/a.md", "planned", [WAL])
    ]
    assert git(paths.root, "rev-parse", "HEAD") == before and not (paths.wiki / WAL).exists()


@pytest.fixture
def cli_wiki(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> WikiPaths:
    paths = _wiki(tmp_path / "w")
    monkeypatch.setattr(backends, "for_role", lambda paths, role, model=None: SILENT)
    return paths


def test_the_cli_reports_revisits(cli_wiki: WikiPaths) -> None:
    runner = CliRunner()
    root = str(cli_wiki.root)
    assert runner.invoke(app, ["-C", root, "ingest", "raw/a.md"]).exit_code == 0
    text = runner.invoke(app, ["-C", root, "ingest", "--dry-run", "raw/b.md"])
    assert text.exit_code == 0, text.output
    assert "revisit    raw/a.md → sources/a.md\n  update   " + WAL in text.stdout
    done = runner.invoke(app, ["-C", root, "ingest", "--json", "raw/b.md"])
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert [s["status"] for s in data["sources"]] == ["ingested"]
    assert [(r["raw"], r["status"], r["updated"]) for r in data["revisited"]] == [
        ("raw/a.md", "revisited", [WAL])
    ]


def test_earlier_sources_are_found_by_the_names_they_may_write() -> None:
    text = "The Lock-Files are written by `uv lock`. A WAL is kept."
    assert naming(["lock file", "lockfile"], text) == 2  # spaces, hyphens, a plural s
    assert naming(["WAL"], text) == 1 and naming(["AL"], text) == 0  # a short name is a word
    assert naming(["snapshot"], text) == 0


def test_a_revisit_cites_only_blocks_its_source_page_holds() -> None:
    source = Source("raw/a.md", BACKUPS, "sha256:x", "article")
    ex = reread(source, IngestConfig())
    assert ex.topics == [] and "write-ahead log" in ex.discussed
    paragraphs = {s.paragraph for s in ex.sentences.values()}
    kept = held_sentences(ex, "Backups run every night. ^p1\n")
    assert len(paragraphs) > 1 and {s.paragraph for s in kept.sentences.values()} == {"p1"}


def test_a_table_row_names_pages_by_its_first_cell_not_by_its_column_labels() -> None:
    doc = parse_document(
        "# Levels\n\n| Isolation Level | Dirty Read | Phantom |\n|---|---|---|\n"
        "| Read committed | Not possible | Possible |\n",
        filename="x.md",
    )
    row = next(b for b in doc.blocks if b.kind == "table")
    sentence = Sentence(
        "s1", row.id, "Isolation Level: Read committed; Dirty Read: Not possible; Phantom: Possible"
    )
    assert _row_labels_dropped(sentence, doc).text == (
        "Isolation Level: Read committed; Not possible; Possible"
    )


def test_undo_takes_back_the_revisit_then_the_ingest(tmp_path: Path) -> None:
    paths = _wiki(tmp_path / "w")
    for name in FILES:
        _ingest(paths, IngestRequest(paths=[paths.raw / name]))
    assert undo_last(paths).undone.op == "revisit"
    assert "sources/a" not in (paths.wiki / WAL).read_text(encoding="utf-8")
    assert undo_last(paths).undone.op == "ingest"
    assert not (paths.wiki / WAL).exists() and not (paths.wiki / "sources/b.md").exists()


@pytest.mark.parametrize("order", [("pdm.md", "pipenv.md"), ("pipenv.md", "pdm.md")])
def test_a_task_an_earlier_source_gives_a_section_is_one_page_in_either_order(
    tmp_path: Path, order: tuple[str, str]
) -> None:
    """Pipenv's "Installing from Lock Files" and PDM's "Install the packages pinned in lock
    file" (`shared-sections`), ingested one at a time: one page citing both sections."""
    paths = make_wiki(tmp_path / "w")
    for name, text in (("pipenv.md", PIPENV), ("pdm.md", PDM)):
        (paths.raw / name).write_text(text, encoding="utf-8")
    for name in order:
        report = _ingest(paths, IngestRequest(paths=[paths.raw / name]))
    assert [(o.raw, o.updated) for o in report.revisited] == [
        (f"raw/{order[0]}", ["concepts/installing-from-lock-files.md"])
    ]
    page = Vault.load(paths.wiki).pages["concepts/installing-from-lock-files.md"]
    assert sorted(page.props["sources"]) == ["[[sources/pdm]]", "[[sources/pipenv]]"]
    assert "without resolving again" in page.body and "every other machine" in page.body


def test_a_section_an_earlier_source_made_a_page_of_is_the_task_s_page() -> None:
    """A task's page is the earlier source's page that holds most of its section's facts
    (`TWIN_SHARE`), not a second one."""
    plan = SourcePlan(
        _extraction(),
        "sources/pdm.md",
        revisit=True,
        held=[
            HeldPage("concepts/lock-file.md", "Lock file", "concept", ("s1", "s9")),
            HeldPage("concepts/pinned.md", "Pinned packages", "concept", ("s2", "s3", "s4")),
        ],
    )
    assert _held_page(plan, ("s2", "s3", "s4", "s5")) == PageTarget(
        "concepts/pinned.md", "Pinned packages", "concept", True
    )
    assert _held_page(plan, ("s2", "s5", "s6")) is None  # a third of them: its own page
    # a page the section is only a part of (PDM's own page took its "pdm sync" section) is
    # not the task's page: Pipenv's "Installing from Lock Files" went onto the page "PDM"
    whole = HeldPage("concepts/pdm.md", "PDM", "concept", tuple(f"s{i}" for i in range(2, 10)))
    plan.held.append(whole)
    assert _held_page(plan, ("s2", "s3", "s4")) == PageTarget(
        "concepts/pinned.md", "Pinned packages", "concept", True
    )
    plan.held.remove(plan.held[1])
    assert _held_page(plan, ("s2", "s3", "s4")) is None


def _extraction() -> Extraction:
    return reread(Source("raw/pdm.md", PDM, "sha256:x", "article"), IngestConfig())


PIPENV_UPDATE = (
    "# Locking\n\nPipenv locks the packages of a project.\n\n## Updating Dependencies\n\n"
    "Pipenv update refreshes the lock file. Pipenv update also installs the new versions. "
    "Pipenv writes the lock file again.\n"
)
POETRY_UPDATE = (
    "# Basic usage\n\nPoetry manages the packages of a project.\n\n"
    "## Updating dependencies to their latest versions\n\n"
    "The update command fetches the latest matching versions. Poetry updates the lock file "
    "with the new versions. Poetry warns when the lock file is out of date.\n"
)


@pytest.mark.parametrize("own_page", [False, True])
def test_a_task_joins_an_earlier_page_unless_that_makes_a_twin(
    tmp_path: Path, own_page: bool
) -> None:
    """Poetry's "Updating dependencies …" section and Pipenv's "Updating Dependencies" are one
    task; Pipenv's ingest had filed its section under `pipenv update`. Poetry's
    section joins that page, unless its sentences are mostly on a page Poetry makes
    (`poetry.lock`, in the one-at-a-time model compile): the two pages were twins."""
    (tmp_path / "wiki").mkdir()
    earlier = reread(Source("raw/pipenv.md", PIPENV_UPDATE, "sha256:x", "article"), IngestConfig())
    update = tuple(i for i, s in earlier.sentences.items() if "Pipenv update" in s.text)
    held = HeldPage("concepts/pipenv-update.md", "pipenv update", "concept", update)
    revisit = SourcePlan(earlier, "sources/pipenv.md", revisit=True, held=[held])
    batch = reread(Source("raw/poetry.md", POETRY_UPDATE, "sha256:y", "article"), IngestConfig())
    plan = SourcePlan(batch, "sources/poetry.md")
    section = tuple(
        i for i, s in batch.sentences.items() if "version" in s.text or "lock" in s.text
    )
    lock = PageTarget("concepts/poetry-lock.md", "poetry.lock", "concept", False)
    if own_page:
        plan.topics.append((Topic("poetry.lock", "concept", (), section), lock))
    add_shared_sections([plan], Resolver(Vault.load(tmp_path / "wiki")), [revisit])
    joined = [t.path for _, t in plan.topics if t.path == "concepts/pipenv-update.md"]
    assert bool(joined) is not own_page


# both discuss "TXID"; the first writes it out once ("transaction ID (TXID)"), the second never
REPLICAS = (
    "# Replicas\n\nReplicas follow the primary node. Each replica keeps a full copy of the "
    "database. Replicas serve reads while the primary takes writes.\n\n## Positions\n\nEach "
    "write gets an autoincrementing transaction ID (TXID). The TXID grows by one with every "
    "write. A replica records the last TXID it applied.\n"
)
RESTORES = (
    "# Restores\n\nRestores start from the latest backup. A restore rebuilds the database "
    "file. Restores verify every page they write.\n\n## Ordering\n\nThe TXID of each backup "
    "file is in its name. The restore applies backup files in TXID order. A gap in the TXID "
    "sequence stops the restore.\n"
)


@pytest.mark.parametrize("order", [("a.md", "b.md"), ("b.md", "a.md")])
def test_an_abbreviated_concept_is_one_page_titled_as_written_out(
    tmp_path: Path, order: tuple[str, str]
) -> None:
    # one at a time, in either order, as in one batch: the page of the concept both sources
    # discuss is titled by the term one of them writes out, its abbreviation an alias, and it
    # cites both (before, one at a time made no page: the first source's sentences were on
    # its own page, and the second's were too few alone)
    paths = _wiki(tmp_path)
    (paths.raw / "a.md").write_text(REPLICAS, encoding="utf-8")
    (paths.raw / "b.md").write_text(RESTORES, encoding="utf-8")
    for name in order:
        _ingest(paths, IngestRequest(paths=[paths.raw / name]))
    page = Vault.load(paths.wiki).pages["concepts/transaction-id.md"]
    assert page.props["title"] == "Transaction ID"
    assert page.props["aliases"] == ["TXID"]
    assert sorted(page.props["sources"]) == ["[[sources/a]]", "[[sources/b]]"]
    facts = _facts((paths.wiki / "concepts/transaction-id.md").read_text(encoding="utf-8"))
    assert "A gap in the TXID sequence stops the restore." in facts
    assert "A replica records the last TXID it applied." in facts


LMDB = (
    "# Embedded stores\n\nEmbedded stores run inside the application process.\n\n## LMDB\n\n"
    "LMDB maps the whole database file into memory. LMDB keeps its data in a B+tree. LMDB "
    "supports lock-free MVCC with a single writer and many readers. LMDB never needs recovery "
    "after a crash.\n"
)
MVCC = (
    "# Concurrency\n\nConcurrency control keeps transactions apart.\n\n## MVCC\n\nMVCC keeps "
    "several versions of each row. MVCC lets readers see a snapshot of the data. MVCC never "
    "blocks a reader on a writer. Old MVCC versions are removed by a vacuum.\n"
)


def test_a_revisit_adds_a_sentence_its_own_page_holds_where_no_twin_comes_of_it(
    tmp_path: Path,
) -> None:
    # bbolt's "… support lock-free MVCC …" is on its own LMDB page; PostgreSQL's later MVCC
    # page cites bbolt too, as one batch of the two would
    paths = make_wiki(tmp_path / "w")
    for name, body in {"a.md": LMDB, "b.md": MVCC}.items():
        (paths.raw / name).write_text(body, encoding="utf-8")
    _ingest(paths, IngestRequest(paths=[paths.raw / "a.md"]))
    sentence = "LMDB supports lock-free MVCC with a single writer and many readers."
    assert sentence in (paths.wiki / "concepts/lmdb.md").read_text(encoding="utf-8")
    second = _ingest(paths, IngestRequest(paths=[paths.raw / "b.md"]))
    assert [(o.raw, o.updated) for o in second.revisited] == [("raw/a.md", ["entities/mvcc.md"])]
    page = Vault.load(paths.wiki).pages["entities/mvcc.md"]
    assert page.props["sources"] == ["[[sources/b]]", "[[sources/a]]"]
    assert sentence in (paths.wiki / "entities/mvcc.md").read_text(encoding="utf-8")
    assert sentence in (paths.wiki / "concepts/lmdb.md").read_text(encoding="utf-8")  # kept
