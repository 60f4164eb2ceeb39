#!/usr/bin/env python
"""Latency of `query` through one `wikic mcp` server process versus a cold `wikic query` CLI run.

Copies the wiki (AGENTS.md, wikic.yaml, wiki/) twice into a temp dir, each with an empty
.wikic/ (no prefix cache on disk), and caps answers at --max-tokens in both copies' wikic.yaml.
Copy A: `wikic query --json Q2` as a fresh process (model load, cold prefix cache). Copy B:
`wikic mcp` over stdio with the SDK's client, `query` Q1 (loads the model) then Q2: the number
that matters is Q2, served by a warm model whose prefix cache holds the schema and task prefix.

    python scripts/bench_mcp.py [--wiki .] [--max-tokens 128] [--out scripts/results]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import yaml
from mcp import Client, StdioServerParameters

# from scripts/data/qa.yaml: questions this repo's wiki answers
Q1 = "How many tokens is the sliding window of Gemma 3's local layers?"
Q2 = "By what is episodic memory indexed, and by what is semantic memory indexed?"


def copy_wiki(src: Path, dst: Path, max_tokens: int) -> Path:
    dst.mkdir(parents=True)
    for name in ("AGENTS.md", "wikic.yaml"):
        shutil.copy(src / name, dst / name)
    shutil.copytree(src / "wiki", dst / "wiki")
    (dst / "raw").mkdir()
    config = yaml.safe_load((dst / "wikic.yaml").read_text(encoding="utf-8")) or {}
    config.setdefault("query", {})["max_answer_tokens"] = max_tokens
    (dst / "wikic.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return dst


def _stats(data: dict[str, Any]) -> dict[str, Any]:
    s = data["stats"]
    keep = ("prompt_tokens", "cached_tokens", "prefill_tokens", "generated_tokens")
    seconds = ("cache_load_s", "prefill_s", "decode_s")
    return (
        {k: s.get(k) for k in keep}
        | {k: round(float(s.get(k) or 0), 2) for k in seconds}
        | {"answered": data.get("answered")}
    )


def cold_cli(root: Path, question: str) -> dict[str, Any]:
    command = [sys.executable, "-m", "wikic", "-C", str(root), "query", "--json", question]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"wikic query failed ({done.returncode}): {done.stderr}")
    return {"seconds": round(seconds, 2), **_stats(json.loads(done.stdout))}


async def through_server(root: Path, questions: list[str]) -> list[dict[str, Any]]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "wikic", "mcp", "-C", str(root)], env=dict(os.environ)
    )
    rows = []
    start = time.perf_counter()
    async with Client(params, read_timeout_seconds=1800) as client:
        rows.append({"step": "connect", "seconds": round(time.perf_counter() - start, 2)})
        for i, question in enumerate(questions, 1):
            start = time.perf_counter()
            result = await client.call_tool("query", {"question": question})
            seconds = time.perf_counter() - start
            if result.is_error:
                raise SystemExit(f"query failed: {result.content[0].text}")
            data = result.structured_content or {}
            rows.append({"step": f"query {i}", "seconds": round(seconds, 2), **_stats(data)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wiki", type=Path, default=Path("."), help="the wiki to copy (.)")
    parser.add_argument("--max-tokens", type=int, default=128, help="answer cap (128)")
    parser.add_argument("--out", type=Path, default=Path("scripts/results"), help="JSON dir")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-mcp-") as tmp:
        cli_root = copy_wiki(args.wiki.resolve(), Path(tmp) / "cli", args.max_tokens)
        mcp_root = copy_wiki(args.wiki.resolve(), Path(tmp) / "mcp", args.max_tokens)
        cli = cold_cli(cli_root, Q2)
        print(f"cold CLI  wikic query Q2: {cli}", file=sys.stderr)
        server = anyio.run(through_server, mcp_root, [Q1, Q2])
        for row in server:
            print(f"wikic mcp {row}", file=sys.stderr)
    result = {
        "load_average_1m": round(os.getloadavg()[0], 2),  # other work on the machine skews times
        "cpus": os.cpu_count(),
        "questions": {"Q1": Q1, "Q2": Q2},
        "max_answer_tokens": args.max_tokens,
        "cold_cli_query_q2": cli,
        "mcp_server": server,
        "speedup_q2": round(cli["seconds"] / server[-1]["seconds"], 2),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "bench_mcp.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
