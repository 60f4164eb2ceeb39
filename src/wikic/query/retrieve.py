"""Retrieval for `wikic query`: facts, source paragraphs and overviews that match the question
(SQLite FTS5 BM25 and embedding similarity, fused by rank: `store.hybrid`), ranked with one
hop of links, as `Evidence` for packing: a `Fact` with the source blocks it cites, or a `Block`.

A unit's link is a block of the page that holds it (`entities/x#^f-1a2b`, `sources/y#^p3`), so
a citation opens the exact fact or paragraph; overviews have no block and are never cited.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TypedDict

from wikic.query.evidence import (
    FOLLOWER_KINDS,
    MAX_FOLLOWERS,
    Block,
    Evidence,
    Fact,
    is_lead_in,
)
from wikic.store.db import Store
from wikic.store.hybrid import Ranking
from wikic.store.search import PassageHit

SEARCH_LIMIT = 80  # passages taken from FTS before ranking and packing
LINK_HOP_FROM = 3  # the best this many pages lend a boost to the pages they link with
HOP_BOOST = 1.25
# Facts first: a compiled fact is one self-contained sentence, a paragraph spends more tokens
# on the same point, a code block is an example (the command a question asks for may be only
# there), an overview is a summary the model cannot cite.
KIND_WEIGHT = {
    "fact": 1.0, "para": 0.9, "item": 0.9, "code": 0.8, "table": 0.8, "overview": 0.7,
}  # fmt: skip


@dataclass(frozen=True)
class Retrieved:
    evidence: list[Evidence]  # best first
    closest: list[tuple[str, str]]  # (page path, title) of the best pages, for a declined answer


def _link(hit: PassageHit) -> str | None:
    name = hit.path.removesuffix(".md")
    if hit.block:
        return f"{name}#^{hit.block}"
    return hit.cite if hit.kind == "fact" else None


class _Shared(TypedDict):
    """What a `Fact` and a `Block` made from a hit share (`evidence.Unit`)."""

    page: str
    heading: str
    text: str
    link: str | None
    score: float
    ordinal: int
    section: str
    reason: str


def _evidence(hit: PassageHit, hop: bool) -> Evidence:
    """A hit as a `Fact` (with the source blocks its citation points at) or a `Block`."""
    shared = _Shared(
        page=hit.path,
        heading=f"{hit.title} ({hit.type or 'page'})",
        text=hit.text,
        link=_link(hit),
        score=hit.score * KIND_WEIGHT.get(hit.kind, 0.5) * (HOP_BOOST if hop else 1.0),
        ordinal=hit.ordinal,
        section=hit.section,
        reason="link" if hop else "search",
    )
    if hit.kind != "fact":
        return Block(kind=hit.kind, **shared)
    return Fact(
        holds=hit.cite,
        context=hit.context,
        before=_neighbour(hit, hit.before),
        after=_neighbour(hit, hit.after),
        **shared,
    )


def _neighbour(hit: PassageHit, block: tuple[str, str] | None) -> tuple[str, str] | None:
    """A block next to a fact's source paragraph as (link, text)."""
    if block is None or not hit.cite or "#^" not in hit.cite:
        return None
    name, text = block
    return f"{hit.cite.split('#^', 1)[0]}#^{name}", text


def retrieve(
    store: Store, question: str, *, limit: int = SEARCH_LIMIT, ranking: Ranking | None = None
) -> Retrieved:
    """Units for `question`, by words, meaning or both (`ranking`, default `search.mode`)."""
    hits = store.passages(question, limit=limit, ranking=ranking)
    pages = list(dict.fromkeys(h.path for h in hits))
    linked: set[str] = set()
    for path in pages[:LINK_HOP_FROM]:
        linked |= {*store.links_from(path), *store.backlinks(path)}
    linked -= set(pages[:LINK_HOP_FROM])
    evidence = [_evidence(h, h.path in linked) for h in hits]
    evidence = _with_introduced(store, _with_origins(store, evidence))
    evidence.sort(key=lambda e: (-e.score, e.page, e.ordinal))
    titles = {h.path: h.title for h in hits}
    best = list(dict.fromkeys(e.page for e in evidence))[:3]
    return Retrieved(evidence, [(p, titles[p]) for p in best])


def _with_introduced(store: Store, found: list[Evidence]) -> list[Evidence]:
    """`found` with the list items, code blocks and tables its lead-ins ("The required keys
    are:") introduce, those search did not find included ("`size` is in bytes." shares no word
    with "Which keys must a pointer file contain?"): a lead-in and what it introduces rank
    together, at the best score among them, in their order (a list reads as one passage)."""
    units = {(e.page, e.ordinal): e for e in found if e.kind != "fact"}
    groups: list[list[tuple[str, int]]] = []
    for e in found:
        if not is_lead_in(e):
            continue
        group = [(e.page, e.ordinal)]
        for hit in store.following(e.page, e.ordinal, FOLLOWER_KINDS, limit=MAX_FOLLOWERS):
            if hit.section != e.section:
                break  # a list ends with its section
            key = (hit.path, hit.ordinal)
            units.setdefault(key, replace(_evidence(hit, e.reason == "link"), score=0.0))
            group.append(key)
        groups.append(group)
    ranked: dict[tuple[str, int], float] = {}
    for group in groups:
        best = max(units[k].score for k in group)
        for n, key in enumerate(group):
            ranked[key] = max(ranked.get(key, 0.0), best * (1 - n * 1e-6))
    for key, score in ranked.items():
        units[key] = replace(units[key], score=score)
    return [e for e in found if e.kind == "fact"] + list(units.values())


def _with_origins(store: Store, found: list[Evidence]) -> list[Evidence]:
    """`found` with each fact's `origin`: the title of the source page its citation points at
    (a plain retrieval's passage carries its file's title; a fact of a page that gathers
    several sources says which one it comes from)."""
    titles: dict[str, str] = {}
    out: list[Evidence] = []
    for e in found:
        if isinstance(e, Fact) and e.holds and "#^" in e.holds:
            path = e.holds.split("#^", 1)[0] + ".md"
            if path not in titles:
                info = store.page(path)
                titles[path] = info.title if info is not None else ""
            e = replace(e, origin=titles[path])
        out.append(e)
    return out
