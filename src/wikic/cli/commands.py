"""The whole command line: importing this registers every command module on `app`.

Command modules import only `wikic.cli.app` (and their helpers), never this module, so the
package is never imported back while half-loaded.
"""

from __future__ import annotations

from wikic.cli import (
    ask_cmds,  # noqa: F401  (registers ask)
    cache_cmds,  # noqa: F401  (registers cache stats/clear)
    consolidate_cmds,  # noqa: F401  (registers consolidate)
    ingest_cmds,  # noqa: F401  (registers ingest)
    lint_cmds,  # noqa: F401  (registers lint)
    mcp_cmds,  # noqa: F401  (registers mcp)
    model_cmds,  # noqa: F401  (registers model list/install/info/remove)
    pages_cmds,  # noqa: F401  (registers rename/merge/delete)
    query_cmds,  # noqa: F401  (registers query)
    search_cmds,  # noqa: F401  (registers search/reindex)
    sync_cmds,  # noqa: F401  (registers sync)
    watch_cmds,  # noqa: F401  (registers watch)
    wiki_cmds,  # noqa: F401  (registers init/status/log/undo)
)
from wikic.cli.app import app


def main() -> None:
    app()


__all__ = ["app", "main"]
