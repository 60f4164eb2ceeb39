"""The second stage of question search: a transformer re-ranks the hybrid ranking's best passages.

The first stage (BM25 fused with a static model's vectors, `store.hybrid`) is cheap to index:
wordllama embeds 1,000 facts in well under a second. A transformer sentence encoder
(all-MiniLM-L6-v2, `embed.minilm`) tells a reworded question's passage from one that merely
shares its words far better, but costs ~18 ms a passage on one CPU core here: embedding every
fact as it is written would make each ingest wait on it. So it embeds only the passages a
question's first stage brings up (at most `POOL`), each once: vectors are kept in
`.wikic/rerank.sqlite` under the hash of the text they embed (`passages.vkey`), so a passage
is encoded the first time a question reaches it and never again while its text stands. The
final order fuses the first stage's rank with the encoder's by reciprocal rank (k
`hybrid.PASSAGE_RRF_K`): a passage both stages rank high stays first.

`search.rerank_model`: `auto` (the default) re-ranks with minilm when its package is installed
(scripts/install.sh installs it) and not otherwise; `minilm` requires it; `none` keeps the
first stage's order. With `search.embedding_model: minilm` every passage already has its
minilm vector, and with `none` (words only) nothing is re-ranked.

The cache is derived state: a write that fails (a locked or read-only file, a full disk) is
skipped and the vectors are used anyway; an unreadable file is replaced; vectors of another
model are dropped; `wikic reindex` drops those of texts no passage has any more.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from wikic.embed import minilm
from wikic.embed.model import OFF, Embedder, load_embedder
from wikic.store.fusion import rrf
from wikic.store.vectors import passage_text

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

AUTO = "auto"
# Passages re-ranked per question: the hybrid ranking's best this many (its semantic pool).
# Measured (scripts/bench_quality.py --retrieval-only, code-only compiled dev sets): the best
# 200 found 22 + 26 of 74 paraphrased questions' answers (overlap + corpus), the best 80 or
# 120 20 + 26, the first stage alone 18 + 25.
POOL = 200
CACHE_FILE = "rerank.sqlite"
_BUSY_MS = 2000
_CHUNK = 500
_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vec BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def package_installed() -> bool:
    """Whether minilm's PyPI package is installed (what `auto` re-ranks with)."""
    return minilm.installed()


def resolve(name: str, embedding_model: str) -> str:
    """The model that re-ranks under `search.rerank_model` `name` (auto, minilm, none) and
    `search.embedding_model` `embedding_model`: `minilm`, or `none` (no second stage)."""
    if embedding_model in (OFF, minilm.NAME):
        return OFF  # words only; or every passage already ranked by minilm's vectors
    if name == AUTO:
        return minilm.NAME if package_installed() else OFF
    return name


