"""The concept index in the store: every name of every entity and concept page under its name
key, with the keys `ingest.resolve.ConceptIndex` derives from it (initials, acronym, the blocks
of close spellings), and every page's file name by folder.

The rows are written with a page's other rows (`schema.insert_page`, so in the same step as its
full-text rows, after each commit) and rebuilt by `wikic reindex`. Planning then looks names up
(`StoredConcepts`) instead of reading every page's names into a dict on each batch: resolving a
topic costs a few indexed lookups in a wiki of 10,000 pages as in an empty one.

Which page holds a key follows the order the in-memory index used: pages by path, then a page's
names in order (title, aliases, file name); the first holds it.

A page's listed rows (`## Listed here`: `--no-root` on `poetry install`) are aliases a reader
and a link find it by, but no name of it here: another source that writes `--no-root`, or a
field `subject` that its own API has too, is not about the page that lists it. Its sentences
had joined that page (pip's `.gitignore` onto Poetry's page, which lists Poetry's).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from wikic.vault.name_keys import BLOCK, acronym, initials
from wikic.vault.names import name_key
from wikic.vault.pages import Page
from wikic.vault.sections import listed_names, split_body

K = TypeVar("K")
V = TypeVar("V")

CONCEPT_SCHEMA = """
CREATE TABLE concepts (
    page_id INTEGER NOT NULL,
    path TEXT NOT NULL,                 -- the page's, relative to wiki/
    title TEXT NOT NULL,
    type TEXT NOT NULL,
    ordinal INTEGER NOT NULL,           -- of the name among the page's names
    key TEXT NOT NULL,                  -- vault.names.name_key of the name
    name TEXT NOT NULL,
    initials TEXT NOT NULL,             -- ingest.resolve.initials of the name, or ""
    acronym TEXT NOT NULL,              -- ingest.resolve.acronym of the name, or ""
    head TEXT NOT NULL,                 -- the key's first BLOCK characters
    tail TEXT NOT NULL,                 -- its last BLOCK characters
    length INTEGER NOT NULL             -- of the key
);
CREATE INDEX concepts_key ON concepts(key, path, ordinal);
CREATE INDEX concepts_initials ON concepts(initials);
CREATE INDEX concepts_acronym ON concepts(acronym);
CREATE INDEX concepts_head ON concepts(head, length);
CREATE INDEX concepts_tail ON concepts(tail, length);
CREATE INDEX concepts_page ON concepts(page_id);
CREATE INDEX concepts_path ON concepts(path);
CREATE TABLE slugs (                    -- every page's file name, by folder
    page_id INTEGER NOT NULL,
    folder TEXT NOT NULL,               -- "concepts", "sources", "" for the wiki's root
    slug TEXT NOT NULL                  -- case-folded, as file systems compare them
);
CREATE INDEX slugs_folder ON slugs(folder, slug);
CREATE INDEX slugs_page ON slugs(page_id);
"""
CONCEPT_TABLES = ("concepts", "slugs")
CONCEPT_TYPES = frozenset({"entity", "concept"})


def page_names(
    title: str, aliases: Sequence[str], stem: str, listed: Collection[str] = ()
) -> tuple[str, ...]:
    """The names a page is found by: its title, its aliases but its `listed` rows, and its file
    name where that is not the title's slug."""
    plain = stem == title.casefold().replace(" ", "-")
    own = tuple(a for a in aliases if a not in listed)
    return (title, *own, *(() if plain else (stem.replace("-", " "),)))


def concept_rows(
    page_id: int,
    path: str,
    title: str,
    type_: str,
    aliases: Sequence[str],
    listed: Collection[str] = (),
) -> list[tuple[Any, ...]]:
    """The `concepts` rows of one page (none for a page that is not an entity or concept)."""
    if type_.casefold() not in CONCEPT_TYPES:
        return []
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    rows = []
    for ordinal, name in enumerate(page_names(title, aliases, stem, listed)):
        key = name_key(name)
        if key:
            derived = (initials(name), acronym(name), key[:BLOCK], key[-BLOCK:], len(key))
            rows.append((page_id, path, title, type_.casefold(), ordinal, key, name, *derived))
    return rows


def insert_concepts(
    conn: sqlite3.Connection,
    page_id: int,
    path: str,
    title: str,
    type_: str,
    aliases: Sequence[str],
    listed: Collection[str] = (),
) -> None:
    """Write the concept and file-name rows of one page (inside the caller's transaction)."""
    conn.executemany(
        "INSERT INTO concepts (page_id, path, title, type, ordinal, key, name, initials, "
        "acronym, head, tail, length) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        concept_rows(page_id, path, title, type_, aliases, listed),
    )
    folder, _, file = path.rpartition("/")
    conn.execute(
        "INSERT INTO slugs (page_id, folder, slug) VALUES (?, ?, ?)",
        (page_id, folder, file.removesuffix(".md").casefold()),
    )


