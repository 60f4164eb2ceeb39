"""The MCP server: wiki tools and page resources over the official `mcp` SDK (MCPServer).

Every tool runs its blocking work off the event loop and turns any failure into a tool error
with a clear message; the server itself never goes down on a bad call. Write tools (ingest,
save_answer, consolidate) exist only with `allow_write`. Pages are resources `wiki://<path>`.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp_types import Resource as MCPResource
from mcp_types import ToolAnnotations
from pydantic import Field

from wikic import __version__
from wikic.errors import UsageError, WikicError
from wikic.mcp.pages import URI_SCHEME, page_uri, read_text, resolve_ref
from wikic.mcp.results import LogResult, PageResult, SearchResult, StatusResult
from wikic.mcp.service import Progress, WikiService
from wikic.store.db import open_store

log = logging.getLogger(__name__)
T = TypeVar("T")
WRITE_TOOLS = frozenset({"ingest", "save_answer", "consolidate"})
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)

INSTRUCTIONS = """\
A wiki compiled by wikic from immutable sources in raw/: markdown pages (sources/, entities/,
concepts/, analyses/) whose facts each cite a source paragraph ([[sources/x#^p3]]).
Find pages with `search`, open them with `read_page` (a path, title, or link with #^block),
and ask questions with `query`: it answers only from the wiki and checks every citation.
`status`, `log` and `lint` report on the wiki. Writing tools exist only when the server was
started with --allow-write: `ingest` compiles sources from raw/, `save_answer` files an answer
as an analysis page, `consolidate` turns recurring episodes into semantic pages. Every write is
one git commit; raw/ is never written."""

Strings = list[str] | None


class WikiServer(MCPServer[Any]):
    """MCPServer whose resource list is the wiki's pages, read fresh on every listing."""

    def __init__(self, service: WikiService) -> None:
        super().__init__(
            "wikic", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING"
        )
        self.service = service

    async def list_resources(self) -> list[MCPResource]:
        def pages() -> list[MCPResource]:
            with open_store(self.service.paths) as store:
                infos = store.pages()
            found = [
                MCPResource(
                    uri=page_uri(i.path),
                    name=i.name,
                    title=i.title,
                    description=i.summary or None,
                    mime_type="text/markdown",
                )
                for i in infos
            ]
            specials = [
                MCPResource(uri=page_uri(name), name=name[:-3], mime_type="text/markdown")
                for name in ("index.md", "log.md")
            ]
            return specials + found

        try:
            return [*await super().list_resources(), *await anyio.to_thread.run_sync(pages)]
        except WikicError as exc:
            raise ResourceError(str(exc)) from None

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        if name in WRITE_TOOLS and not self.service.options.allow_write:
            raise ToolError(
                f"{name} changes the wiki, and this server is read-only. "
                "Start it with `wikic mcp --allow-write` to allow writes."
            )
        return await super().call_tool(name, arguments, context)


async def _run(ctx: Context[Any, Any] | None, work: Callable[[Progress], T]) -> T:
    """`work(progress)` on a worker thread; progress goes to the client as notifications
    (best effort), a WikicError becomes a tool error with its hint, and anything else a tool
    error that names it (logged with its traceback)."""
    token = anyio.lowlevel.current_token()

    def progress(done: float, total: float | None, message: str) -> None:
        if ctx is None:
            return
        try:
            anyio.from_thread.run(ctx.report_progress, done, total, message, token=token)
        except Exception:  # the client went away: progress is only a courtesy
            log.debug("progress notification not sent", exc_info=True)

    try:
        return await anyio.to_thread.run_sync(lambda: work(progress), abandon_on_cancel=True)
    except WikicError as exc:
        raise ToolError(str(exc)) from None
    except Exception as exc:
        log.exception("tool failed")
        raise ToolError(
            f"internal error: {type(exc).__name__}: {exc}. The wiki is as before the call or "
            "fully updated (writes are all-or-nothing); the server keeps running."
        ) from None


def build_server(service: WikiService) -> WikiServer:
    """The MCP server of `service`'s wiki, its write tools registered only if allowed."""
    server = WikiServer(service)

    @server.tool(
        annotations=READ_ONLY,
        description="Full-text search over the wiki's pages (SQLite FTS5, BM25; a title or alias "
        "match ranks first). Returns hits best first: path (relative to wiki/), uri, title, type, "
        "score, snippet (matched words in **bold**) and summary. With no terms, lists the pages "
        "that match the filters.",
    )
    async def search(
        ctx: Context[Any, Any],
        terms: Annotated[
            str,
            Field(
                description='Words to find. "a phrase" matches words together, -word excludes '
                "pages with that word, the last word also matches as a prefix."
            ),
        ] = "",
        type: Annotated[
            Strings,
            Field(
                description="Only pages of these types (any of them): source, entity, concept, analysis."
            ),
        ] = None,
        tag: Annotated[
            Strings, Field(description="Only pages with all of these tags (or nested tags).")
        ] = None,
        where: Annotated[
            Strings,
            Field(description="Property filters KEY=VALUE, case-insensitive, all must hold."),
        ] = None,
        limit: Annotated[int, Field(ge=1, le=100, description="How many hits at most.")] = 10,
    ) -> SearchResult:
        return await _run(
            ctx,
            lambda _: service.search(
                terms, types=type or [], tags=tag or [], where=where or [], limit=limit
            ),
        )

    @server.tool(
        annotations=READ_ONLY,
        description="Read one page: its properties (YAML front matter as JSON) and its markdown "
        "body, with the pages it links to and the pages linking to it. With a block reference "
        "(concepts/kv-cache#^f-1a2b3c, sources/paper#^p3) only that paragraph or list item is "
        "returned; with a heading (concepts/kv-cache#Facts) only that section. `index` and `log` "
        "read wiki/index.md and wiki/log.md.",
    )
    async def read_page(
        ctx: Context[Any, Any],
        page: Annotated[
            str,
            Field(
                min_length=1,
                description="A page path (concepts/kv-cache, wiki/concepts/kv-cache.md), a link "
                "([[concepts/kv-cache#^f-1a2b3c]]), a wiki:// URI, or a page title or alias.",
            ),
        ],
    ) -> PageResult:
        return await _run(ctx, lambda _: service.read_page(page))

    @server.tool(
        annotations=READ_ONLY,
        description="Answer a question from the wiki with the local model: searches the facts, "
        "overviews and source paragraphs, packs the best within the token budget and answers "
        "only from them; every sentence cites the facts it uses (code checks that they hold its "
        "words), and the answer is 'The wiki does not say.' when they do not. Returns the answer, "
        "citations, pages read, token stats (cached_tokens: prompt tokens reused from the prefix "
        "cache) and an answer_id that save_answer can file. Slow on CPU (seconds to minutes); "
        "sends progress notifications.",
    )
    async def query(
        ctx: Context[Any, Any],
        question: Annotated[str, Field(min_length=1, description="The question, in plain words.")],
        max_tokens: Annotated[
            int | None,
            Field(ge=16, le=4096, description="Cap on answer tokens (default: wikic.yaml's)."),
        ] = None,
    ) -> dict[str, Any]:
        if not question.strip():
            raise ToolError("the question is empty")
        return await _run(
            ctx, lambda progress: service.query(question, max_tokens=max_tokens, progress=progress)
        )

    @server.tool(
        annotations=READ_ONLY,
        description="The wiki's state: sources in raw/ (new, changed, ingested, missing), pages "
        "by type, recent operations, interrupted operations, unreadable pages, and whether this "
        "server may write.",
    )
    async def status(
        ctx: Context[Any, Any],
        recent: Annotated[int, Field(ge=0, le=100, description="How many recent operations.")] = 5,
    ) -> StatusResult:
        return await _run(ctx, lambda _: service.status(recent=recent))

    @server.tool(
        annotations=READ_ONLY,
        description="The last operations recorded in wiki/log.md (date, op, title, details), "
        "oldest first.",
    )
    async def log(
        ctx: Context[Any, Any],
        number: Annotated[int, Field(ge=1, le=1000, description="How many entries.")] = 10,
    ) -> LogResult:
        return await _run(ctx, lambda _: service.log(number=number))

    @server.tool(
        annotations=READ_ONLY,
        description="Check the wiki's health: broken links and block references, uncited facts, "
        "orphans, stale pages, raw/ changes, index drift, properties, interrupted operations. "
        "Returns findings (level error|warning|info, rule, page, line, message, hint, fixable), "
        "counts by level and rule, and exit_code (0 clean, 1 errors). semantic adds model checks "
        "(slow); fix (needs --allow-write) applies the deterministic fixes as one commit.",
    )
    async def lint(
        ctx: Context[Any, Any],
        rules: Annotated[Strings, Field(description="Check only these rule ids.")] = None,
        ignore: Annotated[Strings, Field(description="Skip these rule ids.")] = None,
        semantic: Annotated[
            bool, Field(description="Also run the semantic checks (uses the model).")
        ] = False,
        fix: Annotated[
            bool, Field(description="Apply deterministic fixes first (needs --allow-write).")
        ] = False,
    ) -> dict[str, Any]:
        return await _run(
            ctx,
            lambda progress: service.lint(
                rules=rules or [],
                ignore=ignore or [],
                semantic=semantic,
                fix=fix,
                progress=progress,
            ),
        )

    if service.options.allow_write:
        _write_tools(server, service)
    _resources(server, service)
    return server


def _write_tools(server: WikiServer, service: WikiService) -> None:
    @server.tool(
        annotations=WRITES,
        description="Compile sources from raw/ into the wiki: a source page with numbered "
        "paragraphs, entity/concept pages with cited facts, contradictions, index and log, one "
        "git commit per source. Unchanged sources are skipped unless force. Paths must lie under "
        "raw/ (relative to the wiki root, or to raw/). Slow (minutes per source on CPU); sends "
        "progress notifications. Returns one outcome per source (status, pages created and "
        "updated, contradictions, commit, token stats).",
    )
    async def ingest(
        ctx: Context[Any, Any],
        paths: Annotated[
            Strings, Field(description="Source files or folders under raw/, e.g. raw/paper.md.")
        ] = None,
        all_new: Annotated[bool, Field(description="Ingest every new or changed source.")] = False,
        force: Annotated[bool, Field(description="Re-ingest sources that did not change.")] = False,
        dry_run: Annotated[
            bool, Field(description="Extract and return the plan; write nothing.")
        ] = False,
    ) -> dict[str, Any]:
        if not paths and not all_new:
            raise ToolError("name the sources to ingest (paths), or set all_new")
        return await _run(
            ctx,
            lambda progress: service.ingest(
                paths or [], all_new=all_new, force=force, dry_run=dry_run, progress=progress
            ),
        )

    @server.tool(
        annotations=WRITES,
        description="File a query answer as an analysis page in wiki/analyses/ (one commit), "
        "linked from the pages it cites. Pass the answer_id a query returned (answers are kept "
        "while the server runs), or a question to answer and file in one step. Only answers "
        "that cite the wiki can be filed.",
    )
    async def save_answer(
        ctx: Context[Any, Any],
        answer_id: Annotated[
            str | None, Field(description="The answer_id from a query call.")
        ] = None,
        question: Annotated[
            str | None, Field(description="Or: a question to answer now and file.")
        ] = None,
        format: Annotated[
            Literal["md", "marp"],
            Field(description="md: a plain page; marp: a Marp slide deck."),
        ] = "md",
    ) -> dict[str, Any]:
        return await _run(
            ctx,
            lambda progress: service.save_answer(
                answer_id=answer_id, question=question, fmt=format, progress=progress
            ),
        )

    @server.tool(
        annotations=WRITES,
        description="Consolidate episodes (dated sources: daily logs, journals) not yet "
        "consolidated, oldest first: a cited digest page per period, patterns that recur in 3 or "
        "more episodes moved onto the most specific page, links from each episode. One commit "
        "per period; consolidated periods are skipped unless force. Slow (uses the model); sends "
        "progress notifications. Returns one outcome per period (status, digest, patterns, "
        "pages created, commit).",
    )
    async def consolidate(
        ctx: Context[Any, Any],
        since: Annotated[
            dt.date | None, Field(description="Only episodes dated on or after (YYYY-MM-DD).")
        ] = None,
        until: Annotated[
            dt.date | None, Field(description="Only episodes dated on or before (YYYY-MM-DD).")
        ] = None,
        period: Annotated[
            Literal["week", "day"] | None,
            Field(description="One digest per ISO week or per day (default: wikic.yaml's)."),
        ] = None,
        force: Annotated[bool, Field(description="Redo periods already consolidated.")] = False,
        dry_run: Annotated[
            bool, Field(description="Return the due periods and their episodes; no writes.")
        ] = False,
    ) -> dict[str, Any]:
        return await _run(
            ctx,
            lambda progress: service.consolidate(
                since=since,
                until=until,
                period=period,
                force=force,
                dry_run=dry_run,
                progress=progress,
            ),
        )


def _resources(server: WikiServer, service: WikiService) -> None:
    @server.resource(
        URI_SCHEME + "{+path}",
        name="page",
        description="A wiki page as markdown with its YAML properties, e.g. "
        "wiki://concepts/kv-cache; wiki://index and wiki://log are the catalog and the log.",
        mime_type="text/markdown",
    )
    def page(path: str) -> str:
        try:
            with open_store(service.paths) as store:
                ref = resolve_ref(service.paths, store, path)
            return read_text(service.paths, ref.path)
        except UsageError as exc:
            raise ResourceNotFoundError(str(exc)) from None
        except WikicError as exc:
            raise ResourceError(str(exc)) from None
