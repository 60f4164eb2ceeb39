"""Embeddings in the store: one vector per distinct text, keyed by the text's hash, so an
unchanged fact is never embedded again (a page edit re-embeds only its changed passages).

`passages.vkey` and `pages.vkey` name the text each row is embedded as (`passage_text`,
`page_text`); `vectors` holds float16 vectors by key; `meta` the model's fingerprint (vectors
of another model are dropped) and a generation token that changes with every write. Searches
read the vectors as one float32 matrix per table, cached in `.wikic/vectors/` under that
token, so a search after no change maps the file instead of reading every row.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from wikic.embed.model import OFF, Embedder, fingerprint, load_embedder

if TYPE_CHECKING:
    import numpy as np

Table = Literal["passages", "pages"]
KEY_BYTES = 16
PAGE_CHARS = 4000  # a page is embedded by its names, summary and the start of its text
_CHUNK = 500
MIN_CENTERED = 100  # rows a matrix needs before its vectors are centred (`Matrix`)


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()[:KEY_BYTES]


def passage_text(title: str, text: str) -> str:
    """What a passage is embedded as: its page's title (and aliases) and its text; a fact
    rarely names the topic it is about."""
    return f"{title}\n{text}"


def page_text(title: str, aliases: str, summary: str, body: str) -> str:
    return "\n".join(x for x in (title, aliases, summary, body[:PAGE_CHARS]) if x)


class Vectors:
    """The embedding model of one store, loaded on first need; `name` is
    `search.embedding_model` (`none`: no vectors at all)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._fingerprint: str | None = None

    @property
    def enabled(self) -> bool:
        return self.name != OFF

    @property
    def fingerprint(self) -> str:
        if self._fingerprint is None:
            self._fingerprint = fingerprint(self.name)
        return self._fingerprint

    def embedder(self) -> Embedder:
        return load_embedder(self.name)


def _meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def _set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))


def generation(conn: sqlite3.Connection) -> str:
    return _meta(conn, "generation") or ""


def touch(conn: sqlite3.Connection) -> None:
    """Mark the rows changed (inside the writer's transaction): cached matrices are stale."""
    _set_meta(conn, "generation", uuid.uuid4().hex)


def stale_model(conn: sqlite3.Connection, vectors: Vectors | None) -> bool:
    """Whether the stored vectors are of another model than `vectors` (all must be redone)."""
    return (
        vectors is not None
        and vectors.enabled
        and _meta(conn, "embedding_model") != vectors.fingerprint
    )


def fill(conn: sqlite3.Connection, vectors: Vectors, page_ids: Sequence[int] | None) -> int:
    """Embed the texts of the pages `page_ids` (None: of every page) that have no vector yet,
    inside the caller's transaction; a model other than the stored vectors' drops them all
    first. Returns how many texts were embedded."""
    if not vectors.enabled:
        return 0
    if stale_model(conn, vectors):
        conn.execute("DELETE FROM vectors")
        _set_meta(conn, "embedding_model", vectors.fingerprint)
        page_ids = None
    wanted: dict[bytes, str] = {}
    for chunk in _chunks(page_ids):
        among = f"IN ({','.join('?' * len(chunk))})" if chunk is not None else "IS NOT NULL"
        params = chunk or []
        for key, title, text in conn.execute(
            "SELECT s.vkey, f.title, f.text FROM passages s JOIN passages_fts f ON f.rowid = s.id "
            f"WHERE s.page_id {among} AND s.vkey NOT IN (SELECT key FROM vectors)",
            params,
        ):
            wanted.setdefault(key, passage_text(title, text))
        for key, title, aliases, summary, body in conn.execute(
            "SELECT p.vkey, f.title, f.aliases, f.summary, f.body FROM pages p "
            f"JOIN pages_fts f ON f.rowid = p.id WHERE p.id {among} "
            "AND p.vkey NOT IN (SELECT key FROM vectors)",
            params,
        ):
            wanted.setdefault(key, page_text(title, aliases, summary, body))
    if not wanted:
        return 0
    import numpy as np

    keys = list(wanted)
    found = vectors.embedder().embed([wanted[k] for k in keys]).astype(np.float16)
    conn.executemany(
        "INSERT OR IGNORE INTO vectors (key, vec) VALUES (?, ?)",
        zip(keys, (row.tobytes() for row in found), strict=True),
    )
    return len(keys)


def _chunks(page_ids: Sequence[int] | None) -> Iterable[list[int] | None]:
    """None (every page), or the ids in chunks of at most `_CHUNK` (SQLite's variable cap)."""
    if page_ids is None:
        yield None
        return
    for i in range(0, len(page_ids), _CHUNK):
        yield list(page_ids[i : i + _CHUNK])


