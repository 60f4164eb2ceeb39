"""`wikic rename`, `wikic merge`, `wikic delete`: repair the wiki's pages in one command each."""

from __future__ import annotations

from typing import Any

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
from wikic.cli.syncing import SYNC_OPTION, after_write
from wikic.maintain.common import MaintainResult
from wikic.maintain.delete import delete_page
from wikic.maintain.merge import merge_pages
from wikic.maintain.rename import rename_page

DRY_RUN_OPTION = typer.Option(
    False, "--dry-run", help="List the files it would change and change nothing."
)
MY_EDITS_OPTION = typer.Option(
    False,
    "--include-my-edits",
    help="Commit your uncommitted edits of the files it changes along with it (by default it "
    "refuses, so `wikic undo` never takes your edits away).",
)


def _options(dry_run: bool, include_my_edits: bool, no_wait: bool) -> dict[str, Any]:
    return {
        "dry_run": dry_run,
        "include_my_edits": include_my_edits,
        "wait": 0 if no_wait else None,
        "on_wait": waiting_message,
    }


@app.command()
def rename(
    page: str = typer.Argument(..., help="The page: its path (concepts/kv-cache), title or alias."),
    title: str = typer.Argument(..., help="The new title."),
    dry_run: bool = DRY_RUN_OPTION,
    include_my_edits: bool = MY_EDITS_OPTION,
    no_wait: bool = NO_WAIT_OPTION,
    sync_after: bool = SYNC_OPTION,
    json_out: bool = JSON_OPTION,
) -> None:
    """Give PAGE a new title: the file moves to the new title's name, the old title stays as an
    alias, and every link to it (plain, aliased, #heading, #^block, in properties), the index, the
    log and the search index follow, in one commit."""
    paths = current_paths()
    _render(
        rename_page(paths, page, title, **_options(dry_run, include_my_edits, no_wait)), json_out
    )
    if not dry_run:
        after_write(paths, sync_after)


@app.command()
def merge(
    page: str = typer.Argument(..., help="The page to merge away (path, title or alias)."),
    into: str = typer.Argument(..., help="The page that stays."),
    dry_run: bool = DRY_RUN_OPTION,
    include_my_edits: bool = MY_EDITS_OPTION,
    no_wait: bool = NO_WAIT_OPTION,
    sync_after: bool = SYNC_OPTION,
    json_out: bool = JSON_OPTION,
) -> None:
    """Merge PAGE into INTO: its facts (deduplicated, citations kept), aliases, related links,
    contradictions and sources move to INTO, every link to PAGE points at INTO (block links
    to moved facts still resolve), and PAGE is removed, in one commit."""
    paths = current_paths()
    _render(
        merge_pages(paths, page, into, **_options(dry_run, include_my_edits, no_wait)), json_out
    )
    if not dry_run:
        after_write(paths, sync_after)


@app.command()
def delete(
    page: str = typer.Argument(..., help="The page to remove (path, title or alias)."),
    force: bool = typer.Option(
        False,
        "--force",
        help="Delete a source page even though its raw file still exists (facts citing only "
        "it are removed too).",
    ),
    dry_run: bool = DRY_RUN_OPTION,
    include_my_edits: bool = MY_EDITS_OPTION,
    no_wait: bool = NO_WAIT_OPTION,
    sync_after: bool = SYNC_OPTION,
    json_out: bool = JSON_OPTION,
) -> None:
    """Remove PAGE: links to it in prose become plain text, list items and property values
    that only link it go; raw/ is untouched, so a later ingest can bring its facts back. One
    commit."""
    paths = current_paths()
    options = _options(dry_run, include_my_edits, no_wait)
    _render(delete_page(paths, page, force=force, **options), json_out)
    if not dry_run:
        after_write(paths, sync_after)


def _render(result: MaintainResult, json_out: bool) -> None:
    if json_out:
        print_json(result.to_dict())
        return
    console = out_console()
    verb = "Would" if result.dry_run else "Done:"
    console.print(f"{verb} {result.op} {result.title}", markup=False)
    for old, new in result.moved:
        console.print(f"  move     {old} → {new}", markup=False)
    for path, change in result.changes:
        console.print(f"  {change:<8} {path}", markup=False)
    if result.dry_run:
        console.print("  (and index.md, log.md)", markup=False)
    console.print(f"  {result.links} link(s) rewritten", markup=False)
    for note in result.notes:
        console.print(f"  note: {note}", markup=False)
    if result.commit:
        console.print(f"  commit {result.commit[:10]}", markup=False)
