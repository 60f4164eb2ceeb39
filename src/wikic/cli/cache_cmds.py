"""`wikic cache stats | clear`: inspect or empty the prefix cache of the current wiki.

Reads the on-disk index only, so neither command needs (or imports) mlx.
"""

from __future__ import annotations

from dataclasses import asdict

import typer
from rich.table import Table

from wikic.cli.app import JSON_OPTION, app, out_console, print_json, state
from wikic.llm.cache.disk import DiskStats, DiskStore
from wikic.paths import open_paths

cache_app = typer.Typer(
    help="Inspect or empty the prefix cache (the saved KV state of shared prompt prefixes).",
    no_args_is_help=True,
)
app.add_typer(cache_app, name="cache")


def _store() -> DiskStore:
    paths = open_paths(state().wiki_dir)
    return DiskStore(paths.kv_cache, paths.config.cache.max_bytes)


@cache_app.command("stats")
def stats_cmd(json_out: bool = JSON_OPTION) -> None:
    """Show entries, size against the budget, hits and the prefill time the cache saved."""
    store = _store()
    stats = store.stats()
    if json_out:
        print_json({**asdict(stats), "max_bytes": store.max_bytes})
        return
    _render(stats, store.max_bytes)


@cache_app.command("clear")
def clear_cmd(json_out: bool = JSON_OPTION) -> None:
    """Delete every cached prefix (safe: the next calls recompute what they need)."""
    store = _store()
    removed = store.clear()
    if json_out:
        print_json({"directory": str(store.directory), "removed": removed})
        return
    out_console().print(
        f"Removed {removed} cached prefix entr{'y' if removed == 1 else 'ies'} from {store.directory}"
    )


def _render(stats: DiskStats, max_bytes: int) -> None:
    console = out_console()
    calls = stats.hits + stats.misses
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
    table.add_row("directory", stats.directory)
    table.add_row("entries", f"{stats.entries} ({stats.tokens:,} tokens of KV state)")
    share = f" ({100 * stats.bytes / max_bytes:.0f}%)" if max_bytes else ""
    table.add_row("size", f"{_human(stats.bytes)} of {_human(max_bytes)}{share}")
    hit_rate = f" ({100 * stats.hits / calls:.0f}% hits)" if calls else ""
    table.add_row("calls", f"{calls}: {stats.hits} hits, {stats.misses} misses{hit_rate}")
    table.add_row("tokens", f"{stats.cached_tokens:,} reused, {stats.prefill_tokens:,} prefilled")
    table.add_row("prefill saved", f"~{stats.saved_s:.1f} s")
    table.add_row("evictions", str(stats.evictions))
    for label, per in sorted(stats.by_label.items()):
        table.add_row(f"model {label}", f"{per['entries']} entries, {_human(per['bytes'])}")
    console.print(table)


def _human(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"
