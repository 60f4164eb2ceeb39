"""Ingest with a scripted FakeBackend: golden pages for two overlapping sources."""

from __future__ import annotations

import datetime as dt
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from tests.helpers.golden import assert_matches_golden
from tests.helpers.ingest_fakes import two_source_script
from tests.helpers.wikitools import git, make_wiki
from wikic.ingest.pipeline import IngestRequest, ingest
from wikic.vault.links import parse_links
from wikic.vault.sections import bullets, split_body
from wikic.vault.tree import Vault

DATA = Path(__file__).parent / "data" / "ingest"
GOLDEN = Path(__file__).parent / "golden" / "ingest"
DAY = dt.date(2026, 11, 22)


@pytest.fixture
def wiki(tmp_path: Path):
    paths = make_wiki(tmp_path / "w")
    for name in ("kv-cache.md", "sliding-window.md"):
        shutil.copy(DATA / name, paths.raw / name)
    return paths


def run(wiki_paths, backend, **request):
    return ingest(
        wiki_paths,
        IngestRequest(**request),
        extract_backend=lambda: backend,
        write_backend=lambda: backend,
        today=DAY,
    )


def test_two_overlapping_sources_match_golden_pages(wiki) -> None:
    report = run(wiki, two_source_script().backend(), all_new=True)
    assert [o.status for o in report.outcomes] == ["ingested", "ingested"], report.outcomes
    assert_matches_golden(wiki.wiki, GOLDEN)


def _schemas_asked(backend) -> list[str]:
    return [c.schema.__name__ for c in backend.history if c.schema is not None]


def test_page_summaries_are_facts_by_default_and_the_model_s_when_configured(wiki) -> None:
    """By default the model writes only the source pages' summaries and checks the shared
    pages for contradictions; `ingest.page_summary: model` asks it for every page's summary."""
    backend = two_source_script().backend()
    run(wiki, backend, all_new=True)
    asked = _schemas_asked(backend)
    assert "SummaryOnly" not in asked
    assert asked.count("SourceSummary") == 2 and "PageUpdate" in asked
    page = Vault.load(wiki.wiki).pages["concepts/prefix-caching.md"]
    assert page.props["summary"] in page.body.split("## Facts", 1)[1]  # a fact, verbatim

    config = wiki.root / "wikic.yaml"
    config.write_text(config.read_text().replace("page_summary: fact", "page_summary: model"))
    other = make_wiki(wiki.root.parent / "m")
    shutil.copy(config, other.root / "wikic.yaml")
    for name in ("kv-cache.md", "sliding-window.md"):
        shutil.copy(DATA / name, other.raw / name)
    from wikic.paths import open_paths

    other = open_paths(other.root)
    assert other.config.ingest.page_summary == "model"
    backend = two_source_script().backend()
    run(other, backend, all_new=True)
    assert "SummaryOnly" in _schemas_asked(backend)


def test_shared_entity_is_one_page_with_two_citations_and_a_contradiction(wiki) -> None:
    report = run(wiki, two_source_script().backend(), all_new=True)
    vault = Vault.load(wiki.wiki)
    gemma = [p for p in vault if p.title == "Gemma 3"]
    assert len(gemma) == 1
    body = split_body(gemma[0].body)
    facts = bullets(body.get("Facts"))
    cited = {c.target for f in facts for c in f.citations}
    assert cited == {"sources/kv-cache", "sources/sliding-window"}
    assert any("5 local" in f.text for f in facts) and any("3 local" in f.text for f in facts)
    (entry,) = bullets(body.get("Contradictions"))
    assert entry.status == "open"
    assert gemma[0].props["contradictions"] == 1
    assert gemma[0].props["aliases"] == ["Gemma three"]
    # "KV caches" from the second source resolved to the "KV cache" page of the first
    assert len([p for p in vault if p.title.startswith("KV cache")]) == 1
    second = report.outcomes[1]
    assert second.contradictions and "3 vs 5" in second.contradictions[0]["why"]
    log_text = (wiki.wiki / "log.md").read_text()
    assert "contradiction on [[entities/gemma-3|Gemma 3]]" in log_text


