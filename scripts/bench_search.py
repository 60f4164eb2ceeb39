#!/usr/bin/env python
"""Benchmark `wikic search` on a generated wiki (default 10,000 pages).

Generates sources (numbered paragraphs with ^pN), concepts and entities (summary, cited
`## Facts` bullets with block ids, `## Related` links, tags, aliases) and analyses in a temp dir,
then reports: index build time, the freshness check (nothing changed / 10 pages edited), and
median / p95 search latency of the core search call and of open+sync+search (what one
`wikic search` does after Python starts). Target: median < 50 ms.

    python scripts/bench_search.py [--pages 10000] [--json] [--keep DIR]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from wikic.paths import open_paths
from wikic.query.retrieve import retrieve
from wikic.store.db import Store, open_store
from wikic.vault.links import link
from wikic.vault.pages import Page, render_page
from wikic.vault.slugs import slugify, unique_slug


def english_vocab() -> list[tuple[str, int]]:
    """Real words with real frequencies, offline: Python's own docs (pydoc topics) and the
    standard library's top-level modules. (word, count), most frequent first."""
    from pydoc_data.topics import topics

    texts = list(topics.values())
    lib = Path(sysconfig.get_paths()["stdlib"])
    texts += [p.read_text(encoding="utf-8", errors="ignore") for p in sorted(lib.glob("*.py"))]
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(w.lower() for w in re.findall(r"\b[A-Za-z][a-z]{2,14}\b", text))
    return counts.most_common()


class Text:
    """Words drawn with their real frequencies (a Zipf-like distribution)."""

    def __init__(self, rng: random.Random, vocab: list[tuple[str, int]]) -> None:
        self.rng = rng
        self.vocab = [w for w, _ in vocab]
        self.cum = list(itertools.accumulate(n for _, n in vocab))
        self.topical = self.vocab[150:6000]  # titles: neither the commonest words nor hapaxes

    def words(self, n: int) -> list[str]:
        return self.rng.choices(self.vocab, cum_weights=self.cum, k=n)

    def title_words(self, n: int) -> list[str]:
        return [self.rng.choice(self.topical) for _ in range(n)]

    def sentence(self, lo: int = 8, hi: int = 20) -> str:
        return " ".join(self.words(self.rng.randint(lo, hi))).capitalize() + "."


def generate(
    root: Path, n_pages: int, seed: int = 7, embedding_model: str | None = None
) -> dict[str, int]:
    rng = random.Random(seed)
    text = Text(rng, english_vocab())
    wiki = root / "wiki"
    config = f"search:\n  embedding_model: {embedding_model}\n" if embedding_model else "{}\n"
    (root / "wikic.yaml").write_text(config, encoding="utf-8")
    counts = {
        "source": n_pages // 5,
        "entity": n_pages * 2 // 5,
        "analysis": n_pages // 20,
    }
    counts["concept"] = n_pages - sum(counts.values())
    folders = {
        "source": "sources",
        "entity": "entities",
        "concept": "concepts",
        "analysis": "analyses",
    }
    tags = [f"topic-{i}" for i in range(40)] + [f"area/{i}" for i in range(20)]
    names: dict[str, list[tuple[str, str]]] = {}  # type → [(link name, title)]
    for kind, n in counts.items():
        taken: set[str] = set()
        names[kind] = []
        for _ in range(n):
            title = " ".join(text.title_words(rng.randint(1, 3))).title()
            slug = unique_slug(slugify(title), taken)
            taken.add(slug)
            names[kind].append((f"{folders[kind]}/{slug}", title))
    paragraphs: dict[str, int] = {}
    for name, title in names["source"]:
        n_par = rng.randint(6, 18)
        paragraphs[name] = n_par
        body = f"# {title}\n\n" + "\n\n".join(
            " ".join(text.sentence() for _ in range(rng.randint(2, 5))) + f" ^p{i + 1}"
            for i in range(n_par)
        )
        source_props = {
            "type": "source",
            "title": title,
            "summary": text.sentence(),
            "kind": "article",
            "ingested": "2025-01-01",
        }
        _write(wiki, Page(f"{name}.md", source_props, body))
    everything = [n for kind in names.values() for n in kind]
    for kind in ("entity", "concept", "analysis"):
        for name, title in names[kind]:
            cited = rng.sample(names["source"], rng.randint(1, 4))
            facts = []
            for _ in range(rng.randint(3, 12)):
                src, _t = rng.choice(cited)
                facts.append(
                    f"- {text.sentence()} [[{src}#^p{rng.randint(1, paragraphs[src])}]] "
                    f"^f-{rng.getrandbits(24):06x}"
                )
            related = [
                f"- {link(n, alias=t)}" for n, t in rng.sample(everything, rng.randint(2, 6))
            ]
            sources = [f"- {link(n, alias=t)}" for n, t in cited]
            body = (
                f"# {title}\n\n{text.sentence(20, 40)}\n\n## Facts\n\n"
                + "\n".join(facts)
                + "\n\n## Related\n\n"
                + "\n".join(related)
                + "\n\n## Sources\n\n"
                + "\n".join(sources)
            )
            props: dict[str, Any] = {
                "type": kind,
                "title": title,
                "aliases": [" ".join(text.title_words(2)).title()] if rng.random() < 0.4 else [],
                "tags": rng.sample(tags, rng.randint(1, 3)),
                "summary": text.sentence(),
                "sources": [f"[[{n}]]" for n, _ in cited],
                "created": "2025-01-01",
                "updated": f"2025-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}",
            }
            _write(wiki, Page(f"{name}.md", props, body))
    (wiki / "index.md").write_text("# Index\n", encoding="utf-8")
    return counts


