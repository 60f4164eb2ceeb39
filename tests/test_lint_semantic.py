"""Semantic lint with a scripted FakeBackend: contradictions, questions, missing pages, links."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.lint_fixtures import DAY, FixtureWiki, build_clean_wiki, fact_line, topic_page
from tests.helpers.wikitools import git
from wikic.errors import BackendError, GenerationError
from wikic.lint import LintOptions, run_lint
from wikic.lint.semantic import CACHE_NAME, contradiction_schema
from wikic.llm.backend import json_schema_for
from wikic.llm.fake import FakeBackend, FakeCall
from wikic.vault.schema_doc import schema_excerpt

GEMMA = "wiki/entities/gemma-3.md"
CONFLICT = fact_line(
    "Gemma 3 interleaves 3 local layers with 1 global layer.", "sliding-window", 1, "f-21a"
)


@pytest.fixture
def wiki(tmp_path: Path) -> FixtureWiki:
    w = build_clean_wiki(tmp_path / "w")
    text = w.read(GEMMA).replace("^f-20a\n", f"^f-20a\n{CONFLICT}\n")
    text = text.replace(
        "- '[[sources/kv-cache]]'", "- '[[sources/kv-cache]]'\n- '[[sources/sliding-window]]'"
    )
    w.commit({GEMMA: text})
    return w


def responder(calls: list[FakeCall]):  # type: ignore[no-untyped-def]
    def respond(call: FakeCall) -> dict:
        calls.append(call)
        name = call.schema.__name__ if call.schema else ""
        if name == "Contradictions":
            if "CLAIMS ON THE PAGE 'Gemma 3'" in call.prompt:
                return {
                    "pairs": [
                        {
                            "a": "f-20a",
                            "b": "f-21a",
                            "reason": "5 vs 3 local layers per global layer",
                        },
                        {"a": "f-20a", "b": "f-made-up", "reason": "an id the page does not have"},
                        {"a": "f-21a", "b": "f-21a", "reason": "a claim with itself"},
                    ]
                }
            return {"pairs": []}
        if name == "QuestionsReply":
            return {"questions": ["How many local layers does Gemma 3 really use?"]}
        raise AssertionError(name)

    return respond


def semantic(wiki: FixtureWiki, backend: FakeBackend, **options: object):  # type: ignore[no-untyped-def]
    return run_lint(wiki.paths, LintOptions(semantic=True, **options), backend=backend, today=DAY)  # type: ignore[arg-type]


def test_contradiction_found_and_invalid_ids_ignored(wiki: FixtureWiki) -> None:
    calls: list[FakeCall] = []
    report = semantic(wiki, FakeBackend(responder(calls)), rules=("contradiction",))
    (f,) = report.findings
    assert (f.rule, f.level, f.page, f.fixable) == ("contradiction", "warning", GEMMA, True)
    assert (
        f.message == "^f-20a and ^f-21a cannot both be true: 5 vs 3 local layers per global layer"
    )
    assert f.line is not None and "^f-20a" in wiki.read(GEMMA).splitlines()[f.line - 1]
    assert wiki.read(GEMMA).count("**open**") == 0  # without --fix nothing is written


def test_prompt_is_schema_then_claims_then_task(wiki: FixtureWiki) -> None:
    calls: list[FakeCall] = []
    semantic(wiki, FakeBackend(responder(calls)), rules=("contradiction",))
    gemma = next(c for c in calls if "'Gemma 3'" in c.prompt)
    system, claims, task = gemma.segments
    agents = (wiki.root / "AGENTS.md").read_text()
    assert system.role == "system" and system.text == schema_excerpt(agents, "Lint")
    assert claims.text.splitlines()[1:] == [
        "f-20a: Gemma 3 interleaves 5 local layers with 1 global layer.",
        "f-21a: Gemma 3 interleaves 3 local layers with 1 global layer.",
    ]
    assert task.text.lstrip().startswith("TASK:") and all(
        s.text == task.text for s in (c.segments[2] for c in calls)
    )
    schema = json.dumps(json_schema_for(gemma.schema))
    assert '"enum": ["f-20a", "f-21a"]' in schema and '"maxItems": 3' in schema
    assert gemma.max_tokens <= 200


def test_fix_records_contradictions_as_open_entries(wiki: FixtureWiki) -> None:
    calls: list[FakeCall] = []
    head = git(wiki.root, "rev-parse", "HEAD").strip()
    report = semantic(wiki, FakeBackend(responder(calls)), rules=("contradiction",), fix=True)
    assert report.fix is not None and report.fix.fixed == {"contradiction": 1}
    assert report.fix.changed == (GEMMA, "wiki/log.md")  # same title, summary, date: index kept
    assert git(wiki.root, "rev-list", "--count", f"{head}..HEAD").strip() == "1"
    text = wiki.read(GEMMA)
    assert (
        "## Contradictions\n\n- **open** — [[#^f-20a]] vs [[#^f-21a]]: 5 vs 3 local layers per global layer ^x-"
        in text
    )
    assert "contradictions: 1\n" in text and "f-made-up" not in text
    assert report.findings == ()  # recorded now, so no longer reported as new
    again = semantic(
        wiki, FakeBackend(responder([])), rules=("contradiction", "open-contradiction")
    )
    assert [f.rule for f in again.findings] == ["open-contradiction"]


def test_verdicts_are_cached_per_prompt(wiki: FixtureWiki) -> None:
    calls: list[FakeCall] = []
    semantic(wiki, FakeBackend(responder(calls)), rules=("contradiction", "open-question"))
    first = len(calls)
    # two pages have two claims or more (prefix caching, Gemma 3), then one questions call
    assert first == 3 and (wiki.paths.state / CACHE_NAME).is_file()
    report = semantic(wiki, FakeBackend(responder(calls)), rules=("contradiction", "open-question"))
    assert len(calls) == first and {f.rule for f in report.findings} == {
        "contradiction",
        "open-question",
    }
    wiki.edit(GEMMA, "Gemma 3 interleaves 3 local", "Gemma 3 interleaves 4 local")
    semantic(wiki, FakeBackend(responder(calls)), rules=("contradiction",))
    assert len(calls) == first + 1  # only the changed page is asked again


def test_open_questions(wiki: FixtureWiki) -> None:
    calls: list[FakeCall] = []
    report = semantic(wiki, FakeBackend(responder(calls)), rules=("open-question",))
    (f,) = report.findings
    assert (f.rule, f.level, f.page) == ("open-question", "info", "")
    assert f.message == "How many local layers does Gemma 3 really use?"
    (call,) = calls
    assert "WIKI OVERVIEW (7 pages)" in call.prompt and "- Gemma 3:" in call.prompt


def test_model_failure_is_a_note_not_a_crash(wiki: FixtureWiki) -> None:
    def fail(call: FakeCall) -> dict:
        raise GenerationError("no valid JSON")

    report = semantic(wiki, FakeBackend(fail), rules=("contradiction",))
    assert report.notes == ("no valid JSON",) * 2
    # the check in code still finds what the model could not be asked about
    (f,) = report.findings
    assert f.message.startswith("^f-20a and ^f-21a cannot both be true: different numbers")


def test_unreachable_model_is_one_note(wiki: FixtureWiki) -> None:
    calls: list[FakeCall] = []

    def down(call: FakeCall) -> dict:
        calls.append(call)
        raise BackendError("cannot reach http://127.0.0.1:8080/v1")

    report = semantic(wiki, FakeBackend(down), rules=("contradiction", "open-question"))
    assert len(calls) == 1 and len(report.notes) == 1
    assert "checked in code only" in report.notes[0]
    assert [f.rule for f in report.findings] == ["contradiction"]


def test_code_check_finds_numeric_conflicts_a_small_model_misses(wiki: FixtureWiki) -> None:
    report = semantic(wiki, FakeBackend(lambda call: {"pairs": []}), rules=("contradiction",))
    (f,) = report.findings
    assert (f.rule, f.page) == ("contradiction", GEMMA)
    assert "different numbers for the same statement" in f.message


def test_missing_page(wiki: FixtureWiki) -> None:
    for rel in ("wiki/concepts/kv-cache.md", "wiki/concepts/prefix-caching.md"):
        wiki.edit(
            rel,
            "## Sources",
            "A Rotating KV Cache keeps the last window; see [[RoPE scaling]].\n\n## Sources",
        )
    report = semantic(wiki, FakeBackend(), rules=("missing-page",))
    messages = sorted(f.message for f in report.findings)
    assert [f.rule for f in report.findings] == ["missing-page", "missing-page"]
    assert messages[0].startswith("'RoPE scaling' is linked from 2 pages")
    assert messages[1].startswith("'Rotating KV Cache' is mentioned on 2 pages but has no page")


def test_suggested_link(wiki: FixtureWiki) -> None:
    words = "rotary position embeddings rotate query key vectors angle frequency"
    a = topic_page(
        "concept",
        "Rotary embeddings",
        [fact_line(f"Rotary {words}.", "kv-cache", 1, "f-r1")],
        ["concepts/kv-cache"],
        ["kv-cache"],
    )
    b = topic_page(
        "concept",
        "Rotary position encoding",
        [fact_line(f"It uses {words}.", "kv-cache", 2, "f-r2")],
        ["concepts/kv-cache"],
        ["kv-cache"],
    )
    wiki.commit(
        {"wiki/concepts/rotary-embeddings.md": a, "wiki/concepts/rotary-position-encoding.md": b}
    )
    report = semantic(wiki, FakeBackend(), rules=("suggested-link",))
    by_page = {f.page: f.message for f in report.findings}
    assert (
        "[[concepts/rotary-position-encoding|Rotary position encoding]]"
        in by_page["wiki/concepts/rotary-embeddings.md"]
    )
    assert (
        "[[concepts/rotary-embeddings|Rotary embeddings]]"
        in by_page["wiki/concepts/rotary-position-encoding.md"]
    )
    assert all("kv-cache" not in m for m in by_page.values())  # already linked: not suggested


def test_schema_enum_lists_only_the_page_ids() -> None:
    schema = json_schema_for(contradiction_schema(["f-1", "f-2"]))
    pair = next(iter(schema["$defs"].values()))
    assert pair["properties"]["a"]["enum"] == ["f-1", "f-2"]
    assert pair["additionalProperties"] is False


def test_pages_are_checked_in_one_batch(wiki: FixtureWiki) -> None:
    calls: list[FakeCall] = []
    backend = FakeBackend(responder(calls))
    semantic(wiki, backend, rules=("contradiction", "open-question"))
    pages = sum(1 for c in calls if c.schema is not None and c.schema.__name__ == "Contradictions")
    assert pages >= 2 and backend.batches == [pages, 1]  # every page together, then questions
