"""The on-disk tier of the prefix cache: one safetensors file per boundary snapshot, plus an index.

Invariants: an entry file appears only by rename of a fully written, fsynced temp file; every read
is validated (format version, key, checksum, shapes) and any bad file is a miss that gets deleted;
the index and all eviction decisions change only under an exclusive `fcntl` lock on `.lock`, and a
parent is never evicted while it has children (their KV is stored as deltas on top of it).
Importing this module does not import mlx (`wikic cache stats | clear` run without it).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import logging
import os
import time
import uuid
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikic.fsutil import fsync_dir

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
ENTRY_SUFFIX = ".kvc"
INDEX_NAME = "index.json"
LOCK_NAME = ".lock"
TMP_PREFIX = ".tmp-"
LOCK_TIMEOUT_S = 30.0
STALE_TMP_S = 3600.0


@dataclass
class Snapshot:
    """The state stored at one prompt boundary: what `kv_snapshot` took, plus chain metadata.

    `arrays` are mx arrays owned by the snapshot (never aliased by a live cache); `spec` is the
    JSON-able layout that says how `kv_snapshot.restore_cache` rebuilds live caches from them.
    """

    key: str
    parent: str | None
    start: int  # tokens held by the parent
    end: int  # tokens held after this boundary
    spec: dict[str, Any]
    arrays: dict[str, Any]
    recompute_s: float = 0.0
    label: str = ""

    @property
    def nbytes(self) -> int:
        return sum(int(a.nbytes) for a in self.arrays.values())

    @property
    def has_logits(self) -> bool:
        return "logits" in self.arrays


@dataclass
class DiskStats:
    directory: str
    entries: int = 0
    bytes: int = 0
    tokens: int = 0  # tokens whose KV the entries hold (sum of per-entry new tokens)
    hits: int = 0
    misses: int = 0
    cached_tokens: int = 0
    prefill_tokens: int = 0
    saved_s: float = 0.0
    evictions: int = 0
    by_label: dict[str, dict[str, int]] = field(default_factory=dict)


def _checksum(header: dict[str, Any], arrays: dict[str, Any]) -> int:
    """CRC-32 of the header (without its checksum) and of every array's bytes."""
    import numpy as np

    from wikic.llm.blas import import_mlx_core

    mx = import_mlx_core()

    fields = {k: v for k, v in header.items() if k != "crc32"}
    crc = zlib.crc32(json.dumps(fields, sort_keys=True).encode())
    for name in sorted(arrays):
        value = arrays[name]
        if value.dtype == mx.bfloat16:  # numpy has no bfloat16: hash the raw bits
            value = value.view(mx.uint16)
        crc = zlib.crc32(name.encode(), crc)
        crc = zlib.crc32(np.ascontiguousarray(value).data, crc)
    return crc


