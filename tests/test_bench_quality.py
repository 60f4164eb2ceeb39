"""scripts/bench_quality.py with FakeBackend: QA set, scoring, the BM25 baseline, and a whole run."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.helpers.storetools import sample_wiki
from tests.helpers.wikitools import snapshot
from wikic.errors import UsageError
from wikic.llm.fake import FakeBackend, FakeCall
from wikic.query.answer import NOTHING_FOUND
from wikic.query.context import NOT_IN_WIKI

REPO = Path(__file__).resolve().parent.parent


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "bench_quality", REPO / "scripts/bench_quality.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_quality"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


bq = _load_script()

RAW_PAPER = """# Prefix Caching Paper

Snapshots of the KV state are taken at segment boundaries, never by trimming.

Trimming a rotating cache of sliding-window layers corrupts the output silently.

Snapshots are persisted on disk with a checksum and a file lock.
"""

RAW_MEMORY = """# Memory

Episodic memory is indexed by time. Semantic memory is indexed by concept.
"""


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_the_shipped_qa_set_is_well_formed() -> None:
    items = bq.load_qa(bq.DEFAULT_QA)
    assert 10 <= len(items) <= 16
    stems = {p.stem for p in (REPO / "raw").glob("*.md")}
    for item in items:
        assert set(item.sources) <= stems, item.id
    assert sum(len(i.sources) >= 2 for i in items) >= 3  # questions that need two sources
    assert 1 <= sum(not i.answerable for i in items) <= 3
    window = next(i for i in items if i.id == "gemma-window")
    # the planted contradiction: a good answer gives both numbers
    assert bq.score_answer(window, "512 tokens, or 1024 per the debugging log.").correct
    assert not bq.score_answer(window, "The window is 512 tokens.").correct


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "- id: a\n  question: Q?\n  facts: ['x']\n- id: a\n  question: R?\n  facts: ['y']\n",
            "duplicate ids",
        ),
        ("- id: a\n  question: Q?\n  facts: ['(']\n", "bad regex"),
        ("- id: a\n  question: Q?\n", "needs facts"),
        ("- id: a\n  question: Q?\n  facts: ['x']\n  answerable: false\n", "needs facts"),
        ("- id: a\n  question: ''\n  facts: ['x']\n", "non-empty"),
        ("- id: a\n  question: Q?\n  facts: ['x']\n  answer: y\n", "unknown keys"),
        ("{}\n", "non-empty list"),
    ],
)
def test_bad_qa_files_are_refused_with_the_item_named(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(UsageError, match=message):
        bq.load_qa(_write(tmp_path / "qa.yaml", text))


def test_facts_count_only_in_prose_and_declines_are_recognised() -> None:
    item = bq.QAItem("ops", "Which operations?", ("ingest", "lint"))
    assert bq.score_answer(item, "Ingest and [[concepts/lint|lint]] do it.").correct
    # a link target is not prose: [[concepts/lint]] shows no word "lint" to the reader
    score = bq.score_answer(item, "Ingest does it [[concepts/lint]].")
    assert score.found == ("ingest",) and score.missing == ("lint",) and not score.correct
    assert score.fact_share == 0.5
    nope = bq.QAItem("nope", "How many parameters?", answerable=False)
    for declined in (
        NOT_IN_WIKI,
        NOTHING_FOUND,
        "The sources do not mention the parameter count.",
        "This is not stated in the passages.",
        "I cannot answer that from the wiki.",
    ):
        assert bq.score_answer(nope, declined).correct, declined
    assert not bq.score_answer(nope, "Gemma 3 has 27 billion parameters.").correct


def test_bm25_ranks_paragraphs_and_packs_them_under_the_budget(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    _write(raw / "paper.md", RAW_PAPER)
    _write(raw / "notes/memory.md", RAW_MEMORY)
    _write(raw / "image.png", "not text")
    chunks = bq.chunk_sources(raw)
    assert [c.id for c in chunks] == ["notes/memory#^p1", "paper#^p1", "paper#^p2", "paper#^p3"]
    assert chunks[1].title == "Prefix Caching Paper"
    index = bq.Bm25(chunks)
    ranked = index.rank("Where are snapshots persisted?")
    assert ranked[0].id == "paper#^p3"  # "snapshots" and "persisted" (porter: persist)
    assert {c.id for c in ranked} == {"paper#^p1", "paper#^p3"}
    assert index.rank("what is it?") == []  # stopwords only
    count = FakeBackend().count_tokens
    budget = count(chunks[3].render()) + 3
    packed = bq.pack_chunks(ranked, budget, count)
    assert [c.id for c in packed] == ["paper#^p3"]
    both = bq.pack_chunks(ranked, 10_000, count)
    assert [c.id for c in both] == ["paper#^p1", "paper#^p3"]  # source order, not rank order
    segments = bq.rag_segments("SCHEMA", both, "Where?")
    assert [s.role for s in segments] == ["system", "user", "user", "user"]
    assert segments[1].text.startswith("=== [[paper#^p1]] · Prefix Caching Paper ===")
    assert segments[-1].text.startswith("Using only the source passages above")
    assert segments[-1].text.endswith("e.g. [[paper#^p1]].")  # a real id, as wikic query does


def test_chunk_citations_resolve_only_to_existing_chunks(tmp_path: Path) -> None:
    chunks = bq.chunk_sources(_write(tmp_path / "raw/paper.md", RAW_PAPER).parent)
    answer = (
        "A [[paper#^p1]]. B [[raw/paper.md#^p2]]. C [[paper]]. "
        "D [[paper#^p9]]. E [[sources/paper#^p1]]. F [[paper#Prefix Caching Paper]]. "
        "`[[paper#^p3]]` is code."
    )
    valid, invalid = bq.check_chunk_citations(answer, chunks)
    assert valid == ["[[paper#^p1]]", "[[raw/paper.md#^p2]]", "[[paper]]"]
    assert invalid == ["[[paper#^p9]]", "[[sources/paper#^p1]]", "[[paper#Prefix Caching Paper]]"]


QA = """
- id: persist
  question: Where are snapshots persisted?
  facts: ['disk', 'checksum']
  sources: [paper]
