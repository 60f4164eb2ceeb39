"""Commands on the wiki itself: init, status, log, undo."""

from __future__ import annotations

from pathlib import Path

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
from wikic.cli.syncing import SYNC_OPTION, after_write
from wikic.init import init_wiki
from wikic.operation.transaction import recover_if_idle
from wikic.status import read_log, wiki_status
from wikic.undo import undo_last


@app.command()
def init(
    directory: Path = typer.Argument(Path("."), help="Where to create the wiki (default: here)."),
    json_out: bool = JSON_OPTION,
) -> None:
    """Create a wiki: AGENTS.md (schema), wikic.yaml, raw/, wiki/index.md, wiki/log.md, and a
    first commit. Works in an empty directory, an existing git repo or an Obsidian vault."""
    result = init_wiki(directory)
    if json_out:
        print_json(
            {
                "root": str(result.root),
                "created_repo": result.created_repo,
                "commit": result.result.commit,
                "files": list(result.result.changed),
            }
        )
        return
    console = out_console()
    console.print(f"Created a wiki in {result.root}")
    for path in result.result.changed:
        console.print(f"  {path}")
    console.print("Next: put sources in raw/ and run `wikic ingest --all`.")


@app.command()
def status(
    recent: int = typer.Option(5, "--recent", "-n", min=0, help="How many recent operations."),
    json_out: bool = JSON_OPTION,
) -> None:
    """Show sources (new / changed / ingested / missing), pages by type and recent operations."""
    paths = current_paths()
    recover_if_idle(paths)
    st = wiki_status(paths, recent=recent)
    if json_out:
        print_json(
            {
                "root": st.root,
                "sources": [{"raw": s.raw, "state": s.state, "page": s.page} for s in st.sources],
                "counts": {k: st.count(k) for k in ("new", "changed", "ingested", "missing")},
                "pages": st.pages_by_type,
                "recent": [
                    {"date": e.date.isoformat(), "op": e.op, "title": e.title} for e in st.recent
                ],
                "interrupted_operations": st.interrupted,
                "unsafe_journals": st.unsafe_journals,
                "broken_pages": st.broken_pages,
                "skipped": [{"raw": s.rel, "reason": s.reason} for s in st.skipped],
                "episodes_pending": st.episodes_pending,
            }
        )
        return
    console = out_console()
    console.print(f"Wiki: {st.root}")
    counts = ", ".join(f"{st.count(k)} {k}" for k in ("new", "changed", "ingested", "missing"))
    console.print(f"Sources: {len(st.sources)} ({counts})")
    for s in st.sources:
        if s.state != "ingested":
            console.print(f"  {s.state:<8} {s.raw}")
    for skipped in st.skipped:
        console.print(f"  skipped  {skipped.rel}: {skipped.reason}", markup=False)
    if st.episodes_pending:
        console.print(
            f"Episodes not consolidated: {st.episodes_pending} (run `wikic consolidate`)",
            markup=False,
        )
    pages = ", ".join(f"{n} {t}" for t, n in st.pages_by_type.items()) or "none"
    console.print(f"Pages: {sum(st.pages_by_type.values())} ({pages})")
    for path in st.broken_pages:
        console.print(f"  unreadable: {path}")
    if st.interrupted:
        console.print(
            f"Interrupted operations: {st.interrupted} (the next writing command rolls them back)"
        )
    for message in st.unsafe_journals:
        warn(message)
    if st.recent:
        console.print("Recent operations:")
        for e in st.recent:
            console.print(f"  [{e.date}] {e.op} | {e.title}", markup=False)


@app.command("log")
def log_cmd(
    number: int = typer.Option(10, "-n", "--number", min=1, help="How many entries."),
    json_out: bool = JSON_OPTION,
) -> None:
    """Show the last operations recorded in wiki/log.md, newest last."""
    entries = read_log(current_paths())[-number:]
    if json_out:
        print_json(
            [
                {
                    "date": e.date.isoformat(),
                    "op": e.op,
                    "title": e.title,
                    "author": e.author or None,
                    "details": list(e.bullets),
                }
                for e in entries
            ]
        )
        return
    console = out_console()
    if not entries:
        console.print("No operations logged yet.")
    for e in entries:
        by = f" (by {e.author})" if e.author else ""
        console.print(f"[{e.date}] {e.op} | {e.title}{by}", markup=False)
        for b in e.bullets:
            console.print(f"  - {b}", markup=False)


@app.command()
def undo(
    no_wait: bool = NO_WAIT_OPTION,
    sync_after: bool = SYNC_OPTION,
    json_out: bool = JSON_OPTION,
) -> None:
    """Revert the last wikic operation with a new commit (log.md keeps both entries)."""
    paths = current_paths()
    result = undo_last(paths, wait=0 if no_wait else None, on_wait=waiting_message)
    if json_out:
        print_json(
            {
                "undone": {
                    "op_id": result.undone.op_id,
                    "op": result.undone.op,
                    "subject": result.undone.subject,
                },
                "commit": result.result.commit,
                "files": list(result.result.changed),
            }
        )
    else:
        console = out_console()
        console.print(f"Undid: {result.undone.subject}", markup=False)
        for path in result.result.changed:
            console.print(f"  {path}")
    after_write(paths, sync_after)
