"""scripts/bench_quality.py with FakeBackend: QA set, scoring, the BM25 baseline, and a whole run."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.helpers.query_fakes import UNANSWERABLE, answer, id_of, shown_units
from tests.helpers.storetools import sample_wiki
from tests.helpers.wikitools import snapshot
from wikic.errors import UsageError
from wikic.llm.fake import FakeBackend, FakeCall

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


def test_the_corpus_qa_set_loads() -> None:
    corpus = REPO / "scripts/data/corpus/qa.yaml"
    if not corpus.is_file():
        pytest.skip("the realistic corpus is not in this checkout")
    items = bq.load_qa(corpus)
    stems = {p.stem for p in corpus.parent.glob("*.md")}
    assert all(set(i.sources) <= stems for i in items)
    assert any(not i.answerable for i in items) and any(i.answerable for i in items)


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
    assert bq._score(window, "512 tokens, or 1024 per the debugging log.", False)[0]
    assert not bq._score(window, "The window is 512 tokens.", False)[0]
    assert not bq._score(window, "512 tokens, or 1024.", True)[0]  # a declined answer is wrong


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


def test_bm25_ranks_paragraphs_as_units_cited_in_their_own_form(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    _write(raw / "paper.md", RAW_PAPER)
    _write(raw / "notes/memory.md", RAW_MEMORY)
    _write(raw / "image.png", "not text")
    chunks = bq.chunk_sources(raw)
    assert [c.id for c in chunks] == ["notes/memory#^p1", "paper#^p1", "paper#^p2", "paper#^p3"]
    index = bq.Bm25(chunks)
    ranked = index.rank("Where are snapshots persisted?")
    assert ranked[0].id == "paper#^p3"  # "snapshots" and "persisted" (porter: persist)
    assert {c.id for c in ranked} == {"paper#^p1", "paper#^p3"}
    assert index.rank("what is it?") == []  # stopwords only
    units = bq.rag_evidence(index, "Where are snapshots persisted?")
    assert [(u.link, u.heading) for u in units] == [
        ("paper#^p3", "Prefix Caching Paper (source)"),
        ("paper#^p1", "Prefix Caching Paper (source)"),
    ]
    assert units[0].score > units[1].score


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


def _responder(call: FakeCall) -> Any:
    """Both arms get the same script: for persist the model names the unit holding
    "checksum", which breaks no tie in the wiki (its shorter fact "Snapshots are persisted on
    disk." says as much of the question, and a fact wins a tie), and the fact is quoted as its
    source paragraph, which holds the checksum; trim cites the unit holding "corrupts"; params
    is declined by the model."""
    question = call.segments[-1].text
    if "persisted" in question:
        units = shown_units(call)
        n = next((k for k, t in units.items() if "checksum" in t), None)
        if n is None:
            return answer(("Snapshots are persisted on disk.", [id_of(call, "persisted")]))
        return answer(("Snapshots are persisted on disk with a checksum.", [n]))
    if "trimmed" in question:
        return answer(("Trimming corrupts the output silently.", [id_of(call, "corrupts")]))
    return UNANSWERABLE


def test_a_whole_run_treats_both_arms_alike_and_leaves_the_wiki_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = sample_wiki(tmp_path / "repo")
    _write(paths.raw / "paper.md", RAW_PAPER)
    _write(paths.raw / "memory.md", RAW_MEMORY)
    before = snapshot(paths.root)
    qa = _write(tmp_path / "qa.yaml", QA)
    out_file = tmp_path / "out.json"
    backend = FakeBackend(_responder)
    argv = ["--wiki", str(paths.root), "--qa", str(qa), "--json", "--out", str(out_file)]
    assert bq.main([*argv, "--max-answer-tokens", "50"], backend=backend) == 0
    out = json.loads(capsys.readouterr().out)
    assert json.loads(out_file.read_text()) == out
    assert snapshot(paths.root) == before  # everything happened in a temp copy
    assert all(call.max_tokens == 50 and call.temperature == 0.0 for call in backend.history)
    # neither arm finds anything on "Zanzibar": both decline without calling the model
    assert len(backend.history) == 6
    wiki_calls, rag_calls = backend.history[0::2], backend.history[1::2]
    for w, r in zip(wiki_calls, rag_calls, strict=True):
        assert w.segments[0] == r.segments[0]  # the same schema excerpt
        assert w.segments[1].text.replace("the pages of a wiki", bq.RAG_WHERE) == r.segments[1].text
        assert w.segments[-1] == r.segments[-1]  # the same question
    wiki, rag = out["summary"]["wiki"], out["summary"]["rag"]
    assert (wiki["correct"], rag["correct"]) == (4, 4)
    assert (wiki["declined_unanswerable"], rag["declined_unanswerable"]) == (2, 2)
    assert (wiki["citation_share"], rag["citation_share"]) == (1.0, 1.0)
    assert wiki["max_prompt_tokens"] > 0 and wiki["model_calls"] == 3
    rows = {r["item"]["id"]: r for r in out["rows"]}
    quote = "Trimming a rotating cache of sliding-window layers corrupts the output silently"
    assert rows["trim"]["rag"]["answer"] == f"{quote} [[paper#^p2]]."  # rag's own citation form
    assert rows["trim"]["wiki"]["answer"] == f"{quote} [[sources/paper#^p2]]."
    assert rows["persist"]["wiki"]["citations_ok"] == 2  # the fact and its paragraph
    assert rows["zanzibar"]["wiki"]["called"] is False
    assert rows["params"]["rag"]["decline_reason"] == "the model found no answer in the facts"
    assert out["setup"]["max_answer_tokens"] == 50 and out["setup"]["questions"] == 4


def test_a_citation_must_hold_the_cited_text(tmp_path: Path) -> None:
    paths = sample_wiki(tmp_path / "repo")
    block = bq.wiki_block(paths.wiki, "concepts/prefix-cache#^f-bbb222")
    assert block is not None and block.startswith("- Snapshots are persisted on disk.")
    assert bq._holds(block, "Snapshots are persisted on disk.")
    assert not bq._holds(block, "Snapshots are taken at boundaries.")
    assert bq.wiki_block(paths.wiki, "sources/paper#^p3") == (
        "Snapshots are persisted on disk with a checksum and a file lock. ^p3"
    )
    assert bq._holds(bq.wiki_block(paths.wiki, "sources/paper#^p3"), "… with a checksum")
    assert bq.wiki_block(paths.wiki, "sources/paper#^p9") is None
    assert bq.wiki_block(paths.wiki, "sources/nope#^p1") is None


def test_markdown_tables_and_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = sample_wiki(tmp_path / "repo")
    _write(paths.raw / "paper.md", RAW_PAPER)
    qa = _write(tmp_path / "qa.yaml", QA)
    argv = ["--wiki", str(paths.root), "--qa", str(qa), "--out", str(tmp_path / "o.json")]
    argv += ["--only", "trim,persist", "--limit", "1", "--systems", "rag", "--answers"]
    assert bq.main(argv, backend=FakeBackend(_responder)) == 0
    out = capsys.readouterr().out
    assert "| persist | rag | 2/2 | yes | no | 1/1 | 2/2 |" in out
    assert "| rag | 1/1 | 100% | 1/1 (100%) | 0/0 | 0/1 |" in out and "| wiki |" not in out
    assert (
        "- **rag**: Snapshots are persisted on disk with a checksum and a file lock [[paper#^p3]]."
        in out
    )
    written = [*argv, "--style", "write", "--json"]
    assert bq.main(written, backend=FakeBackend(_responder)) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["setup"]["answer_style"] == "write"  # both arms write their own sentences
    assert report["rows"][0]["rag"]["answer"] == (
        "Snapshots are persisted on disk with a checksum [[paper#^p3]]."
    )


def test_bad_invocations_fail_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = sample_wiki(tmp_path / "repo")
    _write(paths.raw / "paper.md", RAW_PAPER)
    qa = _write(tmp_path / "qa.yaml", QA)
    base = ["--wiki", str(paths.root), "--qa", str(qa), "--out", str(tmp_path / "o.json")]
    assert bq.main([*base, "--systems", "rag,grep"], backend=FakeBackend()) == 2
    assert "--systems" in capsys.readouterr().err
    assert bq.main([*base, "--only", "nope"], backend=FakeBackend()) == 2
    assert "unknown question ids ['nope']" in capsys.readouterr().err
    assert bq.main([*base, "--raw", str(tmp_path / "none")], backend=FakeBackend()) == 2
    assert "no raw sources" in capsys.readouterr().err
    empty = tmp_path / "empty"
    _write(empty / "wiki/index.md", "# Index\n")
    _write(empty / "raw/a.md", "text\n")
    _write(empty / "AGENTS.md", "schema\n")
    _write(empty / "wikic.yaml", "{}\n")
    assert bq.main(["--wiki", str(empty), "--qa", str(qa)], backend=FakeBackend()) == 2
    assert "no compiled source pages" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bq.main([*base, "--limit", "0"], backend=FakeBackend())


def test_every_question_is_asked_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = sample_wiki(tmp_path / "repo")
    _write(paths.raw / "paper.md", RAW_PAPER)
    many = "".join(
        f"- id: q{n}\n  question: Where are snapshots persisted, take {n}?\n  facts: ['disk']\n"
        for n in range(11)
    )
    qa = _write(tmp_path / "qa.yaml", many)
    base = ["--wiki", str(paths.root), "--qa", str(qa), "--json", "--systems", "rag"]
    base += ["--out", str(tmp_path / "o.json")]
    backend = FakeBackend(_responder)
    assert bq.main(base, backend=backend) == 0
    assert json.loads(capsys.readouterr().out)["setup"]["questions"] == 11
    assert bq.main([*base, "--limit", "2"], backend=backend) == 0
    assert json.loads(capsys.readouterr().out)["setup"]["questions"] == 2


def test_compile_makes_a_wiki_from_the_raw_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = tmp_path / "corpus"
    _write(raw / "paper.md", RAW_PAPER)
    _write(raw / "qa.yaml", QA)  # not a source
    seen: list[list[str]] = []

    def fake_ingest(cmd: list[str], **_: Any) -> Any:
        seen.append(cmd)
        return type("Done", (), {"returncode": 0})()

    monkeypatch.setattr(bq.subprocess, "run", fake_ingest)
    root = tmp_path / "wiki"
    bq.compile_wiki(root, raw)
    assert seen == [[sys.executable, "-m", "wikic", "-C", str(root), "ingest", "--all"]]
    assert sorted(p.name for p in (root / "raw").iterdir()) == ["paper.md"]
    assert (root / "AGENTS.md").is_file() and (root / "wikic.yaml").is_file()
    monkeypatch.setattr(bq.subprocess, "run", lambda cmd, **_: type("D", (), {"returncode": 1})())
    with pytest.raises(UsageError, match="ingest --all"):
        bq.compile_wiki(tmp_path / "other", raw)


def test_code_blocks_are_code_units_in_both_arms(tmp_path: Path) -> None:
    """Like for like: a raw file's fenced block is a `code` unit for plain retrieval as a source
    page's is for the wiki, and a citation of a code block resolves to the block above its id."""
    raw = tmp_path / "raw"
    _write(raw / "llm.md", "# LLM\n\nSee the aliases path:\n\n```bash\nllm aliases path\n```\n")
    index = bq.Bm25(bq.chunk_sources(raw))
    units = {u.link: (u.kind, u.text) for u in bq.rag_evidence(index, "aliases path")}
    assert units["llm#^p2"] == ("code", "llm aliases path")
    assert units["llm#^p1"][0] == "para"
    assert bq._kind("* `oid` names the object\n* `size` in bytes") == "item"
    assert bq._kind("| key | type |\n| --- | --- |") == "table"
    page = tmp_path / "wiki" / "sources" / "llm.md"
    _write(page, "# LLM\n\nRun this: ^p1\n\n```bash\nllm aliases path\n```\n\n^p2\n")
    block = bq.wiki_block(tmp_path / "wiki", "sources/llm#^p2")
    assert block == "```bash\nllm aliases path\n```"
    assert bq._holds(block, "`llm aliases path`")


def test_no_decode_predicts_quoted_answers_with_the_models_token_counts(tmp_path: Path) -> None:
    """`--no-decode`: nothing reaches the model but its token counter; every call is answered
    "answerable", naming fact 1, and the report says the run was not decoded."""
    paths = sample_wiki(tmp_path / "repo")
    _write(paths.raw / "paper.md", RAW_PAPER)
    qa = _write(tmp_path / "qa.yaml", QA)
    model = FakeBackend(lambda call: pytest.fail("the model decoded"), name="tiny")
    out_file = tmp_path / "out.json"
    argv = ["--wiki", str(paths.root), "--qa", str(qa), "--out", str(out_file), "--no-decode"]
    assert bq.main(argv, backend=model) == 0
    report = json.loads(out_file.read_text())
    assert report["setup"]["decoded"] is False
    assert report["setup"]["model"] == "tiny (not decoded)"
    assert model.history == []
    assert report["summary"]["wiki"]["answerable_correct"] >= 1  # quotes chosen by code
    assert bq.main([*argv, "--style", "write"], backend=model) == 2  # a usage error


PARAPHRASE = """
- id: p-persist
  paraphrase_of: persist
  question: Where do the saved states of the cache end up?
"""


def test_retrieval_only_reports_each_ranking_and_the_rerank_setting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = sample_wiki(tmp_path / "repo")
    _write(paths.raw / "paper.md", RAW_PAPER)
    qa = _write(tmp_path / "qa.yaml", QA)
    _write(tmp_path / "paraphrase.yaml", PARAPHRASE)
    monkeypatch.setattr(bq, "resolve_rerank", lambda setting, embedding: f"{setting} resolved")
    argv = ["--wiki", str(paths.root), "--qa", str(qa), "--retrieval-only", "--json"]
    argv += ["--rankings", "lexical,hybrid", "--rerank-model", "none"]
    assert bq.main([*argv, "--out", str(tmp_path / "o.json")]) == 0
    report = json.loads(capsys.readouterr().out)
    setup, summary = report["setup"], report["summary"]
    assert (setup["rerank_model"], setup["reranked_by"]) == ("none", "none resolved")
    assert setup["rerank_encoded_texts"] == 0
    assert set(setup["search_s"]) == {"lexical_search_s", "hybrid_search_s"}
    assert set(setup["search_s_per_question"]["hybrid"]) == {"median", "max"}
    assert report["rows"]["literal"][0]["hybrid"]["encoded"] == 0  # nothing re-ranked
    assert summary["literal"]["questions"] == 2 and summary["paraphrase"]["questions"] == 1
    assert summary["literal"]["lexical"]["answer_in_context"] == 2  # both answers in context
    assert [r["id"] for r in report["rows"]["paraphrase"]] == ["p-persist"]