def test_every_citation_and_link_resolves_and_one_commit_per_source(wiki) -> None:
    before = len(git(wiki.root, "log", "--format=%H").split())
    run(wiki, two_source_script().backend(), all_new=True)
    assert len(git(wiki.root, "log", "--format=%H").split()) == before + 2
    assert git(wiki.root, "status", "--porcelain") == "?? raw/\n"  # the user's sources stay theirs
    vault = Vault.load(wiki.wiki)
    for page in vault:
        for lnk in parse_links(page.body):
            assert vault.link_exists(lnk, on=page), f"{page.path}: broken {lnk.render()}"
        for fact in bullets(split_body(page.body).get("Facts")):
            assert fact.citations, f"uncited fact on {page.path}"
            for c in fact.citations:
                source = vault.resolve(c.target)
                para = next(
                    line for line in source.body.splitlines() if line.endswith(f"^{c.block}")
                )
                assert fact.text.rstrip(".")[:40] in para
    index = (wiki.wiki / "index.md").read_text()
    for page in vault:
        assert f"[[{page.name}|" in index or f"[[{page.name}]]" in index


def test_unchanged_source_is_a_noop_and_force_is_deterministic(wiki) -> None:
    run(wiki, two_source_script().backend(), all_new=True)
    head = git(wiki.root, "rev-parse", "HEAD")
    report = run(wiki, two_source_script().backend(), all_new=True)
    assert report.outcomes == []
    report = run(wiki, two_source_script().backend(), paths=[wiki.raw / "kv-cache.md"])
    assert [o.status for o in report.outcomes] == ["unchanged"]
    report = run(wiki, two_source_script().backend(), paths=[wiki.raw / "kv-cache.md"], force=True)
    assert git(wiki.root, "rev-parse", "HEAD") == head  # same input, same pages: nothing to commit


def test_dry_run_plans_without_writing(wiki) -> None:
    head = git(wiki.root, "rev-parse", "HEAD")
    report = run(wiki, two_source_script().backend(), all_new=True, dry_run=True)
    assert [o.status for o in report.outcomes] == ["planned", "planned"]
    assert "entities/gemma-3.md" in report.outcomes[0].created
    assert git(wiki.root, "rev-parse", "HEAD") == head
    assert not (wiki.wiki / "sources").exists()


def test_an_episode_gets_its_source_page_and_no_model_call(wiki) -> None:
    from wikic.llm.fake import FakeBackend

    for name in ("kv-cache.md", "sliding-window.md"):
        (wiki.raw / name).unlink()
    (wiki.raw / "2026-04-03-standup.md").write_text(
        "# Standup\n\nThe prefix cache missed again on Gemma 3 today.\n\n"
        "We rebuilt the benchmark harness and reran it twice.\n"
    )
    backend = FakeBackend()  # nothing scripted: any model call would fail
    report = run(wiki, backend, all_new=True)
    (outcome,) = report.outcomes
    assert outcome.status == "ingested" and outcome.created == []
    assert backend.history == []
    vault = Vault.load(wiki.wiki)
    (page,) = [p for p in vault if p.type == "source"]
    assert page.title == "Standup"
    assert page.props["summary"].startswith("The prefix cache missed again")
    assert [p for p in vault if p.type in ("entity", "concept")] == []


def test_windows_of_all_sources_share_one_extraction_batch(wiki) -> None:
    """`ingest --all` asks the model about every window of every source in one batch; the
    page writes stay one batch per source (each source is its own commit)."""
    backend = two_source_script().backend()
    report = run(wiki, backend, all_new=True)
    assert [o.status for o in report.outcomes] == ["ingested", "ingested"]
    extraction_rows = sum(
        1 for c in backend.history if c.schema and c.schema.__name__ == "Extraction"
    )
    assert extraction_rows >= 2
    assert backend.batches[0] == extraction_rows  # the first batch: every window of both sources
    assert len(backend.batches) == 3  # then one write batch per source
    per_source = [o.stats["extract"].calls for o in report.outcomes]
    assert sum(per_source) == extraction_rows and all(n >= 1 for n in per_source)


