"""A small wiki whose pages link one another in every form Obsidian knows, for the tests of
rename, merge and delete: plain, aliased, bare name, #heading, #^block, self block links,
quoted links in properties, and log.md entries."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.wikitools import git, make_wiki
from wikic.operation.transaction import Plan, writing
from wikic.paths import WikiPaths
from wikic.vault.sources import sha256_bytes
from wikic.vault.topic_page import fact_id

SENT_A = "The KV cache grows linearly with the context length."
SENT_B = "A KV cache stores keys and values of past tokens."
SENT_C = "Evicting the KV cache frees memory at the cost of recomputation."
SENT_D = "The KV cache of a 7B model takes 0.5 MB per token."
SENT_E = "The KV cache of a 7B model takes 0.25 MB per token."
FA, FB, FC, FD, FE = (fact_id(s) for s in (SENT_A, SENT_B, SENT_C, SENT_D, SENT_E))
RAW = f"# Caching notes\n\n{SENT_A}\n\n{SENT_B} {SENT_C}\n\n{SENT_D} {SENT_E}\n"

SOURCE = f"""---
type: source
title: Caching notes
aliases: []
tags: [source]
summary: Notes on caching.
kind: note
raw: raw/notes.md
sha256: {sha256_bytes(RAW.encode())}
ingested: 2026-01-01
---

# Caching notes

## Text

{SENT_A} ^p1

{SENT_B} {SENT_C} ^p2

{SENT_D} {SENT_E} ^p3
"""

KV_CACHE = f"""---
type: concept
title: KV cache
aliases: [key-value cache]
tags: [concept]
summary: {SENT_A}
sources: ['[[sources/notes]]']
contradictions: 1
---

# KV cache

{SENT_A}

## Facts

- {SENT_A} [[sources/notes#^p1]] ^{FA}
- {SENT_B} [[sources/notes#^p2]] ^{FB}
- {SENT_D} [[sources/notes#^p3]] ^{FD}
- {SENT_E} [[sources/notes#^p3]] ^{FE}

## Related

- [[concepts/prefix-cache|Prefix cache]]
- [[concepts/kv-caches|KV caches]]

## Contradictions

- **open** — [[#^{FD}]] vs [[#^{FE}]]: different numbers (0.5 vs 0.25) ^x-aaaaaa

## Sources

- [[sources/notes|Caching notes]]

## My notes

I read this twice; see [[concepts/kv-cache#Facts|the facts above]].
"""

KV_CACHES = f"""---
type: concept
title: KV caches
aliases: []
tags: [concept]
summary: {SENT_B}
sources: ['[[sources/notes]]']
contradictions: 0
---

# KV caches

{SENT_B}

Written by hand: plural pages are a habit of small models.

## Facts

- {SENT_B} [[sources/notes#^p2]] ^{FB}
- {SENT_C} [[sources/notes#^p2]] ^{FC}
- {SENT_E} [[sources/notes#^p3]] ^{FE}

## Related

- [[concepts/kv-cache|KV cache]]

## Contradictions

- **resolved** — [[#^{FC}]] vs [[#^{FB}]]: checked by hand ^x-bbbbbb

## Sources

- [[sources/notes|Caching notes]]
"""

PREFIX_CACHE = f"""---
type: concept
title: Prefix cache
aliases: []
tags: [concept]
summary: A prefix cache reuses the [[concepts/kv-cache|KV cache]] of a shared prompt.
sources: ['[[sources/notes]]']
see_also: ['[[concepts/kv-cache]]', '[[concepts/kv-caches|KV caches]]']
---

# Prefix cache

A prefix cache keeps the [[concepts/kv-cache]] of a prompt, also called [[kv-cache|the cache]];
see [[concepts/kv-cache#Facts]], [[concepts/kv-cache#KV cache|its title]] and the fact
[[concepts/kv-cache#^{FA}]]. Plural: [[concepts/kv-caches]] and [[concepts/kv-caches#^{FC}|evicting]].

```
[[concepts/kv-cache]] inside code stays as it is
```

## Facts

- {SENT_C} [[sources/notes#^p2]] ^{FC}

## Related

- [[concepts/kv-cache|KV cache]]
- [[concepts/kv-caches]]

## Sources

- [[sources/notes|Caching notes]]
"""

ANALYSIS = f"""---
type: analysis
title: How big is a KV cache?
aliases: []
tags: [analysis]
summary: It grows with the context.
question: How big is a KV cache?
consulted: ['[[concepts/kv-cache]]', '[[concepts/kv-caches]]']
---

# How big is a KV cache?

It grows with the context ([[concepts/kv-cache#^{FA}|KV cache]]), and eviction frees it
([[concepts/kv-caches#^{FC}]]).
"""

PAGES = {
    "wiki/sources/notes.md": SOURCE,
    "wiki/concepts/kv-cache.md": KV_CACHE,
    "wiki/concepts/kv-caches.md": KV_CACHES,
    "wiki/concepts/prefix-cache.md": PREFIX_CACHE,
    "wiki/analyses/how-big.md": ANALYSIS,
}


def link_wiki(directory: Path) -> WikiPaths:
    paths = make_wiki(directory)
    (paths.raw / "notes.md").write_text(RAW, encoding="utf-8")
    git(paths.root, "add", "raw/notes.md")
    git(paths.root, "commit", "-qm", "a source")
    with writing(paths, "test") as writer:
        plan = Plan(
            "ingest",
            "Caching notes",
            log_bullets=[
                "created: [[concepts/kv-cache|KV cache]], [[concepts/kv-caches|KV caches]], "
                "[[concepts/prefix-cache|Prefix cache]]",
                f"fact: [[concepts/kv-cache#^{FA}]]",
            ],
        )
        for rel, text in PAGES.items():
            plan.write(rel, text)
        writer.commit(plan)
    return paths
