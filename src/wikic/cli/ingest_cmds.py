"""`wikic ingest`: compile sources from raw/ into the wiki."""

from __future__ import annotations

import contextlib
import functools
import sys
from pathlib import Path

import typer
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from wikic.cli import backends
from wikic.cli.app import (
    JSON_OPTION,
    NO_WAIT_OPTION,
    app,
    current_paths,
    err_console,
    out_console,
    print_json,
    waiting_message,
)
from wikic.cli.progress import showing
from wikic.cli.syncing import SYNC_OPTION, after_write
from wikic.ingest.pipeline import IngestReport, IngestRequest, ProgressEvent, ingest
from wikic.paths import WikiPaths
from wikic.vault.sources import SkippedRaw, scan_raw


@app.command("ingest")
def ingest_cmd(
    sources: list[Path] = typer.Argument(
        None, help="Source files or folders under raw/ (default: none; see --all)."
    ),
    all_new: bool = typer.Option(False, "--all", help="Ingest every new or changed source."),
    force: bool = typer.Option(False, "--force", help="Re-ingest sources that did not change."),
    rebuild: bool = typer.Option(
        False,
        "--rebuild",
        help="Recompile every source from scratch: remove the compiled pages (sources, entities, "
        "concepts; analyses stay) in one commit, then ingest all of raw/.",
    ),
    dry_run: bool = typer.Option(
        False,
        "--dry-run",
        help="Extract and print the plan (pages to create/update); write nothing.",
    ),
    model: str | None = typer.Option(
        None, "--model", "-m", help="Model for every role of this run."
    ),
    no_wait: bool = NO_WAIT_OPTION,
    sync_after: bool = SYNC_OPTION,
    json_out: bool = JSON_OPTION,
) -> None:
    """Compile sources into source pages and entity/concept pages, with cited facts,
    contradictions, index.md, log.md and one git commit per source. Unchanged sources are
    skipped; a source that cannot be read is reported and the batch goes on."""
    paths = current_paths()
    request = IngestRequest(tuple(sources or ()), all_new, force, dry_run, rebuild)
    extract = functools.cache(lambda: backends.for_role(paths, "extract", model))
    write = functools.cache(lambda: backends.for_role(paths, "write", model))
    show_progress = sys.stderr.isatty()
    with _progress(show_progress) as on_event:
        report = ingest(
            paths,
            request,
            extract_backend=extract,
            write_backend=write,
            progress=on_event,
            wait=0 if no_wait else None,
            on_wait=waiting_message,
        )
    skipped = _skipped(paths, request)
    for item in skipped:
        err_console().print(f"Warning: skipped {item.rel}: {item.reason}", markup=False)
    if json_out:
        stats = report.total_stats()
        print_json(
            {
                "dry_run": report.dry_run,
                "sources": [o.to_dict() for o in report.outcomes],
                "revisited": [o.to_dict() for o in report.revisited if o.status != "skipped"],
                "skipped": [{"raw": s.rel, "reason": s.reason} for s in skipped],
                "stats": stats.to_dict(),
                "stages": report.stages(),
            }
        )
    else:
        _render(report)
    if not report.dry_run:
        after_write(paths, sync_after)
    if report.failed:
        raise typer.Exit(1)


def _skipped(paths: WikiPaths, request: IngestRequest) -> list[SkippedRaw]:
    """The raw/ files a listing of this run passed over (--all, or a folder given), with why."""
    found = scan_raw(paths).skipped
    if request.all_new:
        return list(found)
    root = paths.root.resolve()
    prefixes = []
    for given in request.paths:
        for full in (Path.cwd() / given, paths.root / given):
            full = full.resolve()
            if full.is_dir() and full.is_relative_to(root):
                prefixes.append(full.relative_to(root).as_posix().rstrip("/") + "/")
                break
    return [s for s in found if prefixes and s.rel.startswith(tuple(prefixes))]


class _progress:
    """A rich progress display on a TTY, one plain line per stage otherwise (on stderr)."""

    def __init__(self, live: bool) -> None:
        self.live = live
        self.bar: Progress | None = None
        self.task: object = None
        self.shown = contextlib.ExitStack()

    def __enter__(self):  # type: ignore[no-untyped-def]
        if self.live:
            self.bar = Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.completed}/{task.total}"),
                TimeElapsedColumn(),
                console=err_console(),
                transient=True,
            )
            self.bar.__enter__()
            self.task = self.bar.add_task("ingest", total=None)
            self.shown.enter_context(showing(self.bar))  # a first-use model install pauses it
        return self.on_event

    def __exit__(self, *exc: object) -> None:
        self.shown.close()
        if self.bar is not None:
            self.bar.__exit__(None, None, None)

    def on_event(self, event: ProgressEvent) -> None:
        text = f"[{event.index}/{event.total}] {event.source}: {event.stage}"
        if event.detail:
            text += f" ({event.detail})"
        if self.bar is not None:
            done = max(0, event.index - (0 if event.stage in ("done", "failed") else 1))
            self.bar.update(self.task, description=text, total=event.total, completed=done)  # type: ignore[arg-type]
        elif event.stage in ("done", "failed", "extract", "write", "clear"):
            err_console().print(text, markup=False)


def _render(report: IngestReport) -> None:
    console = out_console()
    for o in report.outcomes:
        if o.status == "unchanged":
            console.print(f"unchanged  {o.raw}", markup=False)
            continue
        if o.status == "failed":
            err_console().print(f"[red]failed[/]     {o.raw}: {o.error}")
            continue
        verb = "planned" if o.status == "planned" else "ingested"
        console.print(f"{verb:<10} {o.raw} → {o.source_page}", markup=False)
        for path in o.created:
            console.print(f"  create   {path}", markup=False)
        for path in o.updated:
            console.print(f"  update   {path}", markup=False)
        for c in o.contradictions:
            console.print(f"  conflict {c['page']}: {c['why']}", markup=False)
        if o.retracted:
            console.print(f"  retracted {o.retracted} fact(s)", markup=False)
        for path in o.unsupported:
            console.print(f"  unsupported {path}", markup=False)
        if o.kept_edits:
            console.print(f"  kept     your edits: {', '.join(o.kept_edits)}", markup=False)
    for o in report.revisited:  # earlier sources that now cite pages this run made
        if o.status == "failed":
            err_console().print(f"[red]failed[/]     {o.raw} (revisited): {o.error}")
        elif o.status in ("revisited", "planned"):
            console.print(f"{'revisit':<10} {o.raw} → {o.source_page}", markup=False)
            for path in o.updated:
                console.print(f"  update   {path}", markup=False)
    stats = report.total_stats()
    if stats.calls:
        console.print(
            f"{stats.calls} model calls: {stats.prompt_tokens} prompt tokens "
            f"({stats.cached_tokens} cached), {stats.generated_tokens} generated",
            markup=False,
        )