def prune(conn: sqlite3.Connection, keys: Iterable[bytes]) -> None:
    """Drop the vectors of `keys` (texts of rows just deleted) that no row uses any more."""
    keys = list(dict.fromkeys(keys))
    for i in range(0, len(keys), _CHUNK):
        chunk = keys[i : i + _CHUNK]
        conn.execute(
            f"DELETE FROM vectors WHERE key IN ({','.join('?' * len(chunk))}) "
            "AND NOT EXISTS (SELECT 1 FROM passages WHERE vkey = vectors.key) "
            "AND NOT EXISTS (SELECT 1 FROM pages WHERE vkey = vectors.key)",
            chunk,
        )


@dataclass(frozen=True)
class Matrix:
    """The vectors of one table's rows, centred: `ids[i]` is the row whose vector, less
    `mean` (of all rows) and made unit length again, is `vecs[i]`. Mean-pooled static vectors
    share one large common direction; without it cosine tells texts apart better (on the
    corpus questions: one more literal and two more paraphrased answers in context)."""

    ids: np.ndarray  # int64
    vecs: np.ndarray  # float32, (n, dims)
    mean: np.ndarray  # float32, (dims,)

    @property
    def centered(self) -> bool:
        """False below `MIN_CENTERED` rows: then similarities stay raw, and high for any two
        texts, so hybrid search and lint do not rank by them."""
        return len(self.mean) > 0

    def center(self, vec: np.ndarray) -> np.ndarray:
        """A vector made comparable with `vecs`: less the mean, unit length."""
        import numpy as np

        out = vec - self.mean if len(self.mean) == len(vec) else vec
        norm = float(np.linalg.norm(out))
        return out / norm if norm > 0 else out


_SQL = {
    "passages": "SELECT s.id, v.vec FROM passages s JOIN vectors v ON v.key = s.vkey",
    "pages": "SELECT p.id, v.vec FROM pages p JOIN vectors v ON v.key = p.vkey",
}


def matrix(conn: sqlite3.Connection, table: Table, cache: Path | None) -> Matrix:
    """Every vector of `table`, from the cache file of the current generation when there is
    one (`cache`: a folder, None for no file), else from the rows (and then cached)."""
    import numpy as np

    stamp = f"{table}-{generation(conn) or 'none'}"
    if cache is not None:
        files = [cache / f"{stamp}.{part}.npy" for part in ("ids", "vec", "mean")]
        with contextlib.suppress(OSError, ValueError):
            if files[0].exists():  # written last: the others are complete
                ids, vecs, mean = (np.load(f, mmap_mode="r") for f in files)
                if len(ids) == len(vecs):
                    return Matrix(ids, vecs, np.asarray(mean))
    rows = conn.execute(_SQL[table]).fetchall()
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    blob = b"".join(r[1] for r in rows)
    vecs = np.frombuffer(blob, dtype=np.float16).astype(np.float32)
    vecs = vecs.reshape(len(rows), -1) if rows else vecs.reshape(0, 0)
    few = len(rows) < MIN_CENTERED  # the mean of a handful of texts is one of them
    mean = np.zeros(0 if few else vecs.shape[1], dtype=np.float32)
    if not few:
        mean = vecs.mean(axis=0)
        vecs -= mean
        vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
    found = Matrix(ids, vecs, mean)
    if cache is not None:
        _save(cache, stamp, table, found)
    return found


def _save(cache: Path, stamp: str, table: str, found: Matrix) -> None:
    """Write the matrix files (ids last: they mark the others complete), then drop older
    generations'."""
    import numpy as np

    try:
        cache.mkdir(parents=True, exist_ok=True)
        parts = ((".mean.npy", found.mean), (".vec.npy", found.vecs), (".ids.npy", found.ids))
        for suffix, array in parts:
            tmp = cache / f".{stamp}{suffix}.{os.getpid()}"
            with open(tmp, "wb") as fh:
                np.save(fh, array)
            os.replace(tmp, cache / f"{stamp}{suffix}")
        for old in cache.glob(f"{table}-*.npy"):
            if not old.name.startswith(f"{stamp}."):
                old.unlink(missing_ok=True)
    except OSError:
        pass  # a cache: the next search reads the rows again


def nearest(
    found: Matrix, query: np.ndarray, limit: int, allowed: set[int] | None = None
) -> list[tuple[int, float]]:
    """The `limit` rows most similar to `query` (cosine after `found.center`), best first;
    only rows in `allowed` when given."""
    import numpy as np

    if not len(found.ids) or limit < 1:
        return []
    scores = found.vecs @ found.center(query)
    if allowed is not None:
        mask = np.isin(found.ids, np.fromiter(allowed, dtype=np.int64, count=len(allowed)))
        scores = np.where(mask, scores, -np.inf)
    k = min(limit, len(scores))
    top = np.argpartition(-scores, k - 1)[:k]
    top = top[np.argsort(-scores[top], kind="stable")]
    return [(int(found.ids[i]), float(scores[i])) for i in top if np.isfinite(scores[i])]
