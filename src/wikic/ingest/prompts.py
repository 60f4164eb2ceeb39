"""The segments of each ingest call, most stable first, each call as short as it can be.

On CPU every token of context slows every decode step (see `wikic.vault.schema_doc`), so a call
carries only what it needs: the schema's ingest excerpt (system), the fixed instructions of its
kind of call (the same for every source: one cached prefix), then its own data. Extraction calls
see one window of the source each (the windows partition it, so every source token is prefilled
once); page-write calls see the facts of their page, not the source. Source text is framed as
data; the model answers in JSON constrained by `schemas`. The words are `wikic.prompts.ingest`.
"""

from __future__ import annotations

from collections.abc import Sequence

from wikic.llm.backend import Segment, system, user
from wikic.prompts import ingest as text
from wikic.vault.schema_doc import schema_excerpt

SUMMARY_LABELS = text.SUMMARY_LABELS  # the summary task's labels (a copy is refused)


def schema_segment(agents_md: str) -> Segment:
    return system(schema_excerpt(agents_md, "Ingest"))


def extraction_instructions(*, max_topics: int) -> Segment:
    """What every extraction call asks, before the window it is about (a shared prefix)."""
    return user(text.extraction_task(max_topics=max_topics))


def window_segment(numbered: str, *, span: tuple[str, str] | None, names: Sequence[str]) -> Segment:
    """One window of the source (`span`: its first and last sentence ids when the source has
    several windows), then its topic names."""
    return user(text.window(numbered, span=span, names=names))


def source_summary_task(
    title: str, outline: Sequence[str], opening: str, summary_chars: int
) -> Segment:
    """The source page's summary, from the document's title, outline and opening."""
    return user(text.source_summary_task(title, outline, opening, summary_chars))


def new_page_task(title: str, page_type: str, facts: Sequence[tuple[str, str]]) -> list[Segment]:
    """The fixed instructions (a prefix shared by every page call), then this page's facts."""
    return [user(text.NEW_PAGE_TASK), user(text.page_facts(title, page_type, facts))]


def update_page_task(
    title: str,
    old_summary: str,
    old_facts: Sequence[tuple[str, str]],
    new_facts: Sequence[tuple[str, str]],
) -> list[Segment]:
    facts = text.compared_facts(title, old_facts, new_facts, old_summary)
    return [user(text.UPDATE_PAGE_TASK), user(facts)]


def contradiction_task(
    title: str, old_facts: Sequence[tuple[str, str]], new_facts: Sequence[tuple[str, str]]
) -> list[Segment]:
    """The contradiction check of a page that code opens with its lead fact (no summary)."""
    return [user(text.CONTRADICTION_TASK), user(text.compared_facts(title, old_facts, new_facts))]
