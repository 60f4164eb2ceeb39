"""`wikic consolidate`: move what recurs in episodes (dated notes) into the semantic wiki."""

from __future__ import annotations

import datetime as dt
import functools
import sys

import typer

from wikic.cli import backends
from wikic.cli.app import (
    JSON_OPTION,
    NO_WAIT_OPTION,
    app,
    current_paths,
    err_console,
    out_console,
    print_error,
    print_json,
    waiting_message,
)
from wikic.cli.syncing import SYNC_OPTION, after_write
from wikic.consolidate import (
    EXIT_BUSY,
    ConsolidateReport,
    ConsolidateRequest,
    ProgressEvent,
    consolidate,
)
from wikic.errors import LockBusyError, UsageError

EPILOG = (
    "\b\nExit codes (for cron):\n"
    "  0   every due period consolidated (or none was due)\n"
    "  1   a period failed (the others are committed), or wikic itself failed\n"
    "  2   usage error\n"
    f"  {EXIT_BUSY}  --no-wait found another wikic process writing the wiki: nothing was changed,\n"
    "      try again later (EX_TEMPFAIL)\n"
    "\b\nCron example: wikic -C ~/wiki consolidate --no-wait --json > last-consolidate.json"
)


def _date(value: str | None, option: str) -> dt.date | None:
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"{option} {value!r} is not a date", hint="Use YYYY-MM-DD.") from None


@app.command("consolidate", epilog=EPILOG)
def consolidate_cmd(
    since: str | None = typer.Option(
        None, "--since", metavar="DATE", help="Only episodes dated on or after DATE (YYYY-MM-DD)."
    ),
    until: str | None = typer.Option(
        None, "--until", metavar="DATE", help="Only episodes dated on or before DATE (YYYY-MM-DD)."
    ),
    period: str | None = typer.Option(
        None,
        "--period",
        metavar="week|day",
        help="One digest and one commit per ISO week or per day (default: consolidate.period).",
    ),
    force: bool = typer.Option(
        False,
        "--force",
        help="Redo periods already consolidated: replace what consolidation wrote for them "
        "(lines you edited stay).",
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Print the due periods and their episodes; no model, no writes."
    ),
    model: str | None = typer.Option(None, "--model", "-m", help="Model for this run."),
    no_wait: bool = NO_WAIT_OPTION,
    sync_after: bool = SYNC_OPTION,
    json_out: bool = JSON_OPTION,
) -> None:
    """Consolidate episodes (dated notes: daily logs, journals) not yet consolidated, oldest
    first: a digest page per period citing the episodes, patterns found in 3 or more distinct
    episodes extracted to the most specific page (or a new concept page), links from each
    episode to what it exemplifies, and `consolidated` + `gist` properties on the episode.
    One commit per period; re-running is a no-op for consolidated periods."""
    if period not in (None, "week", "day"):
        raise UsageError(f"--period must be week or day, not {period!r}")
    request = ConsolidateRequest(
        since=_date(since, "--since"),
        until=_date(until, "--until"),
        period="day" if period == "day" else "week" if period == "week" else None,
        force=force,
        dry_run=dry_run,
    )
    paths = current_paths()
    backend = functools.cache(lambda: backends.for_role(paths, "write", model))
    live = sys.stderr.isatty() and not json_out
    try:
        report = consolidate(
            paths,
            request,
            backend=backend,
            progress=_show_progress if live else None,
            wait=0 if no_wait else None,
            on_wait=waiting_message,
        )
    except LockBusyError as exc:
        print_error(
            LockBusyError(
                f"{exc.message}; nothing was consolidated",
                hint="Try again later (cron: the next run will).",
            )
        )
        raise typer.Exit(EXIT_BUSY) from None
    if json_out:
        print_json(report.to_dict())
    else:
        _render(report)
    if not dry_run:
        after_write(paths, sync_after)
    raise typer.Exit(report.exit_code)


def _show_progress(event: ProgressEvent) -> None:
    text = f"[{event.index}/{event.total}] {event.period}: {event.stage}"
    err_console().print(text + (f" ({event.detail})" if event.detail else ""), markup=False)


def _render(report: ConsolidateReport) -> None:
    console = out_console()
    if not report.outcomes:
        console.print("Nothing to consolidate: every episode is consolidated.", markup=False)
        return
    for o in report.outcomes:
        if o.status == "failed":
            err_console().print(f"[red]failed[/]        {o.period}: {o.error}")
            continue
        verb = "planned" if o.status == "planned" else "consolidated"
        redo = " (redo)" if o.redo else ""
        console.print(
            f"{verb:<13} {o.period}{redo}: {len(o.episodes)} episode(s), {o.batches} batch(es)",
            markup=False,
        )
        if o.status == "planned":
            for ep in o.episodes:
                console.print(f"  episode  {ep}", markup=False)
            continue
        console.print(f"  digest   {o.digest}", markup=False)
        for p in o.patterns:
            n = len(p["episodes"])  # type: ignore[arg-type]
            console.print(f"  pattern  {p['name']} → {p['page']}#{p['section']} ({n} episodes)")
        for r in o.rejected:
            console.print(f"  recurs   {r['name']}: {r['why']}", markup=False)
    n = report.episodes
    if n:
        console.print(
            f"{n} episode(s) in {report.seconds:.1f} s ({report.seconds / n:.1f} s per episode)",
            markup=False,
        )
