"""The managed prefix cache: exact KV reuse at segment boundaries, in memory and on disk.

Keys chain over segments: h0 = H(model fingerprint, runtime fingerprint), h_k = H(h_{k-1},
tokens of segment k). A prompt is prefilled in chunks of at most `step_size` that end exactly at
every segment boundary, and a snapshot is taken at each boundary, so a warm start from boundary k
runs the very same model calls as the cold path from there on (every architecture, no trimming).
The last boundary of a call also keeps the last-position logits: an exact hit needs no prefill.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import Any

from wikic.errors import CacheError
from wikic.llm.blas import import_mlx_core
from wikic.llm.cache import snapshot as kv_snapshot
from wikic.llm.cache.disk import DiskStore, Snapshot

mx = import_mlx_core()  # OpenBLAS first, then mlx

import mlx.nn as nn  # noqa: E402
from mlx_lm.models.cache import make_prompt_cache  # noqa: E402

log = logging.getLogger(__name__)

DEFAULT_MEMORY_ENTRIES = 32
DEFAULT_MEMORY_BYTES = 1 << 30


@dataclass
class Prefilled:
    """A prompt's live cache and last-position logits, and what producing them cost."""

    cache: list[Any]  # per-layer mlx-lm caches after the whole prompt; the caller owns them
    logits: Any  # mx.array (vocab,)
    cached_tokens: int  # tokens whose KV came from the cache
    prefill_tokens: int  # tokens run through the model
    load_s: float
    prefill_s: float
    store_s: float = 0.0  # snapshotting the new boundaries (memory and disk)
    loaded_bytes: int = 0
    source: str = "none"  # where the reused state came from: none | memory | disk | memory+disk

    @property
    def prompt_tokens(self) -> int:
        return self.cached_tokens + self.prefill_tokens


