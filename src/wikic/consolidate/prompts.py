"""The segments of a consolidation call, most stable first: schema → episodes → targets → task.

Episode text is framed as data. Each block is shown with its id (`[e2p3]`), which is all the
model may cite; targets are existing pages or sections, shown with ids (`t4`). The words are
`wikic.prompts.consolidate`.
"""

from __future__ import annotations

from collections.abc import Sequence

from wikic.consolidate.candidates import Candidate
from wikic.consolidate.episodes import Episode
from wikic.consolidate.targets import Target
from wikic.llm.backend import Segment, system, user
from wikic.prompts import consolidate as text
from wikic.vault.catalog import one_line
from wikic.vault.schema_doc import schema_excerpt

TARGET_SUMMARY_CHARS = 100


def schema_segment(agents_md: str) -> Segment:
    return system(schema_excerpt(agents_md, "Consolidate"))


def episodes_segment(episodes: Sequence[Episode]) -> Segment:
    shown = [
        (ep.date.isoformat(), ep.title, [(b.id, b.text) for b in ep.blocks]) for ep in episodes
    ]
    return user(text.episodes(shown))


def targets_segment(targets: Sequence[Target]) -> Segment:
    shown = [(t.id, t.label, one_line(t.summary, TARGET_SUMMARY_CHARS)) for t in targets]
    return user(text.targets(shown))


def task_segment(candidates: Sequence[Candidate], min_episodes: int) -> Segment:
    return user(text.task([(c.name, c.episodes) for c in candidates], min_episodes))
