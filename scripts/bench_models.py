"""Prefill and decode speed of the built-in models on this machine (mlx, f32 weights).

    python scripts/bench_models.py                 # all installed built-ins, with and without the BLAS fix
    python scripts/bench_models.py --quick         # 256-token prompts only, fewer tokens
    python scripts/bench_models.py --models qwen2.5-coder-0.5b --steps 128,256,512,1024 --json

Prefill tok/s = prompt tokens / time to the first generated token (mlx-lm's `stream_generate`,
chunked by `prefill_step_size`); decode tok/s = tokens after the first / their time; medians of
`--repeats` runs. The run without the fix is a child process with WIKIC_BLAS=off (mlx's vendored
reference BLAS), on the shortest prompt only: it is ~30x slower. Other processes on the machine
make the numbers noisy; say so when you quote them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

from wikic.config import Config
from wikic.llm.blas import blas_status, import_mlx_core
from wikic.llm.models.resolve import clear_model_cache, load_mlx_model, resolve_model
from wikic.llm.models.store import BUILTINS, installed

TEXT = (
    "The history of the river is the history of the valley. Farmers drained the marshes in the "
    "seventeenth century, built dikes against the spring floods and planted orchards on the new "
    "land. Merchants followed the farmers; the town grew around a bridge, a market and a mill. "
    "When the railway arrived, the river lost its trade but kept its floods, and the engineers "
    "who came to tame it left reports that are still read today. "
)


def prompt_ids(tokenizer: Any, n: int) -> list[int]:
    ids: list[int] = []
    while len(ids) < n:
        ids += tokenizer.encode(TEXT, add_special_tokens=False)
    return ids[:n]


def run_once(
    model: Any, tokenizer: Any, ids: list[int], step: int, decode: int
) -> tuple[float, float]:
    """(prefill tok/s, decode tok/s) of one greedy generation."""
    from mlx_lm.generate import stream_generate

    stamps: list[float] = []
    prompt_tps = 0.0
    start = time.perf_counter()
    for response in stream_generate(
        model, tokenizer, prompt=ids, max_tokens=decode, prefill_step_size=step
    ):
        stamps.append(time.perf_counter())
        prompt_tps = response.prompt_tps
    if len(stamps) < 2:
        return prompt_tps or len(ids) / (stamps[0] - start), float("nan")
    return prompt_tps, (len(stamps) - 1) / (stamps[-1] - stamps[0])


def bench_model(name: str, args: argparse.Namespace, step: int) -> dict[str, Any]:
    model, tokenizer = load_mlx_model(resolve_model(name, Config()))
    longest = max(args.lengths + ([1024] if args.steps else []))
    ids = prompt_ids(tokenizer, longest)
    run_once(model, tokenizer, ids[:64], step, 4)  # warm-up: kernels, allocator
    result: dict[str, Any] = {"model": name, "step": step, "prefill": {}, "decode": {}}
    for n in args.lengths:
        runs = [run_once(model, tokenizer, ids[:n], step, args.decode) for _ in range(args.repeats)]
        result["prefill"][n] = round(statistics.median(r[0] for r in runs), 1)
        result["decode"][n] = round(statistics.median(r[1] for r in runs), 2)
    sweep: dict[int, list[float]] = {s: [] for s in args.steps}
    for _ in range(args.repeats):  # interleaved, so load from other processes hits every step alike
        for s in args.steps:
            sweep[s].append(run_once(model, tokenizer, ids[:1024], s, 1)[0])
    result["step_sweep"] = {s: round(statistics.median(v), 1) for s, v in sweep.items()}
    result["rss_gb"] = round(rss_bytes() / 1e9, 2)
    del model, tokenizer
    clear_model_cache()  # the next model is measured alone
    import_mlx_core().clear_cache()
    return result


def rss_bytes() -> int:
    """Current resident memory (ru_maxrss would include what a parent had before exec)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:  # not Linux: the high-water mark is the best there is
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def baseline(name: str, args: argparse.Namespace) -> dict[str, Any] | None:
    """The same model with mlx's reference BLAS, in a child process (the fix is per process)."""
    n = str(min(args.lengths))
    cmd = [
        sys.executable,
        __file__,
        "--child",
        "--json",
        "--models",
        name,
        "--lengths",
        n,
        "--decode",
        str(min(args.decode, 8)),
        "--repeats",
        "1",
        "--steps",
        "",
    ]
    env = {**os.environ, "WIKIC_BLAS": "off"}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        print(f"baseline for {name} failed: {proc.stderr.strip()[-500:]}", file=sys.stderr)
        return None
    row: dict[str, Any] = json.loads(proc.stdout)["results"][0]
    for key in ("prefill", "decode", "step_sweep"):  # JSON made the int keys strings
        row[key] = {int(k): v for k, v in row[key].items()}
    return row


