"""scripts/bench_compile.py on a compiled wiki built by hand: recall, fragments, facts per page,
invented titles, cut summaries, the targets and the JSON it writes; no model is run."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from wikic.config import Config
from wikic.vault.pages import Page, render_page

REPO = Path(__file__).resolve().parent.parent


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "bench_compile", REPO / "scripts/bench_compile.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_compile"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


bc = _load_script()

DOC_A = """# Alpha Guide

Alpha is a tool that compiles notes. The beta tool checks them.

Some important options are:

- `--fast`: skip the checks.
"""
EPISODE = """## Standup

We talked about gamma today.
"""
EXPECTED = """
- file: doc-a.md
  topics:
    - [Alpha, A]
    - [Beta tool, beta]
    - [Gamma]
- file: 2024-01-05-notes.md
  topics:
    - [Delta]
"""


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _page(root: Path, path: str, body: str, **props: Any) -> None:
    _write(root / "wiki" / path, render_page(Page(path, props, body)))


def _facts(*lines: str) -> str:
    return "## Facts\n\n" + "\n".join(f"- {line}" for line in lines) + "\n"


def compiled_wiki(root: Path) -> tuple[Path, Path]:
    """(wiki root, corpus folder): two documents, one an episode whose source page got a title
    from the prompt and a cut summary; topic pages for Alpha (3 facts, one a fragment), Beta
    (cited only by its fact) and Gamma (which cites the episode, not doc-a)."""
    corpus = root / "corpus"
    _write(corpus / "expected.yaml", EXPECTED)
    _write(corpus / "doc-a.md", DOC_A)
    _write(corpus / "2024-01-05-notes.md", EPISODE)
    wiki = root / "wiki-root"
    _write(wiki / "raw/doc-a.md", DOC_A)
    _write(wiki / "raw/2024-01-05-notes.md", EPISODE)
    _write(wiki / "wikic.yaml", "{}\n")
    _page(wiki, "index.md", "# Index\n")
    _page(
        wiki,
        "sources/doc-a.md",
        "# Alpha guide\n",
        type="source",
        title="Alpha guide",
        summary="Alpha compiles notes; the beta tool checks them.",
        raw="raw/doc-a.md",
    )
    _page(
        wiki,
        "sources/notes.md",
        "# x\n",
        type="source",
        title="The source document to be compiled into the wiki is data",
        summary="It covers the",
        raw="raw/2024-01-05-notes.md",
    )
    _page(
        wiki,
        "concepts/alpha.md",
        "# Alpha\n\nA tool.\n\n"
        + _facts(
            "Alpha is a tool that compiles notes. [[sources/doc-a#^p1]] ^f-1",
            "Some important options are: [[sources/doc-a#^p2]] ^f-2",
            "The `--fast` option of Alpha skips the checks. [[sources/doc-a#^p3]] ^f-3",
        ),
        type="concept",
        title="Alpha",
        summary="Alpha is a tool that compiles notes.",
        sources=["[[sources/doc-a]]"],
    )
    _page(
        wiki,
        "entities/beta-tools.md",
        "# The Beta Tools\n\n"
        + _facts("The beta tool checks the notes that Alpha compiles. [[sources/doc-a#^p1]]"),
        type="entity",
        title="The Beta Tools",
        summary="The beta tool checks notes.",
    )
    _page(
        wiki,
        "concepts/gamma.md",
        "# Gamma\n\n"
        + _facts(
            "The team talked about gamma at the standup. [[sources/notes#^p1]]",
            "Gamma came up again in the same standup meeting. [[sources/notes#^p1]]",
        ),
        type="concept",
        title="Gamma",
        summary="Gamma came up at a standup.",
        sources=["[[sources/notes]]"],
    )
    return wiki, corpus


def test_metrics_of_a_hand_built_wiki(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wiki, corpus = compiled_wiki(tmp_path)
    out = tmp_path / "out.json"
    argv = ["--wiki", str(wiki), "--corpus", str(corpus), "--json", "--out", str(out)]
    assert bc.main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert json.loads(out.read_text(encoding="utf-8")) == result
    docs = {d["file"]: d for d in result["documents"]}
    a, notes = docs["doc-a.md"], docs["2024-01-05-notes.md"]
    # Alpha by its title, Beta through name_key ("The Beta Tools" ~ "Beta tool") and cited only
    # by a fact; Gamma has a page, but it does not cite doc-a
    assert a["topics_found"] == ["Alpha", "Beta tool"] and a["topics_missing"] == ["Gamma"]
    assert a["recall"] == 0.6667
    assert a["topic_pages"] == ["concepts/alpha.md", "entities/beta-tools.md"]
    assert (a["facts"], a["rich_pages"]) == (4, 1)
    assert (a["facts_per_page_mean"], a["facts_per_page_median"]) == (2.0, 2.0)
    assert [f["text"] for f in a["fragments"]] == [
        "Some important options are: [[sources/doc-a#^p2]]"
    ]
    assert a["title_invented"] is False and a["summary_cut"] is None and not a["episode"]
    assert notes["episode"] and notes["title_invented"] is True
    assert notes["document_title"] == "Standup" and notes["summary_cut"]
    assert notes["topic_pages"] == ["concepts/gamma.md"] and notes["topics_missing"] == ["Delta"]
    t = result["totals"]
    assert (t["documents"], t["episodes"], t["source_pages"], t["topic_pages"]) == (2, 1, 2, 3)
    assert (t["topics_found"], t["topics_expected"]) == (2, 4)
    assert (t["topic_recall"], t["topic_recall_without_episodes"]) == (0.5, 0.6667)
    assert (t["facts"], t["fragments"], t["fragment_share"]) == (6, 1, 0.1667)
    assert (t["facts_per_page_mean"], t["facts_per_page_median"]) == (2.0, 2)
    assert (t["rich_pages"], t["rich_page_share"]) == (1, 0.3333)
    assert t["topic_pages_per_source"] == 1.5
    assert t["invented_titles"] == 1
    assert t["summaries_checked"] == 5 and t["cut_summaries"] == 1
    assert t["cut_summary_list"][0]["page"] == "sources/notes.md"
    old = ("fragment_share", "topic_recall", "rich_page_share", "invented_titles", "cut_summaries")
    assert all(result["targets"][k]["met"] is False for k in old)
    # issue 32: every opening names its page's subject; 2 of 3 pages have < 3 facts; the title
    # of doc-a names Alpha, which has a page; no page lists Related links
    assert (t["standalone_openings"], t["standalone_opening_share"]) == (3, 1.0)
    # … one of them says what it is ("Alpha is a tool …"); "Gamma came up …" only names it
    assert (t["subject_openings"], t["derived_openings"]) == (1, 0)
    assert (t["thin_pages"], t["thin_page_share"]) == (2, 0.6667)
    assert (t["title_subjects"], t["title_subjects_missing"]) == (1, 0)
    assert a["title_subjects"] == ["Alpha"] and notes["title_subjects"] == []  # an episode
    assert (t["pages_with_related"], t["related_distinct_share"]) == (0, None)
    assert result["ingest"] == {} and result["qa"] is None
    assert any("no timing" in s for s in result["skipped"])
    assert any("QA: not asked" in s for s in result["skipped"])
    assert result["command"].startswith("scripts/bench_compile.py --wiki")


def test_the_markdown_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wiki, corpus = compiled_wiki(tmp_path)
    argv = ["--wiki", str(wiki), "--corpus", str(corpus), "--out", str(tmp_path / "o.json")]
    assert bc.main([*argv, "--files", "doc-a.md"]) == 0
    text = capsys.readouterr().out
    assert "| doc-a.md | 24 | 2/3 | 2 | 4 | 1 | 2.0 · 2 | 1 | ok | ok | – |" in text
    # totals cover only what doc-a fed: not Gamma's page or the episode's cut summary
    assert "| **total** | 24 | 2/3 | 2 | 4 | 1 | 2.0 · 2 | 1 | 0 invented | 0 cut | – |" in text
    assert "| fragment share | 25% | <= 0.03 | **no** |" in text
    assert "| topic recall | 67% | >= 0.75 | **no** |" in text
    assert "| invented source titles | 0 | <= 0 | yes |" in text
    assert "2024-01-05" not in text.split("| metric |")[0]  # only the chosen document


def test_targets_met_and_missed() -> None:
    good = {
        "fragment_share": 0.03,
        "topic_recall": 0.8,
        "rich_page_share": 0.6,
        "invented_titles": 0,
        "cut_summaries": 0,
        "standalone_opening_share": 0.9,
        "thin_page_share": 0.25,
        "title_subjects_missing": 0,
    }
    assert all(c["met"] for c in bc.check_targets(good).values())
    bad = bc.check_targets({**good, "fragment_share": 0.031, "topic_recall": None})
    assert bad["fragment_share"]["met"] is False and bad["topic_recall"]["met"] is None


def test_accepted_titles_and_topic_names() -> None:
    own, accepted = bc.title_candidates("---\ntitle: Declared\n---\n# Head\n", "2024-01-05-x.md")
    assert own == "Declared" and {"Declared", "Head", "2024-01-05 x"} <= set(accepted)
    assert bc.same_title("alpha-guide", "Alpha Guide") and not bc.same_title("Alpha", "Beta")
    page = bc.TopicPage("c/x.md", "KV caches", ("KV caches", "-ngl"), frozenset(), (), "")
    assert bc.topic_matches(("kv cache",), page)  # name_key: plural and case
    assert bc.topic_matches(("--n-gpu-layers", "-NGL"), page)
    assert not bc.topic_matches(("cache",), page)


def test_the_local_fallback_checks() -> None:
    check = bc.fallback_fragment_reason
    assert check("Alpha is a tool that compiles notes. [[sources/a#^p1]]") is None
    assert check("Some important options are: [[sources/a#^p2]]")
    assert check("Uses AWQ[^1] for weights.")
    assert check("- [Fine-tune](#fine-tune)")
    assert check("Too short.")
    assert check("Distilled Weight Quantization (DWQ)")
    assert bc.fallback_cut_reason("It covers the") and bc.fallback_cut_reason("") is None


def test_bad_invocations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wiki, corpus = compiled_wiki(tmp_path)
    base = ["--wiki", str(wiki), "--corpus", str(corpus), "--out", str(tmp_path / "o.json")]
    assert bc.main([*base, "--files", "nope.md"]) == 2
    assert "unknown documents ['nope.md']" in capsys.readouterr().err
    assert bc.main([*base, "--files", "doc-a.md", "--limit", "1"]) == 2
    assert "disagree" in capsys.readouterr().err
    assert bc.main(["--wiki", str(tmp_path), "--corpus", str(corpus)]) == 2
    assert "not a wiki root" in capsys.readouterr().err
    assert not (tmp_path / "o.json").exists()


def test_prepare_wiki_copies_only_the_chosen_documents(tmp_path: Path) -> None:
    _, corpus = compiled_wiki(tmp_path)
    root = tmp_path / "fresh"
    bc.prepare_wiki(root, corpus, ["doc-a.md"])
    assert (root / "wikic.yaml").is_file() and (root / "wiki/index.md").is_file()
    assert sorted(p.name for p in (root / "raw").iterdir()) == ["doc-a.md"]


def test_qa_questions_follow_the_chosen_documents(tmp_path: Path) -> None:
    qa = REPO / "scripts/data/corpus/qa.yaml"
    stems = {"llama-bench", "llama-cpp-token-generation-tips"}
    ids = bc.qa_ids(qa, stems, None, everything=False)
    assert "x-gpu-offload" in ids  # needs both documents
    assert "ollama-port" not in ids and "un-bench-rocm" not in ids  # unanswerable: whole corpus
    assert "un-bench-rocm" in bc.qa_ids(qa, stems, None, everything=True)
    assert bc.qa_ids(qa, stems, 1, everything=False) == ["x-gpu-offload"]
    out = tmp_path / "q.json"
    new = bc.qa_command("--wiki WIKI --qa QA --out OUT", tmp_path, qa, ["a", "b"], out)
    assert new is not None and new[2:] == [
        "--wiki",
        str(tmp_path),
        "--qa",
        str(qa),
        "--only",
        "a,b",
        "--json",
        "--out",
        str(out),
    ]
    old = bc.qa_command("--repo REPO --qa QA --save-json PATH", tmp_path, qa, ["a"], out)
    assert old is not None and old[2:4] == ["--repo", str(tmp_path)] and old[-2] == "--save-json"
    assert bc.qa_command("--repo REPO", tmp_path, qa, ["a"], out) is None


def test_help_and_the_shipped_corpus() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts/bench_compile.py"), "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "--wiki" in done.stdout and "--qa" in done.stdout
    expected = bc.load_expected(REPO / "scripts/data/corpus/expected.yaml")
    assert len(expected) == 14
    assert all((REPO / "scripts/data/corpus" / name).is_file() for name in expected)


def test_ingest_rates_from_the_ingest_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wiki, _ = compiled_wiki(tmp_path)
    vault = bc.read_vault(wiki / "wiki", bc.fallback_fragment_reason)
    outcome = {
        "raw": "raw/doc-a.md",
        "status": "ingested",
        "seconds": {"extract": 1.5, "write": 0.9},
        "stats": {"extract": {"prefill_tokens": 70, "generated_tokens": 8}},
    }
    doc = bc.measure_document(
        "doc-a.md", DOC_A, [("Alpha",)], vault, Config(), bc.fallback_cut_reason, outcome
    )
    assert (doc.ingest_s, doc.prefill_tokens, doc.generated_tokens) == (2.4, 70, 8)
    assert doc.status == "ingested" and doc.recall == 1.0
    monkeypatch.setattr(bc, "source_tokens", lambda config, model, texts: (35, None))
    ingest: dict[str, Any] = {
        "wall_s": 4.8,
        "stats": {"prefill_tokens": 70, "generated_tokens": 20, "decode_s": 4.0},
        "stages": {"extract": {"prefill_tokens": 35}, "write": {"prefill_tokens": 35}},
    }
    assert bc.ingest_rates(ingest, [doc], Config(), None, [DOC_A]) == []
    assert ingest["s_per_1k_words"] == 200.0 and ingest["source_s_per_1k_words"] == 100.0
    assert (ingest["prefill_ratio"], ingest["decode_tok_s"]) == (2.0, 5.0)
    assert (ingest["window_prefill_ratio"], ingest["task_prefill_tokens"]) == (1.0, 35)
    monkeypatch.setattr(bc, "source_tokens", lambda config, model, texts: (None, "no tokenizer"))
    bare: dict[str, Any] = {"wall_s": 1.0, "stats": {}}
    skipped = bc.ingest_rates(bare, [doc], Config(), None, [DOC_A])
    assert skipped == ["no tokenizer", "decode tok/s: the ingest JSON reports no decode time"]
    assert bare["prefill_ratio"] is None and bare["decode_tok_s"] is None
    assert bare["window_prefill_ratio"] is None and bare["task_prefill_tokens"] is None


def test_stage_stats_sum_each_stage_over_the_sources() -> None:
    sources = [
        {"stats": {"extract": {"calls": 2, "generated_tokens": 50, "decode_s": 5.0}}},
        {
            "stats": {
                "extract": {"calls": 1, "generated_tokens": 10, "decode_s": 1.0},
                "write": {"calls": 3, "prefill_tokens": 400, "prefill_s": 4.0},
            }
        },
        {"status": "failed"},
    ]
    stages = bc.stage_stats(sources)
    assert stages["extract"]["calls"] == 3 and stages["extract"]["generated_tokens"] == 60
    assert stages["extract"]["decode_s"] == 6.0 and stages["write"]["prefill_tokens"] == 400
    assert stages["write"]["generated_tokens"] == 0


def test_a_compile_can_be_asked_at_another_batch_size(tmp_path: Path) -> None:
    from wikic.config import load_config

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text(DOC_A, encoding="utf-8")
    bc.prepare_wiki(tmp_path / "w", corpus, ["a.md"], batch_size=16, extraction="code")
    config = load_config(tmp_path / "w" / "wikic.yaml")
    assert config.generation.batch_size == 16 and config.ingest.extraction == "code"
    assert (tmp_path / "w" / "raw" / "a.md").read_text(encoding="utf-8") == DOC_A


def test_a_code_only_compile_shows_what_code_finds_without_a_model(tmp_path: Path) -> None:
    out = tmp_path / "o.json"
    corpus = REPO / "scripts/data/corpus"
    argv = ["--code-only", "--files", "llm-aliases.md", "--out", str(out), "--json"]
    assert bc.main([*argv, "--keep", str(tmp_path / "w"), "--corpus", str(corpus)]) == 0
    result = json.loads(out.read_text())
    assert result["model"] == "none (--code-only)" and result["ingest"] == {}
    assert any("--code-only" in s for s in result["skipped"])
    (doc,) = result["documents"]
    assert doc["topics_found"] and doc["topic_pages"]  # pages from structure and names alone
    assert bc.main(["--code-only", "--wiki", str(tmp_path / "w"), "--out", str(out)]) == 2


# ── topic finders: --without and --ablate ────────────────────────────────────────────────

LINKED = "The project is linted with [Ruff](https://github.com/astral-sh/ruff) on every commit.\n"
RUN = "Run llama-bench to measure the speed of a model.\n\n```sh\n$ ./llama-bench -o csv\n```\n"


def _corpus(root: Path, docs: dict[str, tuple[str, list[str]]]) -> Path:
    """A corpus laid out like scripts/data/corpus: documents and their expected topics."""
    for name, (text, _) in docs.items():
        _write(root / name, text)
    items = [{"file": name, "topics": [[t] for t in topics]} for name, (_, topics) in docs.items()]
    _write(root / "expected.yaml", json.dumps(items))
    return root


def test_a_finder_s_effect_is_what_the_compile_with_it_has_and_the_one_without_lacks() -> None:
    base = bc.CodeOnlyRun({"a.md": ("Ruff", "uv")}, {"a.md": ("concepts/x.md",)}, 3)
    without = bc.CodeOnlyRun({"a.md": ("uv", "pip")}, {"a.md": ("concepts/y.md",)}, 2)
    effect = bc.finder_effect(base, without, names=True)
    assert effect["topics_gained"] == 1 and effect["topics_lost"] == 1
    assert effect["junk_added"] == 1 and effect["junk_removed"] == 1
    assert effect["topics_found_without"] == 2
    assert effect["names"]["topics_gained"] == ["a.md: Ruff"]
    assert effect["names"]["topics_lost"] == ["a.md: pip"]
    assert effect["names"]["junk_added"] == ["a.md: concepts/x.md"]
    assert "names" not in bc.finder_effect(base, without, names=False)  # held-out: numbers only


def test_without_a_finder_the_compile_lacks_its_topics(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "c", {"a.md": (LINKED + "\n" + RUN, ["Ruff"])})
    expected = bc.load_expected(corpus / "expected.yaml")
    run = bc.code_only_run(corpus, ["a.md"], expected, (), tmp_path / "all")
    assert run.found == {"a.md": ("Ruff",)} and run.junk == {"a.md": ("concepts/llama-bench.md",)}
    without = bc.code_only_run(corpus, ["a.md"], expected, ("linked-names",), tmp_path / "w")
    assert without.found == {"a.md": ()} and without.junk == run.junk
    assert "disable_finders: [linked-names]" in (tmp_path / "w/wikic.yaml").read_text("utf-8")


def test_ablate_counts_what_each_finder_adds_on_both_corpora(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from wikic.language.finders import FINDERS

    chosen = tuple(f for f in FINDERS if f.name in {"commands", "linked-names"})
    monkeypatch.setattr(bc, "FINDERS", chosen)  # two finders: five compiles, not thirty
    dev = _corpus(tmp_path / "dev", {"a.md": (LINKED + "\n" + RUN, ["Ruff"])})
    held = _corpus(tmp_path / "held", {"b.md": (RUN, ["llama-bench"])})
    out = tmp_path / "ablate.json"
    argv = ["--code-only", "--ablate", "--corpus", str(dev), "--heldout", str(held)]
    assert bc.main([*argv, "--out", str(out)]) == 0
    table = capsys.readouterr().out
    result = json.loads(out.read_text(encoding="utf-8"))
    assert [f["name"] for f in result["finders"]] == ["commands", "linked-names"]
    assert all(f["summary"] for f in result["finders"])
    d, h = result["corpora"]["development"], result["corpora"]["held-out"]
    assert (d["topics_found"], d["topics_expected"], d["junk_pages"]) == (1, 1, 1)
    assert d["finders"]["linked-names"]["topics_gained"] == 1
    assert d["finders"]["linked-names"]["names"]["topics_gained"] == ["a.md: Ruff"]
    assert d["finders"]["commands"]["junk_added"] == 1
    assert d["finders"]["commands"]["topics_gained"] == 0
    assert h["finders"]["commands"]["topics_gained"] == 1
    assert h["finders"]["linked-names"]["topics_gained"] == 0
    assert "names" not in h["finders"]["commands"]  # the held-out corpus is not read
    assert "| commands | +0 / −0 | +1 / −0 | +1 / −0 | +0 / −0 |" in table
    assert "| linked-names | +1 / −0 | +0 / −0 | +0 / −0 | +0 / −0 |" in table
    assert "development corpus" in table and "held-out corpus" in table


def test_finder_options_refuse_unknown_names_and_clashes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = ["--out", str(tmp_path / "o.json")]
    assert bc.main(["--code-only", "--without", "commands,headings", *out]) == 2
    err = capsys.readouterr().err
    assert "--without: unknown topic finder headings" in err and "linked-names" in err
    assert bc.main(["--ablate", *out]) == 2
    assert "--ablate needs --code-only" in capsys.readouterr().err
    assert bc.main(["--code-only", "--ablate", "--without", "commands", *out]) == 2
    assert "drop --without" in capsys.readouterr().err
    assert not (tmp_path / "o.json").exists()


def _ablation_rows(result_file: str) -> dict[str, str]:
    """finder → its row of the table `--ablate` prints, for a committed result."""
    result = json.loads((REPO / "scripts/results" / result_file).read_text(encoding="utf-8"))
    rows = [line for line in bc.render_ablation(result).splitlines() if line.startswith("| ")]
    return {row.split(" | ")[0].removeprefix("| "): row for row in rows[1:]}


def test_the_design_notes_show_the_committed_ablation() -> None:
    notes = (REPO / "docs/topic-finders.md").read_text(encoding="utf-8")
    rows = _ablation_rows("bench_compile-ablate-all-finders.json")
    assert len(rows) == 14
    assert [name for name, row in rows.items() if row not in notes] == []


def _topic_page(
    path: str, names: tuple[str, ...], sources: set[str], facts: list[str], summary: str
):  # type: ignore[no-untyped-def]
    cites = frozenset(sources)
    return bc.TopicPage(
        path,
        names[0],
        names,
        cites,
        tuple(bc.Fact(f, cites, None) for f in facts),
        summary,
    )


def test_enumerated_names_apart_both_ways() -> None:
    for a, b in [
        ("AWQ", "DWQ"),
        ("GPTQ", "AWQ"),
        ("tier 1", "tier 2"),
        ("Tier 1 target", "Tier 2 target"),
        ("v1", "v2"),
        ("API v1", "API v2"),
        ("HTTP_PROXY", "HTTPS_PROXY"),
        ("class A", "class B"),
    ]:
        assert bc.enumerated_apart(a, b) and bc.enumerated_apart(b, a), (a, b)
    for a, b in [
        ("LoRA", "low-rank adaptation"),
        ("lock file", "lock files"),
        ("write-ahead log", "WAL"),
        ("Read Committed", "read committed isolation level"),
    ]:
        assert not bc.enumerated_apart(a, b) and not bc.enumerated_apart(b, a), (a, b)


def test_compounding_measures() -> None:
    s = [
        bc.SourcePage(f"sources/{n}.md", f"sources/{n}", n, f"{n}.md", "") for n in ("a", "b", "c")
    ]
    pages = (
        # one page citing two of the documents that discuss it
        _topic_page(
            "concepts/wal.md", ("WAL", "write-ahead log"), {"sources/a", "sources/b"}, ["F1."], "x."
        ),
        # twins: the same opening sentence
        _topic_page("concepts/x.md", ("X",), {"sources/a"}, ["F2."], "Same. Then a."),
        _topic_page("concepts/y.md", ("Y",), {"sources/b"}, ["F3."], "Same. Then b."),
        # twins: two of three facts on the other page
        _topic_page("concepts/p.md", ("P",), {"sources/c"}, ["G1.", "G2.", "G3."], "p."),
        _topic_page(
            "concepts/q.md", ("Q",), {"sources/c"}, ["G1.", "G2.", "Q1.", "Q2.", "Q3."], "q."
        ),
        # two members of a series on one page
        _topic_page("concepts/awq.md", ("AWQ", "DWQ"), {"sources/c"}, ["H1."], "awq."),
    )
    vault = bc.Vault(tuple(s), pages, ())
    shared = [(("write-ahead log",), ("a.md", "b.md")), (("checkpoint",), ("a.md", "c.md"))]
    themes = {"a.md": "db", "b.md": "db", "c.md": "other"}
    got = bc.compounding(vault, ["a.md", "b.md", "c.md"], shared, themes)
    assert got["shared_topics"] == 2 and got["shared_topic_share"] == 0.5
    assert got["shared_topics_split"] == ["checkpoint"]
    assert got["twin_list"] == [
        ("concepts/p.md", "concepts/q.md"),
        ("concepts/x.md", "concepts/y.md"),
    ]
    assert got["merged_distinct_names"] == 1
    # b is the only source after the first of its theme; it updates the WAL page only
    assert got["updates_by_source"] == {"b.md": 1} and got["updates_per_later_source"] == 1


def test_an_expected_topic_two_pages_name_is_split() -> None:
    pages = (
        _topic_page("concepts/rc.md", ("Read Committed",), {"sources/a"}, ["F1."], "rc."),
        _topic_page(
            "concepts/rc-level.md",
            ("Read Committed isolation level",),
            {"sources/b"},
            ["F2."],
            "rcl.",
        ),
        _topic_page("concepts/wal.md", ("WAL",), {"sources/a"}, ["F3."], "wal."),
    )
    vault = bc.Vault((), pages, ())
    topics = [
        ("Read Committed", "read committed isolation level"),
        ("read committed",),  # the same topic under another document: counted once
        ("WAL", "write-ahead log"),
    ]
    assert bc.split_topics(topics, vault) == {
        "split_topics": 1,
        "split_topic_list": [
            {"topic": "Read Committed", "pages": ["concepts/rc-level.md", "concepts/rc.md"]}
        ],
    }


def test_openings_that_lean_on_their_document_and_related_lists_that_repeat() -> None:
    def page(path: str, summary: str, related: set[str], source: str = "sources/a") -> Any:
        title = path.rsplit("/", 1)[-1]
        return bc.TopicPage(
            path, title, (title,), frozenset({source}), (), summary, (), frozenset(related)
        )

    pages = [
        page("c/top_p", "Defaults to `1.0`.", {"c/stop", "c/lora"}),
        page("c/stop", "These are sequences on which the generation stops.", {"c/top_p"}),
        page("c/seed", "`seed` is the random seed of the sampler.", {"c/stop", "c/lora"}),
        page("c/lora", "You can also fine-tune LoRA from the command line with.", set()),
        page(
            "c/temperature",
            "temperature is a page of another source.",
            {"c/stop", "c/lora"},
            "sources/b",
        ),
    ]
    failing = {f["page"]: f["reason"] for f in bc.opening_checks(pages)}
    assert set(failing) == {"c/top_p", "c/stop", "c/lora"}, failing
    assert "default" in failing["c/top_p"] and "refers back" in failing["c/stop"]
    assert "cut" in failing["c/lora"]
    # top_p and seed list the same pages; `temperature` too, but it comes from another source
    assert bc.related_repeats(pages) == 2


def test_why_a_shared_topic_is_split() -> None:
    """No page, a page citing one of its documents, or pages per document; and `worded
    differently` where fewer than two of its documents name it in two sentences."""
    s = [
        bc.SourcePage(f"sources/{n}.md", f"sources/{n}", n, f"{n}.md", "") for n in ("a", "b", "c")
    ]
    pages = (
        _topic_page("concepts/snap-a.md", ("snapshot",), {"sources/a"}, ["F1."], "x."),
        _topic_page("concepts/snap-b.md", ("snapshots",), {"sources/b"}, ["F2."], "y."),
        _topic_page("concepts/wal.md", ("WAL",), {"sources/a"}, ["F3."], "z."),
    )
    vault = bc.Vault(tuple(s), pages, ())
    shared = [
        (("snapshot",), ("a.md", "b.md")),
        (("WAL",), ("a.md", "c.md")),
        (("fsync",), ("b.md", "c.md")),
    ]
    texts = {
        "a.md": "A snapshot is a copy. Snapshots are kept. The WAL grows. The WAL shrinks.",
        "b.md": "A snapshot loads. The snapshot is old. Use fsync. Then fsync again.",
        "c.md": "Writes are logged. Calls to fsync are rare. Each fsync waits.",
    }
    got = bc.compounding(vault, ["a.md", "b.md", "c.md"], shared, {}, texts)
    reasons = {r["topic"]: r["reason"] for r in got["shared_split_list"]}
    assert reasons == {
        "snapshot": "pages per document",
        "WAL": "page cites one, worded differently",
        "fsync": "no page",
    }
    assert got["shared_split_reasons"] == {
        "pages per document": 1,
        "page cites one, worded differently": 1,
        "no page": 1,
    }
