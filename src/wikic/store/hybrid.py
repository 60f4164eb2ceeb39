"""Search by words, by meaning, or both fused: what `Store.search` and `Store.passages` run.

lexical: BM25 over FTS5 (`store.search`). semantic: cosine similarity of the query's embedding
to each page's or passage's (`store.vectors`). hybrid: both rankings' best `POOL` fused by
reciprocal rank (`store.fusion`). In a page search a page named by the query (title or alias,
`search._title_tier`) stays first, as in lexical search, and a page only meaning finds must be
at least `MIN_PAGE_SIMILARITY` alike: a search for a word no page has finds nothing rather
than ten unrelated pages. A question no passage shares a word with finds nothing either ("the
wiki does not say"). Hybrid ranks by words alone in a wiki too small for centred vectors
(`vectors.MIN_CENTERED`), where every two texts look alike.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Literal

from wikic.errors import UsageError
from wikic.store.fusion import rrf
from wikic.store.rerank import POOL as POOL_OF_RERANK
from wikic.store.rerank import Reranker
from wikic.store.search import (
    Mode,
    PassageHit,
    SearchHit,
    Term,
    _filters,
    _hit,
    _title_tier,
    content_terms,
    fts_expression,
    name_words,
    parse_query,
    passage_matches,
    passages_by_id,
    run_search,
)
from wikic.store.vectors import Vectors, matrix, nearest

Ranking = Literal["hybrid", "lexical", "semantic"]
RANKINGS: tuple[Ranking, ...] = ("hybrid", "lexical", "semantic")
POOL = 30  # page search: each ranking's best this many (or 3x the limit) are fused
# question search (`passage_search`): the vector ranking's best this many are fused with the
# words' `limit`, by reciprocal rank with this k. A small k lets a passage meaning ranks near
# the top beat one both rankings put midway (a paraphrase shares only incidental words with
# many passages); the deeper pool still lifts a passage words rank well and meaning low.
# Measured (scripts/bench_quality.py --retrieval-only, corpus + overlap sets): k 60 and the
# top 80 found 24 + 16 of 74 paraphrased questions, k 5 and the top 200 25 + 19, literal
# questions 46 + 30 both ways.
SEMANTIC_POOL = 200
PASSAGE_RRF_K = 5
MIN_PAGE_SIMILARITY = 0.3  # centred cosine a page found by meaning alone needs in a hybrid search


def _semantic_text(terms: Sequence[Term]) -> str:
    """What a query is embedded as: its topic words (stopwords average every text toward the
    same point; measured: two more paraphrased answers in context)."""
    return " ".join(t.text for t in content_terms(terms) if not t.exclude)


def _off(vectors: Vectors) -> UsageError:
    return UsageError(
        "search by meaning needs embeddings, and search.embedding_model is 'none'",
        hint="Use --mode lexical, or set search.embedding_model in wikic.yaml.",
    )


def page_search(
    conn: sqlite3.Connection,
    vectors: Vectors,
    cache: Path | None,
    query: str,
    *,
    types: Sequence[str],
    tags: Sequence[str],
    where: Sequence[tuple[str, str]],
    limit: int,
    mode: Mode,
    prefix_last: bool,
    ranking: Ranking,
) -> list[SearchHit]:
    """Pages for `query` under the filters, best first, ranked as `ranking` says."""
    if ranking not in RANKINGS:
        raise UsageError(
            f"unknown search mode {ranking!r}", hint="Use hybrid, lexical or semantic."
        )
    terms = parse_query(query)
    text = _semantic_text(terms)

    def lexical(n: int) -> list[SearchHit]:
        return run_search(
            conn, query, types=types, tags=tags, where=where, limit=n, mode=mode,
            prefix_last=prefix_last,
        )  # fmt: skip

    if limit < 1:
        raise UsageError("--limit must be at least 1")
    if ranking == "lexical" or not text.strip():
        return lexical(limit)
    if not vectors.enabled:
        if ranking == "semantic":
            raise _off(vectors)
        return lexical(limit)
    pool = max(POOL, 3 * limit)
    allowed = _allowed_pages(conn, types, tags, where, terms)
    pages = matrix(conn, "pages", cache)
    if ranking == "hybrid" and not pages.centered:
        return lexical(limit)
    query_vec = vectors.embedder().embed([text])[0]
    found = nearest(pages, query_vec, pool, allowed)
    if ranking == "semantic":
        return _page_hits(conn, found, [], limit)
    found = [(i, s) for i, s in found if s >= MIN_PAGE_SIMILARITY]
    lex = lexical(pool)
    by_path = {h.path: h for h in lex}
    ids = _page_ids(conn, [h.path for h in lex])
    fused = rrf([[ids[h.path] for h in lex if h.path in ids], [i for i, _ in found]])
    wanted = [w for t in content_terms(terms) if not t.exclude for w in name_words(t.text)]
    return _page_hits(conn, fused, wanted, limit, by_path)


def _allowed_pages(
    conn: sqlite3.Connection,
    types: Sequence[str],
    tags: Sequence[str],
    where: Sequence[tuple[str, str]],
    terms: Sequence[Term],
) -> set[int] | None:
    """Ids of the pages the filters and `-excluded` words leave (None: every page)."""
    cond, params = _filters(types, tags, where)
    allowed: set[int] | None = None
    if cond:
        rows = conn.execute(f"SELECT p.id FROM pages p WHERE {cond}", params).fetchall()
        allowed = {r[0] for r in rows}
    excluded = [Term(t.text, phrase=t.phrase) for t in terms if t.exclude]
    if excluded:
        expr = fts_expression(excluded, mode="any", prefix_last=False)
        out = {
            r[0]
            for r in conn.execute("SELECT rowid FROM pages_fts WHERE pages_fts MATCH ?", (expr,))
        }
        if allowed is None:
            allowed = {r[0] for r in conn.execute("SELECT id FROM pages")}
        allowed -= out
    return allowed


def _page_ids(conn: sqlite3.Connection, paths: Sequence[str]) -> dict[str, int]:
    if not paths:
        return {}
    rows = conn.execute(
        f"SELECT path, id FROM pages WHERE path IN ({','.join('?' * len(paths))})", list(paths)
    ).fetchall()
    return dict(rows)


def _page_hits(
    conn: sqlite3.Connection,
    ranked: Sequence[tuple[int, float]],
    wanted: Sequence[str],
    limit: int,
    lexical: dict[str, SearchHit] | None = None,
) -> list[SearchHit]:
    """Hits for page ids `ranked` (best first, with scores): a lexical hit keeps its snippet;
    a page the query names goes first (`wanted`: the query's words)."""
    if not ranked:
        return []
    ids = [i for i, _ in ranked]
    rows = conn.execute(
        "SELECT id, path, title, type, summary, aliases FROM pages "
        f"WHERE id IN ({','.join('?' * len(ids))})",
        ids,
    ).fetchall()
    info = {r[0]: r[1:] for r in rows}
    hits: list[tuple[int, SearchHit]] = []
    for page_id, score in ranked:
        if page_id not in info:
            continue
        path, title, page_type, summary, aliases = info[page_id]
        known = (lexical or {}).get(path)
        snippet = known.snippet if known else ""
        tier = _title_tier(list(wanted), title, aliases) if known else 0
        hits.append((tier, _hit((path, title, page_type, score, snippet, summary))))
    hits.sort(key=lambda th: -th[0])  # stable: fused order within a tier
    return [h for _, h in hits[:limit]]


def passage_search(
    conn: sqlite3.Connection,
    vectors: Vectors,
    cache: Path | None,
    query: str,
    *,
    limit: int,
    ranking: Ranking,
    rerank: Reranker | None = None,
) -> list[PassageHit]:
    """Facts, source paragraphs and overviews for a question, best first; a hybrid hit's
    score is its fused score, a semantic one's its cosine similarity. A hybrid ranking's best
    passages are re-ranked by `rerank` when it is on (`store.rerank`)."""
    if ranking == "lexical" or not vectors.enabled:
        if ranking == "semantic":
            raise _off(vectors)
        return [h for _, h in passage_matches(conn, query, limit=limit)]
    text = _semantic_text(parse_query(query))
    if not text.strip():
        return []
    second = rerank if rerank is not None and rerank.enabled else None
    depth = max(limit, POOL_OF_RERANK) if second else limit  # each ranking's best POOL
    lex = passage_matches(conn, query, limit=depth) if ranking == "hybrid" else []
    if ranking == "hybrid" and not lex:
        return []  # nothing holds a word of it: "the wiki does not say", not the nearest text
    units = matrix(conn, "passages", cache)
    if ranking == "hybrid" and not units.centered:
        if second is None:
            return [h for _, h in lex]
        ranked = second.rerank(conn, query, [i for i, _ in lex], limit, k=PASSAGE_RRF_K)
        return _passage_hits(conn, ranked, dict(lex))
    query_vec = vectors.embedder().embed([text])[0]
    if ranking == "semantic":
        return _passage_hits(conn, nearest(units, query_vec, limit), {})
    found = nearest(units, query_vec, max(limit, SEMANTIC_POOL))
    fused = fuse_passages([i for i, _ in lex], [i for i, _ in found], depth)
    if second is not None:
        fused = second.rerank(conn, query, [i for i, _ in fused], limit, k=PASSAGE_RRF_K)
    return _passage_hits(conn, fused, dict(lex))


def fuse_passages(
    lexical: Sequence[int], semantic: Sequence[int], limit: int
) -> list[tuple[int, float]]:
    """The best `limit` of a question's passages ranked by words (`lexical`, its best `limit`)
    and by meaning (`semantic`, its best `SEMANTIC_POOL`), fused by reciprocal rank with
    `PASSAGE_RRF_K`: meaning's first passage beats one both rank midway, and a passage words
    rank high gains from meaning's rank even past `limit`."""
    return rrf([lexical[:limit], semantic[: max(limit, SEMANTIC_POOL)]], k=PASSAGE_RRF_K)[:limit]


def _passage_hits(
    conn: sqlite3.Connection, ranked: Sequence[tuple[int, float]], known: dict[int, PassageHit]
) -> list[PassageHit]:
    missing = [i for i, _ in ranked if i not in known]
    found = {**known, **passages_by_id(conn, missing)} if missing else known
    return [replace(found[i], score=s) for i, s in ranked if i in found]