def test_a_source_that_waits_for_a_later_round_has_its_summary_asked_in_the_first(wiki) -> None:
    """Both sources write one page, so the second's page writes wait for the first's commit;
    its source summary depends on its source alone and is decoded in the first write batch,
    beside the first source's calls, not later in a batch of its own."""
    backend = two_source_script().backend()
    report = run(wiki, backend, all_new=True)
    assert [o.status for o in report.outcomes] == ["ingested", "ingested"]
    names = [c.schema.__name__ if c.schema else None for c in backend.history]
    first_write = backend.batches[0]
    rounds, start = [], first_write
    for size in backend.batches[1:]:
        rounds.append(names[start : start + size])
        start += size
    assert len(rounds) == 2 and rounds[0].count("SourceSummary") == 2
    assert "SourceSummary" not in rounds[1] and rounds[1]  # its page writes only
    assert_matches_golden(wiki.wiki, GOLDEN)  # the same pages as when asked in its own round


def test_a_summary_that_copies_the_prompt_is_not_kept() -> None:
    from wikic.ingest.write import copies_prompt

    outline = ["How can I upgrade Ollama?", "How can I view the logs?", "Where are models stored?"]
    copied = (
        "FAQ: How can I upgrade Ollama? How can I view the logs? Where are models stored? "
        "Opening: To upgrade Ollama, run the installation process again."
    )
    assert copies_prompt(copied, outline)
    assert copies_prompt("Opening: To upgrade Ollama, run the installation again.", [])
    assert not copies_prompt(
        "Answers to common questions about Ollama: upgrading, logs and where models are stored.",
        outline,
    )


def test_the_overview_fallback_is_a_fact_about_the_subject() -> None:
    """'… if an update is available' holds 'is' but is not about Ollama; the fact whose
    subject Ollama is wins."""
    from wikic.ingest.write import defining_fact
    from wikic.vault.topic_page import Fact

    facts = [
        Fact("a", "To upgrade Ollama, run the installation process again.", ()),
        Fact("b", "On the Mac, click the Ollama icon and choose restart if an update is available.", ()),
        Fact("c", "Ollama binds to 127.0.0.1 port 11434 by default.", ()),
        Fact("d", "Ollama runs entirely locally.", ()),
    ]  # fmt: skip
    assert defining_fact("Ollama", facts) == "Ollama runs entirely locally."


def test_a_new_page_of_one_fact_opens_with_it_and_costs_no_model_call() -> None:
    from wikic.ingest.plan import PageTarget
    from wikic.ingest.write import SourceWrite, _page_job, _page_result
    from wikic.vault.topic_page import Fact

    facts = [
        Fact("f-1", "`OLLAMA_HOST` changes the bind address.", ("[[sources/s#^p1]]",)),
        Fact("f-2", "Ollama binds port 11434 by default.", ("[[sources/s#^p1]]",)),
    ]
    target = PageTarget("entities/ollama-host.md", "OLLAMA_HOST", "entity", False)
    plan = None  # a new page's job does not read the plan

    one = _page_job([], plan, target, None, facts[:1], "model")  # type: ignore[arg-type]
    assert one.request is None
    summary, _ = _page_result(one, None, target, SourceWrite(), "model")
    assert summary == facts[0].text
    two = _page_job([], plan, target, None, facts, "model")  # type: ignore[arg-type]
    assert two.request is not None and "PAGE: OLLAMA_HOST (entity)" in two.request.segments[-1].text


def test_by_default_a_new_page_opens_with_its_defining_fact_without_a_model_call() -> None:
    from wikic.ingest.plan import PageTarget
    from wikic.ingest.write import SourceWrite, _page_job, _page_result
    from wikic.vault.topic_page import Fact

    facts = [
        Fact("f-1", "Change the bind address with `OLLAMA_HOST`.", ("[[sources/s#^p1]]",)),
        Fact("f-2", "`OLLAMA_HOST` is the address Ollama binds to.", ("[[sources/s#^p1]]",)),
        Fact("f-3", "It defaults to 127.0.0.1:11434.", ("[[sources/s#^p1]]",)),
    ]
    target = PageTarget("entities/ollama-host.md", "OLLAMA_HOST", "entity", False)
    job = _page_job([], None, target, None, facts, "fact")  # type: ignore[arg-type]
    assert job.request is None
    summary, pairs = _page_result(job, None, target, SourceWrite(), "fact")
    assert (summary, pairs) == (facts[1].text, [])  # its subject, then a defining verb


