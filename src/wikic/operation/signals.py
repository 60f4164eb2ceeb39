"""Ctrl-C (SIGINT) and SIGTERM wait while an operation lands: they take effect between
operations, never halfway through a commit.

In the main thread the signals are blocked for the block's duration, so a `git` child started
meanwhile inherits the block and is not killed by a Ctrl-C sent to the whole process group, and
recorded (other threads may receive them too); they are delivered, once, when the block ends.
Elsewhere (threads cannot set handlers) the block runs as it is.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

DEFERRED = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def record(signum: int, frame: FrameType | None) -> None:
        received.append(signum)

    mask = signal.pthread_sigmask(signal.SIG_BLOCK, DEFERRED)
    previous = {signum: signal.signal(signum, record) for signum in DEFERRED}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
        pending = signal.sigpending() & set(DEFERRED)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # pending ones are delivered here
        for held in dict.fromkeys(received):
            if held not in pending:
                signal.raise_signal(held)
