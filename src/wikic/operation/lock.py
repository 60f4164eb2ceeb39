"""The writer lock: one writing operation per wiki at a time; readers never take it.

An exclusive `flock` on `.wikic/write.lock`. The kernel drops it when the holder dies, so a
crashed wikic never leaves a stale lock. The file records who holds it, for the waiting message.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from wikic.errors import LockBusyError

POLL_S = 0.2


UNKNOWN_HOLDER = "another wikic process"
# The holder writes who it is just after taking the lock, so a waiter can read an empty file for
# a moment; it waits this long for the name before saying it waits for an unknown process.
NAME_GRACE_S = 1.0


def _holder(path: Path) -> str:
    try:
        info = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        return UNKNOWN_HOLDER
    if not info:
        return UNKNOWN_HOLDER
    return f"pid {info.get('pid')} ({info.get('op', '?')}, since {info.get('since', '?')})"


@contextlib.contextmanager
def writer_lock(
    lock_file: Path,
    *,
    op: str,
    wait: float | None = None,
    on_wait: Callable[[str], None] | None = None,
) -> Iterator[None]:
    """Hold the writer lock. `wait`: None waits forever, 0 fails at once, else seconds.

    `on_wait` is called once with a message when the lock is busy and we start waiting.
    """
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = None if wait is None else time.monotonic() + wait
        told = False
        started = time.monotonic()
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                holder = _holder(lock_file)
                if deadline is not None and time.monotonic() >= deadline:
                    raise LockBusyError(
                        f"the wiki is being changed by {holder}",
                        hint="Try again when it has finished (or drop --no-wait to wait for it).",
                    ) from None
                named = holder != UNKNOWN_HOLDER or time.monotonic() - started >= NAME_GRACE_S
                if not told and named and on_wait is not None:
                    on_wait(f"Waiting for {holder} to finish…")
                    told = True
                time.sleep(POLL_S)
        info = {"pid": os.getpid(), "op": op, "since": time.strftime("%Y-%m-%d %H:%M:%S")}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(info).encode(), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