def markdown(results: list[dict[str, Any]], lengths: list[int], steps: list[int]) -> str:
    decode_at = sorted({lengths[0], lengths[-1]})
    head = " | ".join([f"prefill {n}" for n in lengths] + [f"decode @{n}" for n in decode_at])
    lines = [
        f"| model | BLAS | {head} | RSS GB |",
        "|---" * (len(lengths) + len(decode_at) + 3) + "|",
    ]
    for r in results:
        cells = [str(r["prefill"].get(n, "-")) for n in lengths]
        cells += [str(r["decode"].get(n, "-")) for n in decode_at]
        lines.append(f"| {r['model']} | {r['blas']} | {' | '.join(cells)} | {r['rss_gb']} |")
    if steps:
        lines += [
            "",
            "prefill tok/s of a 1024-token prompt by `prefill_step_size`:",
            "",
            "| model | " + " | ".join(f"step {s}" for s in steps) + " |",
            "|---" * (len(steps) + 1) + "|",
        ]
        for r in results:
            if r.get("step_sweep"):
                row = " | ".join(str(r["step_sweep"].get(s, "-")) for s in steps)
                lines.append(f"| {r['model']} | {row} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--models", nargs="*", default=None, help="default: every installed built-in")
    ap.add_argument("--lengths", type=lambda s: [int(x) for x in s.split(",")], default=None)
    ap.add_argument(
        "--steps",
        type=lambda s: [int(x) for x in s.split(",") if x],
        default=None,
        help="prefill_step_size values to sweep at 1024 tokens ('' for none)",
    )
    ap.add_argument("--decode", type=int, default=None, help="tokens to generate per run")
    ap.add_argument("--repeats", type=int, default=None)
    ap.add_argument("--quick", action="store_true", help="256-token prompts, 1 run, 8 tokens")
    ap.add_argument("--no-baseline", action="store_true", help="skip the reference-BLAS run")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.lengths = args.lengths or ([256] if args.quick else [256, 1024, 2048])
    args.steps = (
        args.steps if args.steps is not None else ([] if args.quick else [128, 256, 512, 1024])
    )
    args.decode = args.decode or (8 if args.quick else 24)
    args.repeats = args.repeats or (1 if args.quick else 3)
    import_mlx_core()
    names = args.models or [n for n in BUILTINS if installed(n)]
    if not names:
        sys.exit("No built-in model is installed: run `wikic model install smollm2-135m` first.")
    status = blas_status()
    step = Config().generation.prefill_step_size
    results = []
    for name in names:
        print(f"benchmarking {name} ({status.active}) …", file=sys.stderr)
        r = bench_model(name, args, step)
        r["blas"] = status.active
        results.append(r)
        if not (args.child or args.no_baseline) and status.active == "openblas":
            print(f"benchmarking {name} (reference BLAS, slow) …", file=sys.stderr)
            base = baseline(name, args)
            if base:
                results.append(base)
    if args.json:
        print(
            json.dumps(
                {"results": results, "gflops": round(blas_status(measure=True).gflops or 0, 1)}
            )
        )
    else:
        print(markdown(results, args.lengths, args.steps))


if __name__ == "__main__":
    main()