def delete_concepts(conn: sqlite3.Connection, page_id: int) -> None:
    for table in CONCEPT_TABLES:
        conn.execute(f"DELETE FROM {table} WHERE page_id = ?", (page_id,))


@dataclass(frozen=True)
class StoredPage:
    """A page as the concept index knows it."""

    path: str
    title: str
    type: str


class StoredConcepts:
    """Lookups in the concept tables of one connection (the store's, or one in memory)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    @classmethod
    def from_pages(cls, vault: Iterable[Page], db: str = ":memory:") -> StoredConcepts:
        """An index of the pages of `vault` in a new database `db` (in memory by default): for
        a wiki without a store, and benches."""
        conn = sqlite3.connect(db)
        with conn:
            conn.executescript(CONCEPT_SCHEMA)
            for i, page in enumerate(vault):
                listed = listed_names(split_body(page.body))
                insert_concepts(conn, i, page.path, page.title, page.type, page.aliases, listed)
        return cls(conn)

    def page(self, key: str) -> tuple[StoredPage, str] | None:
        """The page that holds `key`, and the name it holds it by."""
        row = self.conn.execute(
            "SELECT path, title, type, name FROM concepts WHERE key = ? "
            "ORDER BY path, ordinal LIMIT 1",
            (key,),
        ).fetchone()
        return None if row is None else (StoredPage(row[0], row[1], row[2]), row[3])

    def keys_by(self, column: str, value: str) -> set[str]:
        """The keys whose `initials` or `acronym` is `value`."""
        if column not in ("initials", "acronym"):
            raise ValueError(column)
        sql = f"SELECT DISTINCT key FROM concepts WHERE {column} = ?"
        return {k for (k,) in self.conn.execute(sql, (value,))}

    def keys_in_block(self, block: str, length: int) -> set[str]:
        """The keys of `length` characters that begin (`^abc`) or end (`$xyz`) so."""
        column = "head" if block.startswith("^") else "tail"
        sql = f"SELECT DISTINCT key FROM concepts WHERE {column} = ? AND length = ?"
        return {k for (k,) in self.conn.execute(sql, (block[1:], length))}

    def keys_of(self, paths: Iterable[str]) -> set[str]:
        """The keys the pages `paths` have a name for (held by them or by another page)."""
        found: set[str] = set()
        wanted = list(paths)
        for i in range(0, len(wanted), 500):
            chunk = wanted[i : i + 500]
            sql = f"SELECT key FROM concepts WHERE path IN ({','.join('?' * len(chunk))})"
            found |= {k for (k,) in self.conn.execute(sql, chunk)}
        return found

    def slug_taken(self, folder: str, slug: str) -> bool:
        row = self.conn.execute(
            "SELECT 1 FROM slugs WHERE folder = ? AND slug = ? LIMIT 1", (folder, slug.casefold())
        ).fetchone()
        return row is not None


class Layered(dict[K, V]):
    """What a batch adds (the dict itself) over what the store holds (`lookup`, remembered):
    the `ConceptIndex` keeps its dict interface, and only the keys asked for are read."""

    def __init__(
        self,
        lookup: Callable[[K], V | None],
        keys_of: Callable[[Iterable[str]], set[K]] | None = None,
    ) -> None:
        super().__init__()
        self._lookup = lookup
        self._keys_of = keys_of
        self._read: dict[K, V | None] = {}

    def stored_keys(self, paths: Iterable[str]) -> set[K]:
        """The stored keys the pages `paths` have a name for (`StoredConcepts.keys_of`)."""
        return self._keys_of(paths) if self._keys_of is not None else set()

    def _stored(self, key: K) -> V | None:
        if key not in self._read:
            self._read[key] = self._lookup(key)
        return self._read[key]

    def __missing__(self, key: K) -> V:
        found = self._stored(key)
        if found is None:
            raise KeyError(key)
        return found

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or self._stored(key) is not None  # type: ignore[arg-type]

    def get(self, key: K, default: Any = None) -> Any:
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        found = self._stored(key)
        return default if found is None else found

    def __iter__(self) -> Iterator[K]:
        raise TypeError("a stored index is looked up, not listed")


class LayeredSets(dict[K, set[str]]):
    """Key → set of name keys: the batch's (the dict itself) and the store's, joined on `get`;
    `setdefault` gives the batch's set to add to."""

    def __init__(self, lookup: Callable[[K], set[str]]) -> None:
        super().__init__()
        self._lookup = lookup
        self._read: dict[K, set[str]] = {}

    def get(self, key: K, default: Any = None) -> Any:
        if key not in self._read:
            self._read[key] = self._lookup(key)
        found = dict.get(self, key, set()) | self._read[key]
        return found if found else default

    def __iter__(self) -> Iterator[K]:
        raise TypeError("a stored index is looked up, not listed")
