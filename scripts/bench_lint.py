"""Benchmark structural `wikic lint` on a generated wiki (default 10,000 pages).

The generated wiki looks like one wikic compiles: source pages whose `## Text` paragraphs carry
`^pN` block ids (with matching files in raw/ and their sha256), entity and concept pages whose
`## Facts` bullets cite those blocks, `## Related` links, a few analyses, index.md, log.md, all
committed to git. It lints clean, so the timing is the cost of the checks, not of reporting.
Each run is a fresh process, as from cron: the first is cold (it writes the scan cache in
.wikic/lint-scan/), the next ones reuse it for the unchanged pages. CPU time is reported next to
wall time because this machine may be shared.

    python scripts/bench_lint.py                 # 10,000 pages, 3 runs (the first cold)
    python scripts/bench_lint.py --pages 2000 --runs 5 --json
    python scripts/bench_lint.py --profile       # cProfile of one run, top 25 functions
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import io
import json
import os
import pstats
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from wikic.init import init_wiki
from wikic.lint import LintOptions, run_lint
from wikic.paths import open_paths
from wikic.vault.catalog import render_index
from wikic.vault.names import name_key
from wikic.vault.pages import Page, render_page
from wikic.vault.slugs import slugify
from wikic.vault.sources import sha256_bytes, split_paragraphs

SYLLABLES = [
    "ka",
    "ri",
    "to",
    "mo",
    "na",
    "se",
    "lu",
    "vi",
    "de",
    "ra",
    "po",
    "ten",
    "gal",
    "mir",
    "sol",
    "bar",
    "ken",
    "dor",
    "fel",
    "ast",
    "qui",
    "zen",
    "lor",
    "vak",
    "sim",
    "tur",
    "pel",
    "hon",
    "cas",
    "dri",
    "mel",
    "nor",
    "pra",
    "sta",
    "ul",
    "ev",
    "ix",
    "om",
]
WORDS = [
    "the",
    "a",
    "model",
    "cache",
    "layer",
    "token",
    "graph",
    "source",
    "paper",
    "result",
    "method",
    "data",
    "system",
]
DAY = dt.date(2026, 1, 15)
# a distinct object: YAML would write an anchor and an alias for the same one twice
UPDATED = dt.date(2026, 2, 1)


def pseudo_word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3)))


def sentence(rng: random.Random, names: list[str]) -> str:
    words = [rng.choice(WORDS) if rng.random() < 0.6 else pseudo_word(rng) for _ in range(14)]
    if names:
        words.insert(rng.randint(0, len(words)), rng.choice(names))
    return " ".join(words).capitalize() + "."


def generate_wiki(root: Path, pages: int, seed: int = 0) -> dict[str, int]:
    """Write a committed wiki of about `pages` pages under `root`; return counts by type."""
    rng = random.Random(seed)
    init_wiki(root)
    n_sources = max(1, pages * 15 // 100)
    n_analyses = max(1, pages * 2 // 100)
    n_entities = max(1, pages * 23 // 100)
    n_concepts = max(1, pages - n_sources - n_analyses - n_entities)
    written: list[Page] = []
    taken: set[str] = set()  # name keys and their one-deletion variants: no near-duplicates

    def unique_title(words: int) -> str:
        while True:
            title = " ".join(pseudo_word(rng) for _ in range(words)).title()
            key = name_key(title)
            variants = {key} | {key[:i] + key[i + 1 :] for i in range(len(key))}
            if not variants & taken:
                taken.update(variants)
                return title

    sources: list[tuple[str, str, int]] = []  # (name, title, paragraphs)
    for _ in range(n_sources):
        title = unique_title(3)
        slug = slugify(title)
        paras = [" ".join(sentence(rng, []) for _ in range(3)) for _ in range(rng.randint(6, 14))]
        raw_text = f"# {title}\n\n" + "\n\n".join(paras) + "\n"
        raw_rel = f"raw/{slug}.md"
        (root / raw_rel).write_text(raw_text, encoding="utf-8")
        blocks = split_paragraphs(raw_text)
        body = (
            f"# {title}\n\n## Summary\n\n{paras[0][:200]}\n\n## Key claims\n\n"
            + "\n".join(f"- {paras[i][:80]}. [[#^p{i + 1}]]" for i in range(3))
            + "\n\n## Text\n\n"
            + "\n\n".join(f"{b.text} ^{b.id}" for b in blocks)
        )
        props = {
            "type": "source",
            "title": title,
            "kind": "article",
            "raw": raw_rel,
            "sha256": sha256_bytes(raw_text.encode()),
            "ingested": DAY,
            "summary": paras[0][: paras[0].index(".") + 1],  # whole sentences, as ingest writes
            "tags": ["bench"],
        }
        written.append(Page(f"sources/{slug}.md", props, body))
        sources.append((f"sources/{slug}", title, len(blocks)))

    topics: list[tuple[str, str, str]] = []  # (type, name, title)
    for kind, count in (("entity", n_entities), ("concept", n_concepts)):
        folder = "entities" if kind == "entity" else "concepts"
        for _ in range(count):
            title = unique_title(2)
            topics.append((kind, f"{folder}/{slugify(title)}", title))
    topic_titles = [t for _, _, t in topics]
    for i, (kind, name, title) in enumerate(topics):
        # every source is cited and every topic linked at least once, so the wiki lints clean
        cited = [sources[i % len(sources)]]
        cited += [s for s in rng.sample(sources, k=min(len(sources), 2)) if s != cited[0]]
        cited = cited[: rng.randint(1, 3)]
        facts = []
        for j in range(rng.randint(3, 9)):
            src, _, n = cited[j % len(cited)]
            block = f"f-{rng.getrandbits(24):06x}"
            facts.append(
                f"- {sentence(rng, topic_titles)} [[{src}#^p{rng.randint(1, n)}]] ^{block}"
            )
        related = [topics[(i + 1) % len(topics)]]
        related += rng.sample(topics, k=min(len(topics), rng.randint(1, 4)))
        body = (
            f"# {title}\n\n{sentence(rng, [])}\n\n## Facts\n\n"
            + "\n".join(facts)
            + "\n\n## Related\n\n"
            + "\n".join(dict.fromkeys(f"- [[{n}|{t}]]" for _, n, t in related if n != name))
            + "\n\n## Sources\n\n"
            + "\n".join(f"- [[{s}|{t}]]" for s, t, _ in cited)
        )
        props = {
            "type": kind,
            "title": title,
            "aliases": [f"{''.join(w[0] for w in title.split())}-{i}"]
            if rng.random() < 0.2
            else [],
            "tags": [kind],
            "summary": sentence(rng, []),
            "sources": [f"[[{s}]]" for s, _, _ in cited],
            "created": DAY,
            "updated": UPDATED,
        }
        written.append(Page(f"{name}.md", props, body))

    for _ in range(n_analyses):
        title = unique_title(4) + "?"
        consulted = rng.sample(topics, k=min(len(topics), 3))
        body = f"# {title}\n\n" + " ".join(
            f"{sentence(rng, [])} See [[{n}|{t}]]." for _, n, t in consulted
        )
        props = {
            "type": "analysis",
            "title": title,
            "question": title,
            "summary": sentence(rng, []),
            "consulted": [f"[[{n}]]" for _, n, _ in consulted],
            "created": DAY,
            "updated": UPDATED,
        }
        written.append(Page(f"analyses/{slugify(title)}.md", props, body))

    wiki = root / "wiki"
    for page in written:
        target = wiki / page.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render_page(page), encoding="utf-8")
    (wiki / "index.md").write_text(render_index(written), encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(
        [
            "git",
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@localhost",
            "commit",
            "-qm",
            "bench",
        ],
        cwd=root,
        check=True,
    )
    return {
        "source": n_sources,
        "entity": n_entities,
        "concept": n_concepts,
        "analysis": n_analyses,
    }


# One lint in a fresh interpreter, as cron runs it: run_lint's own time (imports excluded).
_ONE_RUN = """
import json, sys, time
from pathlib import Path
from wikic.lint import LintOptions, run_lint
from wikic.paths import open_paths
paths = open_paths(Path(sys.argv[1]))
t0, c0 = time.perf_counter(), time.process_time()
report = run_lint(paths, LintOptions())
print(json.dumps({"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0,
                  "rules": sorted({f.rule for f in report.findings}), "findings": len(report.findings)}))