@dataclass(frozen=True)
class CacheStats:
    """Totals for `wikic cache stats`; counters are cumulative over processes when on disk."""

    directory: str | None
    entries: int
    bytes: int
    max_bytes: int
    tokens: int
    memory_entries: int
    memory_bytes: int
    hits: int
    misses: int
    cached_tokens: int
    prefill_tokens: int
    saved_s: float
    evictions: int
    by_label: dict[str, dict[str, int]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class PrefixCache:
    """Exact, persistent prefix reuse for mlx-lm models. `directory=None` keeps it in memory."""

    def __init__(
        self,
        directory: Path | None,
        *,
        fingerprint: str,
        max_bytes: int,
        step_size: int = 256,
        memory_entries: int = DEFAULT_MEMORY_ENTRIES,
        memory_bytes: int = DEFAULT_MEMORY_BYTES,
        label: str = "",
    ) -> None:
        if step_size < 1:
            raise CacheError(f"prefill step size must be positive, got {step_size}")
        self.fingerprint = fingerprint
        self.step_size = step_size
        self.max_bytes = max_bytes
        self.label = label or fingerprint[:16]
        self._disk = DiskStore(directory, max_bytes) if directory is not None else None
        self._memory: OrderedDict[str, Snapshot] = OrderedDict()
        # max_bytes 0 turns the cache off: no snapshots kept anywhere
        self._enabled = max_bytes > 0
        self._memory_entries = memory_entries if self._enabled else 0
        self._memory_bytes = memory_bytes if self._enabled else 0
        self._counters: dict[str, float] = {}

    # -- keys --

    def keys(self, model: nn.Module, token_segments: Sequence[Sequence[int]]) -> list[str]:
        """The boundary keys of a prompt (empty segments dropped), root first."""
        runtime = kv_snapshot.runtime_fingerprint(model, self.step_size)
        root = kv_snapshot.root_key(self.fingerprint, runtime)
        return kv_snapshot.chain_keys(root, _segments(token_segments))

    # -- the one operation --

    def prefill(self, model: nn.Module, token_segments: Sequence[Sequence[int]]) -> Prefilled:
        """The live cache and logits after the whole prompt, reusing the deepest stored boundary."""
        segments = _segments(token_segments)
        if not segments:
            raise CacheError("cannot prefill an empty prompt")
        keys = self.keys(model, segments)
        ends = list(accumulate(len(s) for s in segments))
        template = make_prompt_cache(model)

        start = time.perf_counter()
        chain, from_disk = self._load_chain(keys, ends)
        if len(chain) == len(keys) and not chain[-1].has_logits:
            chain.pop()  # stored as an inner boundary: recompute the last segment for its logits
        cache = None
        while chain and cache is None:
            try:
                cache = kv_snapshot.restore(template, chain)
            except kv_snapshot.SnapshotMismatch as exc:
                bad = exc.key if exc.key in {s.key for s in chain} else chain[-1].key
                log.warning("prefix cache: dropping mismatched entry %s: %s", bad[:12], exc)
                self.discard(bad)
                chain = chain[: [s.key for s in chain].index(bad)]
        if cache is None:
            cache = template
        depth = len(chain)
        logits = mx.array(chain[-1].arrays["logits"]) if depth == len(keys) else None
        mx.eval([c.state for c in cache], logits)
        load_s = time.perf_counter() - start

        new, prefill_s, store_s, logits = self._prefill_rest(
            model, cache, segments, keys, ends, depth, logits
        )
        cached = ends[depth - 1] if depth else 0
        t = time.perf_counter()
        counters = {
            "hits": int(depth > 0),
            "misses": int(depth == 0),
            "cached_tokens": cached,
            "prefill_tokens": ends[-1] - cached,
            "saved_s": sum(s.recompute_s for s in chain),
        }
        self._touch_memory(keys)
        for name, value in counters.items():
            self._counters[name] = self._counters.get(name, 0) + value
        if self._disk is not None and self._enabled:
            self._disk.commit(new, touched=[s.key for s in chain], counters=counters)
        store_s += time.perf_counter() - t
        source = "none"
        if depth:
            n_disk = sum(1 for s in chain if s.key in from_disk)
            source = "disk" if n_disk == depth else "memory+disk" if n_disk else "memory"
        return Prefilled(
            cache=cache,
            logits=logits,
            cached_tokens=cached,
            prefill_tokens=ends[-1] - cached,
            load_s=load_s,
            prefill_s=prefill_s,
            store_s=store_s,
            loaded_bytes=sum(s.nbytes for s in chain if s.key in from_disk),
            source=source,
        )

    def _load_chain(self, keys: list[str], ends: list[int]) -> tuple[list[Snapshot], set[str]]:
        """The longest root-first run of stored snapshots along `keys` (memory first, then disk)."""
        chain: list[Snapshot] = []
        from_disk: set[str] = set()
        if not self._enabled:
            return chain, from_disk
        for k, key in enumerate(keys):
            snap = self._memory.get(key)
            if snap is None and self._disk is not None and self._disk.has(key):
                snap = self._disk.load(key)
                if snap is not None:
                    from_disk.add(key)
            if snap is None:
                break
            expected = (keys[k - 1] if k else None, ends[k - 1] if k else 0, ends[k])
            if (snap.parent, snap.start, snap.end) != expected:
                log.warning("prefix cache: dropping entry %s stored for another prompt", key[:12])
                self.discard(key)
                break
            self._remember(snap)
            chain.append(snap)
        return chain, from_disk

    def _prefill_rest(
        self,
        model: nn.Module,
        cache: list[Any],
        segments: list[list[int]],
        keys: list[str],
        ends: list[int],
        depth: int,
        logits: Any,
    ) -> tuple[list[Snapshot], float, float, Any]:
        new: list[Snapshot] = []
        prefill_s = store_s = 0.0
        storing = self._enabled
        last = len(segments) - 1
        for k in range(depth, len(segments)):
            t = time.perf_counter()
            seg = segments[k]
            # chunks restart at every segment start, so they end exactly on each boundary
            for i in range(0, len(seg), self.step_size):
                out = model(mx.array(seg[i : i + self.step_size])[None], cache=cache)
                if k == last and i + self.step_size >= len(seg):
                    logits = out[0, -1, :]
                    mx.eval(logits, [c.state for c in cache])
                else:
                    mx.eval([c.state for c in cache])
            seg_s = time.perf_counter() - t
            prefill_s += seg_s
            if not storing:
                continue
            t = time.perf_counter()
            start = ends[k - 1] if k else 0
            try:
                specs, arrays = kv_snapshot.take(cache, start=start, end=ends[k])
            except kv_snapshot.SnapshotMismatch as exc:
                log.warning("prefix cache: cannot snapshot this model's cache: %s", exc)
                storing = False  # children would need this boundary as their parent
                continue
            if k == last:
                arrays["logits"] = mx.contiguous(logits)
                mx.eval(arrays["logits"])
            snap = Snapshot(
                key=keys[k],
                parent=keys[k - 1] if k else None,
                start=start,
                end=ends[k],
                spec={"layers": specs},
                arrays=arrays,
                recompute_s=seg_s,
                label=self.label,
            )
            self._remember(snap)
            new.append(snap)
            store_s += time.perf_counter() - t
        return new, prefill_s, store_s, logits

    # -- memory tier --

    def _remember(self, snap: Snapshot) -> None:
        self._memory[snap.key] = snap

    def _touch_memory(self, keys: Sequence[str]) -> None:
        """Mark `keys` used, deepest first, then trim: parents outlive the leaves built on them."""
        for key in reversed(keys):
            if key in self._memory:
                self._memory.move_to_end(key)
        total = sum(s.nbytes for s in self._memory.values())
        while self._memory and (
            len(self._memory) > self._memory_entries or total > self._memory_bytes
        ):
            _, dropped = self._memory.popitem(last=False)
            total -= dropped.nbytes

    # -- maintenance --

    def discard(self, key: str) -> bool:
        """Forget `key` and every boundary stored on top of it, in memory and on disk."""
        doomed = {key}
        changed = True
        while changed:
            extra = {k for k, s in self._memory.items() if s.parent in doomed} - doomed
            doomed |= extra
            changed = bool(extra)
        removed = False
        for k in doomed:
            removed |= self._memory.pop(k, None) is not None
        if self._disk is not None:
            removed |= self._disk.discard(key)
        return removed

    def clear(self) -> int:
        """Drop every entry; returns how many were removed (disk entries, else memory ones)."""
        n_memory = len(self._memory)
        self._memory.clear()
        self._counters.clear()
        return self._disk.clear() if self._disk is not None else n_memory

    def stats(self) -> CacheStats:
        memory: dict[str, Any] = {
            "memory_entries": len(self._memory),
            "memory_bytes": sum(s.nbytes for s in self._memory.values()),
        }
        if self._disk is not None:
            d = self._disk.stats()
            return CacheStats(
                directory=d.directory,
                entries=d.entries,
                bytes=d.bytes,
                max_bytes=self.max_bytes,
                tokens=d.tokens,
                hits=d.hits,
                misses=d.misses,
                cached_tokens=d.cached_tokens,
                prefill_tokens=d.prefill_tokens,
                saved_s=d.saved_s,
                evictions=d.evictions,
                by_label=d.by_label,
                **memory,
            )
        c = self._counters
        return CacheStats(
            directory=None,
            entries=memory["memory_entries"],
            bytes=memory["memory_bytes"],
            max_bytes=self.max_bytes,
            tokens=sum(s.end - s.start for s in self._memory.values()),
            hits=int(c.get("hits", 0)),
            misses=int(c.get("misses", 0)),
            cached_tokens=int(c.get("cached_tokens", 0)),
            prefill_tokens=int(c.get("prefill_tokens", 0)),
            saved_s=float(c.get("saved_s", 0.0)),
            evictions=0,
            **memory,
        )


def _segments(token_segments: Sequence[Sequence[int]]) -> list[list[int]]:
    # an empty segment adds no tokens and no boundary
    return [[int(t) for t in seg] for seg in token_segments if len(seg)]
