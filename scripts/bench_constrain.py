"""What schema-constrained decoding costs: decode tok/s free vs constrained, with and without
fast-forward of forced tokens, and the time llguidance spends on one token mask.

    python scripts/bench_constrain.py                      # smollm2-135m and qwen2.5-coder-0.5b
    python scripts/bench_constrain.py --models smollm2-135m --max-tokens 64 --json

Models come from the wikic model store (`wikic model install NAME`; WIKIC_MODELS_DIR picks
another store, e.g. the tests' .cache/test-models). The prompt is prefilled once
and reused from the prefix cache, so every row times decoding only. On a shared CPU the numbers
are noisy: compare rows of one run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from wikic.config import Config
from wikic.errors import WikicError
from wikic.llm.backend import Generation, system, user

ARTICLE = (
    "The Rhine Falls, near the Swiss town of Neuhausen am Rheinfall, is the largest plain "
    "waterfall in Europe. It is 150 metres wide and 23 metres high. The falls formed about "
    "14,000 years ago, during the last ice age.\n\nIn winter the average flow is 250 cubic "
    "metres per second, and in summer it reaches 600. Boats take visitors to a rock in the "
    "middle of the falls. The Laufen Castle stands on the southern bank.\n\nJ. M. W. Turner "
    "painted the falls several times, and Goethe described them in 1797. Today about one "
    "million people visit the falls every year.\n"
)


class Entity(BaseModel):
    name: str = Field(max_length=40)
    kind: Literal["place", "person", "organization", "thing"]
    aliases: list[Annotated[str, Field(max_length=40)]] = Field(max_length=2)


class Claim(BaseModel):
    text: str = Field(max_length=120)
    evidence: str = Field(max_length=120)


class Extraction(BaseModel):
    title: str = Field(max_length=60)
    summary: str = Field(max_length=200)
    entities: list[Entity] = Field(max_length=4)
    claims: list[Claim] = Field(max_length=3)


PROMPT = [
    system("You extract structured facts from sources. Reply with JSON only."),
    user(ARTICLE),
    user(
        "\nReturn a JSON object with keys title, summary, entities (name, kind, aliases) and "
        "claims (text, evidence quoted from the text)."
    ),
]


@dataclass
class Row:
    model: str
    mode: str  # free | json | json-no-ff
    generated_tokens: int
    forced_tokens: int
    decode_s: float
    tok_s: float  # all generated tokens (forced included) per decode second
    sampled_tok_s: float  # tokens the model chose per decode second
    mask_ms: float  # llguidance mask per sampled token (json modes)
    valid: bool | None  # the reply validates (json modes; None for free text)


def _row(model: str, mode: str, runs: list[Generation], mask_ms: float, schema: Any) -> Row:
    decode_s = statistics.median(r.stats.decode_s for r in runs)
    last = runs[-1]
    generated, forced = last.stats.generated_tokens, last.stats.forced_tokens
    valid: bool | None = None
    if schema is not None:
        valid = True
        try:
            schema.model_validate_json(last.text)
        except ValueError:
            valid = False
    return Row(
        model=model,
        mode=mode,
        generated_tokens=generated,
        forced_tokens=forced,
        decode_s=round(decode_s, 3),
        tok_s=round(generated / decode_s, 2) if decode_s else 0.0,
        sampled_tok_s=round((generated - forced) / decode_s, 2) if decode_s else 0.0,
        mask_ms=round(mask_ms, 3),
        valid=valid,
    )


def _mask_ms(backend: Any, text: str) -> float:
    """Replay a constrained reply through a fresh matcher, timing each mask computation."""
    matcher = backend.json_matcher(Extraction)
    tokens = backend.framer.encode_data(text)
    times = []
    for token in tokens:
        start = time.perf_counter()
        allowed = matcher.allowed()
        times.append(time.perf_counter() - start)
        if not allowed[token]:
            break  # the reply's own tokenization may differ from the sampled one; stop here
        matcher.consume([token])
    return statistics.median(times) * 1000 if times else 0.0


def bench_model(name: str, *, max_tokens: int, repeat: int) -> list[Row]:
    from wikic.llm.cache.prefix import PrefixCache
    from wikic.llm.mlx_backend import MlxBackend
    from wikic.llm.models.resolve import load_mlx_model, resolve_model

    resolved = resolve_model(name, Config())
    model, tokenizer = load_mlx_model(resolved)
    cache = PrefixCache(None, fingerprint=resolved.fingerprint, max_bytes=1 << 31)
    backend = MlxBackend(model, tokenizer, name=name, prefix_cache=cache, max_context_tokens=4096)
    backend.generate_once(PROMPT, schema=Extraction, max_tokens=4)  # prefill, grammar, warm-up

    modes: dict[str, tuple[Any, bool]] = {
        "free": (None, True),
        "json": (Extraction, True),
        "json-no-ff": (Extraction, False),
    }
    runs: dict[str, list[Generation]] = {mode: [] for mode in modes}
    for _ in range(repeat):  # modes interleaved, so load from other processes hits all alike
        for mode, (schema, fast_forward) in modes.items():
            backend.fast_forward = fast_forward
            runs[mode].append(backend.generate_once(PROMPT, schema=schema, max_tokens=max_tokens))
    backend.fast_forward = True
    free, constrained, no_ff = runs["free"], runs["json"], runs["json-no-ff"]
    mask = _mask_ms(backend, constrained[-1].text)
    log_text = constrained[-1].text
    print(f"{name} json reply: {log_text}", file=sys.stderr)
    return [
        _row(name, "free", free, 0.0, None),
        _row(name, "json", constrained, mask, Extraction),
        _row(name, "json-no-ff", no_ff, mask, Extraction),
    ]


def _yes_no(value: bool | None) -> str:
    return "-" if value is None else "yes" if value else "no"


def markdown(rows: list[Row]) -> str:
    lines = [
        "| model | mode | tokens | forced | decode s | tok/s | sampled tok/s | mask ms | valid |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.model} | {r.mode} | {r.generated_tokens} | {r.forced_tokens} | {r.decode_s} "
            f"| {r.tok_s} | {r.sampled_tok_s} | {r.mask_ms} | {_yes_no(r.valid)} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=["smollm2-135m", "qwen2.5-coder-0.5b"])
    parser.add_argument("--max-tokens", type=int, default=320)
    parser.add_argument("--repeat", type=int, default=1, help="runs per mode (median decode s)")
    parser.add_argument("--json", action="store_true", help="print rows as JSON")
    args = parser.parse_args(argv)
    rows: list[Row] = []
    for name in args.models:
        print(f"benchmarking {name} …", file=sys.stderr)
        try:
            rows += bench_model(name, max_tokens=args.max_tokens, repeat=args.repeat)
        except WikicError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
    print(json.dumps([asdict(r) for r in rows], indent=2) if args.json else markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
