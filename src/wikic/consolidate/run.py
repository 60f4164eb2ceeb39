"""`wikic consolidate`: plan the due periods → per batch, one model call → code verifies → one
committed operation per period (digest, patterns, links, compression, a log entry with notes).

A period is redone as a whole: its earlier unedited lines are removed first, so a re-run or
`--force` replaces what consolidation wrote and nothing else. A failing period is reported and
left untouched; the others go on.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from wikic.consolidate.episodes import Episode, find_episodes
from wikic.consolidate.period import operation, run_period
from wikic.consolidate.plan import PeriodPlan, plan_periods
from wikic.consolidate.recurring import phrase
from wikic.errors import UsageError, WikicError
from wikic.llm.backend import EMPTY_STATS, Backend, GenerationStats
from wikic.operation.transaction import Writer, writing
from wikic.paths import WikiPaths
from wikic.vault.episodes import Period
from wikic.vault.tree import Vault

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ProgressEvent:
    period: str
    index: int  # 1-based position among the due periods
    total: int
    stage: str  # read | model | commit | done | failed
    detail: str = ""


ProgressFn = Callable[[ProgressEvent], None]


@dataclass(frozen=True)
class ConsolidateRequest:
    since: dt.date | None = None
    until: dt.date | None = None
    period: Period | None = None  # None: consolidate.period from wikic.yaml
    force: bool = False
    dry_run: bool = False

    def __post_init__(self) -> None:
        if self.since and self.until and self.since > self.until:
            raise UsageError(f"--since {self.since} is after --until {self.until}")


@dataclass
class PeriodOutcome:
    period: str
    title: str
    episodes: list[str]
    batches: int
    status: str = "pending"  # consolidated | planned | failed
    redo: bool = False
    digest: str | None = None
    patterns: list[dict[str, object]] = field(default_factory=list)
    rejected: list[dict[str, object]] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    commit: str | None = None
    error: str | None = None
    seconds: float = 0.0
    stats: GenerationStats = EMPTY_STATS

    def to_dict(self) -> dict[str, object]:
        return {
            "period": self.period,
            "title": self.title,
            "status": self.status,
            "redo": self.redo,
            "episodes": self.episodes,
            "batches": self.batches,
            "digest": self.digest,
            "patterns": self.patterns,
            "rejected": self.rejected,
            "created": self.created,
            "notes": self.notes,
            "commit": self.commit,
            "error": self.error,
            "seconds": self.seconds,
            "stats": self.stats.to_dict(),
        }


@dataclass
class ConsolidateReport:
    outcomes: list[PeriodOutcome]
    pending: int  # episodes not consolidated before this run
    dry_run: bool = False

    @property
    def failed(self) -> list[PeriodOutcome]:
        return [o for o in self.outcomes if o.status == "failed"]

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0

    @property
    def episodes(self) -> int:
        return sum(len(o.episodes) for o in self.outcomes if o.status == "consolidated")

    @property
    def seconds(self) -> float:
        return round(sum(o.seconds for o in self.outcomes), 3)

    def to_dict(self) -> dict[str, object]:
        n = self.episodes
        return {
            "dry_run": self.dry_run,
            "pending_before": self.pending,
            "periods": [o.to_dict() for o in self.outcomes],
            "episodes_consolidated": n,
            "seconds": self.seconds,
            "seconds_per_episode": round(self.seconds / n, 3) if n else None,
        }


def consolidate(
    paths: WikiPaths,
    request: ConsolidateRequest,
    *,
    backend: Callable[[], Backend],
    progress: ProgressFn | None = None,
    wait: float | None = None,
    on_wait: Callable[[str], None] | None = None,
    today: dt.date | None = None,
) -> ConsolidateReport:
    """Consolidate the due periods; the backend is made only when a period needs the model."""
    emit = progress or (lambda event: None)
    day = today or dt.date.today()
    if request.dry_run:
        return _run(paths, request, None, backend, emit, day)
    with writing(paths, "consolidate", wait=wait, on_wait=on_wait) as writer:
        return _run(paths, request, writer, backend, emit, day)


def _run(
    paths: WikiPaths,
    request: ConsolidateRequest,
    writer: Writer | None,
    backend: Callable[[], Backend],
    emit: ProgressFn,
    today: dt.date,
) -> ConsolidateReport:
    cfg = paths.config.consolidate
    episodes = find_episodes(paths, Vault.load(paths.wiki))
    pending = sum(1 for e in episodes if e.consolidated is None)
    count = (lambda text: len(text.split()) * 4 // 3) if writer is None else None
    plans = plan_periods(
        episodes,
        period=request.period or cfg.period,
        since=request.since,
        until=request.until,
        force=request.force,
        budget_tokens=cfg.context_tokens,
        count_tokens=count or (lambda text: backend().count_tokens(text)),
    )
    report = ConsolidateReport([], pending, dry_run=writer is None)
    agents_md = paths.agents_md.read_text(encoding="utf-8") if paths.agents_md.exists() else ""
    for i, plan in enumerate(plans, 1):
        outcome = PeriodOutcome(
            plan.key, plan.title, [e.page for e in plan.episodes], len(plan.batches), redo=plan.redo
        )
        report.outcomes.append(outcome)
        if writer is None:
            outcome.status = "planned"
            continue
        start = time.perf_counter()
        try:
            _period(
                paths,
                writer,
                plan,
                episodes,
                backend,
                agents_md,
                outcome,
                emit,
                i,
                len(plans),
                today,
            )
        except WikicError as exc:
            outcome.status, outcome.error = "failed", exc.message
            emit(ProgressEvent(plan.key, i, len(plans), "failed", exc.message))
        outcome.seconds = round(time.perf_counter() - start, 3)
    return report


def _period(
    paths: WikiPaths,
    writer: Writer,
    plan: PeriodPlan,
    history: Sequence[Episode],
    backend: Callable[[], Backend],
    agents_md: str,
    outcome: PeriodOutcome,
    emit: ProgressFn,
    index: int,
    total: int,
    today: dt.date,
) -> None:
    def on_batch(b: int, n: int) -> None:
        emit(ProgressEvent(plan.key, index, total, "model", f"batch {b}/{n}"))

    result = run_period(paths, plan, history, backend, agents_md, today, on_batch)
    outcome.notes += result.notes
    if result.stats is not None:
        outcome.stats = outcome.stats + result.stats
    emit(ProgressEvent(plan.key, index, total, "commit"))
    min_episodes = paths.config.consolidate.min_episodes
    committed = writer.commit(operation(paths, plan, result, min_episodes), today=today)
    outcome.status, outcome.commit = "consolidated", committed.commit
    outcome.digest = plan.digest_page
    outcome.created = list(result.edits.created)
    outcome.patterns = [
        {
            "name": x.pattern.name,
            "page": x.page,
            "section": x.heading,
            "episodes": list(x.pattern.episodes),
            "blocks": [f"{c.episode.name}#^{c.block.id}" for c in x.pattern.cites],
            "changed": bool(x.pattern.changes),
        }
        for x in result.placed
    ]
    outcome.rejected = [
        {
            "name": phrase(item),
            "episodes": [e.page for e in item.episodes],
            "why": f"{len(item.episodes)} distinct episode(s) so far, {min_episodes} needed",
        }
        for item in result.recurring
    ]
    emit(ProgressEvent(plan.key, index, total, "done", f"{len(result.placed)} pattern(s)"))
