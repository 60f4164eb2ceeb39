"""The machine-state database `.wikic/wikic.sqlite`: pages, properties, links, claims,
contradictions and a full-text index, derived entirely from the page files.

Nothing here is a source of truth. Every read first syncs: a stat pass over wiki/ (mtime_ns, size,
inode) re-indexes only files that changed, so a fresh clone, `wikic undo`, a crash recovery or an
edit in Obsidian never leaves it wrong. A DB of another schema version, or a corrupt one, is
rebuilt from the pages; readers never block writers (WAL).
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from wikic.paths import WikiPaths
from wikic.store.concepts import StoredConcepts
from wikic.store.hybrid import Ranking, page_search, passage_search
from wikic.store.rerank import CACHE_FILE as RERANK_CACHE
from wikic.store.rerank import Reranker, resolve
from wikic.store.rows import Citation, Claim, ClaimRef, Contradiction
from wikic.store.schema import Outdated, StoreError, connect, is_corruption, remove_db
from wikic.store.search import (
    Mode,
    PassageHit,
    SearchHit,
    name_words,
    run_following,
)
from wikic.store.sync import Progress, SyncReport, sync_rows
from wikic.store.vectors import Matrix, Vectors, matrix
from wikic.vault.links import WikiLink, normalize_target
from wikic.vault.tree import Vault

log = logging.getLogger(__name__)
T = TypeVar("T")
STALE_MARKER = "store.stale"


@dataclass(frozen=True)
class PageInfo:
    """What the store knows of a page without reading its file."""

    path: str
    title: str
    type: str
    aliases: tuple[str, ...]
    tags: tuple[str, ...]
    summary: str
    updated: str
    source_count: int
    props: dict[str, Any] = field(hash=False)
    broken: str | None = None

    @property
    def name(self) -> str:
        return self.path[:-3] if self.path.endswith(".md") else self.path


_PAGE_COLS = "path, title, type, aliases, tags, summary, updated, source_count, props, broken"


def _page_info(row: Sequence[Any]) -> PageInfo:
    path, title, typ, aliases, tags, summary, updated, count, props, broken = row
    return PageInfo(
        path,
        title,
        typ,
        tuple(json.loads(aliases)),
        tuple(json.loads(tags)),
        summary,
        updated,
        count,
        json.loads(props),
        broken,
    )


class Store:
    """An open database of one wiki. Use `open_store()`; close it (or use `with`)."""

    def __init__(self, paths: WikiPaths) -> None:
        self.paths = paths
        self.notes: list[str] = []  # warnings for the user (rebuilt DB, unreadable pages)
        self.in_memory = False
        search = paths.config.search
        self.vectors = Vectors(search.embedding_model)
        self.conn = self._open()
        cache = None if self.in_memory else paths.state / RERANK_CACHE
        self.reranker = Reranker(resolve(search.rerank_model, search.embedding_model), cache)

    # -- lifecycle -------------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        db = self.paths.db
        try:
            db.parent.mkdir(parents=True, exist_ok=True)
            return connect(db)
        except Outdated:
            self._note("the search index was made by another wikic version; rebuilding it")
        except sqlite3.DatabaseError as exc:
            if not is_corruption(exc):
                return self._in_memory(exc)
            self._note(f"the search index {db} was unreadable ({exc}); rebuilding it")
        except OSError as exc:
            return self._in_memory(exc)
        remove_db(db)
        try:
            return connect(db)
        except (sqlite3.DatabaseError, OSError, Outdated) as exc:
            return self._in_memory(exc)

    def _in_memory(self, exc: BaseException) -> sqlite3.Connection:
        self._note(f"cannot use {self.paths.db} ({exc}); searching with an index in memory")
        self.in_memory = True
        return connect(":memory:")

    def _note(self, message: str) -> None:
        log.warning(message)
        self.notes.append(message)

    def _reset(self, exc: sqlite3.DatabaseError) -> None:
        self._note(f"the search index broke ({exc}); rebuilding it from the pages")
        self.conn.close()
        if not self.in_memory:
            remove_db(self.paths.db)
        self.conn = connect(":memory:" if self.in_memory else self.paths.db)
        self._sync_rows(full=True, progress=None)

    def _guarded(self, fn: Callable[[], T]) -> T:
        """Run `fn`; on a corrupt database rebuild it from the pages and run `fn` once more."""
        try:
            return fn()
        except sqlite3.DatabaseError as exc:
            if not is_corruption(exc):
                raise StoreError(f"the search index failed: {exc}") from None
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("ROLLBACK")
            self._reset(exc)
            return fn()

    def close(self) -> None:
        self.conn.close()
        self.reranker.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- keeping current -------------------------------------------------------------------

    def sync(self, *, progress: Progress | None = None) -> SyncReport:
        """Re-index the pages whose files changed since the last sync (all after a failure)."""
        marker = self.paths.state / STALE_MARKER
        full = marker.exists()
        report = self._guarded(lambda: self._sync_rows(full=full, progress=progress))
        if full:
            with contextlib.suppress(OSError):
                marker.unlink()
        return report

    def rebuild(self, *, progress: Progress | None = None) -> SyncReport:
        """Index every page again from its file, in one transaction (readers see the old
        index until it is done)."""
        report = self._guarded(lambda: self._sync_rows(full=True, progress=progress, clear=True))
        with contextlib.suppress(OSError):
            (self.paths.state / STALE_MARKER).unlink()
        if self.reranker.enabled:
            keys = {k for (k,) in self.conn.execute("SELECT vkey FROM passages")}
            self.reranker.prune(keys)
        return report

    def _sync_rows(self, **kwargs: Any) -> SyncReport:
        return sync_rows(self.conn, self.paths.wiki, vectors=self.vectors, **kwargs)

    @property
    def _matrix_cache(self) -> Path | None:
        return None if self.in_memory else self.paths.state / "vectors"

    def refresh(self, rels: Iterable[str]) -> None:
        """Re-index the given pages (paths relative to wiki/) from their files now."""
        wanted = set(rels)
        if wanted:
            self._guarded(lambda: self._sync_rows(full=False, progress=None, only=wanted))

    # -- reading ---------------------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        types: Sequence[str] = (),
        tags: Sequence[str] = (),
        where: Sequence[tuple[str, str]] = (),
        limit: int = 10,
        mode: Mode = "auto",
        prefix_last: bool = True,
        ranking: Ranking | None = None,
    ) -> list[SearchHit]:
        """Pages matching `query` (and the filters), best first, by words (`ranking`
        lexical, the default: callers that pick pages by their words), meaning (semantic) or
        both (hybrid; `wikic search` passes `search.mode`); see `store.hybrid`."""
        return self._guarded(
            lambda: page_search(
                self.conn,
                self.vectors,
                self._matrix_cache,
                query,
                types=types,
                tags=tags,
                where=where,
                limit=limit,
                mode=mode,
                prefix_last=prefix_last,
                ranking=ranking or "lexical",
            )
        )

    def passages(
        self, query: str, *, limit: int, ranking: Ranking | None = None
    ) -> list[PassageHit]:
        """Facts, source paragraphs and overviews for `query`, best first (`wikic query`), by
        words, meaning or both (`ranking`, default `search.mode`)."""
        return self._guarded(
            lambda: passage_search(
                self.conn,
                self.vectors,
                self._matrix_cache,
                query,
                limit=limit,
                ranking=ranking or self.paths.config.search.mode,
                rerank=self.reranker,
            )
        )

    def page_vectors(self) -> tuple[list[str], Matrix]:
        """Every page's path and its unit vector (rows in the same order); no vectors when
        embeddings are off."""
        if not self.vectors.enabled:
            found = self._guarded(lambda: matrix(self.conn, "pages", None))
            return [], found
        found = self._guarded(lambda: matrix(self.conn, "pages", self._matrix_cache))
        paths = dict(self._rows("SELECT id, path FROM pages"))
        return [paths.get(int(i), "") for i in found.ids], found

    def embed(self, texts: Sequence[str]) -> Any:
        """Unit vectors of `texts` (numpy, one row each) by the wiki's embedding model."""
        return self.vectors.embedder().embed(texts)

    def following(
        self, path: str, ordinal: int, kinds: Sequence[str], *, limit: int
    ) -> list[PassageHit]:
        """The blocks of a source page right after block `ordinal` while they are of `kinds`."""
        return self._guarded(lambda: run_following(self.conn, path, ordinal, kinds, limit=limit))

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self._guarded(lambda: self.conn.execute(sql, params).fetchall())

    def page(self, path: str) -> PageInfo | None:
        rows = self._rows(f"SELECT {_PAGE_COLS} FROM pages WHERE path = ?", (path,))
        return _page_info(rows[0]) if rows else None

    def pages(self, *, type: str | None = None) -> list[PageInfo]:
        where, params = ("WHERE type = ?", (type,)) if type else ("", ())
        rows = self._rows(f"SELECT {_PAGE_COLS} FROM pages {where} ORDER BY path", params)
        return [_page_info(r) for r in rows]

    def named(self, name: str) -> list[PageInfo]:
        """Pages whose title or an alias is `name`, ignoring case, accents and punctuation
        (`Prefix cache` finds `prefix-cache`'s page titled `Prefix Cache`)."""
        wanted = name_words(name)
        if not wanted:
            return []
        phrase = '"' + " ".join(wanted).replace('"', '""') + '"'
        rows = self._rows(
            f"SELECT {', '.join('p.' + c.strip() for c in _PAGE_COLS.split(','))} "
            "FROM pages_fts f JOIN pages p ON p.id = f.rowid "
            "WHERE pages_fts MATCH ? ORDER BY p.path",
            (f"{{title aliases}} : {phrase}",),
        )
        found = [_page_info(r) for r in rows]
        return [i for i in found if any(name_words(n) == wanted for n in (i.title, *i.aliases))]

    def count(self) -> int:
        return int(self._rows("SELECT count(*) FROM pages")[0][0])

    def counts(self) -> dict[str, Any]:
        """Totals: pages, pages by type, claims, contradictions (and open ones), broken pages."""
        by_type = dict(self._rows("SELECT type, count(*) FROM pages GROUP BY type ORDER BY type"))
        one = self._rows(
            "SELECT (SELECT count(*) FROM pages), (SELECT count(*) FROM claims), "
            "(SELECT count(*) FROM contradictions), "
            "(SELECT count(*) FROM contradictions WHERE status = 'open'), "
            "(SELECT count(*) FROM pages WHERE broken IS NOT NULL)"
        )[0]
        return {
            "pages": one[0],
            "types": by_type,
            "claims": one[1],
            "contradictions": one[2],
            "open_contradictions": one[3],
            "broken": one[4],
        }

    def resolve(self, target: str) -> str | None:
        """The page path a link target points to, resolved as `Vault.resolve` does."""
        key = normalize_target(target)
        if not key:
            return None
        rows = self._rows(
            "SELECT path, name_key FROM pages WHERE name_key = ? OR stem_key = ?", (key, key)
        )
        exact = [p for p, name in rows if name == key]
        pool = exact or [p for p, _ in rows]
        return min(pool, key=lambda p: (p.count("/"), p)) if pool else None

    def link_exists(self, lnk: WikiLink, *, on: str | None = None) -> bool:
        """Whether the link's page, and its block or heading if any, exist (`on`: the page
        holding a link with an empty target, `[[#^block]]`)."""
        path = on if not lnk.target else self.resolve(lnk.target)
        if path is None:
            return False
        rows = self._rows("SELECT blocks, headings FROM pages WHERE path = ?", (path,))
        if not rows:
            return False
        if lnk.block is not None:
            return lnk.block in json.loads(rows[0][0])
        if lnk.heading is not None:
            wanted = lnk.heading.strip().casefold()
            return any(h.strip().casefold() == wanted for h in json.loads(rows[0][1]))
        return True

    def links_from(self, path: str) -> list[str]:
        """Paths of the existing pages that `path` links to (itself excluded)."""
        rows = self._rows(
            "SELECT l.target_key FROM links l JOIN pages p ON p.id = l.page_id WHERE p.path = ?",
            (path,),
        )
        found = (self.resolve(key) for (key,) in rows)
        return sorted({p for p in found if p is not None and p != path})

    def backlinks(self, path: str) -> list[str]:
        """Paths of the pages that link to `path`."""
        info = self._rows("SELECT name_key, stem_key FROM pages WHERE path = ?", (path,))
        if not info:
            return []
        rows = self._rows(
            "SELECT DISTINCT p.path, l.target_key FROM links l JOIN pages p ON p.id = l.page_id "
            "WHERE l.target_key IN (?, ?)",
            tuple(info[0]),
        )
        return sorted({src for src, key in rows if src != path and self.resolve(key) == path})

    # -- claims ----------------------------------------------------------------------------

    def all_claims(self) -> list[Claim]:
        return self._claims("", ())

    def _claims(self, where: str, params: Sequence[Any]) -> list[Claim]:
        rows = self._rows(
            "SELECT p.path, c.ordinal, c.block, c.text, c.markdown, c.citations FROM claims c "
            f"JOIN pages p ON p.id = c.page_id {where} ORDER BY p.path, c.ordinal",
            params,
        )
        resolve = _Memo(self.resolve)
        return [
            Claim(
                path,
                ordinal,
                block,
                text,
                markdown,
                tuple(Citation(t, b, resolve(t)) for t, b in json.loads(cits)),
            )
            for path, ordinal, block, text, markdown, cits in rows
        ]

    def contradictions(
        self, *, status: str | None = None, page: str | None = None
    ) -> list[Contradiction]:
        """`## Contradictions` entries, optionally only those with `status` or on `page`."""
        conds, params = [], []
        if status is not None:
            conds.append("c.status IS ?")
            params.append(status)
        if page is not None:
            conds.append("p.path = ?")
            params.append(page)
        where = f"WHERE {' AND '.join(conds)}" if conds else ""
        rows = self._rows(
            "SELECT p.path, c.ordinal, c.block, c.status, c.note, c.markdown, c.refs "
            f"FROM contradictions c JOIN pages p ON p.id = c.page_id {where} "
            "ORDER BY p.path, c.ordinal",
            params,
        )
        resolve = _Memo(self.resolve)
        return [
            Contradiction(
                path,
                ordinal,
                block,
                st,
                note,
                markdown,
                tuple(ClaimRef(t, b, own or resolve(t)) for t, b, own in json.loads(refs)),
            )
            for path, ordinal, block, st, note, markdown, refs in rows
        ]


