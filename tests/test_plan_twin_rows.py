"""What a page that gives way takes along (`ingest.twins`), and section labels shared by two
sources (`ingest.labels`): a thin heading page merged into another takes only the facts that
name it; a thin command, option or key page becomes a row and an alias of the page holding its
facts (issue 32); a section's label never gathers another source's sentences. Constructed
sources."""

from __future__ import annotations

import datetime as dt
import importlib.util
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest

from tests.helpers.hash_seeds import outputs_under_seeds
from wikic.ingest.extract import Extraction, Topic
from wikic.ingest.plan import SourcePlan, plan_batch
from wikic.ingest.render import TopicEdit, apply_topic_edit, names_it
from wikic.ingest.write import _rows
from wikic.language.sentences import Sentence
from wikic.vault.document import parse_document
from wikic.vault.sections import LISTED, RELATED, split_body
from wikic.vault.sources import Source
from wikic.vault.topic_page import Fact
from wikic.vault.tree import Vault

REPO = Path(__file__).resolve().parent.parent


def _extraction(texts: list[str], topics: list[Topic], name: str = "notes") -> Extraction:
    text = "# Notes\n\n" + "\n\n".join(texts) + "\n"
    source = Source(f"raw/{name}.md", text, "sha256:0", "article")
    doc = parse_document(text, filename=f"{name}.md")
    sentences = {f"s{i}": Sentence(f"s{i}", f"p{i}", t) for i, t in enumerate(texts, 1)}
    return Extraction(source, name, texts[0], doc, sentences, topics)


def _plans(tmp_path: Path, *sources: Extraction) -> list[SourcePlan]:
    (tmp_path / "wiki").mkdir(exist_ok=True)
    return plan_batch(
        list(sources), Vault.load(tmp_path / "wiki"), existing_source_pages={}, max_pages=10
    )


def _pages(plan: SourcePlan) -> dict[str, Topic]:
    return {target.title: topic for topic, target in plan.topics}


DRIVER = [
    "The driver factory registers one SQLite driver per name.",
    "Each driver of the driver factory disables checkpoint on close.",
    "A registered name cannot be reused.",
    "The driver factory is safe for concurrent use.",
    "Tests replace the driver factory with a stub.",
]


def test_a_thin_heading_page_merged_away_leaves_behind_the_facts_that_name_its_other_not(
    tmp_path: Path,
) -> None:
    (plan,) = _plans(
        tmp_path,
        _extraction(
            DRIVER,
            [
                Topic("Driver factory", "concept", (), ("s1", "s2", "s4", "s5")),
                Topic("Package design", "concept", (), ("s1", "s2", "s3"), from_heading=True),
            ],
        ),
    )
    pages = _pages(plan)
    assert list(pages) == ["Driver factory"]
    assert "s3" not in pages["Driver factory"].facts  # it names neither page
    assert any("Package design" in d for d in plan.dropped)


def test_a_thin_heading_page_merged_away_leaves_no_alias_on_an_unrelated_page(
    tmp_path: Path,
) -> None:
    # "Package design" is no other name of the driver factory (`twins.named_alike`)
    (plan,) = _plans(
        tmp_path,
        _extraction(
            DRIVER,
            [
                Topic("Driver factory", "concept", (), ("s1", "s2", "s4", "s5")),
                Topic("Package design", "concept", (), ("s1", "s2", "s3"), from_heading=True),
            ],
        ),
    )
    assert "Package design" not in _pages(plan)["Driver factory"].aliases


def test_a_thin_heading_page_merged_away_takes_along_a_fact_that_names_its_other(
    tmp_path: Path,
) -> None:
    texts = [*DRIVER[:2], "The driver factory panics on a reused name.", *DRIVER[3:]]
    (plan,) = _plans(
        tmp_path,
        _extraction(
            texts,
            [
                Topic("Driver factory", "concept", (), ("s1", "s2", "s4", "s5")),
                Topic("Package design", "concept", (), ("s1", "s2", "s3"), from_heading=True),
            ],
        ),
    )
    assert set(_pages(plan)["Driver factory"].facts) == {"s1", "s2", "s3", "s4", "s5"}


UV = [
    "Python discovery finds the interpreter uv installs into.",
    "An activated virtual environment is found from `VIRTUAL_ENV`.",
    "If no virtual environment is found, uv prompts to create one with `uv venv`.",
    "A Conda environment is found from `CONDA_PREFIX`.",
]


