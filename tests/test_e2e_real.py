"""End to end with the real default model: ingest a real document (from the realistic corpus:
headings, inline code, shell blocks, a table), query it, lint it.

One module-scoped wiki keeps the cost to a single ingest (a few minutes on a 2-core CPU).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.helpers.model_fixtures import test_models_dir
from tests.helpers.wikitools import git, make_wiki
from wikic.cli import app
from wikic.config import Config
from wikic.llm.models.resolve import ResolvedModel
from wikic.paths import WikiPaths
from wikic.vault.document import parse_document
from wikic.vault.links import parse_links
from wikic.vault.sections import bullets, split_body
from wikic.vault.topic_page import parse_facts
from wikic.vault.tree import Vault

pytestmark = [pytest.mark.real_model, pytest.mark.slow]
REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "scripts" / "data" / "corpus" / "llama-cpp-token-generation-tips.md"
TITLE = "Token generation performance troubleshooting"
runner = CliRunner()


@pytest.fixture(scope="module")
def ingested(
    tmp_path_factory: pytest.TempPathFactory, installed_model: Callable[[str], ResolvedModel]
) -> tuple[WikiPaths, dict, int]:
    installed_model(Config().model)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WIKIC_MODELS_DIR", str(test_models_dir()))
        paths = make_wiki(tmp_path_factory.mktemp("e2e") / "w")
        shutil.copy(SAMPLE, paths.raw / SAMPLE.name)
        before = len(git(paths.root, "log", "--format=%H").split())
        result = runner.invoke(app, ["-C", str(paths.root), "ingest", "--all", "--json"])
        assert result.exit_code == 0, result.output
        return paths, json.loads(result.stdout), before


def test_ingest_writes_a_consistent_cited_wiki(ingested) -> None:
    paths, report, commits_before = ingested
    (source,) = report["sources"]
    assert source["status"] == "ingested", source
    assert source["created"], "the model named no topic"
    vault = Vault.load(paths.wiki)
    assert not vault.broken
    doc = parse_document(SAMPLE.read_text(encoding="utf-8"), filename=SAMPLE.name)
    assert vault.resolve(source["source_page"].removesuffix(".md")).title == doc.title == TITLE
    facts = 0
    for page in vault:
        for lnk in parse_links(page.body):
            assert vault.link_exists(lnk, on=page), f"{page.path}: broken {lnk.render()}"
        for fact in bullets(split_body(page.body).get("Facts")):
            facts += 1
            assert fact.citations, f"uncited fact on {page.path}: {fact.text}"
            for c in fact.citations:
                cited = vault.resolve(c.target)
                assert cited is not None and cited.type == "source"
                assert any(line.endswith(f"^{c.block}") for line in cited.body.splitlines())
                # the cited block of the source holds the fact's words (a table row or an
                # option item gets a final stop added, a lead-in to a command example its ':'
                # made '.'; the fact marks inline code again, the parsed block text does not)
                block = doc.block(c.block)
                held = " ".join([block.text, *(s.text for s in block.sentences)])
                sentence = fact.text.split(" [[", 1)[0].replace("`", "")
                assert sentence.rstrip(".") in " ".join(held.split()), (sentence, held)
    assert facts > 0
    for page in vault:  # a topic page opens with one of its facts, verbatim
        if page.type in ("entity", "concept"):
            own = {
                " ".join(f.text.replace("`", "").split())
                for f in parse_facts(split_body(page.body))
            }
            summary = " ".join(str(page.props["summary"]).replace("`", "").split())
            if page.props.get("opening") == "derived":  # no fact defines it: code wrote one
                assert summary.startswith(page.title.replace("`", "")), page.path
            else:
                assert summary in own, page.path
    index = (paths.wiki / "index.md").read_text()
    for page in vault:
        assert f"[[{page.name}|" in index or f"[[{page.name}]]" in index, page.name
    assert f"] ingest | {TITLE}" in (paths.wiki / "log.md").read_text()
    assert len(git(paths.root, "log", "--format=%H").split()) == commits_before + 1
    assert git(paths.root, "status", "--porcelain", "--", "wiki") == ""


def test_source_prefilled_once_and_shared_instructions_cached(ingested) -> None:
    _, report, _ = ingested
    stats = report["sources"][0]["stats"]
    extract, write = stats["extract"], stats["write"]
    # the source page's summary; a topic page opens with its defining fact, no model call
    assert extract["calls"] >= 1 and write["calls"] == 1
    # the windows partition the source: each of its tokens is prefilled once (plus each
    # window's short tail of topic names and, once, the shared schema and instructions), never
    # once per call
    words = len(SAMPLE.read_text(encoding="utf-8").split())
    shared = extract["cached_tokens"] // max(1, extract["calls"] - 1)  # reused by later calls
    assert extract["prefill_tokens"] - shared <= 2 * words + 150 * extract["calls"]
    # the schema excerpt and the fixed instructions are one cached prefix per kind of call
    assert extract["cached_tokens"] >= (extract["calls"] - 1) * 100


def test_query_answers_with_resolving_citations_and_reuses_the_prefix(
    ingested, monkeypatch
) -> None:
    paths, _, _ = ingested
    monkeypatch.setenv("WIKIC_MODELS_DIR", str(test_models_dir()))
    vault = Vault.load(paths.wiki)
    answers = []
    for question in (
        # no numbers, names or code tokens: both reach the model (a question whose key terms
        # no shown fact holds is declined by code before any model call)
        "Which flag sets the number of threads that llama uses?",
        "What should you try first if token generation is extremely slow?",
    ):
        result = runner.invoke(app, ["-C", str(paths.root), "query", question, "--json"])
        assert result.exit_code == 0, result.output
        answers.append(json.loads(result.stdout))
    first, second = answers
    assert first["answer"].strip()
    for data in answers:
        for c in data["citations"]:
            page = vault.pages[c["page"]]
            if c["block"]:
                assert c["block"] in vault.anchors(page)[0], c
    assert second["stats"]["cached_tokens"] > 0


def test_ingested_wiki_lints_clean(ingested) -> None:
    paths, _, _ = ingested
    result = runner.invoke(app, ["-C", str(paths.root), "lint", "--json"])
    data = json.loads(result.stdout)
    assert result.exit_code == 0, data["findings"]
    assert not [f for f in data["findings"] if f["level"] in ("error", "warning")]
