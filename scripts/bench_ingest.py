"""Benchmark `wikic ingest` end to end on one source with a real model.

Creates a fresh wiki in a temp dir, ingests the source (default: a ~2,000-word article in
scripts/data/) and reports wall time and prompt / cached / prefilled / generated tokens per stage.
`--twice` ingests it again with --force, which shows what the on-disk prefix cache saves.

    .venv/bin/python scripts/bench_ingest.py                    # default model
    .venv/bin/python scripts/bench_ingest.py --model smollm2-135m --json
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from wikic.config import Config
from wikic.ingest.pipeline import IngestReport, IngestRequest, ProgressEvent, ingest
from wikic.init import init_wiki
from wikic.llm.factory import make_backend
from wikic.paths import WikiPaths, open_paths

DEFAULT_SOURCE = Path(__file__).parent / "data" / "cpu-inference-article.md"
FIELDS = (
    "calls",
    "prompt_tokens",
    "cached_tokens",
    "prefill_tokens",
    "generated_tokens",
    "forced_tokens",
)


def run_once(
    paths: WikiPaths, model: str, *, force: bool, quiet: bool
) -> tuple[IngestReport, float]:
    config = paths.config.model_copy(update={"model": model})

    def progress(e: ProgressEvent) -> None:
        if not quiet:
            print(
                f"  [{time.strftime('%H:%M:%S')}] {e.stage} {e.detail}", file=sys.stderr, flush=True
            )

    start = time.perf_counter()
    report = ingest(
        paths,
        IngestRequest(all_new=True, force=force),
        extract_backend=lambda: make_backend(config, "extract", cache_dir=paths.kv_cache),
        write_backend=lambda: make_backend(config, "write", cache_dir=paths.kv_cache),
        progress=progress,
    )
    return report, time.perf_counter() - start


def rows(report: IngestReport, wall: float, label: str) -> list[dict[str, object]]:
    (outcome,) = report.outcomes
    out = []
    for stage, stats in outcome.stats.items():
        d = stats.to_dict()
        row: dict[str, object] = {"run": label, "stage": stage, **{k: d[k] for k in FIELDS}}
        row.update(
            prefill_s=round(float(d["prefill_s"]), 2),
            decode_s=round(float(d["decode_s"]), 2),
            wall_s=outcome.seconds.get(stage, 0.0),
        )
        out.append(row)
    out.append(
        {
            "run": label,
            "stage": "total",
            "wall_s": round(wall, 2),
            "status": outcome.status,
            "pages_created": len(outcome.created),
            "pages_updated": len(outcome.updated),
        }
    )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", default=Config().model)
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument(
        "--twice", action="store_true", help="ingest again with --force (warm cache)"
    )
    parser.add_argument("--keep", type=Path, help="build the wiki here and keep it")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    base = args.keep or Path(tempfile.mkdtemp(prefix="wikic-bench-ingest-"))
    init_wiki(base)
    paths = open_paths(base)
    shutil.copy(args.source, paths.raw / args.source.name)
    words = len(args.source.read_text(encoding="utf-8").split())
    table = []
    report, wall = run_once(paths, args.model, force=False, quiet=args.json)
    table += rows(report, wall, "cold")
    if args.twice:
        report, wall = run_once(paths, args.model, force=True, quiet=args.json)
        table += rows(report, wall, "warm (--force)")
    if args.json:
        print(
            json.dumps(
                {"model": args.model, "source": str(args.source), "words": words, "rows": table},
                indent=2,
            )
        )
    else:
        print(f"model {args.model}, source {args.source.name} ({words} words), wiki {base}\n")
        cols = ["run", "stage", *FIELDS, "prefill_s", "decode_s", "wall_s"]
        print("| " + " | ".join(cols) + " |")
        print("|" + "---|" * len(cols))
        for r in table:
            print("| " + " | ".join(str(r.get(c, "")) for c in cols) + " |")
    if not args.keep:
        shutil.rmtree(base, ignore_errors=True)
    return 0 if report.outcomes and report.outcomes[0].status == "ingested" else 1


if __name__ == "__main__":
    sys.exit(main())