def test_a_command_page_whose_facts_are_on_another_page_becomes_its_row(
    tmp_path: Path,
) -> None:
    (plan,) = _plans(
        tmp_path,
        _extraction(
            UV,
            [
                Topic("Python discovery", "concept", (), ("s1", "s2", "s3", "s4")),
                Topic("uv venv", "concept", (), ("s3",), precise=True),
            ],
        ),
    )
    pages = _pages(plan)
    assert list(pages) == ["Python discovery"]
    assert pages["Python discovery"].listed == ("uv venv",)


# a heading of plain words (an alias: it shares a word), and one hyphened as a heading writes
# it ("Trade-offs" is English, not code: `is_code_like`; it had become a row and an alias)
@pytest.mark.parametrize(("heading", "alias"), [("Discovery order", True), ("Trade-offs", False)])
def test_a_plain_word_page_that_gives_way_is_not_listed(
    tmp_path: Path, heading: str, alias: bool
) -> None:
    (plan,) = _plans(
        tmp_path,
        _extraction(
            UV,
            [
                Topic("Python discovery", "concept", (), ("s1", "s2", "s3", "s4")),
                Topic(heading, "concept", (), ("s4",), from_heading=True),
            ],
        ),
    )
    assert list(_pages(plan)) == ["Python discovery"]
    assert _pages(plan)["Python discovery"].listed == ()
    assert (heading in _pages(plan)["Python discovery"].aliases) is alias


LITEFS = [
    "LiteFS replicates SQLite databases across ephemeral nodes.",
    "LiteFS trades strong consistency for easy live replication, unlike tools such as rqlite.",
    "LiteFS intercepts writes through a FUSE file system.",
    "LiteFS elects its primary through a Consul lease.",
]


def test_a_linked_project_page_that_gives_way_is_no_row_nor_alias(tmp_path: Path) -> None:
    """A precise name of one plain word (a project the document links to, `linked_names`)
    is a thing of its own, not a member of the page holding its facts: "rqlite", named in a
    comparison of LiteFS with other tools, had become a row and an alias of LiteFS (and the
    held-out "apt" one of "Image layers"). A command of several words still is a row."""
    (plan,) = _plans(
        tmp_path,
        _extraction(
            LITEFS,
            [
                Topic("LiteFS", "concept", (), ("s1", "s2", "s3", "s4")),
                Topic("rqlite", "concept", (), ("s2",), precise=True),
            ],
        ),
    )
    pages = _pages(plan)
    assert list(pages) == ["LiteFS"]
    assert pages["LiteFS"].listed == ()
    assert "rqlite" not in pages["LiteFS"].aliases


LITESTREAM = [
    "Litestream replicates SQLite databases to object storage.",
    "Litestream restores LTX files in transaction ID (TXID) order.",
    "Litestream checks that TXIDs form a contiguous sequence.",
    "Litestream runs as a separate background process.",
]


def test_a_term_with_its_abbreviation_is_never_a_row_nor_an_alias_of_another_page(
    tmp_path: Path,
) -> None:
    """A thin page of a term the document defines with its abbreviation, all of whose facts
    another page holds, is a named thing, not a member: it had become a row and an alias of
    the Litestream page (and the held-out "Directed Acyclic Graph" one of "Optional
    property"). It is trimmed: with nothing of its own, it is not made."""
    (plan,) = _plans(
        tmp_path,
        _extraction(
            LITESTREAM,
            [
                Topic("Litestream", "concept", (), ("s1", "s2", "s3", "s4")),
                Topic("Transaction ID", "concept", ("TXID",), ("s2", "s3"), precise=True),
            ],
        ),
    )
    pages = _pages(plan)
    assert list(pages) == ["Litestream"]
    assert pages["Litestream"].listed == ()
    assert "Transaction ID" not in pages["Litestream"].aliases


def _edit(listed: tuple[tuple[str, str], ...]) -> TopicEdit:
    fact = Fact("f-000001", UV[2], ("[[sources/uv#^p3]]",))
    return TopicEdit(
        path="concepts/python-discovery.md",
        title="Python discovery",
        type="concept",
        aliases=(),
        new_facts=(fact,),
        summary=UV[0],
        contradictions=(),
        related=("[[concepts/uv|uv]]",),
        source_page="sources/uv.md",
        source_title="uv",
        listed=listed,
    )


