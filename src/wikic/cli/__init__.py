"""Command-line interface: `wikic …`. Each command module registers itself on `app`."""

from __future__ import annotations

from wikic.cli import wiki_cmds  # noqa: F401  (registers init/status/log/undo)
from wikic.cli.app import app


def main() -> None:
    app()


__all__ = ["app", "main"]
