"""Progress on stderr shared by commands: model-install bars, and the live displays a nested one
pauses.

A command that shows a live display (a spinner, a bar) while it may build a backend registers
it with `showing`; a model install on first use runs inside `paused()`, so its bars never draw
over the command's display. Off a terminal, an install prints one plain line per stage.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Protocol

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from wikic.llm.models.store import InstallProgress


class _Live(Protocol):
    def start(self) -> None: ...
    def stop(self) -> None: ...


_shown: list[_Live] = []  # the live displays of the running command, outermost first


@contextlib.contextmanager
def showing(display: _Live) -> Iterator[None]:
    """Register a started live display (rich Progress or Status) for the `with` block."""
    _shown.append(display)
    try:
        yield
    finally:
        _shown.remove(display)


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """Stop the registered live displays for the `with` block, then show them again."""
    stopped = list(_shown)
    for display in reversed(stopped):
        display.stop()
    try:
        yield
    finally:
        for display in stopped:
            display.start()


_STAGE_LABELS = {"download": "Fetch", "assemble": "Assemble + verify", "convert": "Convert"}


class _Bars:
    """Rich progress bars fed by the model store's install callback."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.tasks: dict[str, TaskID] = {}

    def __call__(self, event: InstallProgress) -> None:
        stage = event.stage.split(" ", 1)[0]
        label = _STAGE_LABELS[stage]
        if stage not in self.tasks:
            self.tasks[stage] = self.progress.add_task(label, total=event.total)
        desc = f"{label} {event.stage.split(' ', 1)[1]}" if " " in event.stage else label
        self.progress.update(
            self.tasks[stage], completed=event.done, total=event.total, description=desc
        )


class _Lines:
    """One plain line when each install stage starts (logs and pipes get no bars)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.seen: set[str] = set()

    def __call__(self, event: InstallProgress) -> None:
        if event.stage in self.seen:
            return
        self.seen.add(event.stage)
        stage = event.stage.split(" ", 1)
        label = " ".join([_STAGE_LABELS[stage[0]], *stage[1:]])
        self.console.print(f"{label} … ({event.total / 1e6:.0f} MB)", markup=False)


@contextlib.contextmanager
def install_progress(console: Console) -> Iterator[_Bars | _Lines]:
    """The progress callback of a model install: bars on a terminal, plain lines otherwise."""
    if not console.is_terminal:
        yield _Lines(console)
        return
    columns = (TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        yield _Bars(progress)


def gb(n: int | None) -> str:
    """A size for people: "-", "98 MB" or "1.98 GB"."""
    return "-" if not n else f"{n / 1e9:.2f} GB" if n >= 1e8 else f"{n / 1e6:.0f} MB"
