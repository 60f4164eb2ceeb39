"""`wikic mcp`: serve the wiki to coding agents over the Model Context Protocol (stdio).

The `mcp` SDK is an optional extra, imported only when the command runs. stdout carries the
protocol, so nothing here prints; logs go to stderr.
"""

from __future__ import annotations

import logging
from pathlib import Path

import typer

from wikic.cli import backends
from wikic.cli.app import app, authored, current_paths
from wikic.config import RoleName
from wikic.errors import WikicError
from wikic.llm.backend import Backend
from wikic.mcp import ServiceOptions, WikiService
from wikic.paths import WikiPaths, open_paths


@app.command("mcp")
def mcp_cmd(
    wiki: Path | None = typer.Option(
        None,
        "--wiki",
        "-C",
        help="The wiki directory (default: the global -C, $WIKIC_DIR or the current directory).",
        file_okay=False,
    ),
    allow_write: bool = typer.Option(
        False,
        "--allow-write",
        help="Also offer the tools that change the wiki: ingest (sources under raw/), "
        "save_answer, consolidate, and lint with fix. Without it the server is read-only.",
    ),
    author: str | None = typer.Option(
        None,
        "--author",
        metavar="NAME",
        help='Git author of the commits this server makes ("Name" or "Name <email>"), so '
        "agents sharing a wiki are told apart (default: the global --author, $WIKIC_AUTHOR, "
        "git.author_name of wikic.yaml, else the git identity).",
    ),
    model: str | None = typer.Option(
        None, "--model", "-m", help="Model for every role (default: the roles of wikic.yaml)."
    ),
) -> None:
    """Serve the wiki over MCP on stdin/stdout, for Claude Code, Claude Desktop, Codex, Cursor:
    tools search, read_page, query, status, log, lint (and, with --allow-write, ingest,
    save_answer and consolidate); pages as resources wiki://<path>. The model is loaded once, on the first
    call that needs it, and its prefix cache stays warm between calls."""
    try:
        from wikic.mcp.server import build_server
    except ImportError as exc:
        raise WikicError(
            f"the MCP SDK is not installed ({exc.name or exc})",
            hint="Install it with `pip install 'wikic[mcp]'`.",
        ) from None
    paths = open_paths(wiki) if wiki is not None else current_paths()
    paths = WikiPaths(paths.root, backends.config_with_model(paths.config, model))
    paths = authored(paths, author)
    logging.basicConfig(level=logging.WARNING, format="wikic mcp: %(levelname)s %(message)s")

    def backend_for(role: RoleName) -> Backend:
        return backends.build(paths.config, role, paths.kv_cache)

    service = WikiService(paths, ServiceOptions(allow_write=allow_write), backend_for=backend_for)
    try:
        build_server(service).run("stdio")
    finally:
        service.close()
