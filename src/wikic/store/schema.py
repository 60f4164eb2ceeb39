"""The tables of `.wikic/wikic.sqlite`, opening it, and writing and deleting one page's rows.

Bump `SCHEMA_VERSION` whenever the tables OR what `store_rows` derives from a page change: a DB
of another version is thrown away and rebuilt from the pages, never migrated.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path

from wikic.errors import WikicError
from wikic.store.cjk import has_cjk, index_text
from wikic.store.concepts import CONCEPT_SCHEMA, delete_concepts, insert_concepts
from wikic.store.rows import PageRecord
from wikic.store.vectors import page_text, passage_text, text_key
from wikic.vault.links import normalize_target

SCHEMA_VERSION = 11  # 11: listed rows are no concept names (`store.concepts`)

_SCHEMA = """
CREATE TABLE pages (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,          -- relative to wiki/, posix, with .md
    name_key TEXT NOT NULL,             -- normalize_target(path without .md)
    stem_key TEXT NOT NULL,             -- normalize_target(file name without .md)
    title TEXT NOT NULL,
    type TEXT NOT NULL,
    aliases TEXT NOT NULL,              -- JSON list
    tags TEXT NOT NULL,                 -- JSON list
    summary TEXT NOT NULL,
    updated TEXT NOT NULL,
    source_count INTEGER NOT NULL,
    props TEXT NOT NULL,                -- JSON object of every property
    blocks TEXT NOT NULL,               -- JSON list of block ids
    headings TEXT NOT NULL,             -- JSON list of headings
    broken TEXT,                        -- parse error of an unreadable page
    sha TEXT NOT NULL,                  -- sha256 of the file bytes
    mtime_ns INTEGER NOT NULL,          -- -1: written too recently to trust the stat
    size INTEGER NOT NULL,
    ino INTEGER NOT NULL,
    vkey BLOB                           -- the key of its vector (vectors.page_text)
);
CREATE INDEX pages_name ON pages(name_key);
CREATE INDEX pages_stem ON pages(stem_key);
CREATE INDEX pages_type ON pages(type);
CREATE INDEX pages_stat ON pages(path, mtime_ns, size, ino);  -- the freshness check reads only this
CREATE INDEX pages_vkey ON pages(vkey);
CREATE TABLE props (page_id INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL);
CREATE INDEX props_kv ON props(key, value);
CREATE INDEX props_page ON props(page_id);
CREATE TABLE links (page_id INTEGER NOT NULL, target_key TEXT NOT NULL);
CREATE INDEX links_page ON links(page_id);
CREATE INDEX links_target ON links(target_key);
CREATE TABLE claims (
    id INTEGER PRIMARY KEY,
    page_id INTEGER NOT NULL,
    ordinal INTEGER NOT NULL,
    block TEXT,
    text TEXT NOT NULL,
    markdown TEXT NOT NULL,
    citations TEXT NOT NULL             -- JSON list of [target, block]
);
CREATE INDEX claims_page ON claims(page_id);
CREATE TABLE citations (
    page_id INTEGER NOT NULL,
    ordinal INTEGER NOT NULL,           -- of the claim on its page
    target_key TEXT NOT NULL,
    block TEXT
);
CREATE INDEX citations_target ON citations(target_key);
CREATE INDEX citations_page ON citations(page_id);
CREATE TABLE contradictions (
    id INTEGER PRIMARY KEY,
    page_id INTEGER NOT NULL,
    ordinal INTEGER NOT NULL,
    block TEXT,
    status TEXT,
    note TEXT NOT NULL,
    markdown TEXT NOT NULL,
    refs TEXT NOT NULL                  -- JSON list of [target, block, own page path or null]
);
CREATE INDEX contradictions_page ON contradictions(page_id);
CREATE TABLE passages (
    id INTEGER PRIMARY KEY,             -- the rowid of its passages_fts row
    page_id INTEGER NOT NULL,
    kind TEXT NOT NULL,                 -- fact | para | item | table | code | overview
    ordinal INTEGER NOT NULL,
    block TEXT,
    cite TEXT,                          -- a fact's source citation, `sources/x#^p3`
    section TEXT NOT NULL,              -- a fact's ### subheading under ## Facts
    vkey BLOB                           -- the key of its vector (vectors.passage_text)
);
CREATE INDEX passages_page ON passages(page_id);
CREATE INDEX passages_vkey ON passages(vkey);
CREATE VIRTUAL TABLE passages_fts USING fts5(
    title, text,                        -- title: the page's title and aliases
    cjk,                                -- bigrams of the CJK runs of both (store.cjk)
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE pages_fts USING fts5(
    title, aliases, tags, summary, body,
    cjk,                                -- bigrams of the CJK runs of the others (store.cjk)
    tokenize = 'porter unicode61 remove_diacritics 2',
    prefix = '3 4'                      -- short prefixes (the slow ones) get their own index
);
CREATE TABLE vectors (                  -- embeddings by text: an unchanged text keeps its vector
    key BLOB PRIMARY KEY,               -- vectors.text_key of the embedded text
    vec BLOB NOT NULL                   -- float16, unit length
) WITHOUT ROWID;
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);  -- embedding_model, generation
"""


class StoreError(WikicError):
    """The search database cannot be used at all (disk full, permissions)."""


class Outdated(Exception):
    """The database was made by another schema version (or is not ours)."""


def is_corruption(exc: sqlite3.DatabaseError) -> bool:
    """Whether rebuilding the file could help (not for locks, permissions, a full disk)."""
    text = str(exc).lower()
    if any(w in text for w in ("locked", "busy", "unable to open", "readonly", "full", "i/o")):
        return False
    return not isinstance(exc, sqlite3.OperationalError) or "no such" in text or "malformed" in text


def remove_db(db: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            Path(f"{db}{suffix}").unlink()


def connect(db: Path | str) -> sqlite3.Connection:
    """Open (and if new, create) the database; Outdated if it has another schema version."""
    conn = sqlite3.connect(db, timeout=10.0, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == 0:
            conn.execute("BEGIN IMMEDIATE")
            if conn.execute("PRAGMA user_version").fetchone()[0] == 0:  # not made meanwhile
                if conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                    raise Outdated  # tables but no version: not ours
                create_schema(conn)
            conn.execute("COMMIT")
        elif version != SCHEMA_VERSION:
            raise Outdated
        conn.execute("SELECT count(*) FROM pages").fetchone()
    except BaseException:
        conn.close()
        raise
    return conn


def create_schema(conn: sqlite3.Connection) -> None:
    """Create the tables in an empty database (inside the caller's transaction)."""
    for statement in (_SCHEMA + CONCEPT_SCHEMA).split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def delete_page(conn: sqlite3.Connection, path: str) -> list[bytes]:
    """Delete one page's rows; returns the vector keys they used (for `vectors.prune`)."""
    row = conn.execute("SELECT id, vkey FROM pages WHERE path = ?", (path,)).fetchone()
    if row is None:
        return []
    page_id = row[0]
    keys = [k for (k,) in conn.execute("SELECT vkey FROM passages WHERE page_id = ?", (page_id,))]
    keys.append(row[1])
    conn.execute(
        "DELETE FROM passages_fts WHERE rowid IN (SELECT id FROM passages WHERE page_id = ?)",
        (page_id,),
    )
    for table in ("props", "links", "claims", "citations", "contradictions", "passages"):
        conn.execute(f"DELETE FROM {table} WHERE page_id = ?", (page_id,))
    delete_concepts(conn, page_id)
    conn.execute("DELETE FROM pages_fts WHERE rowid = ?", (page_id,))
    conn.execute("DELETE FROM pages WHERE id = ?", (page_id,))
    return [k for k in keys if k is not None]


def insert_page(conn: sqlite3.Connection, rec: PageRecord, sig: tuple[int, int, int]) -> int:
    """Insert the rows of one page; `sig` is its stat signature (mtime_ns, size, inode).
    Returns the page's row id."""
    stem = rec.name.rsplit("/", 1)[-1]
    aliases = " ; ".join(rec.aliases)
    cur = conn.execute(
        "INSERT INTO pages (path, name_key, stem_key, title, type, aliases, tags, summary, "
        "updated, source_count, props, blocks, headings, broken, sha, mtime_ns, size, ino, vkey) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            rec.path,
            normalize_target(rec.name),
            normalize_target(stem),
            rec.title,
            rec.type.casefold(),
            _j(rec.aliases),
            _j(rec.tags),
            rec.summary,
            rec.updated,
            rec.source_count,
            rec.props_json,
            _j(rec.blocks),
            _j(rec.headings),
            rec.broken,
            rec.sha,
            *sig,
            text_key(page_text(rec.title, aliases, rec.summary, rec.search_body)),
        ),
    )
    page_id = int(cur.lastrowid or 0)
    conn.execute(
        "INSERT INTO pages_fts (rowid, title, aliases, tags, summary, body, cjk) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            page_id,
            rec.title,
            aliases,
            " ".join(rec.tags),
            rec.summary,
            rec.search_body,
            index_text(rec.title, aliases, rec.summary, rec.search_body),
        ),
    )
    conn.executemany(
        "INSERT INTO props (page_id, key, value) VALUES (?, ?, ?)",
        [(page_id, k, v) for k, v in rec.prop_values],
    )
    conn.executemany(
        "INSERT INTO links (page_id, target_key) VALUES (?, ?)",
        [(page_id, key) for key in rec.link_keys],
    )
    conn.executemany(
        "INSERT INTO claims (page_id, ordinal, block, text, markdown, citations) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [
            (
                page_id,
                c.ordinal,
                c.block,
                c.text,
                c.markdown,
                _j([[x.target, x.block] for x in c.citations]),
            )
            for c in rec.claims
        ],
    )
    conn.executemany(
        "INSERT INTO citations (page_id, ordinal, target_key, block) VALUES (?, ?, ?, ?)",
        [
            (page_id, c.ordinal, normalize_target(x.target), x.block)
            for c in rec.claims
            for x in c.citations
        ],
    )
    conn.executemany(
        "INSERT INTO contradictions (page_id, ordinal, block, status, note, markdown, refs) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (
                page_id,
                c.ordinal,
                c.block,
                c.status,
                c.note,
                c.markdown,
                _j([[r.target, r.block, r.page] for r in c.refs]),
            )
            for c in rec.contradictions
        ],
    )

    insert_passages(conn, page_id, rec)
    # an unreadable page keeps its file name, but is found by no name
    kind = "" if rec.broken else rec.type
    insert_concepts(conn, page_id, rec.path, rec.title, kind, rec.aliases, rec.listed)
    return page_id


def insert_passages(conn: sqlite3.Connection, page_id: int | None, rec: PageRecord) -> None:
    """The rows `wikic query` searches: one per fact, source paragraph and overview."""
    title = " ; ".join([rec.title, *rec.aliases])
    cjk_title = f"{index_text(title)} " if has_cjk(title) else ""

    def key(text: str) -> bytes:
        return text_key(passage_text(title, text))

    for p in rec.passages:
        cur = conn.execute(
            "INSERT INTO passages (page_id, kind, ordinal, block, cite, section, vkey) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (page_id, p.kind, p.ordinal, p.block, p.cite, p.section, key(p.text)),
        )
        conn.execute(
            "INSERT INTO passages_fts (rowid, title, text, cjk) VALUES (?, ?, ?, ?)",
            (cur.lastrowid, title, p.text, cjk_title + index_text(p.text)),
        )


def _j(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)
