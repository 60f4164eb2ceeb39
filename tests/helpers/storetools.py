"""A small wiki with the page layout ingest writes, for store, search and query tests."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.wikitools import commit_pages, make_wiki
from wikic.paths import WikiPaths

PAPER = """---
type: source
title: Prefix Caching Paper
summary: How a prefix cache reuses the KV state of shared prompt prefixes.
kind: paper
ingested: 2025-03-01
---

# Prefix Caching Paper

Snapshots of the KV state are taken at segment boundaries, never by trimming. ^p1

Trimming a rotating cache of sliding-window layers corrupts the output silently. ^p2

Snapshots are persisted on disk with a checksum and a file lock. ^p3
"""

PREFIX_CACHE = """---
type: concept
title: Prefix cache
aliases:
- KV reuse
tags:
- ml/inference
sources:
- '[[sources/paper]]'
summary: Reuses the KV state of a shared prompt prefix across calls.
created: 2025-03-01
updated: 2025-03-02
---

# Prefix cache

Reuses the KV state of a shared prompt prefix across calls.

## Facts

- Snapshots are taken at boundaries, never by trimming. [[sources/paper#^p1]] ^f-aaa111
- Snapshots are persisted on disk. [[sources/paper#^p3]] ^f-bbb222

## Related

- [[concepts/sliding-window|Sliding window]]

## Contradictions

- **open** — [[#^f-aaa111]] vs [[concepts/sliding-window#^f-ccc333]]: trimming or not ^c-1

## Sources

- [[sources/paper|Prefix Caching Paper]]
"""

SLIDING = """---
type: concept
title: Sliding window
tags:
- ml
sources:
- '[[sources/paper]]'
summary: Attention layers that only see the last N tokens.
---

# Sliding window

Attention layers that only see the last N tokens.

## Facts

- A rotating cache can be trimmed. [[sources/paper#^p2]] ^f-ccc333

## Sources

- [[sources/paper|Prefix Caching Paper]]
"""

MLX = """---
type: entity
title: MLX
aliases:
- mlx-lm
tags:
- software
summary: Apple's array framework for machine learning.
---

# MLX

An array framework; the default backend of wikic runs the model in process with it.
"""


def sample_pages() -> dict[str, str]:
    return {
        "wiki/sources/paper.md": PAPER,
        "wiki/concepts/prefix-cache.md": PREFIX_CACHE,
        "wiki/concepts/sliding-window.md": SLIDING,
        "wiki/entities/mlx.md": MLX,
    }


def sample_wiki(directory: Path) -> WikiPaths:
    paths = make_wiki(directory)
    commit_pages(paths, sample_pages(), "sample pages")
    return paths


def write_page(paths: WikiPaths, rel: str, text: str) -> Path:
    """Write a page behind wikic's back, as an editor would (relative to wiki/)."""
    path = paths.wiki / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