class Reranker:
    """The second stage of one store: the encoder, loaded on first need, and its vector
    cache (`cache`: the file, None for none kept)."""

    def __init__(self, name: str, cache: Path | None) -> None:
        self.name = name
        self.cache = cache
        self.encoded = 0  # texts this process encoded (not found in the cache)
        self._conn: sqlite3.Connection | None = None
        self._ready = False

    @property
    def enabled(self) -> bool:
        return self.name != OFF

    def encoder(self) -> Embedder:
        return load_embedder(self.name)

    def rerank(
        self, conn: sqlite3.Connection, query: str, ranked: Sequence[int], limit: int, *, k: int
    ) -> list[tuple[int, float]]:
        """The passages `ranked` (ids, best first; the best `POOL` are re-ranked) in their
        final order, the first stage's rank and the encoder's fused by reciprocal rank with
        `k`; the best `limit`, with their fused scores."""
        pool = list(ranked[:POOL])
        if not pool:
            return []
        texts = _texts(conn, pool)
        pool = [i for i in pool if i in texts]
        found = self._vectors({texts[i][0]: texts[i][1] for i in pool})
        query_vec = self.encoder().embed([query])[0]
        sims = {i: float(found[texts[i][0]] @ query_vec) for i in pool}
        by_meaning = sorted(pool, key=lambda i: -sims[i])  # stable: first-stage order on ties
        return rrf([pool, by_meaning], k=k)[:limit]

    def _vectors(self, wanted: dict[bytes, str]) -> dict[bytes, np.ndarray]:
        """Unit vectors of the texts `wanted` (by key): from the cache, the rest encoded now
        and added to it."""
        import numpy as np

        found = self._cached(list(wanted))
        todo = [k for k in wanted if k not in found]
        if todo:
            vecs = self.encoder().embed([wanted[k] for k in todo])
            self.encoded += len(todo)
            fresh = dict(zip(todo, vecs, strict=True))
            found.update(fresh)
            self._store([(k, np.asarray(v, dtype=np.float16).tobytes()) for k, v in fresh.items()])
        return found

    # -- the cache -------------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection | None:
        """The cache's connection, opened (and emptied of another model's vectors) once; None
        when no cache can be kept."""
        if self._ready:
            return self._conn
        self._ready = True
        if self.cache is None:
            return None
        try:
            self._conn = self._connect()
        except sqlite3.DatabaseError as exc:  # unreadable: it is only a cache
            log.warning("replacing the unreadable re-rank cache %s (%s)", self.cache, exc)
            with contextlib.suppress(OSError):
                self.cache.unlink()
            try:
                self._conn = self._connect()
            except (sqlite3.Error, OSError) as again:
                log.warning("re-ranking without a cache: %s", again)
        except OSError as exc:
            log.warning("re-ranking without a cache: %s", exc)
        return self._conn

    def _connect(self) -> sqlite3.Connection:
        assert self.cache is not None
        self.cache.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.cache, timeout=_BUSY_MS / 1000, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.executescript(_SCHEMA)
            fingerprint = self.encoder().fingerprint
            row = conn.execute("SELECT value FROM meta WHERE key = 'model'").fetchone()
            if row is None or row[0] != fingerprint:
                with conn:
                    conn.execute("BEGIN IMMEDIATE")
                    conn.execute("DELETE FROM vectors")
                    conn.execute(
                        "INSERT OR REPLACE INTO meta (key, value) VALUES ('model', ?)",
                        (fingerprint,),
                    )
        except BaseException:
            conn.close()
            raise
        return conn

    def _cached(self, keys: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        import numpy as np

        conn = self._open()
        if conn is None:
            return {}
        out: dict[bytes, np.ndarray] = {}
        try:
            for start in range(0, len(keys), _CHUNK):
                chunk = keys[start : start + _CHUNK]
                rows = conn.execute(
                    f"SELECT key, vec FROM vectors WHERE key IN ({','.join('?' * len(chunk))})",
                    chunk,
                )
                for key, blob in rows:
                    out[key] = np.frombuffer(blob, dtype=np.float16).astype(np.float32)
        except sqlite3.Error as exc:
            log.warning("cannot read the re-rank cache: %s", exc)
            return {}
        return out

    def _store(self, rows: Sequence[tuple[bytes, bytes]]) -> None:
        conn = self._open()
        if conn is None or not rows:
            return
        try:
            with conn:
                conn.execute("BEGIN IMMEDIATE")
                conn.executemany("INSERT OR IGNORE INTO vectors (key, vec) VALUES (?, ?)", rows)
        except sqlite3.Error as exc:  # locked, read-only, full: the vectors are used anyway
            log.warning("cannot add to the re-rank cache: %s", exc)

    def prune(self, keep: Collection[bytes]) -> int:
        """Drop the cached vectors of texts not in `keep` (the store's passage keys); how many."""
        if self.cache is None or not self.cache.exists():
            return 0
        conn = self._open()
        if conn is None:
            return 0
        try:
            stale = [k for (k,) in conn.execute("SELECT key FROM vectors") if k not in keep]
            with conn:
                conn.execute("BEGIN IMMEDIATE")
                for start in range(0, len(stale), _CHUNK):
                    chunk = stale[start : start + _CHUNK]
                    conn.execute(
                        f"DELETE FROM vectors WHERE key IN ({','.join('?' * len(chunk))})", chunk
                    )
        except sqlite3.Error as exc:
            log.warning("cannot prune the re-rank cache: %s", exc)
            return 0
        return len(stale)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._conn, self._ready = None, False


def _texts(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, tuple[bytes, str]]:
    """Each passage's key and the text it is embedded as (`vectors.passage_text`)."""
    out: dict[int, tuple[bytes, str]] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = list(ids[start : start + _CHUNK])
        rows = conn.execute(
            "SELECT s.id, s.vkey, f.title, f.text FROM passages s "
            "JOIN passages_fts f ON f.rowid = s.id "
            f"WHERE s.id IN ({','.join('?' * len(chunk))})",
            chunk,
        )
        for pid, key, title, text in rows:
            out[pid] = (key, passage_text(title, text))
    return out
