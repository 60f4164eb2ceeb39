"""Checks by meaning (`--semantic`): one topic kept on two pages under names words cannot tie
together, and similar pages that do not link each other.

Both read the pages' embeddings from the store (`store.vectors`; centred once the wiki has
enough pages). A twin needs two things: pages that say the same (content similarity at least
`TWIN_CONTENT`) and names that mean alike (`TWIN_NAME`), so "Cranelift" and its "Cranelift
backend" page are one topic while "Tier 1 target" and "Tier 2 target", or `HTTP_PROXY` and
`HTTPS_PROXY`, built from the same paragraphs, are not (`ingest.resolve.kept_apart`). Name
checks (`duplicate-title`) and the text rule `twin-facts` (`rules_twins`: same opening, shared
facts, a command named after a concept) come first: a pair they report is not reported again.
On the code-only overlap wiki (62 twin pairs by the bench's measure) this rule flagged 4 pairs:
3 real, all 3 also `twin-facts`; it stays for twins that paraphrase each other (model-written
facts), which share no sentence for `twin-facts` to see.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from wikic.language.name_rules import kept_apart
from wikic.lint.discover import suggested_links
from wikic.lint.findings import Finding
from wikic.lint.rules_twins import twin_pairs
from wikic.lint.scan import WikiScan
from wikic.store.db import Store
from wikic.vault.names import name_key, near_duplicate, numbers_differ

TOPIC_TYPES = ("entity", "concept")
TWIN_CONTENT = 0.88  # corpus wiki: true twins 0.94-0.95, 99th percentile of all pairs 0.80
TWIN_NAME = 0.5  # "Cranelift backend"/"Cranelift" 0.88; "uv pip sync"/"uv" 0.41
SUGGESTIONS = 3
MIN_SIMILARITY = 0.5  # a suggested link's content similarity
_IDENTIFIER_RE = re.compile(r"[_./:=]|^-|\S-\S|[a-z][A-Z]")


@dataclass(frozen=True)
class TopicVectors:
    """Unit vectors of the topic pages: `content` from the store, `names` of their titles and
    aliases (numpy arrays, one row per path)."""

    paths: list[str]
    content: Any
    names: Any


def topic_vectors(store: Store, scan: WikiScan) -> TopicVectors | None:
    """The vectors of the scan's topic pages (None when embeddings are off, or the wiki is
    too small for centred vectors: `vectors.MIN_CENTERED`)."""
    if not store.vectors.enabled:
        return None
    import numpy as np

    all_paths, found = store.page_vectors()
    if not found.centered:
        return None
    row = {p: n for n, p in enumerate(all_paths)}
    paths = [ps.path for ps in scan if ps.type in TOPIC_TYPES and ps.path in row]
    content = np.asarray(found.vecs)[[row[p] for p in paths]].reshape(len(paths), -1)
    names = store.embed([scan.pages[p].page.title for p in paths])
    return TopicVectors(paths, content, names)


def _is_identifier(name: str) -> bool:
    return bool(_IDENTIFIER_RE.search(name))


def _similar(vectors: TopicVectors) -> Any:
    sims = vectors.content @ vectors.content.T
    for i in range(len(vectors.paths)):
        sims[i, i] = -1.0
    return sims


def check_twin_pages(scan: WikiScan, vectors: TopicVectors) -> Iterator[Finding]:
    """twin-page: two topic pages that say the same under names that mean the same."""
    paths = vectors.paths
    if len(paths) < 2:
        return
    sims = _similar(vectors)
    names = vectors.names @ vectors.names.T
    by_text = {frozenset(pair) for pair in twin_pairs(scan)}
    for i in range(len(paths)):
        for j in range(i + 1, len(paths)):
            if sims[i, j] < TWIN_CONTENT or names[i, j] < TWIN_NAME:
                continue
            a, b = scan.pages[paths[i]].page, scan.pages[paths[j]].page
            key_a, key_b = name_key(a.title), name_key(b.title)
            if (
                key_a == key_b
                or near_duplicate(key_a, key_b)  # duplicate-title reports those
                or numbers_differ(a.title, b.title)
                or (_is_identifier(a.title) and _is_identifier(b.title))
                or kept_apart(a.title, b.title)
                or frozenset((a.path, b.path)) in by_text  # twin-facts reports it
            ):
                continue
            keep, drop = sorted((a, b), key=lambda p: (len(p.title), p.path))
            yield Finding(
                "info",
                "twin-page",
                scan.rel(drop.path),
                f"'{drop.title}' and '{keep.title}' ({scan.rel(keep.path)}) read as one topic "
                f"(similarity {sims[i, j]:.2f}): merge candidates",
                f"If they are one topic: wikic merge {drop.path.removesuffix('.md')} "
                f"{keep.path.removesuffix('.md')}",
            )


def check_similar_links(
    scan: WikiScan, vectors: TopicVectors, near: dict[str, set[str]]
) -> Iterator[Finding]:
    """suggested-link by meaning: each topic page's most similar pages it does not link yet
    (`near`: each page's linked pages, both ways)."""
    paths = vectors.paths
    if len(paths) < 2:
        return
    sims = _similar(vectors)
    for i, path in enumerate(paths):
        skip = near.get(path, set()) | {path}
        order = sorted(range(len(paths)), key=lambda j: (-sims[i, j], paths[j]))
        best = [(float(sims[i, j]), paths[j]) for j in order[: SUGGESTIONS + len(skip)]]
        best = [(s, p) for s, p in best if p not in skip and s >= MIN_SIMILARITY][:SUGGESTIONS]
        if best:
            yield suggested_links(scan, path, best)
