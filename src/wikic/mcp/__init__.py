"""`wikic mcp`: the wiki as Model Context Protocol tools and resources for coding agents.

`service.WikiService` wraps the functions the CLI calls and returns JSON values; `server.build_server`
exposes them over the `mcp` SDK (optional extra `wikic[mcp]`, imported only here). Same
guarantees as the CLI: one writer lock, journaled writes, raw/ never written, paths confined.
"""

from wikic.mcp.service import ServiceOptions, WikiService
from wikic.operation.identity import with_author

__all__ = ["ServiceOptions", "WikiService", "with_author"]
