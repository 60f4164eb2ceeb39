"""Command-line interface: `wikic …`. Each `*_cmds` module registers its commands on the Typer
`app` of `cli/app.py`; `cli/commands.py` imports them all. Command modules never import names
from this package, only its submodules, so loading order cannot matter."""

from __future__ import annotations

from wikic.cli.commands import app, main

__all__ = ["app", "main"]
