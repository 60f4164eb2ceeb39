"""`wikic watch`: keep the wiki current while sources arrive in raw/.

Loop: look at raw/ (a `Tracker` tells what arrived, changed or went) → compile the settled new
and changed sources as `ingest --all` would, one commit each, under the wiki's writer lock like
every other wikic process → lint after each batch → with --consolidate, consolidate once a day
→ sleep until a file event or the next check. Each step is an event for the caller to show. A
source that fails is reported and tried again when it changes; the others go on. A Ctrl-C
stops between operations (see `operation.signals`): the wiki is as after the last commit.
"""

from __future__ import annotations

import datetime as dt
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from wikic.consolidate.run import ConsolidateRequest, consolidate
from wikic.errors import ModelError, SourceError, WikicError
from wikic.ingest.pipeline import IngestReport, IngestRequest, SourceOutcome, ingest
from wikic.lint.runner import LintOptions, run_lint
from wikic.llm.backend import Backend
from wikic.paths import WikiPaths
from wikic.status import source_pages_by_raw, source_states
from wikic.vault.sources import scan_raw
from wikic.vault.tree import Vault
from wikic.watch.tracker import Stat, Tracker
from wikic.watch.wakeups import Wakeups

BackendFn = Callable[[], Backend]


@dataclass(frozen=True)
class WatchOptions:
    settle: float = 2.0  # seconds a file must stay unchanged before it is compiled
    every: float = 1.0  # seconds between looks at raw/ at the most
    lint: bool = True  # structural lint after each batch
    consolidate_hour: int | None = None  # consolidate once a day at this hour; None: never


@dataclass(frozen=True)
class WatchEvent:
    """One line of `wikic watch`: what happened, to which source, and what was done."""

    kind: str  # started | added | changed | deleted | ingested | unchanged | failed | waiting
    #            | lint | consolidated | error
    path: str = ""  # the raw file (relative to the wiki root), or a page
    detail: str = ""
    at: dt.datetime = field(default_factory=dt.datetime.now)

    def to_dict(self) -> dict[str, str]:
        return {
            "at": self.at.isoformat(timespec="seconds"),
            "event": self.kind,
            "path": self.path,
            "detail": self.detail,
        }


@dataclass
class Watcher:
    paths: WikiPaths
    options: WatchOptions
    extract_backend: BackendFn
    write_backend: BackendFn
    on_event: Callable[[WatchEvent], None]
    now: Callable[[], dt.datetime] = dt.datetime.now
    tracker: Tracker = field(init=False)
    consolidated_on: dt.date | None = None

    def __post_init__(self) -> None:
        self.tracker = Tracker(self.options.settle)

    def run(self, wakeups: Wakeups, stop: threading.Event) -> None:
        """Watch until `stop` is set (or Ctrl-C). ModelError ends it: no source could compile."""
        self.start(wakeups.how)
        while not stop.is_set():
            self.step()
            due = self.tracker.next_due()
            wakeups.wait(self.options.every if due is None else min(due, self.options.every))

    def start(self, how: str) -> None:
        if not self.paths.raw.is_dir():
            raise SourceError(f"{self.paths.rel(self.paths.raw)}/ does not exist: nothing to watch")
        states = source_states(self.paths, Vault.load(self.paths.wiki))
        pending = {s.raw for s in states if s.state in ("new", "changed")}
        self.tracker.start(_stats(self.paths), pending)
        raw = self.paths.rel(self.paths.raw)
        self.emit("started", f"{raw}/", f"{how}; {len(pending)} source(s) to compile")

    def step(self) -> None:
        """One look at raw/, and the work it shows."""
        notices = self.tracker.observe(_stats(self.paths))
        for notice in notices:
            self.emit(notice.kind, notice.path, self._about(notice.kind, notice.path))
        ready = self.tracker.ready()
        if ready:
            self.compile(ready)
        elif self.options.lint and any(n.kind == "deleted" for n in notices):
            self.lint()  # its source page lost its raw file
        self.consolidate_if_due()

    def compile(self, ready: dict[str, Stat]) -> None:
        request = IngestRequest(tuple(self.paths.root / rel for rel in ready))
        try:
            report = ingest(
                self.paths,
                request,
                extract_backend=self.extract_backend,
                write_backend=self.write_backend,
                on_wait=lambda message: self.emit("waiting", "", message),
            )
        except ModelError:
            raise
        except WikicError as exc:  # the batch could not run (git state, …): try on change
            report = IngestReport(
                [SourceOutcome(rel, "failed", error=exc.message) for rel in ready]
            )
        for outcome in report.outcomes:
            self.emit(outcome.status, self._rel(outcome.raw), _outcome_detail(outcome))
        for rel, stat in ready.items():  # done at this stat; a later change brings it back
            self.tracker.handled(rel, stat)
        if self.options.lint and any(o.status in ("ingested", "failed") for o in report.outcomes):
            self.lint()

    def lint(self) -> None:
        counts = run_lint(self.paths, LintOptions()).counts()
        errors, warnings = counts.get("error", 0), counts.get("warning", 0)
        detail = (
            f"{errors} error(s), {warnings} warning(s): `wikic lint` shows them"
            if errors or warnings
            else "clean"
        )
        self.emit("lint", "", detail)

    def consolidate_if_due(self) -> None:
        hour = self.options.consolidate_hour
        now = self.now()
        if hour is None or now.hour != hour or self.consolidated_on == now.date():
            return
        self.consolidated_on = now.date()
        try:
            report = consolidate(
                self.paths,
                ConsolidateRequest(),
                backend=self.write_backend,
                on_wait=lambda message: self.emit("waiting", "", message),
            )
        except WikicError as exc:
            self.emit("error", "", f"consolidate: {exc.message}")
            return
        done = [o.period for o in report.outcomes if o.status == "consolidated"]
        failed = [f"{o.period}: {o.error}" for o in report.failed]
        detail = f"{len(done)} period(s), {report.episodes} episode(s)" if done else "nothing to do"
        self.emit("consolidated", "", "; ".join([detail, *failed]))

    def emit(self, kind: str, path: str, detail: str) -> None:
        self.on_event(WatchEvent(kind, path, detail, self.now()))

    def _about(self, kind: str, rel: str) -> str:
        if kind != "deleted":
            return "waiting until it stops changing"
        pages = source_pages_by_raw(Vault.load(self.paths.wiki)).get(rel)
        if not pages:
            return "it had no source page"
        name = pages[0].removesuffix(".md")
        return f"its page {name} stays (`wikic delete {name} --force` removes it)"

    def _rel(self, raw: str) -> str:
        path = self.paths.root / raw
        return self.paths.rel(path) if os.path.isabs(raw) else raw


def _stats(paths: WikiPaths) -> dict[str, Stat]:
    """(size, mtime) of each source file in raw/; files that vanish meanwhile are left out."""
    stats = {}
    for rel in scan_raw(paths).files:
        try:
            st = (paths.root / rel).stat()
        except OSError:
            continue
        stats[rel] = (st.st_size, st.st_mtime_ns)
    return stats


def _outcome_detail(o: SourceOutcome) -> str:
    if o.status == "failed":
        error = o.error or "failed"
        return error.removeprefix(f"{o.raw}: ")
    if o.status == "unchanged":
        return "compiled already"
    detail = f"→ {o.source_page} ({len(o.created)} created, {len(o.updated)} updated)"
    if o.kept_edits:
        detail += f"; kept your edits: {', '.join(o.kept_edits)}"
    return detail
