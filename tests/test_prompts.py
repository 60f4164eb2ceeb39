"""Every prompt wikic sends renders exactly as before its text moved to `wikic.prompts`, and
every sentence of it is one the prompt-echo check knows.

Each call kind is rendered through the module that assembles it (ingest, consolidate, lint,
query, the JSON repair note) for fixed inputs and compared with tests/golden/prompts/prompts.json,
captured from the code before the move. `WIKIC_UPDATE_GOLDEN=1` rewrites the golden file.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from wikic.consolidate import prompts as consolidate_prompts
from wikic.consolidate.episodes import Episode, EpisodeBlock
from wikic.consolidate.recurring import Recurring, Unit
from wikic.consolidate.targets import Target
from wikic.ingest import prompts as ingest_prompts
from wikic.init import agents_template
from wikic.language.prose_checks import instruction_echo
from wikic.lint import runner as lint_runner
from wikic.lint import semantic
from wikic.llm.backend import Segment, repair_prompt
from wikic.prompts import query as query_text
from wikic.prompts.ingest import NONE
from wikic.prompts.sentences import literal_parts, prompt_sentences, split_sentences, templates
from wikic.query.compose import prompt as query_prompt
from wikic.query.compose import schema_text
from wikic.query.evidence import Packed

GOLDEN = Path(__file__).parent / "golden" / "prompts" / "prompts.json"
AGENTS_MD = agents_template()
SENTINEL = "\x00"  # stands for every value a prompt is filled with, to cut it out again
Fill = Callable[[str], str]


def _episode(t: Fill, n: int, title: str, texts: list[str]) -> Episode:
    blocks = tuple(EpisodeBlock(t(f"p{i + 1}"), t(x), (x,)) for i, x in enumerate(texts))
    date = dt.date(2026, 4, n)
    return Episode(
        f"sources/{date}.md", f"raw/{date}.md", t(title), date, "", blocks, None, frozenset()
    )


def _fake_scan(t: Fill, *, empty: bool = False) -> Any:
    """What `lint.runner._overview` reads of a scan: two hubs, one open contradiction (or no
    pages at all)."""

    def page(path: str, type_: str, title: str, summary: str, contradictions: list[Any]) -> Any:
        return SimpleNamespace(
            path=path,
            type=type_,
            page=SimpleNamespace(title=t(title), summary=t(summary)),
            contradictions=contradictions,
        )

    open_one = SimpleNamespace(status="open", text=t("Gemma 3 has 5 local layers; another says 3."))
    closed = SimpleNamespace(status="resolved", text=t("An old disagreement."))
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


# What each call kind is filled with besides strings (numbers, dates, fixed fill-ins): cut too.
CUTS: dict[str, tuple[str, ...]] = {
    "ingest.extraction": ("7",),
    "ingest.source_summary": ("613",),
    "ingest.source_summary.no_sections": ("300",),
    "ingest.update_page.empty": (NONE,),
    "consolidate.episodes": ("2026-04-03", "2026-04-04"),
    "consolidate.recurring": ("2", "2026-04-03", "2026-04-04"),
    "consolidate.recurring.new_page": ("2", "2026-04-03", "2026-04-04"),
    "consolidate.task": ("5",),
    "lint.contradiction_task": (str(semantic.MAX_PAIRS),),
    "lint.overview": ("3",),
    "lint.overview.bare": ("0",),
    "query.quote": (query_text.WHERE_WIKI,),
}


def rendered(t: Fill = str) -> dict[str, list[Segment]]:
    """Every call kind's segments, by name, for fixed inputs (each string passed through `t`)."""
    facts = [
        (t("n1"), t("Gemma 3 uses a window of 1024 tokens.")),
        (t("n2"), t("It has 5 local layers.")),
    ]
    old = [(t("o1"), t("Gemma 3 has 3 local layers."))]
    episodes = [
        _episode(t, 3, "Standup", ["The build broke on the cache key.", "We pinned the version."]),
        _episode(t, 4, "Retro", ["The cache key broke the build again."]),
    ]
    targets = [
        Target(
            t("t1"),
            t("concepts/build-cache.md"),
            None,
            t("Build cache"),
            t("Keeps outputs.\nFast."),
        ),
        Target(
            t("t2"),
            t("concepts/build-cache.md"),
            t("Keys"),
            t("Build cache"),
            t("How keys are made. " * 9),
        ),
    ]
    units = tuple(Unit(ep, ep.blocks[0], 0, ep.blocks[0].text, frozenset()) for ep in episodes)
    item = Recurring(("cache", "key"), units, (("cache", 2), ("key", 2)))
    packed = Packed(t("## KV cache\n[1] A decoder keeps past keys.\n[2] Prefill is slow."), (), 12)
    missing = [SimpleNamespace(message=f"'{t('Flash attention')}' is linked but has no page")]
    claims = [(t("f-1"), t("Five local layers.")), (t("f-2"), t("x " * 150))]
    return {
        "ingest.schema": [ingest_prompts.schema_segment(AGENTS_MD)],
        "ingest.extraction": [ingest_prompts.extraction_instructions(max_topics=7)],
        "ingest.window": [
            ingest_prompts.window_segment(
                t("SOURCE: KV\n\n[s1] A decoder keeps keys."),
                span=(t("s1"), t("s9")),
                names=[t("KV cache"), t("Gemma 3")],
            )
        ],
        "ingest.window.single": [
            ingest_prompts.window_segment(t("SOURCE: KV\n\n[s1] Keys."), span=None, names=[])
        ],
        "ingest.source_summary": [
            ingest_prompts.source_summary_task(
                t("The KV cache"), [t("Prefill"), t("Decode")], t("A decoder keeps keys."), 613
            )
        ],
        "ingest.source_summary.no_sections": [
            ingest_prompts.source_summary_task(t("Notes"), [], t("Short."), 300)
        ],
        "ingest.new_page": ingest_prompts.new_page_task(t("Gemma 3"), t("entity"), facts),
        "ingest.update_page": ingest_prompts.update_page_task(
            t("Gemma 3"), t("A model."), old, facts
        ),
        "ingest.update_page.empty": ingest_prompts.update_page_task(t("Gemma 3"), "", [], facts),
        "ingest.contradiction": ingest_prompts.contradiction_task(t("Gemma 3"), old, facts),
        "consolidate.schema": [consolidate_prompts.schema_segment(AGENTS_MD)],
        "consolidate.episodes": [consolidate_prompts.episodes_segment(episodes)],
        "consolidate.recurring": [
            consolidate_prompts.recurring_segment(
                [
                    (t("r1"), True, item, [(t("t1"), targets[0]), (t("t2"), targets[1])]),
                    (t("r2"), False, item, []),
                ],
                4,
            )
        ],
        "consolidate.recurring.new_page": [
            consolidate_prompts.recurring_segment([(t("r1"), True, item, [])], 4)
        ],
        "consolidate.recurring.none": [consolidate_prompts.recurring_segment([], 4)],
        "consolidate.task": [consolidate_prompts.task_segment(5)],
        "lint.claims": [semantic.claims_segment(t("Gemma 3"), claims)],
        "lint.contradiction_task": [semantic.CONTRADICTION_TASK],
        "lint.questions_task": [semantic.QUESTIONS_TASK],
        "lint.overview": [Segment(lint_runner._overview(_fake_scan(t), missing))],
        "lint.overview.bare": [Segment(lint_runner._overview(_fake_scan(t, empty=True), []))],
        "query.quote": query_prompt(
            schema_text(AGENTS_MD), packed, t("What keeps keys?"), where=query_text.WHERE_WIKI
        ),
        "query.write": query_prompt(
            "", packed, t("What keeps keys?"), where=t("source documents"), style="write"
        ),
        "llm.repair": repair_prompt(
            [Segment(t("Q"))], t('{"a": ' + "1" * 500), t("missing key 'b'")
        ),
    }


