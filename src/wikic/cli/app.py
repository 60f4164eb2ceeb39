"""The Typer app object, shared state and rendering helpers of the CLI layer.

Command modules (`cli/*_cmds.py`) register on `app` (or a sub-app added here). A `WikicError`
raised anywhere below is caught once, in `_Group.invoke`: `Error: …` on stderr, exit code 1
(2 for usage errors). Only this package prints.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from typer.core import TyperGroup

from wikic.cli.notices import once_per_command
from wikic.errors import WikicError
from wikic.operation.identity import author_from, with_author
from wikic.paths import WikiPaths, open_paths


class _Group(TyperGroup):
    def invoke(self, ctx: Any) -> Any:  # typer's vendored click Context
        try:
            with once_per_command():
                return super().invoke(ctx)
        except WikicError as exc:
            print_error(exc)
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            err_console().print("Interrupted; the wiki is unchanged or fully updated.")
            raise typer.Exit(130) from None


app = typer.Typer(
    cls=_Group,
    name="wikic",
    help="wikic compiles a folder of immutable sources (raw/) into an interlinked, cited "
    "markdown wiki (wiki/) with a local LLM, committed to git and browsable in Obsidian.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@dataclass
class State:
    """Global options, set by the app callback."""

    wiki_dir: Path | None = None
    author: str | None = None
    offline: bool = False  # never install a model on first use


_state = State()


def state() -> State:
    return _state


def out_console() -> Console:
    return Console(highlight=False, soft_wrap=True)


def err_console() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True)


def print_error(exc: WikicError) -> None:
    console = err_console()
    console.print(f"[bold red]Error:[/] {exc.message}", markup=True)
    if exc.hint:
        console.print(exc.hint, markup=False)


def print_json(value: Any) -> None:
    """Machine-readable output: one JSON document on stdout."""
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2, default=str) + "\n")
    sys.stdout.flush()


JSON_OPTION = typer.Option(False, "--json", help="Print machine-readable JSON on stdout.")
NO_WAIT_OPTION = typer.Option(
    False, "--no-wait", help="Fail at once if another wikic process is changing the wiki."
)


def current_paths() -> WikiPaths:
    """The wiki of this invocation (from --wiki / $WIKIC_DIR / the current directory), its
    commits authored by --author / $WIKIC_AUTHOR when given."""
    return authored(open_paths(state().wiki_dir))


def authored(paths: WikiPaths, author: str | None = None) -> WikiPaths:
    """`paths` with the commit author of this invocation: `author`, else the global --author,
    else $WIKIC_AUTHOR (else the wiki's own: wikic.yaml, then the git identity)."""
    return with_author(paths, author_from(author or state().author))


def waiting_message(message: str) -> None:
    err_console().print(message)


def _print_version(value: bool) -> None:
    if value:
        from wikic import __version__

        out_console().print(f"wikic {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    wiki: Path | None = typer.Option(
        None,
        "--wiki",
        "-C",
        help="The wiki directory (default: $WIKIC_DIR, else the nearest directory above the "
        "current one that holds wikic.yaml).",
        file_okay=False,
    ),
    author: str | None = typer.Option(
        None,
        "--author",
        metavar="NAME",
        help='Who the commits of this command name ("Name" or "Name <email>"; default: '
        "$WIKIC_AUTHOR, else git.author_name of wikic.yaml, else your git identity).",
    ),
    offline: bool = typer.Option(
        False,
        "--offline",
        help="Never download: a model that is not installed is an error, even the default one "
        "(also: $WIKIC_OFFLINE=1, or auto_install: false in wikic.yaml).",
    ),
    version: bool = typer.Option(
        False,
        "--version",
        callback=_print_version,
        is_eager=True,
        help="Print the version and exit.",
    ),
) -> None:
    _state.offline = offline
    _state.wiki_dir = wiki or (
        Path(os.environ["WIKIC_DIR"]) if os.environ.get("WIKIC_DIR") else None
    )
    _state.author = author
