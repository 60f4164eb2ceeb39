"""`.wikic/lint-scan/`: what lint parsed from each page file, reused while the file is unchanged.

A page's entry is trusted only if the file's (mtime_ns, size, inode) equal the recorded ones;
wikic writes pages by rename (a new inode), editors change mtime or size. A file modified less
than `RACY_NS` before the scan is recorded with mtime -1 and read again next time (git's "racily
clean" rule), so an edit within the file system's timestamp granularity is never missed. The
cache is JSON (never pickle: a cloned repository must not be able to run code through it) and any
unreadable or unexpected content means an empty cache.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import time
import zlib
from collections.abc import Mapping
from typing import Any

from wikic.lint.model import Claim, Link
from wikic.lint.page_scan import PageScan
from wikic.paths import WikiPaths
from wikic.vault.links import WikiLink, parse_inner
from wikic.vault.pages import Page

CACHE_NAME = "lint-scan"  # a folder of SHARDS json files
FORMAT = 3  # bump when what a scan keeps, or how pages are parsed, changes
RACY_NS = 2_000_000_000
SHARDS = 64  # an edit to a few pages rewrites a few small files, not the whole cache
Signature = tuple[int, int, int]


class _NotCacheable(Exception):
    """A property value JSON cannot carry exactly (nested mappings, bytes, sets)."""


def file_signature(file: str) -> Signature:
    st = os.stat(file)
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _encode(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return {"$t": value.isoformat()}
    if isinstance(value, dt.date):
        return {"$d": value.isoformat()}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise _NotCacheable


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if isinstance(value, dict):
        if "$t" in value:
            return dt.datetime.fromisoformat(value["$t"])
        return dt.date.fromisoformat(value["$d"])
    return value


def _inner(lnk: WikiLink, memo: dict[int, str]) -> str:
    """The text between `[[` and `]]` that parses back to `lnk` (render round-trips). `memo`
    is keyed by identity: pages share their parsed links, and hashing a dataclass is slow."""
    inner = memo.get(id(lnk))
    if inner is None:
        inner = memo[id(lnk)] = lnk.render()[3 if lnk.embed else 2 : -2]
    return inner


def _claims_out(claims: list[Claim], links: list[Link]) -> list[Any]:
    """Claims with their links as indexes into the page's links (they are those very links);
    both lists are in page order, so one walk finds them."""
    rows = []
    at = 0
    for c in claims:
        while at < len(links) and links[at].start < c.start:
            at += 1
        picked = []
        j = at
        for lnk in c.links:
            while j < len(links) and links[j].link is not lnk:
                j += 1  # a link on a line that is not part of the bullet
            if j == len(links) or links[j].start >= c.end:
                raise _NotCacheable  # not expected: keep the page out of the cache
            picked.append(j)
            j += 1
        rows.append([c.text, c.block, c.start, c.end, picked])
    return rows


def _lead_out(ps: PageScan) -> list[Any] | None:
    """[offset, text], with text 0 when it is the summary property (wikic writes it there)."""
    if ps.lead is None:
        return None
    text, offset = ps.lead
    return [offset, 0 if text and text == ps.page.summary else text]


def shard_of(rel: str) -> int:
    return zlib.crc32(rel.encode("utf-8")) % SHARDS


class ScanCache:
    """The entries of every shard file; `save` rewrites only the shards whose pages changed."""

    def __init__(self, paths: WikiPaths, entries: dict[str, list[Any]]) -> None:
        self.dir = paths.state / CACHE_NAME
        self.entries = entries
        self.fresh: dict[str, tuple[Signature | None, PageScan]] = {}  # parsed this run
        self.used: set[str] = set()

    @classmethod
    def load(cls, paths: WikiPaths) -> ScanCache:
        entries: dict[str, list[Any]] = {}
        for n in range(SHARDS):
            with contextlib.suppress(OSError, ValueError, TypeError, AttributeError):
                data = json.loads((paths.state / CACHE_NAME / f"{n:02d}.json").read_bytes())
                if data.get("format") == FORMAT and isinstance(data.get("pages"), dict):
                    entries.update(
                        (rel, e) for rel, e in data["pages"].items() if shard_of(rel) == n
                    )
        return cls(paths, entries)

    def get(
        self,
        rel: str,
        sig: Signature | None,
        file: str,
        plain: dict[str, WikiLink],
        embeds: dict[str, WikiLink],
    ) -> PageScan | None:
        """The cached scan of `rel` if its file still has signature `sig`, else None."""
        entry = self.entries.get(rel)
        if entry is None or sig is None or tuple(entry[0]) != sig:
            return None
        try:
            return self._rebuild(rel, entry, file, plain, embeds)
        except (TypeError, ValueError, KeyError, IndexError):
            return None  # a damaged entry: parse the file instead

    @staticmethod
    def _link(
        inner: str, embed: bool, plain: dict[str, WikiLink], embeds: dict[str, WikiLink]
    ) -> WikiLink:
        memo = embeds if embed else plain
        lnk = memo.get(inner)
        if lnk is None:
            lnk = memo[inner] = parse_inner(inner, embed=embed)
        return lnk

    def _rebuild(
        self,
        rel: str,
        entry: list[Any],
        file: str,
        plain: dict[str, WikiLink],
        embeds: dict[str, WikiLink],
    ) -> PageScan:
        _, props, offset, has_code, links, blocks, facts, contradictions, lead = entry
        page = Page(rel, {k: _decode(v) for k, v in props.items()}, "")
        refs = [Link(s, e, self._link(i, bool(m), plain, embeds)) for s, e, i, m in links]
        ps = PageScan(page, file, offset, refs, bool(has_code))
        ps.__dict__["block_defs"] = [(t, o, bool(v)) for t, o, v in blocks]
        ps.__dict__["lead"] = None if lead is None else (str(lead[1] or page.summary), lead[0])
        for name, rows in (("facts", facts), ("contradictions", contradictions)):
            ps.__dict__[name] = [
                Claim(t, b, s, e, tuple(refs[i].link for i in picked))
                for t, b, s, e, picked in rows
            ]
        self.used.add(rel)
        return ps

    def save(self, pages: Mapping[str, PageScan]) -> None:
        """Rewrite the shards holding a page parsed afresh or one that went away."""
        dirty = {shard_of(rel) for rel in self.fresh}
        dirty |= {shard_of(rel) for rel in self.entries if rel not in self.used}
        if not dirty:
            return
        now = time.time_ns()
        memo: dict[int, str] = {}  # every link object lives as long as `pages`
        shards: dict[int, dict[str, list[Any]]] = {n: {} for n in dirty}
        for rel, ps in pages.items():
            n = shard_of(rel)
            if n not in dirty:
                continue
            if rel in self.used:
                shards[n][rel] = self.entries[rel]
                continue
            sig = self.fresh.get(rel, (None, ps))[0]
            if sig is None:
                continue
            if now - sig[0] < RACY_NS:
                sig = (-1, sig[1], sig[2])  # too recent to trust: read it again next time
            with contextlib.suppress(_NotCacheable):
                shards[n][rel] = [
                    list(sig),
                    {k: _encode(v) for k, v in ps.page.props.items()},
                    ps.body_offset,
                    ps.has_code,
                    [[r.start, r.end, _inner(r.link, memo), r.link.embed] for r in ps.links],
                    [list(b) for b in ps.block_defs],
                    _claims_out(ps.facts, ps.links),
                    _claims_out(ps.contradictions, ps.links),
                    _lead_out(ps),
                ]
        with contextlib.suppress(OSError):
            self.dir.mkdir(parents=True, exist_ok=True)
            for n, entries in shards.items():
                self._write(n, entries)

    def _write(self, n: int, entries: dict[str, list[Any]]) -> None:
        target = self.dir / f"{n:02d}.json"
        if not entries:
            target.unlink(missing_ok=True)
            return
        text = json.dumps(
            {"format": FORMAT, "pages": entries},
            separators=(",", ":"),
            ensure_ascii=False,
            check_circular=False,
        )
        # a cache: temp file + rename keeps readers safe; no fsync (a lost file is a miss)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
