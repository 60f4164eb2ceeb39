"""Aggregate decode speed of batched generation: lockstep batches of 1, 2, 4 and 8 rows against
one `generate` call at a time, free text and schema-constrained JSON, on one model.

    WIKIC_MODELS_DIR=.cache/test-models python scripts/bench_batch.py        # the default model
    python scripts/bench_batch.py --sizes 1 8 --max-tokens 8 --json --out -    # quicker, JSON only

Every row reads the same ~500-token excerpt of scripts/data/cpu-inference-article.md (a shared
cached prefix) and its own question; all prompts are prefilled before timing, so the numbers are
decode only. Each batch's texts are compared with the sequential texts of the same requests
(greedy: they must be identical). The constrained batch of the largest size is also run with
forced runs fed token by token (`forced_steps` off) to show what one-step forced runs save, and
batch 1 runs again last to show how much the machine's load drifted during the run.
Prints a markdown table (or `--json`); the JSON result also goes to
scripts/results/bench_batch.json unless --out says otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from wikic.config import Config
from wikic.errors import WikicError
from wikic.llm.backend import BatchStats, Generation, Request, request_options, system, user

ARTICLE = Path(__file__).parent / "data" / "cpu-inference-article.md"
RESULT = Path(__file__).parent / "results" / "bench_batch.json"
QUESTIONS = [
    "prefill on a CPU",
    "decode speed",
    "memory bandwidth",
    "the BLAS library",
    "quantized weights",
    "the prefix cache",
    "batching several sequences",
    "structured output",
]


class Note(BaseModel):
    topic: str = Field(max_length=30)
    point: str = Field(max_length=90)


def _requests(
    excerpt: str, n: int, schema: type[BaseModel] | None, max_tokens: int
) -> list[Request]:
    head = [
        system("You are a careful technical writer. Answer from the text only."),
        user(excerpt),
    ]
    ask = "Reply with JSON: topic, point." if schema else "Explain in a long paragraph."
    return [
        Request([*head, user(f"\nWhat does the text say about {q}? {ask}")], schema, max_tokens)
        for q in (QUESTIONS * (n // len(QUESTIONS) + 1))[:n]
    ]


def _excerpt(backend: Any, tokens: int) -> str:
    words = ARTICLE.read_text(encoding="utf-8").split()
    n = tokens * 3 // 4
    while n < len(words) and backend.count_tokens(" ".join(words[:n])) < tokens:
        n += 16
    return " ".join(words[:n])


def _sequential(backend: Any, requests: list[Request]) -> tuple[list[Generation], dict[str, Any]]:
    """One `generate_once` per request: the single-sequence path, without repair attempts."""
    out = [backend.generate_once(r.segments, **request_options(r), on_text=None) for r in requests]
    generated = sum(g.stats.generated_tokens for g in out)
    decode_s = sum(g.stats.decode_s for g in out)
    return out, {
        "rows": len(out),
        "generated_tokens": generated,
        "decode_s": round(decode_s, 3),
        "decode_tok_s": round(generated / decode_s, 2),
    }


def _valid(schema: type[BaseModel], generation: Generation) -> bool:
    try:
        schema.model_validate_json(generation.text)
    except ValueError:
        return False
    return True


def _batched(backend: Any, requests: list[Request]) -> tuple[list[Generation], BatchStats]:
    backend.batch_stats = BatchStats()  # this run's numbers only
    out = backend.generate_batch_once(requests)  # like the sequential runs: no repair attempts
    return out, backend.batch_stats


def bench(name: str, sizes: list[int], max_tokens: int, context: int) -> dict[str, Any]:
    from wikic.llm.blas import blas_status
    from wikic.llm.cache.prefix import PrefixCache
    from wikic.llm.mlx_backend import MlxBackend
    from wikic.llm.models.resolve import load_mlx_model, resolve_model

    resolved = resolve_model(name, Config())
    model, tokenizer = load_mlx_model(resolved)
    cache = PrefixCache(None, fingerprint=resolved.fingerprint, max_bytes=1 << 31)
    backend = MlxBackend(model, tokenizer, name=name, prefix_cache=cache, batch_size=max(sizes))
    excerpt = _excerpt(backend, context)
    n = max(sizes)
    modes: dict[str, tuple[type[BaseModel] | None, int]] = {
        "free": (None, max_tokens),
        "json": (Note, 4 * max_tokens),  # enough to finish: rows end when the JSON does
    }
    result: dict[str, Any] = {
        "model": name,
        "machine": f"{platform.machine()}, {platform.system()}",
        "blas": blas_status().active,
        "context_tokens": backend.count_tokens(excerpt),
        "max_tokens": {mode: limit for mode, (_, limit) in modes.items()},
        "modes": {},
    }
    for mode, (schema, limit) in modes.items():
        requests = _requests(excerpt, n, schema, limit)
        for r in requests:  # prefill everything now: the timed runs are decode only
            backend.generate(r.segments, max_tokens=1)
        print(f"{name} {mode}: sequential x{n} …", file=sys.stderr)
        reference, single = _sequential(backend, requests)
        rows: dict[str, Any] = {"sequential": single}
        for size in sizes:
            print(f"{name} {mode}: batch {size} …", file=sys.stderr)
            got, stats = _batched(backend, requests[:size])
            rows[f"batch_{size}"] = {
                **stats.to_dict(),
                "speedup": round(stats.decode_tok_s / single["decode_tok_s"], 2),
                "identical": [g.text for g in got] == [g.text for g in reference[:size]],
                "valid": None if schema is None else sum(_valid(schema, g) for g in got),
            }
        first, stats = _batched(backend, requests[:1])  # load drift: batch 1 again, last
        rows["batch_1_again"] = {**stats.to_dict(), "identical": first[0].text == reference[0].text}
        if schema is not None:
            backend.forced_steps = False
            got, stats = _batched(backend, requests)
            backend.forced_steps = True
            rows[f"batch_{n}_forced_token_by_token"] = {
                **stats.to_dict(),
                "identical": [g.text for g in got] == [g.text for g in reference],
            }
        result["modes"][mode] = rows
    return result


def markdown(result: dict[str, Any]) -> str:
    lines = [
        f"{result['model']}, {result['context_tokens']} tokens of context per row",
        "",
        "| mode | run | rows | mean batch | tokens | decode s | tok/s | speedup | identical |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for mode, rows in result["modes"].items():
        for run, r in rows.items():
            lines.append(
                f"| {mode} | {run} | {r['rows']} | {r.get('mean_batch', 1.0)} "
                f"| {r['generated_tokens']} | {round(r['decode_s'], 1)} | {r['decode_tok_s']} "
                f"| {r.get('speedup', '-')} | {r.get('identical', '-')} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=Config().model)
    parser.add_argument("--sizes", nargs="+", type=int, default=[1, 2, 4, 8])
    parser.add_argument("--max-tokens", type=int, default=16, help="free-text tokens per row")
    parser.add_argument("--context", type=int, default=500, help="tokens of shared context")
    parser.add_argument("--out", default=str(RESULT), help="JSON file to write, or - for none")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        result = bench(args.model, sorted(args.sizes), args.max_tokens, args.context)
    except WikicError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    result["wall_s"] = round(time.perf_counter() - start, 1)
    result["load_average_1_5_15"] = [round(x, 1) for x in os.getloadavg()]  # a shared CPU
    text = json.dumps(result, indent=2)
    if args.out != "-":
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    print(text if args.json else markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
