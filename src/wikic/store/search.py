"""Full-text search over the store: user text → a safe FTS5 expression → ranked hits.

User text never reaches FTS5 syntax raw: every term becomes a quoted string (`"` doubled), so
quotes, `-`, `:`, `*`, `AND`, `NEAR(` are words, never operators. Ranking is BM25 with the title
weighted above aliases, tags and summary, and those above the body.
"""

from __future__ import annotations

import json
import re
import sqlite3
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from wikic.errors import UsageError
from wikic.language.stopwords import QUERY_STOP_WORDS
from wikic.store.cjk import has_cjk, split_term
from wikic.vault.document import names_release

Mode = Literal["all", "any", "auto"]
# bm25() weights of the FTS columns: title, aliases, tags, summary, body
WEIGHTS = (10.0, 6.0, 3.0, 2.0, 1.0)
MARK_OPEN, MARK_CLOSE = "\x02", "\x03"
SNIPPET_TOKENS = 16
RERANK_POOL = 30  # BM25's best this many are re-ordered to put title matches first
MIN_PREFIX = 3  # a shorter last word is matched whole: a 1-2 letter prefix matches everything
_PHRASE_RE = re.compile(r'"([^"]*)"|(\S+)')


@dataclass(frozen=True)
class Term:
    text: str
    phrase: bool = False  # came from "quoted words": matched as adjacent words
    exclude: bool = False  # written as -word: pages holding it are left out


@dataclass(frozen=True)
class SearchHit:
    """One result. `path` is relative to wiki/; `score` is higher for better matches;
    `snippet` is markdown with the matched words in **bold**."""

    path: str
    title: str
    type: str
    score: float
    snippet: str
    summary: str

    @property
    def name(self) -> str:
        return self.path[:-3] if self.path.endswith(".md") else self.path


def parse_query(text: str) -> list[Term]:
    """Terms of a user query: `"a phrase"`, `-excluded`, plain words; punctuation-only tokens
    are dropped. An unbalanced quote is ignored."""
    terms: list[Term] = []
    # FTS5 reads a NUL as the end of the query; control characters and lone surrogates are noise
    text = "".join(" " if unicodedata.category(c) in ("Cc", "Cs") else c for c in text)
    text = text if text.count('"') % 2 == 0 else text.replace('"', " ")
    for m in _PHRASE_RE.finditer(text):
        if m.group(1) is not None:
            words = m.group(1).split()
            if any(_has_word(w) for w in words):
                terms.append(Term(" ".join(words), phrase=len(words) > 1))
            continue
        token = m.group(2)
        exclude = token.startswith("-") and len(token) > 1
        token = token.lstrip("-") if exclude else token
        if _has_word(token):
            terms.append(Term(token, exclude=exclude))
    return terms


def _has_word(token: str) -> bool:
    return any(c.isalnum() for c in token)


def content_terms(terms: Sequence[Term]) -> list[Term]:
    """`terms` without stop words (`QUERY_STOP_WORDS`), unless nothing else would be left."""
    kept = [t for t in terms if t.phrase or t.exclude or t.text.casefold() not in QUERY_STOP_WORDS]
    return kept if any(not t.exclude for t in kept) else list(terms)


def with_cjk(terms: Sequence[Term]) -> list[Term]:
    """`terms` with each one holding Chinese, Japanese or Korean split into the character
    bigrams the index holds (`store.cjk`) and the words around them."""
    out: list[Term] = []
    for t in terms:
        if not has_cjk(t.text):
            out.append(t)
            continue
        grams, rest = split_term(t.text)
        out += [Term(w, exclude=t.exclude) for w in [*grams, *rest]]
    return out


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def fts_expression(terms: Sequence[Term], *, mode: Literal["all", "any"], prefix_last: bool) -> str:
    """A MATCH expression for `terms` ('' when no positive term is left)."""
    positive = [t for t in terms if not t.exclude]
    if not positive:
        return ""
    parts = [_quote(t.text) for t in positive]
    last = positive[-1]
    if prefix_last and not last.phrase and terms[-1] is last and len(last.text) >= MIN_PREFIX:
        parts[-1] += "*"
    expr = (" OR " if mode == "any" else " AND ").join(parts)
    excluded = [_quote(t.text) for t in terms if t.exclude]
    if excluded:
        expr = f"({expr}) NOT ({' OR '.join(excluded)})"
    return expr


