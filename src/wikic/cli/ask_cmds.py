"""`wikic ask "PROMPT"`: one plain generation through the configured model, streamed.

Inside a wiki it uses the wiki's wikic.yaml, sends AGENTS.md as the system segment and shares the
wiki's prefix cache; outside one it uses the defaults and a cache in memory only.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import typer

from wikic.cli import backends
from wikic.cli.app import JSON_OPTION, app, err_console, out_console, print_json, state
from wikic.cli.progress import showing
from wikic.config import Config
from wikic.errors import UsageError
from wikic.llm.backend import Generation, Segment, system, user
from wikic.paths import find_root, open_paths


@dataclass(frozen=True)
class AskSetup:
    """What `ask` runs with: config, prompt segments and where the prefix cache lives."""

    config: Config
    segments: list[Segment]
    cache_dir: Path | None
    wiki_root: Path | None


def ask_setup(prompt: str, *, model: str | None, use_system: bool) -> AskSetup:
    """Find the wiki (if any) and build the prompt; `model` overrides the configured one."""
    if not prompt.strip():
        raise UsageError("the prompt is empty", hint='Pass the question, e.g. wikic ask "Hi?"')
    wiki_dir = state().wiki_dir
    root = find_root(wiki_dir or Path.cwd())
    if wiki_dir is not None and root is None:
        open_paths(wiki_dir)  # raises the usual "not a wiki" error with its hint
    segments: list[Segment] = []
    if root is None:
        config, cache_dir = Config(), None
    else:
        paths = open_paths(root)
        config, cache_dir = paths.config, paths.kv_cache
        if use_system and paths.agents_md.is_file():
            segments.append(system(paths.agents_md.read_text(encoding="utf-8")))
    config = backends.config_with_model(config, model)
    segments.append(user(prompt))
    return AskSetup(config, segments, cache_dir, root)


@app.command()
def ask(
    prompt: str = typer.Argument(..., help="The question or instruction for the model."),
    model: str | None = typer.Option(
        None,
        "--model",
        "-m",
        help="Model to use: a built-in name (`wikic model list`), an HF repo id or a local MLX "
        "directory. Default: the `query` model of wikic.yaml.",
    ),
    max_tokens: int = typer.Option(256, "--max-tokens", min=1, help="Longest reply, in tokens."),
    temperature: float | None = typer.Option(
        None, "--temperature", min=0.0, help="Sampling temperature (default: wikic.yaml, 0)."
    ),
    no_system: bool = typer.Option(
        False, "--no-system", help="Do not send the wiki's AGENTS.md as the system prompt."
    ),
    json_out: bool = JSON_OPTION,
) -> None:
    """Ask the configured model one question and stream the answer: a quick check that the
    model works (inside a wiki: its config, with AGENTS.md as the system prompt)."""
    setup = ask_setup(prompt, model=model, use_system=not no_system)
    config = setup.config
    started = time.perf_counter()
    with err_console().status(f"Loading {config.model_for('query')} …") as status, showing(status):
        backend = backends.build(config, "query", setup.cache_dir)
    load_s = time.perf_counter() - started
    console = out_console()
    streamed: list[str] = []

    def show(piece: str) -> None:
        streamed.append(piece)
        console.print(piece, end="", markup=False, highlight=False)

    result = backend.generate(
        setup.segments,
        max_tokens=max_tokens,
        temperature=config.generation.temperature if temperature is None else temperature,
        seed=config.generation.seed,
        on_text=None if json_out else show,
    )
    if json_out:
        print_json(
            {
                "model": backend.model_name,
                "backend": config.backend,
                "wiki": str(setup.wiki_root) if setup.wiki_root else None,
                "text": result.text,
                "finish_reason": result.finish_reason,
                "load_s": round(load_s, 3),
                "stats": result.stats.to_dict(),
            }
        )
        return
    if streamed and not streamed[-1].endswith("\n"):
        console.print()
    err_console().print(_summary(backend.model_name, result), markup=False, highlight=False)


def _summary(model: str, result: Generation) -> str:
    s = result.stats
    decode_rate = s.generated_tokens / s.decode_s if s.decode_s > 0 else 0.0
    line = (
        f"[{model}] {s.prompt_tokens} prompt tokens ({s.cached_tokens} cached), "
        f"{s.generated_tokens} generated; prefill {s.prefill_s:.2f} s, "
        f"decode {s.decode_s:.2f} s ({decode_rate:.1f} tok/s)"
    )
    if result.finish_reason == "length":
        line += "; cut off at --max-tokens"
    return line
