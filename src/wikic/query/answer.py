"""`wikic query`: answer a question from the wiki's facts, cited by construction.

retrieve (facts, source paragraphs, overviews; FTS5 + one hop of links) → pack the best under
`query.context_tokens`, grouped by page → the model answers under a schema where each sentence
names the numbers of the facts it uses → code renders the links (see `query.compose`). A
declined answer says "The wiki does not say." and lists the closest pages; it is never filed.
When search finds nothing, no model is loaded.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from wikic.errors import UsageError
from wikic.llm.backend import EMPTY_STATS, Backend, GenerationStats, TextCallback
from wikic.paths import WikiPaths
from wikic.query.compose import AnswerStyle, Composed, Sentence, compose, schema_text
from wikic.query.evidence import Packed, pack, words
from wikic.query.retrieve import retrieve
from wikic.query.terms import key_terms
from wikic.store.db import Store, open_store
from wikic.vault.links import WikiLink, iter_links, link

log = logging.getLogger(__name__)
DECLINED = "The wiki does not say."
NOTHING_FOUND = "The wiki does not say: no page matches the words of the question."


@dataclass(frozen=True)
class CitationRef:
    """A link in the answer that resolves: `page` is the page path, `block`/`heading` the anchor."""

    link: str
    page: str
    block: str | None = None
    heading: str | None = None


@dataclass(frozen=True)
class RemovedCitation:
    link: str
    reason: str


@dataclass(frozen=True)
class ConsultedPage:
    """A page whose units were shown to the model; `reason`: search, or link (one hop)."""

    path: str
    title: str
    reason: str
    units: int
    tokens: int

    @property
    def name(self) -> str:
        return self.path[:-3] if self.path.endswith(".md") else self.path


@dataclass(frozen=True, kw_only=True)
class QueryResult:
    question: str
    answer: str  # rendered: sentences with their citations, or the decline
    raw_answer: str  # the model's JSON ('' when it was not called)
    citations: tuple[CitationRef, ...]
    removed: tuple[RemovedCitation, ...]
    pages: tuple[ConsultedPage, ...]
    stats: GenerationStats = EMPTY_STATS
    model: str | None = None
    found: bool = True  # False: search found nothing; the model was not loaded
    finish_reason: str = "stop"
    context_tokens: int = 0  # tokens of the evidence block
    notes: tuple[str, ...] = field(default=())
    decline_reason: str | None = None  # None: answered
    sentences: tuple[Sentence, ...] = ()
    closest: tuple[tuple[str, str], ...] = ()  # (path, title) offered with a declined answer
    ttft_s: float = 0.0  # from the question to the model's first output token
    total_s: float = 0.0
    search_s: float = 0.0  # retrieving and packing the evidence, before the model
    answer_s: float = 0.0  # composing the answer: the model call and the code around it
    model_called: bool = False  # False: code decided (nothing found, declined, or certain)
    decided_by: str | None = None  # the `query.certain` rule that answered without the model
    packed: Packed | None = None

    @property
    def declined(self) -> bool:
        return self.decline_reason is not None

    @property
    def supported(self) -> bool:
        """The answer cites at least one fact or paragraph that exists."""
        return bool(self.citations)

    @property
    def answered(self) -> bool:
        """An answer worth filing: not declined, and it cites the wiki."""
        return self.found and not self.declined and self.supported

    @property
    def inferred(self) -> int:
        """Sentences kept as the model's inference: they cite nothing."""
        return sum(1 for s in self.sentences if not s.cited)

    @property
    def cited_pages(self) -> list[str]:
        return sorted({c.page for c in self.citations})

    @property
    def cited_sources(self) -> list[str]:
        """Link targets of the source paragraphs behind the answer: those it cites, and those
        its cited facts cite (`sources/x`)."""
        found: set[str] = set()
        for sentence in self.sentences:
            for shown in sentence.cited:
                for target in shown.evidence.targets:
                    if target.startswith("sources/"):
                        found.add(target.split("#", 1)[0])
        return sorted(found)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (`wikic query --json`)."""
        return {
            "question": self.question,
            "answer": self.answer,
            "found": self.found,
            "answered": self.answered,
            "declined": self.declined,
            "decline_reason": self.decline_reason,
            "supported": self.supported,
            "model": self.model,
            "finish_reason": self.finish_reason,
            "sentences": [
                {
                    "text": s.text,
                    "citations": s.links,
                    "inference": not s.cited,
                    "reattributed": s.reattributed,
                }
                | ({"why_uncited": s.why_uncited} if s.why_uncited else {})
                | ({"release": s.label} if s.label else {})
                for s in self.sentences
            ],
            "citations": [
                {"link": c.link, "page": c.page, "block": c.block, "heading": c.heading}
                for c in self.citations
            ],
            "removed_citations": [{"link": r.link, "reason": r.reason} for r in self.removed],
            "closest_pages": [{"path": p, "title": t} for p, t in self.closest],
            "pages": [
                {
                    "path": p.path,
                    "title": p.title,
                    "reason": p.reason,
                    "units": p.units,
                    "tokens": p.tokens,
                }
                for p in self.pages
            ],
            "stats": {
                **self.stats.to_dict(),
                "context_tokens": self.context_tokens,
                "ttft_s": round(self.ttft_s, 3),
                "total_s": round(self.total_s, 3),
            },
            "model_called": self.model_called,
            "decided_without_model": self.decided_by,
            "stages": {
                "search": {"wall_s": round(self.search_s, 3)},
                "answer": self.stats.breakdown(self.answer_s),
            },
            "notes": list(self.notes),
        }


def consulted(packed: Packed) -> tuple[ConsultedPage, ...]:
    pages: list[ConsultedPage] = []
    for path in packed.pages:
        units = [s for s in packed.shown if s.evidence.page == path]
        reason = "search" if any(s.evidence.reason == "search" for s in units) else "link"
        heading = re.sub(r" \([^()]*\)$", "", units[0].evidence.heading)
        tokens = sum(s.tokens for s in units)
        pages.append(
            ConsultedPage(path=path, title=heading, reason=reason, units=len(units), tokens=tokens)
        )
    return tuple(pages)


def decline_text(closest: list[tuple[str, str]]) -> str:
    if not closest:
        return DECLINED
    names = ", ".join(link(p.removesuffix(".md"), alias=t) for p, t in closest)
    return f"{DECLINED} Closest pages: {names}."


def answer_question(
    paths: WikiPaths,
    question: str,
    *,
    backend: Backend | Callable[[], Backend],
    on_text: TextCallback | None = None,
    context_tokens: int | None = None,
    max_tokens: int | None = None,
    style: AnswerStyle | None = None,
) -> QueryResult:
    """Answer `question` from the wiki; budgets default to wikic.yaml. `backend` may be a
    factory: it is only called when search found something, so a question the wiki knows
    nothing about never loads a model."""
    started = time.perf_counter()
    question = " ".join(question.split())
    if not question:
        raise UsageError("the question is empty", hint='For example: wikic query "What is X?"')
    cfg = paths.config.query
    with open_store(paths) as store:
        notes = tuple(store.notes)
        found = retrieve(store, question, limit=cfg.search_limit)
        if not found.evidence:
            return QueryResult(
                question=question,
                answer=NOTHING_FOUND,
                raw_answer="",
                citations=(),
                removed=(),
                pages=(),
                found=False,
                notes=notes,
                decline_reason="no page matches the question",
                total_s=time.perf_counter() - started,
                search_s=time.perf_counter() - started,
            )
        model = backend if isinstance(backend, Backend) else backend()
        packed = pack(
            found.evidence,
            words(question),
            context_tokens or cfg.context_tokens,
            model.count_tokens,
            key_terms(question),
        )
        agents = paths.agents_md.read_text(encoding="utf-8") if paths.agents_md.is_file() else ""
        before_model = time.perf_counter() - started
        composed = compose(
            model,
            question,
            packed,
            schema=schema_text(agents),
            decline_text=decline_text(found.closest),
            max_tokens=max_tokens or cfg.max_answer_tokens,
            style=style or cfg.answer_style,
            temperature=paths.config.generation.temperature,
            seed=paths.config.generation.seed,
            on_text=on_text,
            decide=cfg.decide_without_model,
        )
        answer_s = time.perf_counter() - started - before_model
        store.sync()  # pages may have changed while the model was writing
        answer, citations, removed = _checked(composed, store)
    for item in removed:
        log.info("removed citation %s: %s", item.link, item.reason)
    return QueryResult(
        question=question,
        answer=answer,
        raw_answer=composed.raw,
        citations=tuple(citations),
        removed=tuple(removed),
        pages=consulted(packed),
        stats=composed.stats,
        model=model.model_name,
        found=True,
        finish_reason=composed.finish_reason,
        context_tokens=packed.tokens,
        notes=notes,
        decline_reason=composed.declined,
        sentences=composed.sentences,
        closest=tuple(found.closest) if composed.declined else (),
        ttft_s=before_model + composed.ttft_s if composed.model_called else 0.0,
        total_s=time.perf_counter() - started,
        search_s=before_model,
        answer_s=answer_s,
        model_called=composed.model_called,
        decided_by=composed.decided_by,
        packed=packed,
    )


def _checked(
    composed: Composed, store: Store
) -> tuple[str, list[CitationRef], list[RemovedCitation]]:
    """Every rendered citation checked against the pages as they are now; a declined answer
    cites nothing (its closest-page links are pointers, not support)."""
    answer, citations, removed = check_citations(composed.answer, store)
    return (answer, [] if composed.declined else citations, removed)


def _problem(store: Store, lnk: WikiLink) -> tuple[str | None, str | None]:
    """(page path, None) for a link that resolves, else (None, why not)."""
    if not lnk.target:
        return None, "a link into no page (the answer is not a page)"
    page = store.resolve(lnk.target)
    if page is None:
        return None, f"no page '{lnk.target}'"
    if lnk.block is not None and not store.link_exists(lnk):
        return None, f"no block ^{lnk.block} in {page}"
    if lnk.block is None and lnk.heading is not None and not store.link_exists(lnk):
        return None, f"no heading '{lnk.heading}' in {page}"
    return page, None


_SPACE_BEFORE_RE = re.compile(r"[ \t]+$")


def check_citations(
    answer: str, store: Store
) -> tuple[str, list[CitationRef], list[RemovedCitation]]:
    """(answer with broken links removed, links that resolve, links removed with why). A removed
    link with an alias leaves its alias as plain text; one without leaves nothing."""
    citations: dict[tuple[str, str | None, str | None], CitationRef] = {}
    removed: list[RemovedCitation] = []
    pieces: list[str] = []
    pos = 0
    for start, end, lnk in iter_links(answer):
        page, why = _problem(store, lnk)
        written = answer[start:end]
        if page is not None:
            key = (page, lnk.block, lnk.heading if lnk.block is None else None)
            citations.setdefault(key, CitationRef(written, *key))
            continue
        removed.append(RemovedCitation(written, why or "does not resolve"))
        before = answer[pos:start]
        after = answer[end : end + 1]
        if lnk.alias:
            pieces += [before, lnk.alias]
        elif not after or after in " \t\n.,;:!?)]":
            pieces.append(_SPACE_BEFORE_RE.sub("", before))  # no stray space before punctuation
        else:
            pieces.append(before)
        pos = end
    pieces.append(answer[pos:])
    text = "".join(pieces)
    text = re.sub(r"[ \t]+\(\s*\)", "", text) if removed else text  # "see ()" → "see"
    return text.strip(), list(citations.values()), removed
