"""Every prompt wikic sends renders exactly as before its text moved to `wikic.prompts`.

Each call kind is rendered through the module that assembles it (ingest, consolidate, lint,
query, the JSON repair note) for fixed inputs and compared with tests/golden/prompts/prompts.json,
captured from the code before the move. `WIKIC_UPDATE_GOLDEN=1` rewrites the golden file.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from wikic.consolidate import prompts as consolidate_prompts
from wikic.consolidate.candidates import Candidate
from wikic.consolidate.episodes import Episode, EpisodeBlock
from wikic.consolidate.targets import Target
from wikic.ingest import prompts as ingest_prompts
from wikic.init import agents_template
from wikic.lint import runner as lint_runner
from wikic.lint import semantic
from wikic.llm.backend import Segment, repair_prompt
from wikic.query.compose import prompt as query_prompt
from wikic.query.compose import schema_text
from wikic.query.evidence import Packed

GOLDEN = Path(__file__).parent / "golden" / "prompts" / "prompts.json"
AGENTS_MD = agents_template()


def _episode(n: int, title: str, texts: list[str]) -> Episode:
    blocks = tuple(EpisodeBlock(f"p{i + 1}", t, (t,)) for i, t in enumerate(texts))
    date = dt.date(2026, 4, n)
    return Episode(
        f"sources/{date}.md", f"raw/{date}.md", title, date, "", blocks, None, frozenset()
    )


def _fake_scan(*, empty: bool = False) -> Any:
    """What `lint.runner._overview` reads of a scan: two hubs, one open contradiction (or no
    pages at all)."""

    def page(path: str, type_: str, title: str, summary: str, contradictions: list[Any]) -> Any:
        return SimpleNamespace(
            path=path,
            type=type_,
            page=SimpleNamespace(title=title, summary=summary),
            contradictions=contradictions,
        )

    open_one = SimpleNamespace(status="open", text="Gemma 3 has 5 local layers; another says 3.")
    closed = SimpleNamespace(status="resolved", text="An old disagreement.")
    pages = [
        page("concepts/kv-cache.md", "concept", "KV cache", "Keys and values\nof past tokens.", []),
        page("entities/gemma-3.md", "entity", "Gemma 3", "A model. " * 20, [open_one, closed]),
        page("sources/a.md", "source", "A source", "Not a hub.", []),
    ]

    class Scan(list):  # type: ignore[type-arg]
        """A list of page scans with the two attributes `_overview` reads."""

    scan = Scan([] if empty else pages)
    scan.pages = {p.path: p for p in scan}  # type: ignore[attr-defined]
    backlinks = {"entities/gemma-3.md": ["x", "y"], "concepts/kv-cache.md": ["x"]}
    scan.backlinks = {} if empty else backlinks  # type: ignore[attr-defined]
    return scan


def _roles(segments: list[Segment] | tuple[Segment, ...]) -> list[list[str]]:
    return [[s.role, s.text] for s in segments]


def rendered() -> dict[str, list[list[str]]]:
    """Every call kind's segments for fixed inputs, by name."""
    facts = [("n1", "Gemma 3 uses a window of 1024 tokens."), ("n2", "It has 5 local layers.")]
    old = [("o1", "Gemma 3 has 3 local layers.")]
    episodes = [
        _episode(3, "Standup", ["The build broke on the cache key.", "We pinned the version."]),
        _episode(4, "Retro", ["The cache key broke the build again."]),
    ]
    targets = [
        Target("t1", "concepts/build-cache.md", None, "Build cache", "Keeps outputs.\nFast."),
        Target("t2", "concepts/build-cache.md", "Keys", "Build cache", "How keys are made. " * 9),
    ]
    candidates = [Candidate("cache key", ("cache", "key"), 2), Candidate("build", ("build",), 3)]
    packed = Packed("## KV cache\n[1] A decoder keeps past keys.\n[2] Prefill is slow.", (), 12)
    scan = _fake_scan()
    missing = [SimpleNamespace(message="'Flash attention' is linked but has no page")]
    calls: dict[str, list[Segment]] = {
        "ingest.schema": [ingest_prompts.schema_segment(AGENTS_MD)],
        "ingest.extraction": [ingest_prompts.extraction_instructions(max_topics=7)],
        "ingest.window": [
            ingest_prompts.window_segment(
                "SOURCE: KV\n\n[s1] A decoder keeps keys.",
                where="sentences s1 to s9",
                names=["KV cache", "Gemma 3"],
            )
        ],
        "ingest.window.single": [
            ingest_prompts.window_segment("SOURCE: KV\n\n[s1] Keys.", where="", names=[])
        ],
        "ingest.source_summary": [
            ingest_prompts.source_summary_task(
                "The KV cache", ["Prefill", "Decode"], "A decoder keeps keys.", 613
            )
        ],
        "ingest.source_summary.no_sections": [
            ingest_prompts.source_summary_task("Notes", [], "Short.", 300)
        ],
        "ingest.new_page": ingest_prompts.new_page_task("Gemma 3", "entity", facts),
        "ingest.update_page": ingest_prompts.update_page_task("Gemma 3", "A model.", old, facts),
        "ingest.update_page.empty": ingest_prompts.update_page_task("Gemma 3", "", [], facts),
        "ingest.contradiction": ingest_prompts.contradiction_task("Gemma 3", old, facts),
        "consolidate.schema": [consolidate_prompts.schema_segment(AGENTS_MD)],
        "consolidate.episodes": [consolidate_prompts.episodes_segment(episodes)],
        "consolidate.targets": [consolidate_prompts.targets_segment(targets)],
        "consolidate.targets.none": [consolidate_prompts.targets_segment([])],
        "consolidate.task": [consolidate_prompts.task_segment(candidates, 5)],
        "consolidate.task.none": [consolidate_prompts.task_segment([], 3)],
        "lint.claims": [
            semantic.claims_segment("Gemma 3", [("f-1", "Five local layers."), ("f-2", "x " * 150)])
        ],
        "lint.contradiction_task": [semantic.CONTRADICTION_TASK],
        "lint.questions_task": [Segment(semantic.QUESTIONS_TASK)],
        "lint.overview": [Segment(lint_runner._overview(scan, missing))],
        "lint.overview.bare": [Segment(lint_runner._overview(_fake_scan(empty=True), []))],
        "query.quote": query_prompt(
            schema_text(AGENTS_MD), packed, "What keeps keys?", where="the pages of a wiki"
        ),
        "query.write": query_prompt(
            "", packed, "What keeps keys?", where="source documents", style="write"
        ),
        "llm.repair": repair_prompt([Segment("Q")], '{"a": ' + "1" * 500, "missing key 'b'"),
    }
    return {name: _roles(segments) for name, segments in calls.items()}


def test_every_prompt_renders_as_before() -> None:
    produced = rendered()
    if os.environ.get("WIKIC_UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(json.dumps(produced, indent=1, ensure_ascii=False) + "\n")
    assert produced == json.loads(GOLDEN.read_text(encoding="utf-8"))