def _write(wiki: Path, page: Page) -> None:
    path = wiki / page.path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_page(page), encoding="utf-8")


Timing = tuple[float, float]  # (wall ms, CPU ms of this process)


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (the CLI subprocesses)."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime


def timed(fn: Callable[[], Any], repeat: int) -> list[Timing]:
    out = []
    for _ in range(repeat):
        t, c = time.perf_counter(), _cpu()
        fn()
        out.append(((time.perf_counter() - t) * 1000, (_cpu() - c) * 1000))
    return out


def summary(timings: list[Timing]) -> dict[str, float]:
    """Wall-clock median/p95, plus the median CPU time: on a shared, loaded machine the wall
    time includes waiting for a core, the CPU time does not."""
    ms = sorted(w for w, _ in timings)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return {
        "median_ms": round(statistics.median(ms), 2),
        "p95_ms": round(p95, 2),
        "max_ms": round(ms[-1], 2),
        "median_cpu_ms": round(statistics.median(c for _, c in timings), 2),
        "n": len(ms),
    }


def make_queries(store: Store, rng: random.Random) -> list[dict[str, Any]]:
    """Queries of several shapes built from words that occur in the wiki."""
    titles = [p.title for p in store.pages()]
    words = [w for t in rng.sample(titles, 200) for w in t.lower().split()]
    queries: list[dict[str, Any]] = []
    for w in words[:20]:
        queries.append({"q": w})  # one topic word
    for i in range(15):
        queries.append({"q": f"{words[i]} {words[i + 20]}"})  # two words (all, then any)
    for w in words[40:50]:
        queries.append({"q": w[: max(3, len(w) - 2)]})  # a prefix, as typed
    for w in ("the", "and", "value", "return", "object"):
        queries.append({"q": f"{w} {words[80]}"})  # a very common word with a topic word
    for t in titles[:5]:
        queries.append({"q": f'"{t}"'})  # a phrase
    queries += [
        {"q": words[60], "types": ["concept"]},
        {"q": words[61], "tags": ["area"]},
        {"q": words[62], "where": [("created", "2025-01-01")]},
        {"q": "", "types": ["analysis"]},
        {"q": 'a:b AND "c* -d NEAR('},
    ]
    return queries


