#!/usr/bin/env python
"""Prefill benchmark of wikic's PrefixCache against cold prefill and mlx-lm's LRUPromptCache.

For each model and prefix length, with a short suffix (a new task on a shared prefix):
cold TTFT; warm TTFT from memory; warm TTFT from disk in a fresh process; the suffix prefilled
alone; the tokens mlx-lm's stock LRUPromptCache reuses for the same workload; max |logit diff|
warm vs cold. Prints a markdown table, writes JSON (and a PNG plot when matplotlib is there).

    python scripts/bench_prefill.py                       # built-in models, 512/2048/8192
    python scripts/bench_prefill.py --quick               # CI: one short row per model
    python scripts/bench_prefill.py --models gemma3-270m --prefix-lengths 600,2048 --json
    python scripts/bench_prefill.py --models tiny:gemma3_text,tiny:llama --quick   # no model store
    python scripts/bench_prefill.py --kernels --models qwen2.5-coder-0.5b --prefix-lengths 512,2048

--kernels compares instead prefill with mlx's own kernels against wikic's numpy softmax/SwiGLU
(wikic.llm.cpu_kernels): cold prefill of the same prompt in fresh processes, the arms alternated,
--repeats runs each; reports tok/s of both, the speed-up, max |logit diff| and the first token.

TTFT is the wall time from asking for the prompt's cache to having the first (greedy) token.
Each warm run is paired with a suffix-alone run just before it in the same process; the ratio
columns are medians of those pairs (robust when other processes share the CPU), the times are the
best of --repeats runs. The cold prefill runs once.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DEFAULT_MODELS = ["smollm2-135m", "qwen2.5-coder-0.5b", "gemma3-270m"]
DEFAULT_LENGTHS = [512, 2048, 8192]
QUICK_LENGTHS = [600]  # longer than gemma3's 512-token window
TEXT = (
    "Section {i}. The compiler reads immutable sources and keeps an interlinked wiki current; "
    "every claim cites the source sentence it came from, and contradictions are flagged for "
    "review. Entities get their own pages, concepts link to them, and the index lists both. "
)
TASK = "Task {i}: extract the entities and claims of the last section as JSON. "


def load(name: str) -> tuple[Any, Any, str, int | None]:
    """(model, tokenizer or None, fingerprint, context limit) for a built-in name or tiny:<arch>."""
    if name.startswith("tiny:"):
        sys.path.insert(0, str(REPO))
        from tests.helpers.tiny_models import tiny_fingerprint, tiny_model

        model = tiny_model(name.split(":", 1)[1])
        return model, None, tiny_fingerprint(model), None
    try:
        from wikic.config import Config
        from wikic.llm.models.resolve import load_mlx_model, resolve_model
    except ImportError:  # before wikic.llm.models.resolve exists: a local mlx-lm directory only
        return _load_directory(Path(name))
    resolved = resolve_model(name, Config())
    model, tokenizer = load_mlx_model(resolved)
    return model, tokenizer, resolved.fingerprint, _context_limit(model)


def _load_directory(path: Path) -> tuple[Any, Any, str, int | None]:
    import hashlib

    from wikic.llm.blas import ensure_fast_blas

    ensure_fast_blas()
    from mlx_lm.utils import load as mlx_load

    if not path.is_dir():
        raise SystemExit(
            f"{path}: not a model directory (wikic.llm.models.resolve is not available)"
        )
    model, tokenizer = mlx_load(str(path))[:2]
    stamp = [(p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(path.iterdir())]
    fingerprint = hashlib.sha256(repr((str(path.resolve()), stamp)).encode()).hexdigest()[:32]
    return model, tokenizer, fingerprint, _context_limit(model)


def _context_limit(model: Any) -> int | None:
    return getattr(getattr(model, "args", None), "max_position_embeddings", None)


def tokens(tokenizer: Any, template: str, n: int, seed: int) -> list[int]:
    """`n` tokens of plain English (random ids for tokenizer-less tiny models)."""
    if tokenizer is None:
        import mlx.core as mx

        return mx.random.randint(3, 300, (n,), key=mx.random.key(seed)).tolist()
    out: list[int] = []
    i = seed * 1000
    while len(out) < n:
        out += tokenizer.encode(template.format(i=i), add_special_tokens=False)
        i += 1
    return out[:n]


def sliding_window(model: Any) -> int | None:
    from mlx_lm.models.cache import RotatingKVCache, make_prompt_cache

    sizes = [c.max_size for c in make_prompt_cache(model) if isinstance(c, RotatingKVCache)]
    return min(sizes) if sizes else None


def first_token(pre: Any) -> int:
    import mlx.core as mx

    return int(mx.argmax(pre.logits.reshape(-1)).item())


def warm_up(model: Any) -> None:
    import mlx.core as mx
    from mlx_lm.models.cache import make_prompt_cache

    mx.eval(model(mx.array([[1, 2, 3, 4, 5, 6, 7, 8]]), cache=make_prompt_cache(model)))


def timed_prefill(cache: Any, model: Any, segments: list[list[int]]) -> tuple[Any, float]:
    start = time.perf_counter()
    pre = cache.prefill(model, segments)
    first_token(pre)
    return pre, time.perf_counter() - start


def suffix_only(model: Any, suffix: list[int], step: int, runs: int) -> float:
    """Best time to prefill the suffix with no context at all, to its first token."""
    import mlx.core as mx
    from mlx_lm.models.cache import make_prompt_cache

    times = []
    for _ in range(runs):
        start = time.perf_counter()
        cache = make_prompt_cache(model)
        for i in range(0, len(suffix), step):
            out = model(mx.array(suffix[i : i + step])[None], cache=cache)
        int(mx.argmax(out[0, -1]).item())
        times.append(time.perf_counter() - start)
    return min(times)


def stock_lru(
    model: Any, pre: Any, prompt: list[int], prompt2: list[int], step: int
) -> tuple[int, float | None]:
    """mlx-lm server's reuse: store the cache after prompt + 4 generated tokens, then serve prompt2.

    Returns the tokens it reuses and its TTFT for prompt2 (None when it reuses nothing: then it is
    a cold prefill, already measured)."""
    import mlx.core as mx
    from mlx_lm.server import LRUPromptCache

    generated, logits = [], pre.logits.reshape(-1)
    for _ in range(4):  # the server stores prompt + reply
        token = int(mx.argmax(logits).item())
        generated.append(token)
        logits = model(mx.array([[token]]), cache=pre.cache)[0, -1]
    lru = LRUPromptCache(max_size=10)
    lru.insert_cache("model", prompt + generated, pre.cache)
    start = time.perf_counter()
    cache, rest = lru.fetch_nearest_cache("model", list(prompt2))
    reused = len(prompt2) - len(rest)
    if cache is None or reused == 0:
        return 0, None
    for i in range(0, len(rest), step):
        out = model(mx.array(rest[i : i + step])[None], cache=cache)
    int(mx.argmax(out[0, -1]).item())
    return reused, time.perf_counter() - start


def worker(args: dict[str, Any]) -> None:
    """The fresh process: load the model, time the suffix alone, then one prefill from disk."""
    import numpy as np

    from wikic.llm.cache.prefix import PrefixCache

    model, _, fingerprint, _ = load(args["model"])
    warm_up(model)  # first-call costs (thread pools, allocations) are not the cache's
    alone = suffix_only(model, args["segments"][-1], args["step"], 1)
    start = time.perf_counter()
    cache = PrefixCache(
        Path(args["dir"]), fingerprint=fingerprint, max_bytes=1 << 40, step_size=args["step"]
    )
    pre = cache.prefill(model, args["segments"])
    first_token(pre)
    ttft = time.perf_counter() - start
    np.save(args["logits"], np.array(pre.logits.reshape(-1)))
    print(
        json.dumps(
            {
                "ttft_s": ttft,
                "alone_s": alone,
                "load_s": pre.load_s,
                "prefill_s": pre.prefill_s,
                "loaded_bytes": pre.loaded_bytes,
                "cached_tokens": pre.cached_tokens,
                "source": pre.source,
            }
        )
    )


def fresh_process(
    flag: str, payload: dict[str, Any], env: dict[str, str] | None = None
) -> dict[str, Any]:
    """Run this script's worker `flag` in a new process; its last stdout line, as JSON."""
    proc = subprocess.run(
        [sys.executable, __file__, flag, json.dumps(payload)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
    )
    if proc.returncode != 0:
        raise SystemExit(f"fresh-process worker failed:\n{proc.stderr}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def kernel_worker(args: dict[str, Any]) -> None:
    """A fresh process: one cold prefill through the PrefixCache (nothing stored), timed."""
    import numpy as np

    from wikic.llm import cpu_kernels
    from wikic.llm.cache.prefix import PrefixCache

    model, _, fingerprint, _ = load(args["model"])
    warm_up(model)
    cache = PrefixCache(None, fingerprint=fingerprint, max_bytes=0, step_size=args["step"])
    pre, seconds = timed_prefill(cache, model, args["segments"])
    np.save(args["logits"], np.array(pre.logits.reshape(-1)))
    result = {"ttft_s": seconds, "prefill_s": pre.prefill_s, "first_token": first_token(pre)}
    print(json.dumps({**result, "kernels": cpu_kernels.installed(model)}))


def kernels_row(
    name: str, tokenizer: Any, length: int, suffix_len: int, step: int, repeats: int, log: Any
) -> dict[str, Any]:
    """Cold prefill of one prompt with mlx's kernels and with wikic's, alternated, fresh processes."""
    import os

    import numpy as np

    prompt = [tokens(tokenizer, TEXT, length, seed=1), tokens(tokenizer, TASK, suffix_len, 2)]
    arms: dict[str, list[dict[str, Any]]] = {"mlx": [], "numpy": []}
    logits: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="wikic-bench-") as tmp:
        for run in range(repeats):
            for arm in ("mlx", "numpy"):
                log(f"{name}: prefix {length}: {arm} kernels, run {run + 1}/{repeats} ...")
                path = Path(tmp) / f"{arm}.npy"
                payload = {"model": name, "segments": prompt, "step": step, "logits": str(path)}
                env = {**os.environ, "WIKIC_CPU_KERNELS": "off" if arm == "mlx" else "on"}
                arms[arm].append(fresh_process("--kernel-worker", payload, env))
                logits[arm] = np.load(path)
    n = length + suffix_len
    rate = {arm: [n / r["prefill_s"] for r in runs] for arm, runs in arms.items()}
    return {
        "model": name,
        "prefix_tokens": length,
        "suffix_tokens": suffix_len,
        "step_size": step,
        "runs_per_arm": repeats,
        "mlx_kernels_tok_s": round(max(rate["mlx"]), 1),
        "numpy_kernels_tok_s": round(max(rate["numpy"]), 1),
        "mlx_kernels_tok_s_median": round(statistics.median(rate["mlx"]), 1),
        "numpy_kernels_tok_s_median": round(statistics.median(rate["numpy"]), 1),
        "speedup_median": round(
            statistics.median(rate["numpy"]) / statistics.median(rate["mlx"]), 2
        ),
        "kernels_used": arms["numpy"][0]["kernels"],
        "max_logit_diff": float(np.abs(logits["mlx"] - logits["numpy"]).max()),
        "same_first_token": arms["mlx"][0]["first_token"] == arms["numpy"][0]["first_token"],
    }


def kernels_main(
    models: list[str], lengths: list[int], suffix_len: int, args: Any, log: Any
) -> None:
    rows = []
    for name in models:
        _, tokenizer, _, limit = load(name.strip())
        for length in lengths:
            if limit is not None and length + suffix_len > limit:
                log(f"{name}: skipping prefix {length} (context limit {limit})")
                continue
            row = kernels_row(
                name.strip(), tokenizer, length, suffix_len, args.step_size, args.repeats, log
            )
            rows.append(row)
            log(json.dumps(row))
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "bench_prefill-kernels.json"
    path.write_text(json.dumps(rows, indent=2) + "\n")
    cols = ["model", "prefix_tokens", "mlx_kernels_tok_s_median", "numpy_kernels_tok_s_median"]
    cols += ["speedup_median", "max_logit_diff", "same_first_token"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(str(r[c]) for c in cols) + " |" for r in rows]
    print("\n".join(lines) + f"\n\nJSON: {path}")
    if args.json:
        print(json.dumps(rows, indent=2))


def warm_from_disk(
    name: str, directory: Path, segments: list[list[int]], step: int
) -> tuple[dict[str, Any], Any]:
    import numpy as np

    logits_path = directory / "disk_logits.npy"
    payload = {
        "model": name,
        "dir": str(directory),
        "segments": segments,
        "step": step,
        "logits": str(logits_path),
    }
    return fresh_process("--worker", payload), np.load(logits_path)


def bench_row(
    name: str,
    model: Any,
    tokenizer: Any,
    fingerprint: str,
    length: int,
    suffix_len: int,
    step: int,
    repeats: int,
    log: Any,
) -> dict[str, Any]:
    """One prefix length. Every warm run is paired with a suffix-alone run just before it, in the
    same process: their ratio holds up when other processes slow the CPU down."""
    import numpy as np

    from wikic.llm.cache.prefix import PrefixCache

    prefix = tokens(tokenizer, TEXT, length, seed=1)
    suffix, suffix2 = tokens(tokenizer, TASK, suffix_len, 2), tokens(tokenizer, TASK, suffix_len, 3)
    segments = [prefix, suffix]
    with tempfile.TemporaryDirectory(prefix="wikic-bench-") as tmp:
        directory = Path(tmp)
        cache = PrefixCache(directory, fingerprint=fingerprint, max_bytes=1 << 40, step_size=step)
        log(f"{name}: prefix {length}: cold ...")
        cold, cold_s = timed_prefill(cache, model, segments)
        cold_logits = np.array(cold.logits.reshape(-1))
        final = cache.keys(model, segments)[-1]
        stored = sum(p.stat().st_size for p in directory.glob("*.kvc"))
        stock_reused, stock_s = stock_lru(model, cold, prefix + suffix, prefix + suffix2, step)

        mem, diffs = [], []
        for _ in range(repeats):
            alone = suffix_only(model, suffix, step, 1)
            cache.discard(final)  # keep the prefix, drop the exact hit: the suffix is new
            warm, warm_s = timed_prefill(cache, model, segments)
            diffs.append(float(np.abs(np.array(warm.logits.reshape(-1)) - cold_logits).max()))
            mem.append((warm_s, alone, warm))
        log(f"{name}: prefix {length}: warm from disk in fresh processes ...")
        disk = []
        for _ in range(repeats):
            cache.discard(final)
            result, logits = warm_from_disk(name, directory, segments, step)
            diffs.append(float(np.abs(logits - cold_logits).max()))
            disk.append(result)
    best_mem = min(mem, key=lambda m: m[0])
    best_disk = min(disk, key=lambda d: d["ttft_s"])
    mb = best_disk["loaded_bytes"] / 2**20
    return {
        "model": name,
        "prefix_tokens": length,
        "suffix_tokens": suffix_len,
        "cold_ttft_s": round(cold_s, 4),
        "cold_prefill_tok_s": round((length + suffix_len) / cold.prefill_s, 1),
        "warm_mem_ttft_s": round(best_mem[0], 4),
        "warm_mem_cached_tokens": best_mem[2].cached_tokens,
        "warm_mem_load_s": round(best_mem[2].load_s, 4),
        "warm_disk_ttft_s": round(best_disk["ttft_s"], 4),
        "warm_disk_load_s": round(best_disk["load_s"], 4),
        "warm_disk_prefill_s": round(best_disk["prefill_s"], 4),
        "warm_disk_cached_tokens": best_disk["cached_tokens"],
        "disk_loaded_mb": round(mb, 2),
        "load_ms_per_mb": round(1000 * best_disk["load_s"] / mb, 3) if mb else None,
        "suffix_only_s": round(min([m[1] for m in mem] + [d["alone_s"] for d in disk]), 4),
        "warm_mem_over_suffix_only": round(statistics.median(m[0] / m[1] for m in mem), 2),
        "warm_disk_over_suffix_only": round(
            statistics.median(d["ttft_s"] / d["alone_s"] for d in disk), 2
        ),
        "stock_reused_tokens": stock_reused,
        "stock_warm_ttft_s": round(stock_s, 4) if stock_s is not None else None,
        "max_logit_diff": max(diffs),
        "stored_bytes": stored,
    }


def bench_model(
    name: str, lengths: list[int], suffix_len: int, step: int, repeats: int, log: Any
) -> list[dict[str, Any]]:
    model, tokenizer, fingerprint, limit = load(name)
    window = sliding_window(model)
    warm_up(model)
    rows = []
    for length in lengths:
        if limit is not None and length + suffix_len > limit:
            log(f"{name}: skipping prefix {length} (context limit {limit})")
            continue
        row = bench_row(name, model, tokenizer, fingerprint, length, suffix_len, step, repeats, log)
        rows.append({"model": name, "sliding_window": window is not None, "window": window, **row})
        log(json.dumps(rows[-1]))
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    cols = [
        ("model", "model"),
        ("window", "window"),
        ("prefix_tokens", "prefix"),
        ("suffix_tokens", "suffix"),
        ("cold_prefill_tok_s", "cold tok/s"),
        ("cold_ttft_s", "cold TTFT s"),
        ("warm_mem_ttft_s", "warm mem s"),
        ("warm_disk_ttft_s", "warm disk s"),
        ("suffix_only_s", "suffix alone s"),
        ("warm_mem_over_suffix_only", "mem/alone"),
        ("warm_disk_over_suffix_only", "disk/alone"),
        ("load_ms_per_mb", "load ms/MB"),
        ("stock_reused_tokens", "stock reused"),
        ("max_logit_diff", "max |Δlogit|"),
    ]
    lines = ["| " + " | ".join(h for _, h in cols) + " |", "|" + "---|" * len(cols)]
    for row in rows:
        lines.append(
            "| " + " | ".join("-" if row[k] is None else str(row[k]) for k, _ in cols) + " |"
        )
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]], path: Path) -> str:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed: no plot (pip install matplotlib)"
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    for model in dict.fromkeys(r["model"] for r in rows):
        mine = [r for r in rows if r["model"] == model]
        xs = [r["prefix_tokens"] for r in mine]
        left.plot(xs, [r["cold_prefill_tok_s"] for r in mine], marker="o", label=model)
        for key, style in (
            ("cold_ttft_s", "-"),
            ("warm_disk_ttft_s", "--"),
            ("suffix_only_s", ":"),
        ):
            right.plot(xs, [r[key] for r in mine], style, marker="o", label=f"{model} {key[:-2]}")
    left.set(xlabel="prefix tokens", ylabel="cold prefill tok/s", title="Prefill speed vs context")
    right.set(xlabel="prefix tokens", ylabel="seconds", yscale="log", title="Time to first token")
    left.legend(fontsize=7)
    right.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return f"plot: {path}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--models",
        help=f"comma-separated (default: {','.join(DEFAULT_MODELS)}); "
        "tiny:<llama|qwen2|gemma3_text> needs no model store",
    )
    parser.add_argument(
        "--prefix-lengths", help="comma-separated token counts (default 512,2048,8192)"
    )
    parser.add_argument("--suffix-tokens", type=int, default=64, help="tokens of the new task (64)")
    parser.add_argument("--step-size", type=int, default=256, help="prefill chunk (256)")
    parser.add_argument(
        "--repeats",
        type=int,
        default=3,
        help="warm and suffix-alone runs per row; the best is kept (3)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="one prefix length (600), 32-token suffix"
    )
    parser.add_argument("--json", action="store_true", help="print the rows as JSON on stdout")
    parser.add_argument(
        "--out", type=Path, default=REPO / ".cache" / "bench", help="where JSON/PNG go"
    )
    parser.add_argument(
        "--kernels",
        action="store_true",
        help="compare cold prefill with mlx's kernels and with wikic's numpy softmax/SwiGLU",
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--kernel-worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(json.loads(args.worker))
    if args.kernel_worker:
        return kernel_worker(json.loads(args.kernel_worker))

    models = args.models.split(",") if args.models else DEFAULT_MODELS
    lengths = (
        [int(x) for x in args.prefix_lengths.split(",")]
        if args.prefix_lengths
        else (QUICK_LENGTHS if args.quick else DEFAULT_LENGTHS)
    )
    suffix_len = 32 if args.quick and args.suffix_tokens == 64 else args.suffix_tokens
    if args.quick:
        args.repeats = 1

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    if args.kernels:
        return kernels_main(models, lengths, suffix_len, args, log)
    rows = []
    for name in models:
        rows += bench_model(name.strip(), lengths, suffix_len, args.step_size, args.repeats, log)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "bench_prefill.json").write_text(json.dumps(rows, indent=2) + "\n")
    note = plot(rows, args.out / "bench_prefill.png") if rows else "no rows: no plot"
    report = f"{table(rows)}\n\n{note}; JSON: {args.out / 'bench_prefill.json'}"
    if args.json:
        log(report)
        print(json.dumps(rows, indent=2))
    else:
        print(report)


if __name__ == "__main__":
    main()
