"""The wiki operations an MCP server offers, as plain blocking calls returning JSON values.

Each call wraps the function the CLI calls (store search, `answer_question`, `ingest`, `run_lint`,
`wiki_status`, `save_answer`, `consolidate`); errors are `WikicError`s. Everything that may use
the model runs on one dedicated thread, so the model is loaded once, used by one call at a time
and its prefix cache stays warm between calls. Writes take the CLI's writer lock and journal.
"""

from __future__ import annotations

import datetime as dt
import functools
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from wikic.config import RoleName
from wikic.consolidate import ConsolidateRequest, consolidate
from wikic.consolidate import ProgressEvent as ConsolidateEvent
from wikic.errors import SourceError, UsageError
from wikic.ingest.pipeline import IngestRequest, ProgressEvent, ingest
from wikic.lint import LintOptions, run_lint, selected_rules
from wikic.llm.backend import Backend
from wikic.llm.factory import make_backend
from wikic.mcp.pages import block_text, jsonable, page_uri, read_text, resolve_ref, section_text
from wikic.mcp.results import (
    LogEntryResult,
    LogResult,
    PageResult,
    SearchResult,
    StatusResult,
)
from wikic.operation.transaction import recover_if_idle
from wikic.paths import WikiPaths
from wikic.query.answer import QueryResult, answer_question
from wikic.query.save import SavedAnalysis, save_answer
from wikic.status import read_log, wiki_status
from wikic.store.db import after_commit, open_store
from wikic.store.search import parse_where
from wikic.sync import sync_after_write
from wikic.vault.logbook import LogEntry
from wikic.vault.pages import parse_page

T = TypeVar("T")
Progress = Callable[[float, float | None, str], None]  # (done, total, message)
BackendFactory = Callable[[RoleName], Backend]
WRITE_WAIT_S = 60.0  # how long a write waits for another writer before it is a tool error
KEPT_ANSWERS = 64  # answers `save_answer` can file by id, newest kept


@dataclass(frozen=True)
class ServiceOptions:
    allow_write: bool = False
    write_wait_s: float = WRITE_WAIT_S


def _no_progress(done: float, total: float | None, message: str) -> None:
    return None


