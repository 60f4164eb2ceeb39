"""The text of semantic lint's prompts: a page's claims and the contradiction task, and the
wiki overview and the questions task."""

from __future__ import annotations

from collections.abc import Sequence

CLAIMS = "CLAIMS ON THE PAGE '{title}':\n{claims}\n"
CLAIM = "{id}: {text}"
CONTRADICTION_TASK = (
    "\nTASK: which pairs of these claims cannot both be true? Only real conflicts count: "
    "different numbers, dates or names for the same thing, or one claim denies the other. "
    "Claims about different aspects do not conflict. Reply with JSON "
    '{{"pairs": [{{"a": id, "b": id, "reason": "one short line"}}]}}, at most '
    '{max_pairs} pairs; {{"pairs": []}} if none.\n'
)

OVERVIEW = "WIKI OVERVIEW ({pages} pages). Most linked pages:"
OVERVIEW_ITEM = "- {title}: {text}"
OPEN_CONTRADICTIONS = "Open contradictions:"
WITHOUT_A_PAGE = "Mentioned without a page: {names}"
QUESTIONS_TASK = (
    "\nTASK: suggest up to 3 questions worth investigating next to improve this wiki: gaps, "
    "open contradictions, names without a page. Each question under 100 characters. Reply with "
    'JSON {{"questions": ["…"]}}.\n'
)


def claims(title: str, shown: Sequence[tuple[str, str]]) -> str:
    """A page's claims as (id, text), one a line."""
    lines = "\n".join(CLAIM.format(id=cid, text=text) for cid, text in shown)
    return CLAIMS.format(title=title, claims=lines)


def contradiction_task(max_pairs: int) -> str:
    return CONTRADICTION_TASK.format(max_pairs=max_pairs)


def overview(
    pages: int,
    hubs: Sequence[tuple[str, str]],
    open_contradictions: Sequence[tuple[str, str]],
    missing: Sequence[str],
) -> str:
    """A short picture of the wiki: its size, the most linked pages and open contradictions as
    (title, text), and names mentioned without a page."""
    lines = [OVERVIEW.format(pages=pages)]
    lines += [OVERVIEW_ITEM.format(title=title, text=text) for title, text in hubs]
    if open_contradictions:
        lines.append(OPEN_CONTRADICTIONS)
        lines += [OVERVIEW_ITEM.format(title=t, text=text) for t, text in open_contradictions]
    if missing:
        lines.append(WITHOUT_A_PAGE.format(names="; ".join(missing)))
    return "\n".join(lines) + "\n"


def questions_task() -> str:
    return QUESTIONS_TASK.format()