- id: trim
  question: What happens when a rotating cache of sliding-window layers is trimmed?
  facts: ['corrupt', 'silent']
  sources: [paper]
- id: params
  question: How many parameters does the model of the prefix caching paper have?
  answerable: false
- id: zanzibar
  question: What is the capital of Zanzibar?
  answerable: false
"""

WIKI_ANSWERS = {
    "persist": "On disk with a checksum [[sources/paper#^p3]] [[sources/paper#^p7]].",
    "trim": "It can be trimmed [[concepts/sliding-window]].",  # wrong: the page says so
    "params": NOT_IN_WIKI,
}
RAG_ANSWERS = {
    "persist": "On disk [[paper#^p3]].",  # misses the checksum
    "trim": "It corrupts the output silently [[paper#^p2]] [[paper#^p5]].",
    "params": "The passages do not say [[paper#^p1]].",
}
QUESTIONS = {
    "persist": "snapshots persisted", "trim": "rotating cache", "params": "parameters",
}  # fmt: skip


def _responder(call: FakeCall) -> str:
    task = call.segments[-1].text
    answers = RAG_ANSWERS if task.startswith("Using only the source passages") else WIKI_ANSWERS
    return next(answers[key] for key, words in QUESTIONS.items() if words in task)


def test_a_whole_run_scores_both_systems_and_leaves_the_wiki_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = sample_wiki(tmp_path / "repo")
    _write(paths.raw / "paper.md", RAW_PAPER)
    _write(paths.raw / "memory.md", RAW_MEMORY)
    before = snapshot(paths.root)
    qa = _write(tmp_path / "qa.yaml", QA)
    backend = FakeBackend(_responder)
    argv = ["--repo", str(paths.root), "--qa", str(qa), "--json", "--max-answer-tokens", "50"]
    assert bq.main(argv, backend=backend) == 0
    out = json.loads(capsys.readouterr().out)
    assert snapshot(paths.root) == before  # everything happened in a temp copy
    assert all(call.max_tokens == 50 and call.temperature == 0.0 for call in backend.history)
    # neither finds anything on "Zanzibar": both decline without calling the model
    assert len(backend.history) == 6
    wiki, rag = out["summary"]["wiki"], out["summary"]["rag"]
    assert (wiki["correct"], wiki["questions"]) == (3, 4)  # all but trim
    assert (rag["correct"], rag["questions"]) == (3, 4)  # all but persist
    assert wiki["accuracy"] == rag["accuracy"] == 0.75
    assert wiki["fact_recall"] == 0.5 and rag["fact_recall"] == 0.75
    assert (wiki["valid_citations"], wiki["citations"]) == (2, 3)  # ^p7 does not exist
    assert (rag["valid_citations"], rag["citations"]) == (3, 4)  # paper#^p5 does not exist
    assert (wiki["declined_unanswerable"], rag["declined_unanswerable"]) == (2, 2)
    assert wiki["uncited_answers"] == 1  # params: "not in the wiki", no citation
    # citations that resolve and point at a paragraph holding an expected fact
    assert (wiki["on_target_citations"], wiki["block_citations"]) == (1, 1)  # page links: no block
    assert (rag["on_target_citations"], rag["block_citations"]) == (2, 3)  # params cites p1
    # params cites [[paper#^p1]], the example the instruction gave: copied, not chosen
    assert (wiki["copied_example_citations"], rag["copied_example_citations"]) == (0, 1)
    rows = {r["item"]["id"]: r for r in out["rows"]}
    assert rows["zanzibar"]["wiki"]["called"] is False
    assert rows["zanzibar"]["rag"]["called"] is False
    assert rows["persist"]["wiki"]["answer"].count("[[") == 1  # the broken link was removed
    assert rows["persist"]["rag"]["context_facts"] == 2  # both facts were in what it read
    assert rows["persist"]["rag"]["prompt_tokens"] > 0
    assert rows["trim"]["wiki"]["context_facts"] == 2  # the source page was read
    # same system prompt for both systems: the wiki's AGENTS.md
    agents = paths.agents_md.read_text(encoding="utf-8")
    assert all(call.segments[0].text == agents for call in backend.history)
    assert out["setup"]["max_answer_tokens"] == 50 and out["setup"]["questions"] == 4


def test_markdown_tables_and_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = sample_wiki(tmp_path / "repo")
    _write(paths.raw / "paper.md", RAW_PAPER)
    _write(paths.raw / "memory.md", RAW_MEMORY)
    qa = _write(tmp_path / "qa.yaml", QA)
    argv = [
        "--repo",
        str(paths.root),
        "--qa",
        str(qa),
        "--only",
        "trim,persist",
        "--limit",
        "1",
        "--systems",
        "rag",
        "--answers",
    ]
    assert bq.main(argv, backend=FakeBackend(_responder)) == 0
    out = capsys.readouterr().out
    assert "| persist | paper | rag | 1/2 | no | 1/1 · 1 · 0 | 2/2 |" in out
    assert "| rag | 0/1 | 0% | 50% | 100% |" in out and "| wiki |" not in out
    assert "- **rag**: On disk [[paper#^p3]]." in out


def test_bad_invocations_fail_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = sample_wiki(tmp_path / "repo")
    qa = _write(tmp_path / "qa.yaml", QA)
    base = ["--repo", str(paths.root), "--qa", str(qa)]
    assert bq.main([*base, "--systems", "rag,grep"], backend=FakeBackend()) == 2
    assert "--systems" in capsys.readouterr().err
    assert bq.main([*base, "--only", "nope"], backend=FakeBackend()) == 2
    assert "unknown question ids ['nope']" in capsys.readouterr().err
    empty = tmp_path / "empty"
    _write(empty / "wiki/index.md", "# Index\n")
    _write(empty / "raw/a.md", "text\n")
    _write(empty / "AGENTS.md", "schema\n")
    _write(empty / "wikic.yaml", "{}\n")
    assert bq.main(["--repo", str(empty), "--qa", str(qa)], backend=FakeBackend()) == 2
    assert "no compiled source pages" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bq.main([*base, "--limit", "0"], backend=FakeBackend())


def test_the_default_run_asks_the_first_eight_questions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = sample_wiki(tmp_path / "repo")
    _write(paths.raw / "paper.md", RAW_PAPER)
    many = "".join(
        f"- id: q{n}\n  question: Where are snapshots persisted, take {n}?\n  facts: ['disk']\n"
        for n in range(11)
    )
    qa = _write(tmp_path / "qa.yaml", many)
    base = ["--repo", str(paths.root), "--qa", str(qa), "--json", "--systems", "rag"]
    saved = tmp_path / "out.json"
    backend = FakeBackend(lambda call: "On disk [[paper#^p3]].")
    assert bq.main([*base, "--save-json", str(saved)], backend=backend) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["setup"]["questions"] == bq.DEFAULT_LIMIT == 8
    assert json.loads(saved.read_text()) == printed
    assert bq.main([*base, "--all"], backend=backend) == 0
    assert json.loads(capsys.readouterr().out)["setup"]["questions"] == 11
    assert bq.main([*base, "--limit", "2"], backend=backend) == 0
    assert json.loads(capsys.readouterr().out)["setup"]["questions"] == 2
    assert bq.main([*base, "--all", "--limit", "2"], backend=backend) == 2
    assert "--all and --limit disagree" in capsys.readouterr().err