def run(n_pages: int, keep: Path | None, embedding_model: str | None = None) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="wikic-bench-"))
    root = keep or tmp
    try:
        t = time.perf_counter()
        counts = generate(root, n_pages, embedding_model=embedding_model)
        gen_s = time.perf_counter() - t
        paths = open_paths(root)
        size = sum(f.stat().st_size for f in paths.wiki.rglob("*.md"))
        with Store(paths) as store:
            t, c = time.perf_counter(), time.process_time()
            report = store.rebuild()
            build_s, build_cpu = time.perf_counter() - t, time.process_time() - c
            totals = store.counts()
            fresh = timed(lambda: store.sync(), 20)
            edited = sorted(paths.wiki.rglob("*.md"))[100:110]
            edit_ms: list[Timing] = []
            for i, f in enumerate(edited):
                f.write_text(f.read_text() + f"\nEdited {i}.\n", encoding="utf-8")
                edit_ms += timed(lambda: store.sync(), 1)
            queries = make_queries(store, random.Random(3))

            def one(q: dict[str, Any], ranking: str = "lexical") -> None:
                store.search(
                    q["q"],
                    types=q.get("types", ()),
                    tags=q.get("tags", ()),
                    where=q.get("where", ()),
                    limit=10,
                    ranking=ranking,  # type: ignore[arg-type]
                )

            for q in queries:  # warm the page cache once, as a user's second search would
                one(q)
                one(q, "semantic")
            core = [timed(partial(one, q), 1)[0] for q in queries for _ in range(3)]
            by_ranking = {
                r: [timed(partial(one, q, r), 1)[0] for q in queries for _ in range(3)]
                for r in ("semantic", "hybrid")
            }
            units = {
                r: [
                    timed(partial(store.passages, q["q"] or "x", limit=80, ranking=r), 1)[0]
                    for q in queries[:40]
                ]
                for r in ("lexical", "semantic", "hybrid")
            }
            vec = store.page_vectors()[1]
            from wikic.store.vectors import matrix, nearest

            passages = matrix(store.conn, "passages", store.paths.state / "vectors")
            query_vec = store.embed(["value return object"])[0]
            vector_only = timed(lambda: nearest(passages, query_vec, 80), 30)
            embed_one = timed(lambda: store.embed(["how do I stop the model repeating"]), 30)
            hop = [timed(partial(retrieve, store, q["q"] or "x"), 1)[0] for q in queries[:40]]
        db_bytes = paths.db.stat().st_size

        def cli_core(q: dict[str, Any]) -> None:
            with open_store(paths) as s:
                s.search(q["q"], types=q.get("types", ()), limit=10)

        full = [timed(partial(cli_core, q), 1)[0] for q in queries]
        cold = timed(
            lambda: subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "wikic",
                    "-C",
                    str(root),
                    "search",
                    "--json",
                    queries[0]["q"],
                ],
                check=True,
                capture_output=True,
            ),
            3,
        )
        return {
            "embedding_model": paths.config.search.embedding_model,
            "pages": totals["pages"],
            "by_type": counts,
            "claims": totals["claims"],
            "wiki_mb": round(size / 1e6, 1),
            "db_mb": round(db_bytes / 1e6, 1),
            "generate_s": round(gen_s, 2),
            "index_build_s": round(build_s, 2),
            "embedded_texts": report.embedded,
            "passage_vectors": len(passages.ids),
            "page_vectors": len(vec.ids),
            "index_build_cpu_s": round(build_cpu, 2),
            "load_average": os.getloadavg(),
            "indexed": len(report.added),
            "freshness_check_unchanged": summary(fresh),
            "freshness_check_one_page_edited": summary(edit_ms),
            "search_core": summary(core),
            "search_core_semantic": summary(by_ranking["semantic"]),
            "search_core_hybrid": summary(by_ranking["hybrid"]),
            "passages_lexical": summary(units["lexical"]),
            "passages_semantic": summary(units["semantic"]),
            "passages_hybrid": summary(units["hybrid"]),
            "vector_search_passages_top80": summary(vector_only),
            "embed_one_query": summary(embed_one),
            "open_sync_search": summary(full),
            "query_retrieval_search_plus_links": summary(hop),
            "cli_subprocess_cold": summary(cold),
            "queries": len(queries),
        }
    finally:
        if keep is None:
            shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=10_000, help="pages to generate")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--keep", type=Path, help="generate into this (empty) dir and keep it")
    parser.add_argument(
        "--embedding-model", help="search.embedding_model of the generated wiki (default: wikic's)"
    )
    args = parser.parse_args()
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    result = run(args.pages, args.keep, args.embedding_model)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(
        f"{result['pages']} pages ({result['wiki_mb']} MB), {result['claims']} claims; "
        f"DB {result['db_mb']} MB"
    )
    print(
        f"index build: {result['index_build_s']} s (CPU {result['index_build_cpu_s']} s), "
        f"{result['embedded_texts']} texts embedded; {result['passage_vectors']} passage and "
        f"{result['page_vectors']} page vectors; load average {result['load_average']}"
    )
    for key in (
        "freshness_check_unchanged",
        "freshness_check_one_page_edited",
        "search_core",
        "search_core_semantic",
        "search_core_hybrid",
        "passages_lexical",
        "passages_semantic",
        "passages_hybrid",
        "vector_search_passages_top80",
        "embed_one_query",
        "open_sync_search",
        "query_retrieval_search_plus_links",
        "cli_subprocess_cold",
    ):
        s = result[key]
        print(
            f"{key:<34} median {s['median_ms']:>8} ms   p95 {s['p95_ms']:>8} ms   "
            f"CPU median {s['median_cpu_ms']:>7} ms  (n={s['n']})"
        )


if __name__ == "__main__":
    main()
