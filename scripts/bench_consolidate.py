"""Benchmark and check `wikic consolidate` on the sample journal (raw/journal/, 12 daily notes).

Builds a fresh wiki whose episode source pages are rendered from the notes by
`vault.document` (as ingest renders them, without spending model time on ingest), runs
`consolidate` with the default model in this process, then checks the issue's targets: each
planted pattern extracted with all its episodes cited, no one-off event on a semantic page, every
digest sentence citing an episode block, no broken link, lint clean, an idempotent re-run.
Wall and CPU seconds are reported per episode, with the load average: this machine may be shared.

    python scripts/bench_consolidate.py                      # prints a summary
    python scripts/bench_consolidate.py --json --out scripts/results/bench_consolidate.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from wikic.cli import backends
from wikic.consolidate import ConsolidateRequest, consolidate
from wikic.init import init_wiki
from wikic.lint import LintOptions, run_lint
from wikic.llm.blas import ensure_fast_blas
from wikic.operation.transaction import Plan, writing
from wikic.paths import WikiPaths, open_paths
from wikic.vault.document import parse_document, render_source_body
from wikic.vault.links import parse_links
from wikic.vault.pages import Page, render_page
from wikic.vault.sources import sha256_bytes
from wikic.vault.tree import Vault

REPO = Path(__file__).resolve().parent.parent
PLANTED = {
    "OpenBLAS not preloaded": [
        "2026-04-01-benchmarks", "2026-04-02-cache-tests", "2026-04-04-ci",
        "2026-04-08-new-terminal",
    ],
    "truncated JSON": [
        "2026-04-06-json", "2026-04-07-json-again", "2026-04-09-grammar", "2026-04-10-schemas",
        "2026-04-12-plan",
    ],
}  # fmt: skip
ONE_OFF = ["Mara", "fan", "dentist", "speculative", "Power cut", "typo", "train tickets", "basil",
           "release notes", "lint patch"]  # fmt: skip


def build_wiki(root: Path, notes: Path) -> WikiPaths:
    init_wiki(root)
    paths = open_paths(root)
    (paths.raw / "journal").mkdir(parents=True, exist_ok=True)
    plan = Plan("test", "episodes rendered from the sample journal")
    today = dt.date.today()
    for note in sorted(notes.glob("*.md")):
        data = note.read_bytes()
        (paths.raw / "journal" / note.name).write_bytes(data)
        doc = parse_document(data.decode("utf-8"), filename=note.name)
        first = doc.blocks[0].sentences[0].text if doc.blocks[0].sentences else doc.title
        props = {
            "type": "source",
            "title": doc.title,
            "aliases": [],
            "tags": ["source", "journal"],
            "summary": first,
            "kind": "journal",
            "raw": f"raw/journal/{note.name}",
            "sha256": sha256_bytes(data),
            "created": today,
            "ingested": today,
        }
        body = f"# {doc.title}\n\n{first}\n\n## Text\n\n{render_source_body(doc)}"
        plan.write(f"wiki/sources/{note.stem}.md", render_page(Page("", props, body)))
    with writing(paths, "test") as writer:
        writer.commit(plan)
    return paths


def check(paths: WikiPaths) -> dict[str, Any]:
    vault = Vault.load(paths.wiki)
    semantic = [p for p in vault if p.type in ("concept", "entity")]
    planted = {}
    for name, slugs in PLANTED.items():
        best = max(
            semantic,
            key=lambda p: sum(f"[[sources/{s}#^p" in p.body for s in slugs),
            default=None,
        )
        cited = [s for s in slugs if best is not None and f"[[sources/{s}#^p" in best.body]
        planted[name] = {
            "page": best.path if best is not None and cited else None,
            "episodes_cited": f"{len(cited)}/{len(slugs)}",
        }
    uncited = 0
    sentences = 0
    for digest in (p for p in vault if p.type == "digest"):
        lead = digest.body.split("\n## ", 1)[0].split("\n\n", 1)[1].strip()
        for sentence in re.split(r"(?<=\]\])\s+(?=[^\[\s])", lead):
            sentences += 1
            uncited += not re.search(r"\[\[sources/[^\]]+#\^p\d+\]\]$", sentence)
    broken = [
        f"{p.path}: {lnk.render()}"
        for p in vault
        for lnk in parse_links(p.body)
        if not vault.link_exists(lnk, on=p)
    ]
    report = run_lint(paths, LintOptions())
    return {
        "planted": planted,
        "one_off_promoted": sorted({w for p in semantic for w in ONE_OFF if w in p.body}),
        "digest_sentences": sentences,
        "digest_sentences_uncited": uncited,
        "broken_links": broken,
        "lint_problems": [
            f"{f.rule} {f.page}: {f.message}" for f in report.findings if f.level != "info"
        ],
        "pattern_pages": [p.path for p in semantic],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=Path, default=REPO / "raw" / "journal")
    parser.add_argument("--model", default=None, help="default: the config's model")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--out", type=Path, help="also write the JSON here")
    parser.add_argument("--keep", action="store_true", help="print and keep the wiki directory")
    args = parser.parse_args()
    ensure_fast_blas()
    root = Path(tempfile.mkdtemp(prefix="bench-consolidate-")) / "w"
    paths = build_wiki(root, args.notes)
    backend = backends.for_role(paths, "write", args.model)
    load_before = os.getloadavg()
    wall, cpu = time.perf_counter(), time.process_time()
    report = consolidate(paths, ConsolidateRequest(), backend=lambda: backend)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    rerun = consolidate(paths, ConsolidateRequest(), backend=lambda: backend)
    n = report.episodes
    result = {
        "model": backend.model_name,
        "episodes": n,
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "wall_s_per_episode": round(wall / n, 1) if n else None,
        "cpu_s_per_episode": round(cpu / n, 1) if n else None,
        "loadavg_1m_before_after": [round(load_before[0], 1), round(os.getloadavg()[0], 1)],
        "cpus": os.cpu_count(),
        "periods": [
            {
                "period": o.period,
                "episodes": len(o.episodes),
                "seconds": o.seconds,
                "prompt_tokens": o.stats.prompt_tokens,
                "generated_tokens": o.stats.generated_tokens,
                "prefill_s": round(o.stats.prefill_s, 1),
                "decode_s": round(o.stats.decode_s, 1),
                "patterns": [(p["name"], p["page"], len(p["episodes"])) for p in o.patterns],
                "rejected": [(r["name"], r["why"]) for r in o.rejected],
                "notes": o.notes,
                "status": o.status,
                "error": o.error,
            }
            for o in report.outcomes
        ],
        "rerun_noop": rerun.outcomes == [],
        "checks": check(paths),
        "date": dt.date.today().isoformat(),
    }
    if args.keep:
        result["wiki"] = str(root)
    text = json.dumps(result, indent=2, ensure_ascii=False)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    if args.json:
        print(text)
    else:
        checks = result["checks"]
        print(
            f"{n} episodes, {result['wall_s']} s wall ({result['wall_s_per_episode']} s per "
            f"episode), {result['cpu_s']} s CPU; load {result['loadavg_1m_before_after']}"
        )
        for name, found in checks["planted"].items():
            print(f"planted {name!r}: {found}")
        print(
            f"one-off promoted: {checks['one_off_promoted']}; uncited digest sentences: "
            f"{checks['digest_sentences_uncited']}/{checks['digest_sentences']}; broken links: "
            f"{len(checks['broken_links'])}; lint problems: {len(checks['lint_problems'])}; "
            f"re-run no-op: {result['rerun_noop']}"
        )
    sys.exit(0 if all(o.status == "consolidated" for o in report.outcomes) else 1)


if __name__ == "__main__":
    main()