class WikiService:
    """One wiki, one model thread, lazily made backends (one per role, reused)."""

    def __init__(
        self,
        paths: WikiPaths,
        options: ServiceOptions = ServiceOptions(),
        *,
        backend_for: BackendFactory | None = None,
    ) -> None:
        self.paths = paths
        self.options = options
        self._make = backend_for or self._default_backend
        self._backends: dict[RoleName, Backend] = {}
        self._model_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="wikic-model")
        self._answers: OrderedDict[str, QueryResult] = OrderedDict()
        self._answers_lock = threading.Lock()

    def _default_backend(self, role: RoleName) -> Backend:
        return make_backend(self.paths.config, role, cache_dir=self.paths.kv_cache)

    def backend(self, role: RoleName) -> Backend:
        """The backend of `role`, made on first use (on the model thread) and kept."""
        if role not in self._backends:
            self._backends[role] = self._make(role)
        return self._backends[role]

    def on_model_thread(self, fn: Callable[[], T]) -> T:
        """Run `fn` on the model thread and wait for it: one model call at a time, and mlx
        state stays on the thread that created it."""
        return self._model_thread.submit(fn).result()

    def close(self) -> None:
        self._model_thread.shutdown(wait=False, cancel_futures=True)

    def require_write(self, tool: str) -> None:
        if not self.options.allow_write:
            raise UsageError(
                f"{tool} changes the wiki, and this server is read-only",
                hint="Start it with `wikic mcp --allow-write` to allow writes.",
            )

    # -- reading ---------------------------------------------------------------------------

    def search(
        self, terms: str, *, types: list[str], tags: list[str], where: list[str], limit: int
    ) -> SearchResult:
        filters = parse_where(where)
        if not terms.strip() and not (types or tags or filters):
            raise UsageError(
                "nothing to search for", hint="Pass terms, or a type/tag/where filter."
            )
        with open_store(self.paths) as store:
            hits = store.search(
                terms,
                types=types,
                tags=tags,
                where=filters,
                limit=limit,
                ranking=self.paths.config.search.mode,
            )
            notes = list(store.notes)
        return {
            "hits": [
                {
                    "path": h.path,
                    "uri": page_uri(h.path),
                    "title": h.title,
                    "type": h.type,
                    "score": h.score,
                    "snippet": h.snippet,
                    "summary": h.summary,
                }
                for h in hits
            ],
            "notes": notes,
        }

    def read_page(self, ref: str) -> PageResult:
        with open_store(self.paths) as store:
            page_ref = resolve_ref(self.paths, store, ref)
            info = store.page(page_ref.path)
            links_to = store.links_from(page_ref.path) if info else []
            linked_from = store.backlinks(page_ref.path) if info else []
        page = parse_page(page_ref.path, read_text(self.paths, page_ref.path))
        markdown = page.body
        if page_ref.block is not None:
            part = block_text(page.body, page_ref.block)
            if part is None:
                raise UsageError(
                    f"{page_ref.path} has no block ^{page_ref.block}",
                    hint="Read the whole page to see its block ids (lines ending in ^id).",
                )
            markdown = part
        elif page_ref.heading is not None:
            part = section_text(page.body, page_ref.heading)
            if part is None:
                raise UsageError(f"{page_ref.path} has no heading {page_ref.heading!r}")
            markdown = part
        return {
            "path": page_ref.path,
            "uri": page_ref.uri,
            "title": page.title,
            "type": page.type,
            "properties": jsonable(dict(page.props)),
            "block": page_ref.block,
            "heading": page_ref.heading,
            "markdown": markdown,
            "links_to": links_to,
            "linked_from": linked_from,
        }

    def status(self, *, recent: int) -> StatusResult:
        recover_if_idle(self.paths)
        st = wiki_status(self.paths, recent=recent)
        return {
            "root": st.root,
            "sources": [{"raw": s.raw, "state": s.state, "page": s.page} for s in st.sources],
            "counts": {k: st.count(k) for k in ("new", "changed", "ingested", "missing")},
            "pages": st.pages_by_type,
            "recent": [_entry(e) for e in st.recent],
            "interrupted_operations": st.interrupted,
            "broken_pages": st.broken_pages,
            "writes_allowed": self.options.allow_write,
        }

    def log(self, *, number: int) -> LogResult:
        return {"entries": [_entry(e) for e in read_log(self.paths)[-number:]]}

    def lint(
        self,
        *,
        rules: list[str],
        ignore: list[str],
        semantic: bool,
        fix: bool,
        progress: Progress = _no_progress,
    ) -> dict[str, Any]:
        if fix:
            self.require_write("lint with fix")
        options = LintOptions(tuple(rules), tuple(ignore), semantic, fix, self.options.write_wait_s)
        asks_model = set(selected_rules(self.paths.config, options)) & {
            "contradiction",
            "open-question",
        }

        def run() -> dict[str, Any]:
            backend = self.backend("lint") if asks_model else None
            report = run_lint(
                self.paths,
                options,
                backend=backend,
                progress=lambda done, total, what: progress(done, total, what),
            )
            return {**report.to_dict(), **(self.synced() if fix else {})}

        return self.on_model_thread(run) if asks_model else run()

    # -- the model -------------------------------------------------------------------------

    def query(
        self, question: str, *, max_tokens: int | None, progress: Progress = _no_progress
    ) -> dict[str, Any]:
        def model() -> Backend:
            if "query" not in self._backends:
                progress(1, 3, f"loading {self.paths.config.model_for('query')}")
            backend = self.backend("query")
            progress(2, 3, "reading the pages and answering")
            return backend

        def run() -> QueryResult:
            progress(0, 3, "searching the wiki")
            return answer_question(self.paths, question, backend=model, max_tokens=max_tokens)

        result = self.on_model_thread(run)
        progress(3, 3, "answered")
        answer_id = self._keep(result) if result.answered else None
        return {**result.to_dict(), "answer_id": answer_id}

    def _keep(self, result: QueryResult) -> str:
        answer_id = secrets.token_hex(6)
        with self._answers_lock:
            self._answers[answer_id] = result
            while len(self._answers) > KEPT_ANSWERS:
                self._answers.popitem(last=False)
        return answer_id

    # -- writing ---------------------------------------------------------------------------

    def save_answer(
        self,
        *,
        answer_id: str | None,
        question: str | None,
        fmt: Literal["md", "marp"],
        progress: Progress = _no_progress,
    ) -> dict[str, Any]:
        self.require_write("save_answer")
        if bool(answer_id) == bool(question and question.strip()):
            raise UsageError("pass either answer_id (from the query tool) or a question")
        if answer_id:
            with self._answers_lock:
                result = self._answers.get(answer_id)
            if result is None:
                raise UsageError(
                    f"no answer {answer_id!r} in this server",
                    hint="Answers are kept while the server runs; ask with the query tool again.",
                )
        else:
            result = self.on_model_thread(
                lambda: answer_question(self.paths, str(question), backend=self._query_backend)
            )
        progress(0, 1, "filing the answer")
        saved = save_answer(self.paths, result, fmt=fmt, wait=self.options.write_wait_s)
        progress(1, 1, "filed")
        return {
            "saved": _saved(saved),
            "question": result.question,
            "answer": result.answer,
            **self.synced(),
        }

    def _query_backend(self) -> Backend:
        return self.backend("query")

    def ingest(
        self,
        sources: list[str],
        *,
        all_new: bool,
        force: bool,
        dry_run: bool,
        progress: Progress = _no_progress,
    ) -> dict[str, Any]:
        self.require_write("ingest")
        request = IngestRequest(
            tuple(self.raw_path(s) for s in sources), all_new=all_new, force=force, dry_run=dry_run
        )

        def on_event(event: ProgressEvent) -> None:
            done = event.index - (0 if event.stage in ("done", "failed", "skipped") else 1)
            text = f"{event.source}: {event.stage}" + (f" ({event.detail})" if event.detail else "")
            progress(max(done, 0), event.total or None, text)

        report = self.on_model_thread(
            lambda: ingest(
                self.paths,
                request,
                extract_backend=functools.partial(self.backend, "extract"),
                write_backend=functools.partial(self.backend, "write"),
                progress=on_event,
                wait=self.options.write_wait_s,
            )
        )
        return {
            "dry_run": report.dry_run,
            "sources": [o.to_dict() for o in report.outcomes],
            "revisited": [o.to_dict() for o in report.revisited if o.status != "skipped"],
            "stats": report.total_stats().to_dict(),
            **({} if dry_run else self.synced()),
        }

    def consolidate(
        self,
        *,
        since: dt.date | None,
        until: dt.date | None,
        period: Literal["week", "day"] | None,
        force: bool,
        dry_run: bool,
        progress: Progress = _no_progress,
    ) -> dict[str, Any]:
        self.require_write("consolidate")
        request = ConsolidateRequest(since, until, period, force, dry_run)

        def on_event(event: ConsolidateEvent) -> None:
            done = event.index - (0 if event.stage in ("done", "failed") else 1)
            text = f"{event.period}: {event.stage}" + (f" ({event.detail})" if event.detail else "")
            progress(max(done, 0), event.total or None, text)

        report = self.on_model_thread(
            lambda: consolidate(
                self.paths,
                request,
                backend=functools.partial(self.backend, "write"),
                progress=on_event,
                wait=self.options.write_wait_s,
            )
        )
        return {**report.to_dict(), **({} if dry_run else self.synced())}

    def synced(self) -> dict[str, Any]:
        """After a write: the sync with the git remote when wikic.yaml says `sync: auto`, as
        the result's "sync" (a remote out of reach is its notice, never a tool error)."""
        report = sync_after_write(
            self.paths, False, wait=self.options.write_wait_s, on_commit=after_commit
        )
        return {} if report is None else {"sync": report.to_dict()}

    def raw_path(self, given: str) -> Path:
        """An absolute path inside raw/ for a source path an agent gave (relative to the wiki
        root, or to raw/); anything that resolves outside raw/ is refused."""
        if not given.strip() or "\x00" in given:
            raise SourceError(f"{given!r} is not a source path")
        raw = self.paths.raw.resolve()
        root = self.paths.root.resolve()
        candidate = (root / given).resolve()
        if not candidate.exists() and not Path(given).is_absolute():
            in_raw = (raw / given).resolve()
            candidate = in_raw if in_raw.exists() else candidate
        if not candidate.is_relative_to(raw):
            raise SourceError(
                f"{given}: sources must be inside {self.paths.rel(self.paths.raw)}/",
                hint="Only files under raw/ can be ingested; copy the file there first.",
            )
        return candidate


def _entry(e: LogEntry) -> LogEntryResult:
    return {
        "date": e.date.isoformat(),
        "op": e.op,
        "title": e.title,
        "author": e.author or None,
        "details": list(e.bullets),
    }


def _saved(saved: SavedAnalysis) -> dict[str, Any]:
    return {
        "path": saved.path,
        "uri": page_uri(saved.path),
        "created": saved.created,
        "linked_from": list(saved.linked_from),
        "commit": saved.commit,
    }
