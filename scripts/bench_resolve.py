#!/usr/bin/env python
"""Does topic resolution scale? Compile one source (code only: extraction, planning with the
concept index, page writes; every model call fails) into an empty wiki and into a generated
wiki of 10,000 entity and concept pages, and compare the times (issue 32: <= 10 % more).

Planning looks names up in the wiki's concept index as `wikic ingest` does: the store's
(`store.concepts`), here a database file built once from the generated pages (`index_build_s`,
what `wikic reindex` pays; a commit updates only its own pages' rows). Two generated wikis:
`like_for_like`, whose names share no word with the source, so the source plans the same
pages as into the empty wiki and any extra time is the wiki's size; and `overlapping`, whose
names are drawn from every word, so the source also joins the existing pages its sentences
name (real extra work: more pages planned and written).

The generated pages are held in memory (`Vault.add`), so the times leave out reading the wiki
from disk, which every command pays alike; that is reported on its own (`load_s`, from a copy
written to a temp dir) when `--load` is given. Page names are drawn from the words of the
realistic corpus: phrases of one to three words, capitalised names and acronyms, with aliases.

    python scripts/bench_resolve.py [--pages 10000] [--source FILE] [--repeat 5] [--json]
"""

from __future__ import annotations

import argparse
import copy
import datetime as dt
import json
import random
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from wikic.config import IngestConfig
from wikic.ingest.extract import Extraction, finish_extraction, prepare_extraction
from wikic.ingest.plan import plan_batch
from wikic.ingest.write import finish_write, prepare_write
from wikic.llm.backend import generate_batch
from wikic.llm.fake import FakeBackend
from wikic.store.concepts import StoredConcepts
from wikic.vault.names import name_key
from wikic.vault.pages import Page, render_page
from wikic.vault.slugs import slugify, unique_slug
from wikic.vault.sources import Source
from wikic.vault.tree import Vault

HERE = Path(__file__).resolve().parent
DEFAULT_SOURCE = HERE / "data" / "overlap" / "postgres-wal.md"
VOCAB_DIR = HERE / "data" / "corpus"
DEFAULT_OUT = HERE / "results" / "bench_resolve.json"
TARGET = 0.10  # at most this much more time than into an empty wiki
SILENT = FakeBackend(lambda call: "no model", name="no model")  # every model call fails


_WORD_RE = r"\b[A-Za-z][a-z]{3,14}\b"


def vocabulary(avoid: str = "") -> list[str]:
    """The words of the realistic corpus; none whose name key a word of `avoid` has."""
    avoided = {name_key(w) for w in re.findall(r"\w+", avoid)}
    words: set[str] = set()
    for path in sorted(VOCAB_DIR.glob("*.md")):
        words |= {w.lower() for w in re.findall(_WORD_RE, path.read_text())}
    return sorted(w for w in words if name_key(w) not in avoided)


def generated_pages(n: int, seed: int = 7, avoid: str = "") -> list[Page]:
    """`n` entity and concept pages with names and aliases of the kinds a wiki holds, none of
    them with a word of `avoid`."""
    rng = random.Random(seed)
    words = vocabulary(avoid)
    taken: set[str] = set()
    pages = []
    for i in range(n):
        kind = i % 5
        if kind == 0:
            title = rng.choice(words).capitalize()
        elif kind == 1:
            title = "".join(rng.choice(words)[0] for _ in range(rng.randint(2, 5))).upper()
        else:
            title = " ".join(rng.choice(words) for _ in range(kind - 1)).capitalize()
        slug = unique_slug(slugify(title), taken)
        taken.add(slug)
        aliases = [" ".join(rng.choice(words) for _ in range(2))] if rng.random() < 0.3 else []
        folder = "entities" if kind in (0, 1) else "concepts"
        props = {
            "type": "entity" if folder == "entities" else "concept",
            "title": title,
            "aliases": aliases,
            "summary": f"{title} is a generated page.",
            "sources": [],
        }
        body = f"# {title}\n\n{title} is a generated page.\n\n## Facts\n\n- A fact. ^f-{i:06x}\n"
        pages.append(Page(f"{folder}/{slug}.md", props, body))
    return pages


def extract_once(source: Source, config: IngestConfig) -> tuple[Extraction, float]:
    """The source's extraction and its seconds: it does not read the wiki, so one extraction
    a round serves every wiki (the machine's spread stays out of the comparison)."""
    start = time.perf_counter()
    job = prepare_extraction(SILENT, source, agents_md="", config=config, max_context_tokens=32768)
    ex = finish_extraction(job, generate_batch(SILENT, job.requests), config)
    return ex, time.perf_counter() - start


def compile_once(
    ex: Extraction, vault: Vault, concepts: StoredConcepts, config: IngestConfig
) -> dict[str, float]:
    """Seconds of planning and writing the extraction `ex` into `vault`."""
    start = time.perf_counter()
    (plan,) = plan_batch(
        [ex],
        vault,
        existing_source_pages={},
        max_pages=config.max_pages_per_source,
        concepts=concepts,
    )
    planned = time.perf_counter()
    write = prepare_write(plan, vault, agents_md="", today=dt.date(2026, 1, 1), summary_chars=300)
    finish_write(write, generate_batch(SILENT, write.requests))
    done = time.perf_counter()
    return {
        "plan_s": planned - start,
        "write_s": done - planned,
        "pages_planned": float(len(plan.topics)),
    }