def test_a_listed_name_is_a_cited_row_before_related_and_an_alias() -> None:
    row = (("uv venv", "[[sources/uv#^p3]]"),)
    page = apply_topic_edit(None, _edit(row), dt.date(2026, 1, 1))
    assert page.props["aliases"] == ["uv venv"]  # its words share none with the title's
    body = split_body(page.body)
    assert (body.get(LISTED) or "").strip() == "- `uv venv` — [[sources/uv#^p3]]"
    names = [n for n, _ in body.sections]
    assert names.index(LISTED) == names.index(RELATED) - 1
    again = apply_topic_edit(page, _edit(row), dt.date(2026, 1, 2))
    assert split_body(again.body).get(LISTED) == body.get(LISTED)  # one row per name
    assert again.props["aliases"] == ["uv venv"]


def test_a_page_takes_no_second_member_of_a_series_nor_a_common_word_of_its_title() -> None:
    # PostgreSQL's and TiDB's `SELECT`: two statements of one series are no names of one page
    day = dt.date(2026, 1, 1)
    both = ("SELECT FOR SHARE", "SELECT FOR UPDATE")
    select = replace(_edit(()), path="entities/select.md", title="SELECT", aliases=both)
    assert apply_topic_edit(None, select, day).props["aliases"] == ["SELECT FOR SHARE"]
    # Litestream's `transaction ID`: a reader looking up "ID" means no transaction
    txid = replace(_edit(()), path="concepts/transaction-id.md", title="transaction ID")
    page = apply_topic_edit(None, replace(txid, aliases=("ID", "TXID")), day)
    assert page.props["aliases"] == ["TXID"]
    assert names_it("Raft", "Raft consensus", [])  # a word of the title that names a thing
    assert names_it("Read Committed", "Read Committed isolation level", [])


def test_listed_names_become_aliases_in_their_order_whatever_the_hash_seed() -> None:
    """The aliases a page's rows give it followed the order of a set, and so the hash seed:
    `uv sync`'s `--only-dev` and `--only-group` swapped from run to run."""
    script = """
import datetime as dt
from tests.test_plan_twin_rows import _edit
from wikic.ingest.render import apply_topic_edit

rows = tuple((f"--only-{w}", "[[sources/uv#^p3]]") for w in ("dev", "group", "extra", "docs"))
page = apply_topic_edit(None, _edit(rows), dt.date(2026, 1, 1))
print(" ".join(page.props["aliases"]))
"""
    assert outputs_under_seeds(script, 4) == {"--only-dev --only-group --only-extra --only-docs"}


def test_a_row_cites_the_fact_that_writes_its_name() -> None:
    """`--all-extras` cites "… use the `--all-extras` option", not the earlier sentence whose
    "extras" `grounding.mentions` would take for it; "optional dependencies", a name in words,
    cites a sentence that mentions it; `--locked`, which no fact writes ("the project is
    locked" is no flag), is no row, and so no alias."""
    facts = [
        Fact(
            "f-1",
            "uv reads optional dependencies from a table, also called extras.",
            ("[[sources/uv#^p28]]",),
        ),
        Fact(
            "f-2",
            "To quickly enable all extras, use the `--all-extras` option.",
            ("[[sources/uv#^p31]]",),
        ),
        Fact(
            "f-3",
            "When `uv run` is used, the project is locked and synced.",
            ("[[sources/uv#^p2]]",),
        ),
    ]
    topic = Topic(
        "uv sync",
        "concept",
        (),
        ("s1",),
        listed=("--all-extras", "optional dependency", "--locked"),
    )
    assert _rows(topic, facts) == (
        ("--all-extras", "[[sources/uv#^p31]]"),
        ("optional dependency", "[[sources/uv#^p28]]"),
    )


def test_a_page_without_listed_names_has_no_row_section() -> None:
    page = apply_topic_edit(None, _edit(()), dt.date(2026, 1, 1))
    assert split_body(page.body).get(LISTED) is None and page.props["aliases"] == []


def _section(name: str, subject: str, body: list[str]) -> Extraction:
    texts = [f"The {subject} is described here.", *body]
    ids = tuple(f"s{i}" for i in range(2, len(texts) + 1))
    return _extraction(
        texts,
        [
            Topic(subject, "concept", (), ("s1",), subject=True),
            Topic("Specification", "concept", (), ids, from_heading=True),
        ],
        name=name,
    )


LEDGER = ["Every line holds a date and a payee.", "Amounts in one entry sum to zero."]
TILES = ["The header stores the map width.", "Tiles follow in row order."]


def test_a_section_label_two_sources_share_gathers_neither(tmp_path: Path) -> None:
    plans = _plans(
        tmp_path, _section("ledger", "ledger format", LEDGER), _section("tiles", "tilemap", TILES)
    )
    assert all("Specification" not in _pages(p) for p in plans)
    assert all(any("a section's label" in d for d in p.dropped) for p in plans)