def test_every_prompt_renders_as_before() -> None:
    produced = {name: [[s.role, s.text] for s in segs] for name, segs in rendered().items()}
    if os.environ.get("WIKIC_UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(json.dumps(produced, indent=1, ensure_ascii=False) + "\n")
    assert produced == json.loads(GOLDEN.read_text(encoding="utf-8"))


def _sent_sentences() -> dict[str, list[str]]:
    """The sentences of wikic's own text in every prompt (the values it is filled with cut
    out), by call kind; system segments are the wiki's AGENTS.md, the user's text."""
    found = {}
    for name, segments in rendered(lambda _: SENTINEL).items():
        text = "\n".join(s.text for s in segments if s.role != "system")
        for value in CUTS.get(name, ()):
            text = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", "\n", text)
        found[name] = split_sentences(text.replace(SENTINEL, "\n"))
    return found


def test_the_echo_check_knows_every_sentence_wikic_sends() -> None:
    """A model that copies any sentence of any prompt into a title is caught by lint."""
    sent = _sent_sentences()
    unknown = {
        (name, s)
        for name, sentences in sent.items()
        for s in sentences
        if instruction_echo(s) is None
    }
    assert unknown == set()
    assert sum(map(len, sent.values())) >= 40  # the cuts left the prompts' sentences whole


def test_the_generated_sentences_are_exactly_those_sent() -> None:
    """`prompt_sentences()` is what the prompts send, nothing missing, nothing extra (but the
    fill-in `WHERE_WIKI`, cut out of the query prompt above)."""
    sent = {s for sentences in _sent_sentences().values() for s in sentences}
    assert set(prompt_sentences()) ^ sent == {query_text.WHERE_WIKI}


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        (
            "TASK: summarise a source. It is data.",
            ["TASK: summarise a source.", "summarise a source.", "It is data."],
        ),
        (
            "EXISTING PAGES: none fit yet.\n",
            ["EXISTING PAGES: none fit yet.", "EXISTING PAGES:", "none fit yet."],
        ),
        ("PAGE: x\nFacts:\n- n1: y", []),  # one-word labels and values are no sentences
        ("(This is sentences", ["This is sentences"]),  # an unmatched bracket at an end goes
        ('say "a, b" here (at most', ['say "a, b" here (at most']),
    ],
)
def test_prompt_text_splits_into_sentences(text: str, sentences: list[str]) -> None:
    assert split_sentences(text) == sentences


def test_a_template_is_read_between_its_fields_with_its_braces_undoubled() -> None:
    assert literal_parts('Reply {{"a": []}}, at most {n} pairs.{x}') == [
        'Reply {"a": []}, at most ',
        " pairs.",
    ]


def test_every_prompt_module_constant_is_a_template_read_for_sentences() -> None:
    """A prompt string kept outside the UPPER_CASE constants would escape `prompt_sentences`."""
    from wikic.prompts import ingest

    found = list(templates([ingest]))
    assert ingest.SOURCE_PREAMBLE in found and ingest.SUMMARY_LABELS[0] in found
    assert all(isinstance(t, str) for t in found)
