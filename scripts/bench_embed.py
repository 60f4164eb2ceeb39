#!/usr/bin/env python
"""What an embedding model costs: index build per 1,000 facts and the time meaning adds to a
search, per `search.embedding_model`.

Build: the facts (passages) and pages of a compiled wiki's index, embedded as the store embeds
them (`passage_text`, `page_text`), wall and CPU seconds per 1,000 facts (pages are counted in
the same proportion as in the wiki). Search: embedding one question plus the top-80 cosine
search over a matrix of `--rows` unit vectors (92,348: the passages of bench_search's 10,000-page
wiki) of the model's width, median over 40 questions. Targets (issue 33): build <= 2 s per
1,000 facts, added search time <= 50 ms median.

    python scripts/bench_embed.py --wiki /tmp/mini-overlap-wiki --models wordllama,minilm
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

from wikic.embed.model import load_embedder
from wikic.paths import open_paths
from wikic.store.db import open_store
from wikic.store.vectors import Matrix, nearest, page_text, passage_text

QUESTIONS = (
    "how do I stop the model repeating",
    "what happens at a checkpoint",
    "which option checks the lock file without updating it",
    "why does replication keep a read transaction open",
    "value return object",
)


def wiki_texts(root: Path) -> tuple[list[str], list[str]]:
    paths = open_paths(root)
    with open_store(paths):
        pass  # built and current
    with sqlite3.connect(paths.db) as conn:
        facts = [
            passage_text(title, text)
            for title, text in conn.execute(
                "SELECT f.title, f.text FROM passages s JOIN passages_fts f ON f.rowid = s.id"
            )
        ]
        pages = [
            page_text(*row)
            for row in conn.execute(
                "SELECT f.title, f.aliases, f.summary, f.body FROM pages p "
                "JOIN pages_fts f ON f.rowid = p.id"
            )
        ]
    return facts, pages


def build_cost(name: str, facts: list[str], pages: list[str], limit: int) -> dict[str, Any]:
    embedder = load_embedder(name)
    embedder.embed(["warm up"])
    n_facts = min(limit, len(facts))
    n_pages = max(1, round(len(pages) * n_facts / max(1, len(facts))))
    texts = facts[:n_facts] + pages[:n_pages]
    wall, cpu = time.perf_counter(), time.process_time()
    embedder.embed(texts)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    scale = 1000 / n_facts
    return {
        "facts": n_facts,
        "pages": n_pages,
        "wall_s_per_1000_facts": round(wall * scale, 2),
        "cpu_s_per_1000_facts": round(cpu * scale, 2),
    }


def search_cost(name: str, rows: int) -> dict[str, Any]:
    embedder = load_embedder(name)
    embedder.embed(["warm up"])
    rng = np.random.default_rng(0)
    vecs = rng.standard_normal((rows, embedder.dims)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    found = Matrix(np.arange(rows, dtype=np.int64), vecs, vecs.mean(axis=0))
    embed_ms, search_ms = [], []
    for i in range(40):
        t = time.perf_counter()
        vec = embedder.embed([QUESTIONS[i % len(QUESTIONS)]])[0]
        t1 = time.perf_counter()
        nearest(found, vec, 80)
        embed_ms.append((t1 - t) * 1000)
        search_ms.append((time.perf_counter() - t1) * 1000)
    both = [a + b for a, b in zip(embed_ms, search_ms, strict=True)]
    return {
        "rows": rows,
        "embed_question_median_ms": round(statistics.median(embed_ms), 2),
        "top80_median_ms": round(statistics.median(search_ms), 2),
        "added_median_ms": round(statistics.median(both), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--wiki", type=Path, required=True, help="a compiled wiki's root")
    parser.add_argument("--models", default="wordllama,minilm", help="comma-separated")
    parser.add_argument("--facts", type=int, default=1000, help="facts embedded for the build")
    parser.add_argument("--rows", type=int, default=92_348, help="vectors searched per question")
    parser.add_argument("--out", type=Path, help="also write the JSON here")
    args = parser.parse_args()
    facts, pages = wiki_texts(args.wiki)
    result: dict[str, Any] = {
        "wiki": str(args.wiki),
        "openblas_threads": os.environ.get("OPENBLAS_NUM_THREADS", "default"),
        "cpus": os.cpu_count(),
    }
    for name in (m.strip() for m in args.models.split(",") if m.strip()):
        result[name] = {
            "build": build_cost(name, facts, pages, args.facts),
            "search": search_cost(name, args.rows),
        }
    result["load_average_after"] = [round(x, 1) for x in os.getloadavg()]
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