class _Memo:
    def __init__(self, fn: Callable[[str], str | None]) -> None:
        self.fn = fn
        self.seen: dict[str, str | None] = {}

    def __call__(self, key: str) -> str | None:
        if key not in self.seen:
            self.seen[key] = self.fn(key)
        return self.seen[key]


def open_store(paths: WikiPaths, *, sync: bool = True, progress: Progress | None = None) -> Store:
    """Open the wiki's store, synced with the page files unless `sync=False`."""
    store = Store(paths)
    if sync:
        try:
            report = store.sync(progress=progress)
        except BaseException:
            store.close()
            raise
        for rel, error in report.broken:
            store.notes.append(f"unreadable page {rel}: {error}")
    return store


def after_commit(paths: WikiPaths, changed: Iterable[str]) -> None:
    """Called by `operation.Writer.commit`: update the rows of the pages an operation wrote
    (`changed` relative to the wiki root). Never raises: on failure the store is marked stale
    and the next read re-checks every page."""
    try:
        if not paths.db.exists():
            return  # nothing to keep current; the first read builds it
        wiki_rel = paths.rel(paths.wiki)
        rels = [p[len(wiki_rel) + 1 :] for p in changed if p.startswith(f"{wiki_rel}/")]
        with Store(paths) as store:
            store.refresh(p for p in rels if p.endswith(".md"))
    except Exception as exc:  # the operation has landed; the index must never undo that
        log.warning("could not update the search index (%s); it will be rebuilt", exc)
        mark_stale(paths)


@contextmanager
def open_concepts(paths: WikiPaths, vault: Vault) -> Iterator[StoredConcepts]:
    """The wiki's concept index (`store.concepts`): the store's, synced with the page files,
    where the wiki has a store; otherwise one built in memory from `vault`."""
    if not paths.db.exists():
        yield StoredConcepts.from_pages(vault)
        return
    with open_store(paths) as store:
        yield StoredConcepts(store.conn)


def mark_stale(paths: WikiPaths) -> None:
    with contextlib.suppress(OSError):
        paths.state.mkdir(parents=True, exist_ok=True)
        (paths.state / STALE_MARKER).write_text(str(time.time_ns()), encoding="utf-8")


__all__ = [
    "Citation", "Claim", "ClaimRef", "Contradiction", "PageInfo", "SearchHit", "Store",
    "StoreError", "StoredConcepts", "SyncReport", "after_commit", "mark_stale", "open_concepts",
    "open_store",
]  # fmt: skip