def measure(
    source: Source,
    wikis: Sequence[tuple[Vault, StoredConcepts]],
    config: IngestConfig,
    repeat: int,
) -> list[dict[str, Any]]:
    """Median seconds of each stage per wiki; the wikis take turns on one extraction a round,
    so a busy machine slows them alike."""
    runs: list[list[dict[str, float]]] = [[] for _ in wikis]
    for _ in range(repeat):
        ex, extract_s = extract_once(source, config)
        for i, (vault, concepts) in enumerate(wikis):
            r = compile_once(copy.deepcopy(ex), vault, concepts, config)  # planning edits it
            r["extract_s"] = extract_s
            r["total_s"] = extract_s + r["plan_s"] + r["write_s"]
            runs[i].append(r)
    keys = ("extract_s", "plan_s", "write_s", "total_s")
    return [
        {
            **{k: round(statistics.median(r[k] for r in rs), 4) for k in keys},
            "pages_planned": int(rs[0]["pages_planned"]),
        }
        for rs in runs
    ]


def load_seconds(pages: Sequence[Page]) -> float:
    with tempfile.TemporaryDirectory(prefix="wikic-bench-resolve-") as tmp:
        wiki = Path(tmp) / "wiki"
        for page in pages:
            path = wiki / page.path
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(render_page(page), encoding="utf-8")
        start = time.perf_counter()
        Vault.load(wiki)
        return round(time.perf_counter() - start, 3)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--pages", type=int, default=10_000)
    p.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--load", action="store_true", help="also time reading the wiki from disk")
    p.add_argument("--json", action="store_true")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = p.parse_args(argv)
    if args.pages < 1 or args.repeat < 1:
        p.error("--pages and --repeat must be at least 1")
    if not args.source.is_file():
        p.error(f"no source file {args.source}")
    text = args.source.read_text(encoding="utf-8")
    source = Source(f"raw/{args.source.name}", text, "sha256:0", "article")
    config = IngestConfig()
    with tempfile.TemporaryDirectory(prefix="wikic-bench-resolve-") as tmp:
        wikis: dict[str, tuple[Vault, StoredConcepts]] = {}
        index_s = 0.0
        for label, avoid in (("empty", None), ("like_for_like", text), ("overlapping", "")):
            vault = Vault(Path(tmp) / "wiki")
            pages = [] if avoid is None else generated_pages(args.pages, avoid=avoid)
            for page in pages:
                vault.add(page)
            start = time.perf_counter()
            wikis[label] = (vault, StoredConcepts.from_pages(vault, str(Path(tmp) / label)))
            if label == "like_for_like":
                index_s = time.perf_counter() - start
        measure(source, [wikis["empty"]], config, 1)  # warm caches (regexes, imports) first
        into_empty, like, overlapping = measure(source, list(wikis.values()), config, args.repeat)
        load_s = load_seconds(list(wikis["like_for_like"][0])) if args.load else None
    extra = (like["total_s"] - into_empty["total_s"]) / into_empty["total_s"]
    # the extraction does not read the wiki: its spread between the runs is the machine's
    planning = (like["plan_s"] - into_empty["plan_s"]) / into_empty["total_s"]
    joined = (overlapping["total_s"] - into_empty["total_s"]) / into_empty["total_s"]
    result = {
        "command": " ".join(["scripts/bench_resolve.py", *(argv or sys.argv[1:])]),
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "source": args.source.name,
        "words": len(text.split()),
        "pages": args.pages,
        "repeat": args.repeat,
        "empty_wiki": into_empty,
        "like_for_like_wiki": like,
        "overlapping_wiki": overlapping,
        "extra_time": round(extra, 4),
        "extra_planning_time": round(planning, 4),
        "extra_time_overlapping": round(joined, 4),
        "index_build_s": round(index_s, 4),
        "target": f"<= {TARGET:.0%} (like for like)",
        "met": extra <= TARGET,
        "load_s": load_s,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        rows = (
            ("empty wiki", into_empty),
            (f"{args.pages} pages", like),
            ("overlapping", overlapping),
        )
        for label, r in rows:
            print(
                f"{label:>12}: total {r['total_s']:.3f} s (extract {r['extract_s']:.3f}, "
                f"plan {r['plan_s']:.3f}, write {r['write_s']:.3f}), "
                f"{r['pages_planned']} pages planned"
            )
        print(f"extra time, like for like: {extra:+.1%} (target {result['target']})")
        print(f"of which planning: {planning:+.1%}; building the concept index: {index_s:.3f} s")
        print(f"extra time with overlapping names (joins existing pages): {joined:+.1%}")
        if result["load_s"] is not None:
            print(f"reading the {args.pages}-page wiki from disk: {result['load_s']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
