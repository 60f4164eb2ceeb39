"""Durable file writes shared by the journal, the prefix cache and lint's answer cache."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_durable(path: Path, data: bytes) -> None:
    """Write `data` to a new file at `path` and fsync it."""
    with open(path, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def atomic_write(path: Path, data: bytes) -> None:
    """Replace `path` with `data` atomically (temp file in the same directory + rename)."""
    tmp = path.with_name(f".{path.name}.wikic-tmp-{os.getpid()}")
    try:
        write_durable(tmp, data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_dir(path.parent)
