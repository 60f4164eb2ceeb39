"""The segments of a consolidation call, most stable first: schema → episodes → what recurs →
task.

Episode text is framed as data. Each block is shown with its id (`[e2p3]`), which is all the
model may cite; what recurs was found by code across every note so far (`[r1]`), with the
pages and sections each pattern may belong to (`[t4]`). The words are `wikic.prompts.consolidate`.
"""

from __future__ import annotations

from collections.abc import Sequence

from wikic.consolidate.episodes import Episode
from wikic.consolidate.evolve import changes
from wikic.consolidate.recurring import Recurring, phrase
from wikic.consolidate.targets import Target
from wikic.llm.backend import Segment, system, user
from wikic.prompts import consolidate as text
from wikic.vault.catalog import one_line
from wikic.vault.schema_doc import schema_excerpt

TARGET_SUMMARY_CHARS = 100
# (id, is a pattern, the item, [(target id, target)])
ShownRecurring = tuple[str, bool, Recurring, Sequence[tuple[str, Target]]]


def schema_segment(agents_md: str) -> Segment:
    return system(schema_excerpt(agents_md, "Consolidate"))


def episodes_segment(episodes: Sequence[Episode]) -> Segment:
    shown = [
        (ep.date.isoformat(), ep.title, [(b.id, b.text) for b in ep.blocks]) for ep in episodes
    ]
    return user(text.episodes(shown))


def recurring_segment(items: Sequence[ShownRecurring], sentences: int) -> Segment:
    """Each item with its dates, code's name for it, its latest `sentences` sentences and, for
    a pattern, the targets it may go to."""
    shown = []
    for rid, is_pattern, item, targets in items:
        avoid = [u.ref for c in changes(item.units) for u in (c.before, c.after)]
        shown.append(
            (
                rid,
                is_pattern,
                [e.date.isoformat() for e in item.episodes],
                phrase(item, avoid),
                [(u.episode.date.isoformat(), u.text) for u in item.units[-sentences:]],
                [(tid, t.label, one_line(t.summary, TARGET_SUMMARY_CHARS)) for tid, t in targets],
            )
        )
    return user(text.recurring(shown))


def task_segment(min_episodes: int) -> Segment:
    return user(text.task(min_episodes))
