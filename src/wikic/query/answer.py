"""`wikic query`: answer a question from the compiled wiki, with checked citations.

search + one hop of links → pages packed under the budget → the model answers → every
`[[page]]` / `[[sources/x#^p3]]` in the answer is checked against the pages; a link to a page,
block or heading that does not exist is removed from the answer and reported. When search finds
nothing, the model is not called: the answer says the wiki has nothing on the question.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from wikic.errors import UsageError
from wikic.llm.backend import EMPTY_STATS, Backend, GenerationStats, TextCallback
from wikic.paths import WikiPaths
from wikic.query.attribution import attribute
from wikic.query.context import NOT_IN_WIKI, ContextPage, build_context, candidates
from wikic.store.db import Store, open_store
from wikic.vault.links import WikiLink, iter_links

log = logging.getLogger(__name__)
NOTHING_FOUND = "The wiki has no pages about this question, so there is nothing to answer from."
_DECLINED = (NOT_IN_WIKI.rstrip(".").casefold(), "not in the wiki", "wiki does not say")


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
class QueryResult:
    question: str
    answer: str  # with broken links removed
    raw_answer: str  # as the model wrote it
    citations: tuple[CitationRef, ...]
    removed: tuple[RemovedCitation, ...]
    pages: tuple[ContextPage, ...]
    stats: GenerationStats = EMPTY_STATS
    model: str | None = None
    found: bool = True  # False: search found nothing; the model was not called
    finish_reason: str = "stop"
    catalog_tokens: int = 0
    catalog_truncated: bool = False
    notes: tuple[str, ...] = field(default=())
    attributed: int = 0  # citations code added to sentences that paraphrase a passage

    @property
    def declined(self) -> bool:
        """The model said the wiki does not contain the answer."""
        flat = " ".join(self.answer.casefold().split())
        return any(p in flat for p in _DECLINED)

    @property
    def supported(self) -> bool:
        """The answer cites at least one page or source paragraph that exists."""
        return bool(self.citations)

    @property
    def answered(self) -> bool:
        """An answer worth filing: pages were found, the model answered, and it cites them."""
        return self.found and bool(self.answer) and not self.declined and self.supported

    @property
    def cited_pages(self) -> list[str]:
        return sorted({c.page for c in self.citations})

    @property
    def context_tokens(self) -> int:
        return self.catalog_tokens + sum(p.tokens for p in self.pages)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (`wikic query --json`)."""
        return {
            "question": self.question,
            "answer": self.answer,
            "found": self.found,
            "answered": self.answered,
            "supported": self.supported,
            "model": self.model,
            "finish_reason": self.finish_reason,
            "citations": [
                {"link": c.link, "page": c.page, "block": c.block, "heading": c.heading}
                for c in self.citations
            ],
            "removed_citations": [{"link": r.link, "reason": r.reason} for r in self.removed],
            "attributed_citations": self.attributed,
            "pages": [
                {
                    "path": p.path,
                    "title": p.title,
                    "type": p.type,
                    "reason": p.reason,
                    "tokens": p.tokens,
                    "truncated": p.truncated,
                }
                for p in self.pages
            ],
            "stats": {
                **self.stats.to_dict(),
                "context_tokens": self.context_tokens,
                "catalog_tokens": self.catalog_tokens,
                "catalog_truncated": self.catalog_truncated,
            },
            "notes": list(self.notes),
        }


def answer_question(
    paths: WikiPaths,
    question: str,
    *,
    backend: Backend | Callable[[], Backend],
    on_text: TextCallback | None = None,
    context_tokens: int | None = None,
    max_tokens: int | None = None,
    search_limit: int | None = None,
) -> QueryResult:
    """Answer `question` from the wiki's pages; budgets default to wikic.yaml. `backend` may be
    a factory: it is only called when search found something, so a question the wiki knows
    nothing about never loads a model."""
    question = " ".join(question.split())
    if not question:
        raise UsageError("the question is empty", hint='For example: wikic query "What is X?"')
    cfg = paths.config.query
    with open_store(paths) as store:
        notes = tuple(store.notes)
        picked = candidates(store, question, limit=search_limit or cfg.search_limit)
        if not picked:
            return QueryResult(question, NOTHING_FOUND, "", (), (), (), found=False, notes=notes)
        model = backend if isinstance(backend, Backend) else backend()
        ctx = build_context(
            paths,
            question,
            picked,
            count=model.count_tokens,
            budget=context_tokens or cfg.context_tokens,
        )
        gen = model.generate(
            ctx.segments,
            max_tokens=max_tokens or cfg.max_answer_tokens,
            temperature=paths.config.generation.temperature,
            seed=paths.config.generation.seed,
            on_text=on_text,
        )
        store.sync()  # pages may have changed while the model was writing
        answer, citations, removed = check_citations(gen.text.strip(), store)
        answer, attributed = attribute(answer, [(p.path, p.text) for p in ctx.pages])
        if attributed:
            answer, citations, more_removed = check_citations(answer, store)
            removed = [*removed, *more_removed]
    for item in removed:
        log.info("removed citation %s: %s", item.link, item.reason)
    return QueryResult(
        question,
        answer,
        gen.text,
        tuple(citations),
        tuple(removed),
        ctx.pages,
        gen.stats,
        model.model_name,
        True,
        gen.finish_reason,
        ctx.catalog_tokens,
        ctx.catalog_truncated,
        notes,
        attributed,
    )


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