def test_a_section_label_of_one_source_keeps_its_page(tmp_path: Path) -> None:
    (plan,) = _plans(tmp_path, _section("ledger", "ledger format", LEDGER))
    assert "Specification" in _pages(plan)


def test_a_heading_whose_sentences_name_it_is_no_label(tmp_path: Path) -> None:
    named = ["The specification fixes one line per entry.", "The specification is short."]
    plans = _plans(
        tmp_path, _section("ledger", "ledger format", named), _section("tiles", "tilemap", TILES)
    )
    assert "Specification" in _pages(plans[0])
    assert "Specification" not in _pages(plans[1])


def _asked(heading: str) -> Extraction:
    """Pipenv's section that says what a lock file is without writing the name again."""
    texts = ["Pipenv records exact versions as JSON.", "Hashes are recorded too."]
    text = f"# Pipenv guide\n\n## {heading}\n\n" + "\n\n".join(texts) + "\n"
    source = Source("raw/pipenv.md", text, "sha256:0", "article")
    doc = parse_document(text, filename="pipenv.md")
    sentences = {f"s{i}": Sentence(f"s{i}", f"p{i}", t) for i, t in enumerate(texts, 1)}
    topic = Topic("Lock File", "concept", (), ("s1", "s2"), from_heading=True)
    return Extraction(source, "Pipenv guide", texts[0], doc, sentences, [topic])


def test_a_heading_that_asks_what_a_thing_is_is_no_label(tmp_path: Path) -> None:
    named = ["A lock file pins every version.", "The lock file is committed."]
    pdm = _extraction(named, [Topic("Lock file", "concept", (), ("s1", "s2"), from_heading=True)])
    _, pipenv = _plans(tmp_path, pdm, _asked("What is a Lock File?"))
    assert "Lock file" in _pages(pipenv)  # the page the other source made cites both
    _, labelled = _plans(tmp_path, pdm, _asked("Lock File"))  # a label of the same words
    assert "Lock file" not in _pages(labelled)


def _check_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "check_fact_subjects", REPO / "scripts/check_fact_subjects.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_fact_subjects"] = module
    spec.loader.exec_module(module)
    return module


def test_the_check_counts_facts_that_name_neither_the_page_nor_follow_one_that_does() -> None:
    stray = _check_script().stray_facts
    a, b = frozenset({"sources/a"}), frozenset({"sources/b"})
    facts = [
        ("The ledger format stores lines.", a, ()),
        ("It is plain text.", a, ()),  # follows a fact that names it
        ("Tiles follow in row order.", b, ("Specification",)),
        ("The header stores the width.", b, ()),
    ]
    assert stray(["Ledger format"], facts, headings=False) == [
        "Tiles follow in row order.",
        "The header stores the width.",
    ]
    assert stray(["Specification"], facts[2:], headings=True) == []


def test_a_trim_leaves_the_smaller_other_page_below_the_twin_share_too(tmp_path: Path) -> None:
    """A title's subject (never trimmed) most of whose facts are on an option's page two
    sources write (never taken off it): the option's page keeps the second source, with fewer
    of the subject's facts than make the two twins from the subject's side."""
    tips = [
        "Token generation is slow when layers stay on the CPU.",
        "Offloading layers with `--n-gpu-layers` raises tokens per second.",
        "Using `--n-gpu-layers` 35 puts every layer on the GPU.",
        "Too many `--n-gpu-layers` exhaust GPU memory.",
        "A value of 0 for `--n-gpu-layers` keeps the model on the CPU.",
        "Build with CUDA so that `--n-gpu-layers` is accepted.",
    ]
    bench = [
        "The `--n-gpu-layers` option of llama-bench takes a list of values.",
        "Each value of `--n-gpu-layers` is one test run.",
        "Results of `--n-gpu-layers` runs go to one table.",
    ]
    first, second = _plans(
        tmp_path,
        _extraction(
            tips,
            [
                Topic(
                    "Token generation", "concept", (), ("s1", "s2", "s3", "s4", "s5"), subject=True
                ),
                Topic(
                    "--n-gpu-layers", "concept", (), ("s2", "s3", "s4", "s5", "s6"), precise=True
                ),
            ],
            name="tips",
        ),
        _extraction(
            bench,
            [Topic("--n-gpu-layers", "concept", (), ("s1", "s2", "s3"), precise=True)],
            name="bench",
        ),
    )
    subject = set(_pages(first)["Token generation"].facts)
    option = set(_pages(first)["--n-gpu-layers"].facts)
    assert len(subject & option) < 0.6 * len(subject)
    assert "--n-gpu-layers" in _pages(second)
