"""Benchmark `wikic ingest` end to end with a real model, every run in a fresh process.

For each batch size asked for (`--batch 8,1`), on the same sources:
  cold  a fresh wiki, an empty prefix cache: model load, every prefill, every decode;
  warm  another fresh wiki (so ingest makes exactly the same calls and writes the same pages)
        whose prefix cache is a copy of the cold run's: what the on-disk cache saves.
Nothing is skipped in the warm run: it extracts and writes every page again; only prompt
prefixes already on disk are not prefilled again. Reported per run: wall time (the process, model
load included), tokens per stage, prefilled ÷ source tokens, aggregate decode tok/s, batch sizes.

    .venv/bin/python scripts/bench_ingest.py                      # default model, batch 8 and 1
    .venv/bin/python scripts/bench_ingest.py --source scripts/data/corpus/cpython-qsbr.md --json

With `--backend http --servers 1,2` it compares, on the same sources, an in-process run with
runs through N `mlx_lm.server` processes (started here, one per core with `taskset -c <core>`,
stopped after the run; `http.base_urls` lists them, `--batch` requests in flight on each). Every
arm is a fresh wiki, a fresh wikic process and fresh servers (their prompt caches start empty),
so every arm is cold. `--dry-run` prints the arms and commands and runs nothing.

    .venv/bin/python scripts/bench_ingest.py --backend http --servers 1,2 --batch 4

Writes its JSON to scripts/results/bench_ingest.json (http: bench_ingest_http.json; or --out).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from wikic.config import Config, load_config

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository: tests.helpers
from tests.helpers.mlx_server import SERVED_MODEL, mlx_server, server_command

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = ROOT / "scripts" / "data" / "cpu-inference-article.md"
DEFAULT_OUT = ROOT / "scripts" / "results" / "bench_ingest.json"
DEFAULT_HTTP_OUT = ROOT / "scripts" / "results" / "bench_ingest_http.json"
FIELDS = ("calls", "prompt_tokens", "cached_tokens", "prefill_tokens", "generated_tokens")


def worker(wiki: Path, model: str) -> int:
    """One ingest of everything new in `wiki`, in this process; prints a JSON line."""
    from wikic.ingest.pipeline import IngestRequest, ingest
    from wikic.llm.factory import make_backend
    from wikic.paths import open_paths
    from wikic.vault.sources import load_source

    paths = open_paths(wiki)
    config = paths.config.model_copy(update={"model": model})
    backends: dict[str, object] = {}

    def backend(role: str):
        if role not in backends:
            backends[role] = make_backend(config, role, cache_dir=paths.kv_cache)
        return backends[role]

    start = time.perf_counter()
    report = ingest(
        paths,
        IngestRequest(all_new=True),
        extract_backend=lambda: backend("extract"),
        write_backend=lambda: backend("write"),
    )
    wall = time.perf_counter() - start
    counter = backend("extract")
    source_tokens = sum(
        counter.count_tokens(load_source(paths, o.raw, max_bytes=10**8).text)  # type: ignore[attr-defined]
        for o in report.outcomes
    )
    stages: dict[str, dict[str, float]] = {}
    for o in report.outcomes:
        for stage, stats in o.stats.items():
            acc = stages.setdefault(stage, {})
            for k, v in stats.to_dict().items():
                acc[k] = acc.get(k, 0) + v
    batch_stats = [
        getattr(b, "batch_stats", None) for b in {id(b): b for b in backends.values()}.values()
    ]
    served: dict[str, int] = {}
    for b in backends.values():
        served.update(getattr(b, "served", {}))
    out = {
        "ingest_s": round(wall, 2),
        "repairs": sum(bs.repairs for bs in batch_stats if bs is not None),
        "served_by_server": served,
        "status": [o.status for o in report.outcomes],
        "pages_created": sum(len(o.created) for o in report.outcomes),
        "source_tokens": source_tokens,
        "stages": stages,
        "breakdown": report.stages(),  # per stage: prefill, decode, rows per step, idle
    }
    print(json.dumps(out))
    return 0 if all(s == "ingested" for s in out["status"]) else 1


def fresh_wiki(sources: list[Path], batch: int, urls: list[str] | None = None) -> Path:
    """A new wiki with `sources` in raw/; with `urls`, `backend: http` over those servers."""
    base = Path(tempfile.mkdtemp(prefix="wikic-bench-ingest-"))
    subprocess.run(
        [sys.executable, "-m", "wikic", "init", str(base)], check=True, capture_output=True
    )
    cfg = base / "wikic.yaml"
    text = cfg.read_text(encoding="utf-8")
    text = text.replace("batch_size: 8 ", f"batch_size: {batch} ")
    if urls:
        text = text.replace("backend: mlx ", "backend: http ")
        text = text.replace("  base_urls: [] ", f"  base_urls: {json.dumps(urls)} ")
        text = text.replace(
            "  base_url: http://127.0.0.1:8080/v1 ", "  # base_url: http://127.0.0.1:8080/v1 "
        )
        text = text.replace("  model: null ", f"  model: {SERVED_MODEL} ", 1)
        text = text.replace("  json_schema: response_format ", "  json_schema: none ")
    cfg.write_text(text, encoding="utf-8")
    if urls and load_config(cfg).http.servers() != urls:
        raise SystemExit(f"could not point {cfg} at the servers {urls}")
    for s in sources:
        shutil.copy(s, base / "raw" / s.name)
    return base


def run(wiki: Path, model: str) -> dict[str, object]:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, __file__, "--worker", str(wiki), "--model", model],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
    )
    wall = time.perf_counter() - start
    if proc.returncode != 0 and not proc.stdout.strip():
        raise SystemExit(f"worker failed:\n{proc.stderr[-3000:]}")
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    result["process_s"] = round(wall, 2)
    return summarise(result)


def summarise(r: dict[str, object]) -> dict[str, object]:
    stages: dict[str, dict[str, float]] = r["stages"]  # type: ignore[assignment]
    total = {k: sum(s.get(k, 0) for s in stages.values()) for k in (*FIELDS, "decode_s")}
    src = int(r["source_tokens"])  # type: ignore[call-overload]
    r["prefilled_per_source_token"] = round(total["prefill_tokens"] / src, 2) if src else None
    r["decode_tok_s"] = (
        round(total["generated_tokens"] / total["decode_s"], 2) if total["decode_s"] else None
    )
    r["total"] = {k: round(v, 2) for k, v in total.items()}
    return r


def http_arms(args: argparse.Namespace, sources: list[Path]) -> list[dict[str, object]]:
    """An in-process arm, then one arm per server count; each cold, each in fresh processes."""
    from wikic.llm.models.resolve import resolve_model

    counts = [int(n) for n in args.servers.split(",")]
    batch = int(args.batch.split(",")[0])
    cores = os.cpu_count() or 1
    if max(counts) > cores:
        raise SystemExit(f"--servers {max(counts)} needs a core each; this machine has {cores}")
    try:
        model_dir: Path | None = resolve_model(args.model, Config()).path
    except Exception as exc:
        if not args.dry_run:
            raise SystemExit(f"model {args.model!r} is not installed: {exc}") from None
        model_dir = None
    plan: list[dict[str, object]] = [{"arm": "in-process", "batch": batch, "cores": "all"}]
    plan += [
        {
            "arm": f"{n} server(s)",
            "batch": batch,
            "cores": f"one per server: {list(range(n))}",
            "servers": [
                " ".join(server_command(model_dir or Path("<model dir>"), 0, cores=[core])).replace(
                    "--port 0", "--port <free port>"
                )
                for core in range(n)
            ],
        }
        for n in counts
    ]
    if args.dry_run:
        print(
            json.dumps(
                {"model": args.model, "model_dir": model_dir and str(model_dir), "arms": plan},
                indent=2,
            )
        )
        return []
    assert model_dir is not None
    runs: list[dict[str, object]] = []
    wiki = fresh_wiki(sources, batch)
    runs.append({**plan[0], **run(wiki, args.model)})
    shutil.rmtree(wiki, ignore_errors=True)
    for arm, n in zip(plan[1:], counts, strict=True):
        with contextlib.ExitStack() as stack:
            start = time.perf_counter()
            urls = [
                stack.enter_context(mlx_server(model_dir, cores=[core], start_timeout_s=900))
                for core in range(n)
            ]
            ready_s = round(time.perf_counter() - start, 2)
            wiki = fresh_wiki(sources, batch, urls)
            runs.append({**arm, "servers_ready_s": ready_s, **run(wiki, args.model)})
            shutil.rmtree(wiki, ignore_errors=True)
    return runs


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", default=Config().model)
    parser.add_argument("--source", type=Path, action="append", help="repeatable")
    parser.add_argument("--batch", default="8,1", help="batch sizes to compare (default 8,1)")
    parser.add_argument("--no-warm", action="store_true", help="skip the warm runs")
    parser.add_argument("--backend", choices=("mlx", "http"), default="mlx")
    parser.add_argument(
        "--servers", default="1,2", help="http: server counts to compare (default 1,2)"
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="http: print the arms and commands, run nothing"
    )
    parser.add_argument("--out", type=Path)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.worker, args.model)

    sources = args.source or [DEFAULT_SOURCE]
    words = sum(len(s.read_text(encoding="utf-8").split()) for s in sources)
    out_path = args.out or (DEFAULT_HTTP_OUT if args.backend == "http" else DEFAULT_OUT)
    runs: list[dict[str, object]] = []
    if args.backend == "http":
        runs = http_arms(args, sources)
        if args.dry_run:
            return 0
    for batch in (int(b) for b in args.batch.split(",") if args.backend == "mlx"):
        cold_wiki = fresh_wiki(sources, batch)
        cold = run(cold_wiki, args.model)
        runs.append({"batch": batch, "run": "cold", **cold})
        if not args.no_warm:
            warm_wiki = fresh_wiki(sources, batch)
            shutil.copytree(cold_wiki / ".wikic" / "kv", warm_wiki / ".wikic" / "kv")
            runs.append({"batch": batch, "run": "warm", **run(warm_wiki, args.model)})
            shutil.rmtree(warm_wiki, ignore_errors=True)
        shutil.rmtree(cold_wiki, ignore_errors=True)
    for r in runs:
        r["s_per_1000_words"] = round(float(r["process_s"]) * 1000 / words, 1)
    result = {
        "command": " ".join(["scripts/bench_ingest.py", *sys.argv[1:]]),
        "date": dt.date.today().isoformat(),
        "model": args.model,
        "sources": [
            str(s.relative_to(ROOT)) if s.is_relative_to(ROOT) else str(s) for s in sources
        ],
        "words": words,
        "skipped": "nothing: warm runs redo every call on a fresh wiki with a copied KV cache"
        if args.backend == "mlx"
        else "warm runs: every arm is cold (fresh wiki, fresh wikic and server processes)",
        "cpu_count": os.cpu_count(),
        "runs": runs,
    }
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"model {args.model}, {len(sources)} source(s), {words} words → {out_path}\n")
    cols = [
        "arm" if args.backend == "http" else "batch",
        "run",
        "process_s",
        "s_per_1000_words",
        "prefilled_per_source_token",
        "decode_tok_s",
        "pages_created",
        "repairs",
    ]
    print("| " + " | ".join(cols) + " | prefill / cached / generated tokens |")
    print("|" + "---|" * (len(cols) + 1))
    for r in runs:
        t = r["total"]
        toks = f"{t['prefill_tokens']:.0f} / {t['cached_tokens']:.0f} / {t['generated_tokens']:.0f}"  # type: ignore[index]
        print("| " + " | ".join(str(r.get(c, "")) for c in cols) + f" | {toks} |")
    print("\n" + "\n".join(breakdown_table(runs)))
    return 0


BREAKDOWN = ("wall_s", "prefill_s", "prefill_tokens", "decode_s", "decode_tokens")
BREAKDOWN += ("forced_tokens", "rows_per_step", "idle_s")


def breakdown_table(runs: list[dict[str, object]]) -> list[str]:
    """Where each run's time went, stage by stage (`IngestReport.stages`)."""
    lines = ["| batch | run | stage | " + " | ".join(BREAKDOWN) + " |"]
    lines.append("|" + "---|" * (len(BREAKDOWN) + 3))
    for r in runs:
        stages: dict[str, dict[str, object]] = r.get("breakdown") or {}  # type: ignore[assignment]
        for stage, b in stages.items():
            cells = [str(b.get(k, "")) for k in BREAKDOWN]
            lines.append(f"| {r['batch']} | {r['run']} | {stage} | " + " | ".join(cells) + " |")
    return lines


if __name__ == "__main__":
    sys.exit(main())
