"""Warnings for the user: each distinct message printed once per command, on stderr.

Core modules report problems through `logging` and, where a command shows them, as data too
(a store's notes, unsafe journals); both reach `warn`, so a message is never printed twice.
`once_per_command()` wraps every command (in `cli.app`) and routes wikic's log warnings here.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

from rich.console import Console


class _Notices(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.shown: set[str] = set()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.show(record.getMessage())
        except Exception:  # a warning must never break the command that logged it
            self.handleError(record)

    def show(self, message: str) -> None:
        if message in self.shown:
            return
        self.shown.add(message)
        Console(stderr=True, highlight=False, soft_wrap=True).print(
            f"Warning: {message}", markup=False
        )


_active: list[_Notices] = []


def warn(message: str) -> None:
    """Print `Warning: message` on stderr unless this command already printed it."""
    if _active:
        _active[-1].show(message)
    else:
        _Notices().show(message)


@contextlib.contextmanager
def once_per_command() -> Iterator[None]:
    """Route wikic's log warnings to `warn` for the duration of one command."""
    handler = _Notices()
    logger = logging.getLogger("wikic")
    logger.addHandler(handler)
    _active.append(handler)
    try:
        yield
    finally:
        _active.remove(handler)
        logger.removeHandler(handler)
