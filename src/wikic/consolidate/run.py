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
from dataclasses import dataclass, field, replace

from wikic.consolidate import prompts
from wikic.consolidate.candidates import Candidate, find_candidates
from wikic.consolidate.episodes import Episode, find_episodes
from wikic.consolidate.plan import PeriodPlan, plan_periods
from wikic.consolidate.render import (
    Edits,
    digest_page,
    episode_page,
    heading_link,
    is_emptied_pattern_page,
    period_slug,
    place_pattern,
    plural_episodes,
    strip_period,
    target_heading,
)
from wikic.consolidate.schemas import batch_model
from wikic.consolidate.targets import Target, suggest_targets
from wikic.consolidate.verify import Pattern, Rejected, read_batch, verify
from wikic.consolidate.words import name_key
from wikic.errors import UsageError, WikicError
from wikic.llm.backend import EMPTY_STATS, Backend, GenerationStats
from wikic.operation.transaction import Plan, Writer, writing
from wikic.paths import WikiPaths
from wikic.prompts.consolidate import block_label
from wikic.store.db import open_store
from wikic.vault.episodes import Period
from wikic.vault.links import link, parse_links
from wikic.vault.pages import Page, render_page
from wikic.vault.sections import split_body
from wikic.vault.tree import Vault

log = logging.getLogger(__name__)
MAX_OUTPUT_TOKENS = 640
MAX_NOTES = 6


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
    known = {e.name.casefold() for e in episodes}
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
                paths, writer, plan, backend, agents_md, known, outcome, emit, i, len(plans), today
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
    backend: Callable[[], Backend],
    agents_md: str,
    known: set[str],
    outcome: PeriodOutcome,
    emit: ProgressFn,
    index: int,
    total: int,
    today: dt.date,
) -> None:
    cfg = paths.config.consolidate
    vault = Vault.load(paths.wiki)
    edits = Edits()
    marker = f"^c-{period_slug(plan.key)}-"
    for page in vault:  # a redo replaces what consolidating this period wrote before
        if marker in page.body:
            edits.pages[page.path] = Page(page.path, page.props, strip_period(page.body, plan.key))
    proposals: list[Pattern] = []
    digest = []
    with open_store(paths) as store:
        for b, episodes in enumerate(plan.batches, 1):
            emit(ProgressEvent(plan.key, index, total, "model", f"batch {b}/{len(plan.batches)}"))
            targets = suggest_targets(store, vault, episodes, per_episode=cfg.suggested_targets)
            candidates = find_candidates(episodes, targets=targets)
            value, stats = _ask(
                backend(), agents_md, episodes, targets, candidates, cfg.min_episodes
            )
            outcome.stats = outcome.stats + stats
            reading = read_batch(value, episodes, targets, candidates)
            digest += reading.digest
            proposals += reading.patterns
            outcome.notes += reading.notes
    proposals = [_existing_target(p, vault) for p in proposals]
    for p in proposals:
        if p.target is not None:
            edits.pages.setdefault(p.target.page, vault.pages[p.target.page])

    def prior(p: Pattern) -> set[str]:
        if p.target is None:
            return set()
        page = edits.pages[p.target.page]
        section = split_body(page.body).get(target_heading(p, page)) or ""
        return {
            f"{lnk.target}.md" for lnk in parse_links(section) if lnk.target.casefold() in known
        }

    kept, rejected = verify(proposals, min_episodes=cfg.min_episodes, prior_episodes=prior)
    taken = {path.rsplit("/", 1)[-1].removesuffix(".md") for path in vault.pages}
    for p in kept:
        place_pattern(edits, p, plan.key, today, taken)
    placed = [(p, path, heading, edits.pages[path].title) for p, path, heading in edits.placed]
    digest_path = plan.digest_page
    digest_title = plan.title
    edits.pages[digest_path] = digest_page(
        digest_path,
        plan.key,
        digest_title,
        digest,
        plan.episodes,
        placed,
        edits.pages.get(digest_path) or vault.pages.get(digest_path),
        today,
    )
    digest_link = link(digest_path.removesuffix(".md"), alias=digest_title)
    for ep in plan.episodes:
        links = [
            heading_link(path, heading, title)
            for p, path, heading, title in placed
            if ep.page in p.episodes
        ]
        page = edits.pages.get(ep.page) or vault.pages[ep.page]
        edits.pages[ep.page] = episode_page(page, ep, plan.key, [*links, digest_link], today)
    emit(ProgressEvent(plan.key, index, total, "commit"))
    op = _operation(paths, plan, edits, placed, rejected, outcome.notes, digest_link)
    result = writer.commit(op, today=today)
    outcome.status, outcome.commit = "consolidated", result.commit
    outcome.digest = digest_path
    outcome.created = list(edits.created)
    outcome.patterns = [
        {
            "name": p.name,
            "page": path,
            "section": heading,
            "episodes": list(p.episodes),
            "blocks": [f"{c.episode.name}#^{c.block.id}" for c in p.cites],
            "changed": p.change is not None,
        }
        for p, path, heading, _ in placed
    ]
    outcome.rejected = [
        {"name": r.name, "episodes": list(r.episodes), "why": r.why} for r in rejected
    ]
    emit(ProgressEvent(plan.key, index, total, "done", f"{len(placed)} pattern(s)"))


