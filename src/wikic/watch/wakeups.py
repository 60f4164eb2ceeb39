"""When to look at raw/ again: on file events (watchfiles: inotify, FSEvents, ReadDirectoryChangesW),
or every few seconds where events are unavailable (network and some container file systems,
an exhausted inotify watch limit, or --poll).

Either way the watcher rescans raw/ on waking, so a missed event only delays a file, and a
`wait` never lasts longer than its timeout: settling files are checked in time.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

log = logging.getLogger(__name__)


class Wakeups(Protocol):
    how: str  # for people: "file events" or "polling every 1 s"

    def wait(self, timeout: float) -> None:
        """Return when raw/ may have changed, after `timeout` seconds at the latest."""


class Polling:
    def __init__(self, stop: threading.Event, every: float) -> None:
        self.stop, self.every = stop, every
        self.how = f"polling every {every:g} s"

    def wait(self, timeout: float) -> None:
        self.stop.wait(min(timeout, self.every))


class FileEvents:
    """watchfiles' change sets; an empty one each `tick` seconds when nothing happens."""

    def __init__(self, folder: Path, stop: threading.Event, tick: float) -> None:
        import watchfiles

        self.how = "file events"
        self.stop = stop
        self._changes: Iterator[object] = watchfiles.watch(
            folder,
            watch_filter=None,  # any file: raw/ holds sources, and wikic decides what they are
            debounce=400,
            step=50,
            stop_event=stop,
            rust_timeout=max(50, int(tick * 1000)),
            yield_on_timeout=True,
            raise_interrupt=True,
        )

    def wait(self, timeout: float) -> None:
        if timeout <= 0 or self.stop.is_set():
            return
        next(self._changes, None)


def wakeups_for(folder: Path, stop: threading.Event, every: float, *, poll: bool) -> Wakeups:
    """File events for `folder` where they work, else polling every `every` seconds."""
    if poll:
        return Polling(stop, every)
    try:
        events = FileEvents(folder, stop, tick=every)
        events.wait(0.01)  # starts the watcher: an unusable one fails here, not later
    except (ImportError, OSError, RuntimeError) as exc:
        log.warning("file events are unavailable (%s): polling raw/ every %g s", exc, every)
        return Polling(stop, every)
    return events
