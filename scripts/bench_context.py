"""How the length of a prompt's context slows each model call on this machine's mlx backend.

For each context length: the speed of prefilling one more 256-token chunk, and the time of one
decode step at batch 1 and batch 8 (lockstep, the rows merged into mlx-lm's BatchKVCache, as
`wikic.llm.lockstep` decodes). Tokens are random ids (speed does not depend on them); every
shape is warmed up before timing. Also the throughput of mlx's `exp` on this CPU, the reason
attention dominates at long context here. Why it matters: it decides how much each ingest and
query call may carry (see `wikic.vault.schema_doc` and `wikic.ingest.prompts`).

    WIKIC_MODELS_DIR=.cache/test-models .venv/bin/python scripts/bench_context.py
    WIKIC_CPU_KERNELS=off .venv/bin/python scripts/bench_context.py --out F  # mlx's own kernels
    .venv/bin/python scripts/bench_context.py --contexts 300 2600 --json

Writes its JSON to scripts/results/bench_context.json (or --out; - for none).
"""

from __future__ import annotations

import argparse
import copy
import datetime as dt
import json
import os
import platform
import random
import time
from pathlib import Path
from typing import Any

from wikic.config import Config

RESULT = Path(__file__).parent / "results" / "bench_context.json"


def measure(model_name: str, contexts: list[int], steps: int) -> dict[str, Any]:
    from wikic.llm.blas import blas_status, import_mlx_core

    mx = import_mlx_core()  # OpenBLAS before mlx is first imported
    from mlx_lm.models.cache import make_prompt_cache

    from wikic.llm.models.resolve import load_mlx_model, resolve_model

    model, _ = load_mlx_model(resolve_model(model_name, Config()))
    rng = random.Random(0)
    vocab = int(getattr(getattr(model, "args", None), "vocab_size", 20000))
    low, high = min(1000, vocab // 2), min(20000, vocab)  # ids inside the vocabulary
    tokens = [rng.randrange(low, high) for _ in range(max(contexts) + 256)]

    def prefill(ids: list[int], cache: list[Any]) -> None:
        for i in range(0, len(ids), 256):
            model(mx.array(ids[i : i + 256])[None], cache=cache)
            mx.eval([c.state for c in cache])

    rows = []
    for ctx in contexts:
        base = make_prompt_cache(model)
        prefill(tokens[:ctx], base)
        chunk = copy.deepcopy(base)
        t = time.perf_counter()
        prefill(tokens[ctx : ctx + 256], chunk)
        row: dict[str, Any] = {
            "context": ctx,
            "prefill_256_tok_s": round(256 / (time.perf_counter() - t), 1),
        }
        for batch in (1, 8):
            copies = [copy.deepcopy(base) for _ in range(batch)]
            cache = (
                copies[0]
                if batch == 1
                else [layer.merge([c[i] for c in copies]) for i, layer in enumerate(copies[0])]
            )
            step = mx.array([[5]] * batch)
            for _ in range(2):
                mx.eval(model(step, cache=cache))
            t = time.perf_counter()
            for _ in range(steps):
                mx.eval(model(step, cache=cache)[:, -1, :])
            ms = (time.perf_counter() - t) / steps * 1000
            row[f"step_ms_b{batch}"] = round(ms, 1)
            row[f"decode_tok_s_b{batch}"] = round(batch * 1000 / ms, 2)
        rows.append(row)
    scores = mx.random.normal((1, 2, 1792, 2500))
    mx.eval(scores)
    t = time.perf_counter()
    for _ in range(5):
        mx.eval(mx.exp(scores))
    exp_rate = scores.size * 5 / (time.perf_counter() - t)
    from wikic.llm import cpu_kernels

    return {
        "rows": rows,
        "kernels": cpu_kernels.installed(model),  # [] = mlx's own (WIKIC_CPU_KERNELS=off)
        "exp_per_s": round(exp_rate / 1e6, 1),
        "blas": blas_status().to_dict(),
    }


def _kernels(result: dict[str, Any]) -> str:
    if "kernels" not in result:
        return "not recorded"  # measured before wikic.llm.cpu_kernels existed: mlx's own
    return ", ".join(result["kernels"]) or "none"


def render(result: dict[str, Any]) -> str:
    lines = [
        f"{result['model']}, {result['steps']} decode steps per cell, mlx exp: "
        f"{result['exp_per_s']} M/s, numpy kernels: {_kernels(result)}",
        "",
        "| context | prefill 256 tok/s | step ms (b1) | tok/s (b1) | step ms (b8) | tok/s (b8) |",
        "|---|---|---|---|---|---|",
    ]
    for r in result["rows"]:
        lines.append(
            f"| {r['context']} | {r['prefill_256_tok_s']} | {r['step_ms_b1']} | "
            f"{r['decode_tok_s_b1']} | {r['step_ms_b8']} | {r['decode_tok_s_b8']} |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=Config().model)
    parser.add_argument("--contexts", nargs="+", type=int, default=[300, 1000, 1800, 2600])
    parser.add_argument("--steps", type=int, default=6, help="timed decode steps per cell")
    parser.add_argument("--out", default=str(RESULT), help="JSON file to write, or - for none")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args()
    if any(c < 1 for c in args.contexts) or args.steps < 1:
        parser.error("contexts and --steps must be positive")
    start_load = os.getloadavg()[0]
    result: dict[str, Any] = {
        "command": "scripts/bench_context.py "
        + " ".join(
            f"--{k} {' '.join(map(str, v)) if isinstance(v, list) else v}"
            for k, v in (("contexts", args.contexts), ("steps", args.steps))
        ),
        "date": dt.date.today().isoformat(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "model": args.model,
        "steps": args.steps,
        **measure(args.model, args.contexts, args.steps),
        "load_average": [round(start_load, 2), round(os.getloadavg()[0], 2)],
        "skipped": "nothing: every cell is measured in this process after a warm-up",
    }
    if args.out != "-":
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2) if args.json else render(result), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