def test_an_overview_cut_inside_code_falls_back_to_the_defining_fact() -> None:
    from wikic.ingest.plan import PageTarget
    from wikic.ingest.schemas import SummaryOnly
    from wikic.ingest.write import SourceWrite, _page_result, _PageJob, defining_fact
    from wikic.llm.backend import EMPTY_STATS, Generation
    from wikic.vault.topic_page import Fact

    facts = [
        Fact("f-1", "`_Py_ID` marks singleton strings in C source.", ("[[sources/s#^p1]]",)),
        Fact("f-2", "The sets `_Py_ID` and `_Py_STR` are disjoint.", ("[[sources/s#^p2]]",)),
    ]
    target = PageTarget("concepts/py-id.md", "_Py_ID", "concept", False)
    for summary, expected in (
        ("The sets (_Py_ID`, `_Py_STR`) are disjoint.", defining_fact("_Py_ID", facts)),
        ("`_Py_ID` marks singleton strings; its set is disjoint from `_Py_STR`.", None),
        # about the page, not its subject
        ("The concept `_Py_ID` marks singleton strings.", defining_fact("_Py_ID", facts)),
    ):
        reply = Generation("", SummaryOnly(summary=summary), EMPTY_STATS)
        got, _ = _page_result(_PageJob(None, facts), reply, target, SourceWrite(), "model")
        assert got == (expected or summary)  # the first is cut inside a code span


def test_an_overview_that_is_a_table_row_gives_way_to_prose_from_a_later_source() -> None:
    from wikic.ingest.plan import PageTarget
    from wikic.ingest.write import SourceWrite, _page_result, _PageJob
    from wikic.vault.pages import Page
    from wikic.vault.topic_page import Fact

    row = "threads: 1; test: pp 64; t/s: 6.17 ± 0.07."
    old = [Fact("f-1", row, ("[[sources/bench#^p9]]",))]
    fresh = [Fact("f-2", "llama accepts a `-t N` (or `--threads N`) parameter.", ("x",))]
    target = PageTarget("concepts/threads.md", "--threads", "concept", True)
    page = Page("concepts/threads.md", {"title": "--threads", "summary": row}, "")
    job = _PageJob(page, fresh, fresh=fresh, old_facts=old)
    for mode in ("model", "fact"):
        summary, _ = _page_result(job, None, target, SourceWrite(), mode)  # the model gave nothing
        assert summary == fresh[0].text
    kept = _PageJob(replace(page, props={"summary": "Threads run the model."}), fresh)
    kept.fresh, kept.old_facts = fresh, old
    assert _page_result(kept, None, target, SourceWrite(), "model")[0] is None  # prose stays


def test_the_lead_names_its_subject_as_a_kind_of_thing_when_a_fact_does() -> None:
    from wikic.ingest.write import defining_fact
    from wikic.vault.topic_page import Fact

    facts = [
        Fact("f-1", "uv is backed by Astral, the creators of Ruff.", ("x",)),
        Fact("f-2", "uv is an extremely fast Python package resolver and installer.", ("x",)),
        Fact("f-3", "Install uv with pip.", ("x",)),
    ]
    assert defining_fact("uv", facts) == facts[1].text
    assert defining_fact("uv", [facts[0], facts[2]]) == facts[0].text  # its subject, no kind


