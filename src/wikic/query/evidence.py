"""The evidence an answer may cite: ranked units (facts, paragraphs, overviews) packed under a
token budget, grouped by page (best page first), each citable unit numbered `[1]`, `[2]`, ….

Packing never exceeds the budget (as the model's tokenizer counts it); a unit whose words are
already shown (the same fact on two pages, a paragraph that is just a fact) is shown once.
The numbers are the only ids an answer can cite; code maps them back to links.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

TokenCounter = Callable[[str], int]
UNIT_TOKENS = 120  # a longer paragraph is cut to its sentences most about the question
MIN_UNIT_TOKENS = 12  # a cut shorter than this is not worth its tokens
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[\"'`(\[A-Z0-9])")
_WORD_RE = re.compile(r"[^\W_]+")
KIND_ORDER = {"overview": 0, "fact": 1, "para": 2}


@dataclass(frozen=True)
class Evidence:
    """A unit that may be shown. `page` groups units (a page path, or a raw file for plain
    retrieval); `heading` names the group; `link` is the citation target (`sources/x#^p3`,
    `entities/y#^f-1a2b`), None for an overview, which is shown but not citable."""

    page: str
    heading: str
    kind: str  # fact | para | overview
    text: str
    link: str | None
    score: float
    ordinal: int = 0
    section: str = ""
    reason: str = "search"  # search: matched the question; link: one hop from a top page
    holds: str | None = None  # a fact's source citation (the paragraph it was copied from)


@dataclass(frozen=True)
class Shown:
    """A unit as shown to the model: `id` is its number (0 for an uncited overview)."""

    id: int
    evidence: Evidence
    text: str  # possibly cut to fit
    tokens: int


@dataclass(frozen=True)
class Packed:
    text: str  # the rendered evidence block
    shown: tuple[Shown, ...]  # in render order
    tokens: int

    @property
    def ids(self) -> list[int]:
        return [s.id for s in self.shown if s.id]

    def by_id(self, n: int) -> Shown | None:
        return next((s for s in self.shown if s.id == n), None)

    @property
    def pages(self) -> list[str]:
        return list(dict.fromkeys(s.evidence.page for s in self.shown))


def words(text: str) -> list[str]:
    return _WORD_RE.findall(text.casefold())


def excerpt(
    text: str,
    query_words: Sequence[str],
    budget: int,
    count: TokenCounter,
    *,
    relevant_only: bool = False,
) -> str:
    """The sentences of `text` most about `query_words` that fit in `budget`, in text order;
    with `relevant_only`, only sentences that share a word with them ('' when none does)."""
    sentences = [s for s in _SENTENCE_RE.split(text.strip()) if s]
    stems = {w[: max(4, len(w) - 2)] for w in query_words}

    def score(s: str) -> int:
        return sum(1 for w in words(s) if any(w.startswith(x) for x in stems))

    order = sorted(range(len(sentences)), key=lambda i: (-score(sentences[i]), i))
    if relevant_only:
        order = [i for i in order if score(sentences[i]) > 0]
    kept: list[int] = []
    used = 0
    for i in order:
        cost = count(sentences[i]) + 1
        if used + cost <= budget:
            kept.append(i)
            used += cost
    if not kept:
        return ""
    parts: list[str] = []
    last = -2
    for i in sorted(kept):
        if (i != last + 1 and parts) or (i > 0 and not parts):
            parts.append("…")
        parts.append(sentences[i])
        last = i
    return " ".join(parts)


def _without_shown(text: str, shown: list[str]) -> str | None:
    """`text` without the shown units it repeats (a paragraph holding a fact already shown
    keeps only its other sentences); None when nothing new is left."""
    flat = " ".join(words(text))
    if not flat or any(flat in " ".join(words(other)) for other in shown):
        return None
    for other in shown:
        if other in text:
            text = " ".join(text.replace(other, " … ").split())
    return text if words(text) else None


def _render_unit(n: int, e: Evidence, text: str) -> str:
    if not n:
        return text
    label = f"{e.section}: " if e.section else ""
    return f"[{n}] {label}{text}"


def pack(
    ranked: Sequence[Evidence],
    query_words: Sequence[str],
    budget: int,
    count: TokenCounter,
) -> Packed:
    """Take units in `ranked` order (best first) while they fit in `budget` tokens with their
    group headings; render them grouped by page, pages in order of their best unit, units in
    page order, citable ones numbered from 1."""
    chosen: list[tuple[Evidence, str, int]] = []
    used = 0
    for e in ranked:
        text = _without_shown(" ".join(e.text.split()), [t for _, t, _ in chosen])
        if text is None:
            continue
        tokens = count(text)
        if tokens > UNIT_TOKENS:
            text = excerpt(text, query_words, UNIT_TOKENS, count)
            tokens = count(text)
            if tokens < MIN_UNIT_TOKENS:
                continue
        cost = tokens + 4  # the "[n] " label and the line break
        if all(c[0].page != e.page for c in chosen):
            cost += count(_heading(e)) + 2
        if used + cost > budget:
            continue
        chosen.append((e, text, cost))
        used += cost
    return _render(chosen, budget, count)


def _heading(e: Evidence) -> str:
    return f"## {e.heading}"


def _render(chosen: list[tuple[Evidence, str, int]], budget: int, count: TokenCounter) -> Packed:
    while True:
        page_order = list(dict.fromkeys(e.page for e, _, _ in chosen))
        blocks: list[str] = []
        shown: list[Shown] = []
        n = 0
        for page in page_order:
            units = sorted(
                ((e, t) for e, t, _ in chosen if e.page == page),
                key=lambda u: (KIND_ORDER.get(u[0].kind, 3), u[0].ordinal),
            )
            lines = [_heading(units[0][0])]
            for e, text in units:
                n += 1 if e.link else 0
                number = n if e.link else 0
                lines.append(_render_unit(number, e, text))
                shown.append(Shown(number, e, text, count(text)))
            blocks.append("\n".join(lines))
        rendered = "\n\n".join(blocks)
        tokens = count(rendered) if rendered else 0
        if tokens <= budget or not chosen:
            return Packed(rendered, tuple(shown), tokens)
        chosen = chosen[:-1]  # separators made it too long: drop the weakest unit