def parse_where(items: Sequence[str]) -> list[tuple[str, str]]:
    """`KEY=VALUE` property filters; a malformed one is a UsageError."""
    parsed = []
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(
                f"bad property filter {item!r}: expected KEY=VALUE",
                hint="For example: --where status=draft --where sources=sources/my-paper",
            )
        parsed.append((key.strip().casefold(), " ".join(value.split()).casefold()))
    return parsed


def _filters(
    types: Sequence[str], tags: Sequence[str], where: Sequence[tuple[str, str]]
) -> tuple[str, list[object]]:
    """SQL conditions on `p` (the pages table) and their parameters."""
    sql: list[str] = []
    params: list[object] = []
    if types:
        sql.append(f"p.type IN ({','.join('?' * len(types))})")
        params += [t.strip().casefold() for t in types]
    for tag in tags:
        tag = tag.strip().lstrip("#").casefold()
        # a tag also matches its nested tags, as in Obsidian: `ml` finds `ml/nlp`
        sql.append(
            "EXISTS (SELECT 1 FROM props t WHERE t.page_id = p.id AND t.key = 'tags' "
            "AND (t.value = ? OR substr(t.value, 1, ?) = ?))"
        )
        params += [tag, len(tag) + 1, tag + "/"]
    for key, value in where:
        sql.append(
            "EXISTS (SELECT 1 FROM props w WHERE w.page_id = p.id AND w.key = ? AND w.value = ?)"
        )
        params += [key, value]
    return " AND ".join(sql), params


def run_search(
    conn: sqlite3.Connection,
    query: str,
    *,
    types: Sequence[str] = (),
    tags: Sequence[str] = (),
    where: Sequence[tuple[str, str]] = (),
    limit: int = 10,
    mode: Mode = "auto",
    prefix_last: bool = True,
) -> list[SearchHit]:
    """Ranked hits for `query` under the filters. With no words in `query`, the pages matching
    the filters (by type and title). Mode `auto` wants every word and falls back to any word."""
    if limit < 1:
        raise UsageError("--limit must be at least 1")
    terms = with_cjk(content_terms(parse_query(query)))
    cond, params = _filters(types, tags, where)
    if not any(not t.exclude for t in terms):
        if not cond:
            return []
        rows = conn.execute(
            "SELECT p.path, p.title, p.type, 0.0, p.summary, p.summary FROM pages p "
            f"WHERE {cond} ORDER BY p.type, p.title COLLATE NOCASE, p.path LIMIT ?",
            [*params, limit],
        ).fetchall()
        return [_hit(row) for row in rows]
    modes: tuple[Literal["all", "any"], ...] = ("all", "any") if mode == "auto" else (mode,)
    hits: list[SearchHit] = []
    for each in modes:
        expr = fts_expression(terms, mode=each, prefix_last=prefix_last)
        hits = _match(conn, expr, cond, params, limit, terms)
        if hits or len([t for t in terms if not t.exclude]) == 1:
            break
    return hits


def _match(
    conn: sqlite3.Connection,
    expr: str,
    cond: str,
    params: list[object],
    limit: int,
    terms: Sequence[Term],
) -> list[SearchHit]:
    # BM25 over every match; snippets only for the top candidates (the outer query)
    weights = ", ".join(str(w) for w in WEIGHTS)
    rows = conn.execute(
        f"""
        SELECT p.path, p.title, p.type, -top.rank_,
               snippet(pages_fts, 4, '{MARK_OPEN}', '{MARK_CLOSE}', '…', {SNIPPET_TOKENS}),
               p.summary, p.aliases
        FROM (SELECT f.rowid AS id, bm25(pages_fts, {weights}) AS rank_
                FROM pages_fts f JOIN pages p ON p.id = f.rowid
                WHERE pages_fts MATCH ? {"AND " + cond if cond else ""}
                ORDER BY rank_ LIMIT ?) AS top
        JOIN pages_fts ON pages_fts.rowid = top.id AND pages_fts MATCH ?
        JOIN pages p ON p.id = top.id
        ORDER BY top.rank_, p.path
        """,
        [expr, *params, max(limit * 3, RERANK_POOL), expr],
    ).fetchall()
    wanted = [w for t in terms if not t.exclude for w in name_words(t.text)]
    ranked = sorted(rows, key=lambda r: (-_title_tier(wanted, r[1], r[6]), -r[3], r[0]))
    return [_hit(row[:6]) for row in ranked[:limit]]