class DiskStore:
    """Snapshots in `directory`, bounded by `max_bytes` (0 turns writing off)."""

    def __init__(self, directory: Path, max_bytes: int) -> None:
        self.directory = directory
        self.max_bytes = max_bytes

    # -- reading (no lock: entries change only by atomic rename and unlink) --

    def path(self, key: str) -> Path:
        return self.directory / f"{key}{ENTRY_SUFFIX}"

    def has(self, key: str) -> bool:
        return self.path(key).is_file()

    def load(self, key: str) -> Snapshot | None:
        """The validated snapshot stored under `key`, else None (a bad file is deleted)."""
        from wikic.llm.blas import import_mlx_core

        mx = import_mlx_core()

        path = self.path(key)
        try:
            loaded: Any = mx.load(str(path), format="safetensors", return_metadata=True)
            arrays: dict[str, Any] = loaded[0]
            mx.eval(arrays)
            header = json.loads(loaded[1]["wikic"])
            if header.get("format") != FORMAT_VERSION or header.get("key") != key:
                raise ValueError(f"foreign entry (format {header.get('format')})")
            if _checksum(header, arrays) != header["crc32"]:
                raise ValueError("checksum mismatch")
            return Snapshot(
                key=key,
                parent=header["parent"],
                start=int(header["start"]),
                end=int(header["end"]),
                spec=header["spec"],
                arrays=dict(arrays),
                recompute_s=float(header.get("recompute_s", 0.0)),
                label=str(header.get("label", "")),
            )
        except FileNotFoundError:
            return None  # evicted by another process since we looked: a plain miss
        except Exception as exc:  # any unreadable entry is a miss, never a crash
            log.warning("prefix cache: dropping unreadable entry %s: %s", path.name, exc)
            self._unlink(path)
            return None

    # -- writing --

    def commit(
        self,
        snapshots: Sequence[Snapshot],
        *,
        touched: Sequence[str] = (),
        counters: dict[str, float] | None = None,
    ) -> list[str]:
        """Store `snapshots` (parents first), refresh `touched` keys, add to the counters, evict.

        Returns the keys actually stored. Disk errors are logged and skipped: the cache is optional.
        """
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            log.warning("prefix cache: cannot create %s: %s", self.directory, exc)
            return []
        budget = self.max_bytes
        pending = [(s, self._write_temp(s)) for s in snapshots if 0 < s.nbytes <= budget]
        stored: list[str] = []
        try:
            with self._locked():
                index = self._read_index()
                entries = index["entries"]
                now = time.time()
                for snap, tmp in pending:
                    if tmp is None or (snap.parent is not None and snap.parent not in entries):
                        # the parent was evicted meanwhile: this delta is useless on its own
                        if tmp is not None:
                            self._unlink(tmp)
                        continue
                    os.replace(tmp, self.path(snap.key))
                    size = self.path(snap.key).stat().st_size
                    entries[snap.key] = {
                        "parent": snap.parent,
                        "bytes": size,
                        "tokens": snap.end,
                        "new_tokens": snap.end - snap.start,
                        "recompute_s": snap.recompute_s,
                        "logits": snap.has_logits,
                        "label": snap.label,
                        "atime": now,
                        "priority": index["clock"] + _cost(snap.recompute_s, size),
                    }
                    stored.append(snap.key)
                if stored:
                    fsync_dir(self.directory)
                for key in touched:
                    entry = entries.get(key)
                    if entry is not None:
                        entry["atime"] = now
                        entry["priority"] = index["clock"] + _cost(
                            entry["recompute_s"], entry["bytes"]
                        )
                for name, value in (counters or {}).items():
                    index["counters"][name] = index["counters"].get(name, 0) + value
                self._evict(index, self.max_bytes)
                self._write_index(index)
        except OSError as exc:
            log.warning("prefix cache: could not update %s: %s", self.directory, exc)
        finally:
            for _, tmp in pending:
                if tmp is not None and tmp.exists():
                    self._unlink(tmp)
        return stored

    def _write_temp(self, snap: Snapshot) -> Path | None:
        from wikic.llm.blas import import_mlx_core

        mx = import_mlx_core()

        header = {
            "format": FORMAT_VERSION,
            "key": snap.key,
            "parent": snap.parent,
            "start": snap.start,
            "end": snap.end,
            "spec": snap.spec,
            "recompute_s": snap.recompute_s,
            "label": snap.label,
            "logits": snap.has_logits,
        }
        header["crc32"] = _checksum(header, snap.arrays)
        tmp = self.directory / f"{TMP_PREFIX}{os.getpid()}-{uuid.uuid4().hex}{ENTRY_SUFFIX}"
        try:
            with open(tmp, "wb") as f:
                mx.save_safetensors(f, snap.arrays, {"wikic": json.dumps(header)})
                f.flush()
                os.fsync(f.fileno())
            return tmp
        except OSError as exc:
            log.warning("prefix cache: cannot write %s: %s", tmp, exc)
            self._unlink(tmp)
            return None

    # -- maintenance --

    def discard(self, key: str) -> bool:
        """Remove one entry and every entry stored on top of it; True if anything went."""
        if not self.directory.is_dir():
            return False
        try:
            with self._locked():
                index = self._read_index()
                doomed = _descendants(index["entries"], key)
                for k in doomed:
                    index["entries"].pop(k, None)
                    self._unlink(self.path(k))
                self._write_index(index)
        except OSError as exc:
            log.warning("prefix cache: could not update %s: %s", self.directory, exc)
            return False
        return bool(doomed)

    def clear(self) -> int:
        """Delete every entry (and the counters); returns the number of entries removed."""
        if not self.directory.is_dir():
            return 0
        with self._locked():
            removed = 0
            for path in self.directory.iterdir():
                if path.suffix == ENTRY_SUFFIX:
                    removed += not path.name.startswith(TMP_PREFIX)
                    self._unlink(path)
            self._unlink(self.directory / INDEX_NAME)
        return removed

    def stats(self) -> DiskStats:
        stats = DiskStats(directory=str(self.directory))
        if not self.directory.is_dir():
            return stats
        with self._locked():
            index = self._read_index()
        for entry in index["entries"].values():
            stats.entries += 1
            stats.bytes += entry["bytes"]
            stats.tokens += entry["new_tokens"]
            per = stats.by_label.setdefault(entry.get("label") or "?", {"entries": 0, "bytes": 0})
            per["entries"] += 1
            per["bytes"] += entry["bytes"]
        counters = index["counters"]
        stats.hits = int(counters.get("hits", 0))
        stats.misses = int(counters.get("misses", 0))
        stats.cached_tokens = int(counters.get("cached_tokens", 0))
        stats.prefill_tokens = int(counters.get("prefill_tokens", 0))
        stats.saved_s = float(counters.get("saved_s", 0.0))
        stats.evictions = int(counters.get("evictions", 0))
        return stats

    # -- index, lock, eviction --

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.directory / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            deadline = time.monotonic() + LOCK_TIMEOUT_S
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as exc:
                    if exc.errno not in (errno.EAGAIN, errno.EACCES) or time.monotonic() > deadline:
                        raise
                    time.sleep(0.02)
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the lock

    def _read_index(self) -> dict[str, Any]:
        """The index, reconciled with the files present (the files are the truth)."""
        try:
            index = json.loads((self.directory / INDEX_NAME).read_text())
            if index.get("format") != FORMAT_VERSION:
                raise ValueError("foreign index")
        except (OSError, ValueError):
            index = {"format": FORMAT_VERSION, "clock": 0.0, "counters": {}, "entries": {}}
        entries: dict[str, Any] = index["entries"]
        present: dict[str, int] = {}
        now = time.time()
        for item in os.scandir(self.directory):
            if item.name.startswith(TMP_PREFIX):
                # a temp left by a dead writer: old ones are garbage
                with contextlib.suppress(OSError):
                    if now - item.stat().st_mtime > STALE_TMP_S:
                        os.unlink(item.path)
            elif item.name.endswith(ENTRY_SUFFIX):
                present[item.name[: -len(ENTRY_SUFFIX)]] = item.stat().st_size
        for key in [k for k in entries if k not in present]:
            del entries[key]
        for key in [k for k in present if k not in entries]:
            # a file without an index entry (lost index, or a crash between two steps)
            header = read_header(self.path(key))
            if header is None or header.get("key") != key:
                self._unlink(self.path(key))
                continue
            entries[key] = {
                "parent": header["parent"],
                "bytes": present[key],
                "tokens": header["end"],
                "new_tokens": header["end"] - header["start"],
                "recompute_s": header.get("recompute_s", 0.0),
                "logits": bool(header.get("logits")),
                "label": header.get("label", ""),
                "atime": now,
                "priority": index["clock"],
            }
        # orphans (parent gone) can never be loaded: drop them
        for key in [k for k, e in entries.items() if e["parent"] and e["parent"] not in entries]:
            for k in _descendants(entries, key):
                entries.pop(k, None)
                self._unlink(self.path(k))
        return index

    def _write_index(self, index: dict[str, Any]) -> None:
        tmp = self.directory / f"{TMP_PREFIX}{os.getpid()}-index.json"
        with open(tmp, "w") as f:
            json.dump(index, f, separators=(",", ":"))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.directory / INDEX_NAME)

    def _evict(self, index: dict[str, Any], budget: int) -> None:
        """GreedyDual-Size over leaves: drop the leaf with the least recompute-seconds per byte,
        aged by a clock that rises to each victim's priority (so unused entries go eventually)."""
        entries = index["entries"]
        total = sum(e["bytes"] for e in entries.values())
        while total > budget and entries:
            parents = {e["parent"] for e in entries.values()}
            leaves = [k for k in entries if k not in parents]
            victim = min(leaves, key=lambda k: (entries[k]["priority"], entries[k]["atime"]))
            index["clock"] = max(index["clock"], entries[victim]["priority"])
            total -= entries.pop(victim)["bytes"]
            index["counters"]["evictions"] = index["counters"].get("evictions", 0) + 1
            self._unlink(self.path(victim))

    @staticmethod
    def _unlink(path: Path) -> None:
        with contextlib.suppress(OSError):
            path.unlink()


def read_header(path: Path) -> dict[str, Any] | None:
    """The wikic header of an entry file, read without mlx; None if it is not a valid one."""
    try:
        with open(path, "rb") as f:
            size = int.from_bytes(f.read(8), "little")
            if not 0 < size <= 1 << 24:
                return None
            meta = json.loads(f.read(size))["__metadata__"]
        header = json.loads(meta["wikic"])
        if header.get("format") != FORMAT_VERSION:
            return None
        int(header["start"]), int(header["end"])  # must be present
        return dict(header)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _cost(recompute_s: float, nbytes: int) -> float:
    """Seconds of prefill an entry saves per MiB it occupies."""
    return recompute_s / max(nbytes / 2**20, 1e-6)


def _descendants(entries: dict[str, Any], key: str) -> list[str]:
    out, frontier = [], [key]
    while frontier:
        k = frontier.pop()
        if k in entries or k == key:
            out.append(k)
            frontier.extend(c for c, e in entries.items() if e["parent"] == k)
    return [k for k in out if k in entries]
