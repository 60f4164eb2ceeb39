"""`wikic watch`: keep the wiki current while sources arrive in raw/."""

from __future__ import annotations

import functools
import json
import signal
import sys
import threading
from types import FrameType

import typer

from wikic.cli import backends
from wikic.cli.app import app, current_paths, err_console, out_console
from wikic.watch import Watcher, WatchEvent, WatchOptions, wakeups_for


@app.command("watch")
def watch_cmd(
    consolidate: bool = typer.Option(
        False,
        "--consolidate",
        help="Also run `wikic consolidate` once a day, at watch.consolidate_hour of wikic.yaml "
        "(default 3, i.e. 03:00).",
    ),
    poll: bool = typer.Option(
        False,
        "--poll",
        help="Look at raw/ every watch.poll_seconds instead of waiting for file events "
        "(for network file systems; used anyway where events are unavailable).",
    ),
    no_lint: bool = typer.Option(False, "--no-lint", help="Do not lint after each batch."),
    model: str | None = typer.Option(
        None, "--model", "-m", help="Model for every role of this run."
    ),
    json_out: bool = typer.Option(
        False, "--json", help="One JSON object per event on stdout (at, event, path, detail)."
    ),
) -> None:
    """Keep the wiki current: watch raw/ and compile each new or changed source once it has
    stopped changing, as `ingest --all` would (one commit per source, sharing the wiki's lock
    with every other wikic process), lint after each batch, and print one line per event.
    A source that fails is reported and tried again when it changes. Ctrl-C stops between
    operations: the wiki is as after the last commit."""
    paths = current_paths()
    cfg = paths.config.watch
    options = WatchOptions(
        settle=cfg.settle_seconds,
        every=cfg.poll_seconds,
        lint=not no_lint,
        consolidate_hour=cfg.consolidate_hour if consolidate else None,
    )
    watcher = Watcher(
        paths,
        options,
        extract_backend=functools.cache(lambda: backends.for_role(paths, "extract", model)),
        write_backend=functools.cache(lambda: backends.for_role(paths, "write", model)),
        on_event=_print_json if json_out else _print_line,
    )
    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, _interrupt)  # a service manager's stop = Ctrl-C
    try:
        watcher.run(wakeups_for(paths.raw, stop, cfg.poll_seconds, poll=poll), stop)
    except KeyboardInterrupt:
        stop.set()
        err_console().print("Stopped; the wiki is as after the last commit.", markup=False)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _print_line(event: WatchEvent) -> None:
    parts = [f"{event.at:%H:%M:%S}", f"{event.kind:<12}", event.path, event.detail]
    out_console().print(" ".join(p for p in parts if p), markup=False)
    sys.stdout.flush()


def _print_json(event: WatchEvent) -> None:
    sys.stdout.write(json.dumps(event.to_dict(), ensure_ascii=False) + "\n")
    sys.stdout.flush()