def name_words(text: str) -> list[str]:
    """Case- and accent-free words, as the FTS tokenizer sees them (without stemming)."""
    flat = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return re.findall(r"[^\W_]+", flat.casefold())


def _title_tier(wanted: list[str], title: str, aliases_json: str) -> int:
    """2: the query is a title or alias; 1: every query word is in one (the last as a
    prefix); 0: neither. Users typing a page's name expect that page first, which BM25 alone
    does not give when the words are common across the wiki."""
    if not wanted:
        return 0
    best = 0
    for name in [title, *json.loads(aliases_json)]:
        words = name_words(name)
        if words == wanted:
            return 2
        *whole, last = wanted
        if set(whole) <= set(words) and any(w.startswith(last) for w in words):
            best = 1
    return best


def _hit(row: tuple[str, str, str, float, str, str]) -> SearchHit:
    path, title, page_type, score, snippet, summary = row
    snippet = " ".join((snippet or "").split())
    snippet = snippet.replace(MARK_OPEN, "**").replace(MARK_CLOSE, "**")
    return SearchHit(path, title, page_type, float(f"{float(score):.4g}"), snippet, summary)


# -- passages: what `wikic query` retrieves ---------------------------------------------------

# bm25() weights of a passage's columns: the title (+ aliases) of the page holding it, its text.
# The title weighs half the text: at 2.0 every fact of a broad page ("PostgreSQL", 20 facts on
# concurrency and WAL alike) outranked the paragraph that answers a question naming it. Predicted
# answers on the development sets (code-only wikis, --no-decode): title 2.0 / 1.0 / 0.5 / 0.25
# / 0 answered overlap 20 / 21 / 22 / 22 / 22 of 38 and corpus 36 / 36 / 38 / 38 / 36 of 51.
PASSAGE_WEIGHTS = (0.5, 1.0)


@dataclass(frozen=True, kw_only=True)
class PassageHit:
    """A fact, source paragraph or overview matching a query; `score` is higher for better."""

    path: str
    title: str
    type: str
    kind: str  # fact | para | item | table | code | overview
    ordinal: int
    block: str | None
    text: str
    cite: str | None
    section: str
    score: float
    context: str | None = None  # a fact's: the text of the source paragraph it was copied from
    before: tuple[str, str] | None = None  # … and the one before it in its section: (block, text)
    after: tuple[str, str] | None = None  # … and the code block right after it, in its section


def run_passage_search(conn: sqlite3.Connection, query: str, *, limit: int) -> list[PassageHit]:
    """Passages holding any of the query's topic words, best BM25 first (no prefix matching:
    a question's last word is whole). A fact's section is its cited paragraph's when that one
    names the release it sits under ("0.4 (2023-06-17): Continue previous chat" for a fact
    filed under "Continue previous chat", `rows.section_label`)."""
    return [hit for _, hit in passage_matches(conn, query, limit=limit)]


def passage_matches(
    conn: sqlite3.Connection, query: str, *, limit: int
) -> list[tuple[int, PassageHit]]:
    """`run_passage_search` with each hit's row id."""
    # a question has no exclusion syntax: `--resolution=lowest` or `-Z` is a flag it names
    terms = [Term(t.text, phrase=t.phrase) for t in content_terms(parse_query(query))]
    expr = fts_expression(with_cjk(terms), mode="any", prefix_last=False)
    if not expr:
        return []
    weights = ", ".join(str(w) for w in PASSAGE_WEIGHTS)
    return _passages(
        conn,
        f"-bm25(passages_fts, {weights})",
        "passages_fts MATCH ?",
        [expr],
        f"bm25(passages_fts, {weights}), p.path, s.kind, s.ordinal",
        limit,
    )


def passages_by_id(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, PassageHit]:
    """The passages of row ids `ids` (those that exist), score 0."""
    found: dict[int, PassageHit] = {}
    for i in range(0, len(ids), 500):
        chunk = list(ids[i : i + 500])
        where = f"s.id IN ({','.join('?' * len(chunk))})"
        found.update(_passages(conn, "0.0", where, chunk, "s.id", len(chunk)))
    return found