def test_by_default_an_updated_page_is_checked_for_contradictions_and_keeps_a_better_lead() -> None:
    """A page met in passing gets the fact of a later source that defines it; one that opens
    with its definition keeps it; the model's call asks only for contradictions."""
    from wikic.ingest.plan import PageTarget
    from wikic.ingest.write import SourceWrite, _page_job, _page_result
    from wikic.vault.pages import Page
    from wikic.vault.topic_page import Fact

    passing = "Ollama can also be run in Docker."
    page = Page(
        "entities/ollama.md",
        {"title": "Ollama", "summary": passing},
        f"# Ollama\n\n{passing}\n\n## Facts\n\n- {passing} [[sources/a#^p1]] ^f-aaaaaa\n",
    )
    fresh = [
        Fact("f-bbbbbb", "Ollama is a tool to run language models locally.", ("[[sources/b#^p2]]",))
    ]
    target = PageTarget("entities/ollama.md", "Ollama", "entity", True)
    plan = type("Plan", (), {"source_page": "sources/b.md"})()
    job = _page_job([], plan, target, page, fresh, "fact", "all")  # type: ignore[arg-type]
    assert job.request is not None and job.request.schema is not None
    assert set(job.request.schema.model_fields) == {"contradictions"}
    assert "Current summary" not in job.request.segments[-1].text
    summary, _ = _page_result(job, None, target, SourceWrite(), "fact")
    assert summary == fresh[0].text
    body = page.body + f"- {fresh[0].text} [[sources/b#^p2]] ^f-bbbbbb\n"
    defined = replace(page, props={"title": "Ollama", "summary": fresh[0].text}, body=body)
    later = [Fact("f-c", "Ollama can also be run in Podman.", ("x",))]
    again = _page_job([], plan, target, defined, later, "fact")  # type: ignore[arg-type]
    assert _page_result(again, None, target, SourceWrite(), "fact")[0] is None  # kept
    # a lead that says what its subject does gives way to one that says what kind of thing
    # it is; one that names its kind stays
    does = "Ollama also runs models on the CPU."
    doing = replace(
        page,
        props={"title": "Ollama", "summary": does},
        body=page.body + f"- {does} [[sources/a#^p1]] ^f-dddddd\n",
    )
    again = _page_job([], plan, target, doing, fresh, "fact")  # type: ignore[arg-type]
    assert _page_result(again, None, target, SourceWrite(), "fact")[0] == fresh[0].text
    # a lead that is no longer a fact of the page (its source changed) gives way
    gone = replace(defined, body=page.body)
    again = _page_job([], plan, target, gone, later, "fact")  # type: ignore[arg-type]
    assert _page_result(again, None, target, SourceWrite(), "fact")[0] == passing


UNRELATED = {
    "alpha.md": (
        "# Alpha tool\n\nThe Alpha tool compresses logs before they are shipped. Alpha tool "
        "archives keep the original order of the lines. The Alpha tool runs on every host.\n"
    ),
    "beta.md": (
        "# Beta service\n\nThe Beta service answers health checks for the cluster. Beta "
        "service replies carry the version of the node. The Beta service restarts itself.\n"
    ),
}


def _unrelated_wiki(root: Path, names: list[str]):
    paths = make_wiki(root)
    for name in names:
        (paths.raw / name).write_text(UNRELATED[name])
    return paths


def test_sources_that_write_no_page_in_common_share_one_write_batch(tmp_path: Path) -> None:
    """The page writes of sources with no page in common go in one batch, and each source is
    still its own commit with the pages it gets when ingested alone."""
    from tests.helpers.ingest_fakes import IngestScript

    together = _unrelated_wiki(tmp_path / "together", ["alpha.md", "beta.md"])
    backend = IngestScript().backend()
    report = run(together, backend, all_new=True)
    assert [o.status for o in report.outcomes] == ["ingested", "ingested"]
    assert len(backend.batches) == 2  # every window, then every page write of both sources
    assert len({o.commit for o in report.outcomes}) == 2
    apart = _unrelated_wiki(tmp_path / "apart", [])
    for name in ("alpha.md", "beta.md"):
        (apart.raw / name).write_text(UNRELATED[name])
        assert run(apart, IngestScript().backend(), all_new=True).outcomes[0].status == "ingested"

    def pages(paths) -> dict[str, str]:
        vault = Vault.load(paths.wiki)
        return {p.path: p.body for p in vault if p.type in ("source", "entity", "concept")}

    assert pages(together) == pages(apart) and len(pages(together)) >= 4


