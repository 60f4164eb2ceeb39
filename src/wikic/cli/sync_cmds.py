"""`wikic sync`: share the wiki through its git remote."""

from __future__ import annotations

import typer

from wikic.cli.app import (
    JSON_OPTION,
    NO_WAIT_OPTION,
    app,
    current_paths,
    out_console,
    print_json,
    waiting_message,
)
from wikic.cli.notices import warn
from wikic.cli.syncing import EXIT_OFFLINE, summary
from wikic.errors import WikicError
from wikic.store.db import after_commit
from wikic.sync import SyncReport, sync

EXIT_CODES = (
    f"Exit codes: 0 synced, 1 an error or a conflict left to resolve, {EXIT_OFFLINE} the remote "
    "could not be reached (the commits stay here; run it again later)."
)


@app.command("sync", epilog=EXIT_CODES)
def sync_cmd(
    remote: str | None = typer.Option(
        None,
        "--remote",
        help="The git remote to sync with (default: the branch's upstream, else origin).",
    ),
    no_wait: bool = NO_WAIT_OPTION,
    json_out: bool = JSON_OPTION,
) -> None:
    """Share the wiki through its git remote: fetch, integrate the remote's commits, push
    ours. Pages both sides changed merge by the page logic (facts once under their block ids,
    sources and aliases united), index.md is generated again from the merged pages and
    log.md keeps every entry of both sides, in time order. Text people edited two ways stops
    the sync with the merge left open, naming the file."""
    paths = current_paths()
    report = sync(
        paths,
        remote=remote,
        wait=0 if no_wait else None,
        on_wait=waiting_message,
        on_commit=after_commit,
    )
    if json_out:
        print_json(report.to_dict())
    else:
        _render(report)
    if report.upstream is None:
        raise WikicError(
            "this wiki's git repository has no remote to sync with",
            hint="Add one: git remote add origin URL (a bare repository others can reach).",
        )
    if not report.synced:
        raise typer.Exit(EXIT_OFFLINE)


def _render(report: SyncReport) -> None:
    for note in report.notes:
        warn(note)
    if report.upstream is None:
        return
    if not report.synced:
        warn(f"not synced: {report.notice}; the commits stay here and the next sync sends them")
        return
    console = out_console()
    console.print(summary(report), markup=False)
    for path in report.merged:
        console.print(f"  merged   {path}", markup=False)