def _passages(
    conn: sqlite3.Connection,
    score: str,
    where: str,
    params: list[Any],
    order: str,
    limit: int,
) -> list[tuple[int, PassageHit]]:
    rows = conn.execute(
        f"""
        SELECT p.path, p.title, p.type, s.kind, s.ordinal, s.block, f.text, s.cite,
               s.section, src.section,
               (SELECT sf.text FROM passages_fts sf WHERE sf.rowid = src.id),
               prev.block, (SELECT pf.text FROM passages_fts pf WHERE pf.rowid = prev.id),
               nxt.block, (SELECT nf.text FROM passages_fts nf WHERE nf.rowid = nxt.id),
               {score} AS score, s.id
        FROM passages_fts f JOIN passages s ON s.id = f.rowid JOIN pages p ON p.id = s.page_id
        LEFT JOIN pages sp ON s.kind = 'fact' AND instr(s.cite, '#^') > 0
            AND sp.path = substr(s.cite, 1, instr(s.cite, '#^') - 1) || '.md'
        LEFT JOIN passages src ON src.page_id = sp.id
            AND src.block = substr(s.cite, instr(s.cite, '#^') + 2)
        LEFT JOIN passages prev ON prev.page_id = src.page_id AND prev.ordinal = src.ordinal - 1
            AND prev.kind IN ('para', 'item') AND prev.block IS NOT NULL
            AND prev.section = src.section
        LEFT JOIN passages nxt ON nxt.page_id = src.page_id AND nxt.ordinal = src.ordinal + 1
            AND nxt.kind = 'code' AND nxt.block IS NOT NULL AND nxt.section = src.section
        WHERE {where}
        ORDER BY {order}
        LIMIT ?
        """,
        (*params, limit),
    ).fetchall()
    hits = []
    for row in rows:
        (path, title, page_type, kind, ordinal, block, text, cite, own, cited, context) = row[:11]
        prev_block, prev_text, next_block, next_text, score_, rowid = row[11:]
        section = _released(own, cited)
        hit = PassageHit(
            path=path,
            title=title,
            type=page_type,
            kind=kind,
            ordinal=ordinal,
            block=block,
            text=text,
            cite=cite,
            section=section,
            score=float(score_),
            context=context,
            before=_block(prev_block, prev_text),
            after=_block(next_block, next_text),
        )
        hits.append((int(rowid), hit))
    return hits


def _block(block: str | None, text: str | None) -> tuple[str, str] | None:
    return (block, text) if block and text else None


def _released(own: str, cited: str | None) -> str:
    """A fact's section label (`own`: the page's subheading it is filed under, '' on a page
    without subheadings) or, when its cited paragraph's label (`cited`) puts that section under
    a release, that label: "0.4 (2023-06-17): Continue previous chat"."""
    label = cited or ""
    release, sep, heading = label.partition(": ")
    return label if sep and names_release(release) and own in ("", heading) else own


def run_following(
    conn: sqlite3.Connection, path: str, ordinal: int, kinds: Sequence[str], *, limit: int
) -> list[PassageHit]:
    """The blocks of page `path` right after block `ordinal`, in order, while they are of
    `kinds` (the list items or code block a lead-in introduces); score 0."""
    rows = conn.execute(
        """
        SELECT p.path, p.title, p.type, s.kind, s.ordinal, s.block, f.text, s.cite, s.section
        FROM passages s JOIN pages p ON p.id = s.page_id JOIN passages_fts f ON f.rowid = s.id
        WHERE p.path = ? AND s.ordinal > ? AND s.ordinal <= ? AND s.kind != 'fact'
            AND s.kind != 'overview'
        ORDER BY s.ordinal
        """,
        (path, ordinal, ordinal + limit),
    ).fetchall()
    found: list[PassageHit] = []
    for n, (path_, title, page_type, kind, at, block, text, cite, section) in enumerate(
        rows, ordinal + 1
    ):
        if at != n or kind not in kinds:
            break
        found.append(
            PassageHit(
                path=path_,
                title=title,
                type=page_type,
                kind=kind,
                ordinal=at,
                block=block,
                text=text,
                cite=cite,
                section=section,
                score=0.0,
            )
        )
    return found