"""


def timed_runs(root: Path, runs: int) -> tuple[list[dict[str, Any]], list[float]]:
    """`runs` lints in fresh processes, then as many full `wikic lint` commands (wall time,
    interpreter start and imports included)."""
    inner = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", _ONE_RUN, str(root)], check=True, capture_output=True, text=True
        ).stdout
        inner.append(json.loads(out))
    command = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "wikic", "-C", str(root), "lint", "--quiet"],
            check=False,
            capture_output=True,
        )
        command.append(time.perf_counter() - t0)
    return inner, command


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=10_000, help="pages to generate")
    parser.add_argument("--runs", type=int, default=3, help="timed lint runs (median reported)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--dir", type=Path, default=None, help="keep the wiki here (must not exist)"
    )
    parser.add_argument("--profile", action="store_true", help="print a cProfile of one run")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="wikic-bench-") as tmp:
        root = args.dir or Path(tmp) / "wiki"
        t0 = time.perf_counter()
        counts = generate_wiki(root, args.pages, args.seed)
        gen_s = time.perf_counter() - t0
        time.sleep(2.5)  # let every page get older than the cache's racy window
        inner, command = timed_runs(root, args.runs)
        walls = [r["wall"] for r in inner]
        result = {
            "pages": sum(counts.values()),
            "pages_by_type": counts,
            "generate_s": round(gen_s, 2),
            "lint_s": [round(t, 3) for t in walls],
            "cold_s": round(walls[0], 3),  # first run: no scan cache yet (it writes one)
            "warm_median_s": round(statistics.median(walls[1:] or walls), 3),
            "lint_cpu_s": [round(r["cpu"], 3) for r in inner],
            "command_s": [round(t, 3) for t in command],
            "command_median_s": round(statistics.median(command), 3),
            "findings": inner[-1]["findings"],
            "rules": inner[-1]["rules"],
            "cpu_count": os.cpu_count(),
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "target_s": 2.0,
        }
        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
            run_lint(open_paths(root), LintOptions())
            profiler.disable()
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(25)
            print(out.getvalue(), file=sys.stderr)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"{result['pages']} pages (generated in {gen_s:.1f} s): structural lint in fresh "
            f"processes {result['lint_s']} s: cold {result['cold_s']} s, then with the scan "
            f"cache {result['warm_median_s']} s (target < 2 s); CPU {result['lint_cpu_s']} s; whole "
            f"`wikic lint` command {result['command_s']} s; {result['findings']} findings; "
            f"load average {result['load_average']} on {result['cpu_count']} CPUs"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