def _ask(
    backend: Backend,
    agents_md: str,
    episodes: Sequence[Episode],
    targets: Sequence[Target],
    candidates: Sequence[Candidate],
    min_episodes: int,
) -> tuple[object, GenerationStats]:
    labels = [block_label(i, b.id) for i, ep in enumerate(episodes) for b in ep.blocks]
    gen = backend.generate(
        [
            prompts.schema_segment(agents_md),
            prompts.episodes_segment(episodes),
            prompts.targets_segment(targets),
            prompts.task_segment(candidates, min_episodes),
        ],
        schema=batch_model(labels, [c.name for c in candidates], [t.id for t in targets]),
        max_tokens=MAX_OUTPUT_TOKENS,
    )
    return gen.value, gen.stats


def _existing_target(p: Pattern, vault: Vault) -> Pattern:
    """A pattern the model sent to a new page goes to an existing page of the same name."""
    if p.target is not None:
        return p
    key = name_key(p.name)
    for page in vault:
        if page.type in ("concept", "entity") and key in {
            name_key(n) for n in (page.title, *page.aliases)
        }:
            return replace(p, target=Target("", page.path, None, page.title, page.summary))
    return p


def _operation(
    paths: WikiPaths,
    plan: PeriodPlan,
    edits: Edits,
    placed: Sequence[tuple[Pattern, str, str, str]],
    rejected: Sequence[Rejected],
    notes: Sequence[str],
    digest_link: str,
) -> Plan:
    wiki_rel = paths.rel(paths.wiki)
    op = Plan("consolidate", plan.title)
    for path, page in sorted(edits.pages.items()):
        if is_emptied_pattern_page(page):
            op.delete(f"{wiki_rel}/{path}")
            op.log_bullets.append(f"removed {path}: its pattern is no longer found")
        else:
            op.write(f"{wiki_rel}/{path}", render_page(page))
    op.log_bullets.append(f"digest: {digest_link} ({len(plan.episodes)} episodes)")
    for p, path, heading, title in placed:
        names = ", ".join(link(e.removesuffix(".md")) for e in p.episodes)
        verb = "new page" if path in edits.created else "extracted to"
        op.log_bullets.append(
            f"pattern “{p.name}” ({verb} {heading_link(path, heading, title)}): "
            f"{plural_episodes(len(p.episodes))}, {names}"
        )
        if p.change is not None:
            op.log_bullets.append(f"understanding changed for “{p.name}”: dated entry added")
    for r in rejected:
        op.log_bullets.append(f"weak evidence, not extracted: “{r.name}” ({r.why})")
    op.log_bullets.append(f"compressed {len(plan.episodes)} episode(s): consolidated, gist")
    op.log_bullets += [f"note: {n}" for n in list(dict.fromkeys(notes))[:MAX_NOTES]]
    if plan.redo:
        op.log_bullets.append("redone: earlier lines of this period replaced")
    return op
