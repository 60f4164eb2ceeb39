"""The shapes of the results the MCP tools build themselves; the SDK publishes them as each
tool's output schema and checks every result against it.

Tools that pass a core report through (query, lint, ingest, consolidate, save_answer) publish a
plain object schema instead, so a field added to that report never turns into a tool error.
"""

from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict  # pydantic needs it for TypedDicts before Python 3.12


class SearchHitResult(TypedDict):
    path: str  # relative to wiki/
    uri: str  # wiki://<path without .md>
    title: str
    type: str
    score: float  # higher is better
    snippet: str  # markdown, matched words in **bold**
    summary: str


class SearchResult(TypedDict):
    hits: list[SearchHitResult]
    notes: list[str]  # warnings about the search index (rebuilt, unreadable pages)


class PageResult(TypedDict):
    path: str
    uri: str
    title: str
    type: str
    properties: dict[str, Any]
    block: str | None
    heading: str | None
    markdown: str  # the body, or only the block / section asked for
    links_to: list[str]
    linked_from: list[str]


class LogEntryResult(TypedDict):
    date: str  # YYYY-MM-DD
    op: str
    title: str
    author: str | None  # who ran it (log.md's `- by` line), None for older entries
    details: list[str]


class LogResult(TypedDict):
    entries: list[LogEntryResult]


class SourceStateResult(TypedDict):
    raw: str
    state: str  # new | changed | ingested | missing
    page: str | None


class StatusResult(TypedDict):
    root: str
    sources: list[SourceStateResult]
    counts: dict[str, int]
    pages: dict[str, int]
    recent: list[LogEntryResult]
    interrupted_operations: int
    broken_pages: list[str]
    writes_allowed: bool