def test_a_write_batch_that_fails_is_asked_again_per_source(tmp_path: Path) -> None:
    """When the shared write batch fails, each source is asked alone: the one whose call fails
    fails without pages, the other is committed."""
    from tests.helpers.ingest_fakes import IngestScript
    from wikic.errors import BackendError

    paths = _unrelated_wiki(tmp_path / "w", ["alpha.md", "beta.md"])
    script = IngestScript()

    def respond(call):
        writes = call.schema is not None and call.schema.__name__ != "Extraction"
        if writes and "Beta" in call.prompt:
            raise BackendError("the server went away")
        return script.respond(call)

    from wikic.llm.fake import FakeBackend

    backend = FakeBackend(respond)
    report = run(paths, backend, all_new=True)
    assert [o.status for o in report.outcomes] == ["ingested", "failed"]
    assert "went away" in (report.outcomes[1].error or "")
    assert len(backend.batches) == 4  # extraction, the shared write batch, then one per source
    stems = {p.stem for p in Vault.load(paths.wiki)}
    assert "alpha" in stems and "beta" not in stems


def _topic_pages(paths) -> dict[str, list[str]]:
    """Each topic page's facts (the `## Facts` section's text), by path."""
    vault = Vault.load(paths.wiki)
    return {
        rel: page.body.split("## Facts", 1)[-1].strip().splitlines()
        for rel, page in vault.pages.items()
        if rel.startswith(("concepts/", "entities/"))
    }


def test_extraction_code_asks_no_window_and_makes_the_pages_code_alone_makes(tmp_path) -> None:
    """`ingest.extraction: code`: no extraction call at all (the model still writes the source
    pages' summaries), and the topic pages are those code makes when every model call fails."""
    from wikic.llm.fake import FakeBackend
    from wikic.paths import open_paths

    def wiki_with(mode: str, name: str):
        paths = make_wiki(tmp_path / name)
        config = paths.root / "wikic.yaml"
        config.write_text(config.read_text().replace("extraction: model", f"extraction: {mode}"))
        for source in ("kv-cache.md", "sliding-window.md"):
            shutil.copy(DATA / source, paths.raw / source)
        return open_paths(paths.root)

    coded = wiki_with("code", "code")
    assert coded.config.ingest.extraction == "code"
    backend = two_source_script().backend()
    run(coded, backend, all_new=True)
    asked = _schemas_asked(backend)
    assert "Extraction" not in asked and asked.count("SourceSummary") == 2

    asked_model = two_source_script().backend()
    run(wiki_with("model", "model"), asked_model, all_new=True)
    assert "Extraction" in _schemas_asked(asked_model)

    silent = wiki_with("model", "silent")
    run(silent, FakeBackend(lambda call: "no model", name="no model"), all_new=True)
    assert _topic_pages(coded) == _topic_pages(silent) != {}


def test_the_model_checks_only_facts_that_could_state_one_claim_two_ways() -> None:
    """`ingest.contradiction_check: shared-words` (the default): a new fact and another
    source's fact reach the model only when they share two content words besides the page's
    name; with none such there is no call at all. `all` sends every fact."""
    from wikic.ingest.plan import PageTarget
    from wikic.ingest.write import _page_job
    from wikic.vault.pages import Page
    from wikic.vault.topic_page import Fact

    old = [
        "SQLite uses a single writer at a time.",
        "The default journal mode of SQLite is DELETE.",
    ]
    body = "# SQLite\n\n## Facts\n\n" + "".join(
        f"- {t} [[sources/a#^p{i}]] ^f-a{i}\n" for i, t in enumerate(old, 1)
    )
    page = Page("entities/sqlite.md", {"title": "SQLite"}, body)
    target = PageTarget("entities/sqlite.md", "SQLite", "entity", True)
    plan = type("Plan", (), {"source_page": "sources/b.md"})()
    same_claim = Fact("f-b1", "The default journal mode of SQLite is WAL.", ("[[sources/b#^p1]]",))
    unrelated = Fact("f-b2", "SQLite is embedded in every phone.", ("[[sources/b#^p2]]",))

    job = _page_job([], plan, target, page, [same_claim, unrelated], "fact")  # type: ignore[arg-type]
    assert job.request is not None
    assert [f.text for f in job.new_labels.values()] == [same_claim.text]
    assert [f.text for f in job.old_labels.values()] == [old[1]]
    assert job.fresh == [same_claim, unrelated]  # code's own check still reads every pair

    alone = _page_job([], plan, target, page, [unrelated], "fact")  # type: ignore[arg-type]
    assert alone.request is None
    every = _page_job([], plan, target, page, [unrelated], "fact", "all")  # type: ignore[arg-type]
    assert every.request is not None and len(every.old_labels) == 2
