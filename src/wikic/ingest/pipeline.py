"""`wikic ingest`: collect → extract (all sources of the batch) → plan → write → commit per source.

Extracting the whole batch before writing lets topics shared by several sources land on one
page. The page writes of sources that write no page in common share one batch too (`_write_all`).
Each source is committed on its own, so a failure leaves earlier sources committed and the
failing one untouched; the batch goes on. An unchanged source is a no-op unless forced.

Earlier sources that name what the batch discusses are read again, code only, and revisited:
the pages the batch makes cite them too (`ingest.revisit`); each revisit is a commit of its own
after the batch's, reported apart (`IngestReport.revisited`).
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wikic.errors import SourceError, UsageError, WikicError
from wikic.ingest.extract import (
    Extraction,
    ExtractionJob,
    extract_sources,
    finish_extraction,
    prepare_extraction,
)
from wikic.ingest.plan import Resolver, SourcePlan, plan_batch
from wikic.ingest.revisit import EarlierSource, batch_names, earlier_sources
from wikic.ingest.source_edits import replay_hand_edits
from wikic.ingest.write import SourceWrite, WriteJob, finish_write, prepare_write
from wikic.language.finders import enabled_finders
from wikic.llm.backend import (
    EMPTY_STATS,
    Backend,
    Generation,
    GenerationStats,
    Request,
    generate_batch,
)
from wikic.operation.transaction import Plan, Writer, writing
from wikic.paths import WikiPaths
from wikic.status import source_pages_by_raw, source_states
from wikic.store.concepts import StoredConcepts
from wikic.store.db import after_commit, open_concepts
from wikic.vault.episodes import episode_date
from wikic.vault.links import link
from wikic.vault.pages import Page, render_page
from wikic.vault.sources import Source, list_raw, load_source, resolve_source_path
from wikic.vault.tree import Vault

ProgressFn = Callable[["ProgressEvent"], None]


@dataclass(frozen=True)
class ProgressEvent:
    source: str  # raw path
    index: int  # 1-based position in the batch
    total: int
    stage: str  # load | extract | plan | write | commit | done | skipped | failed
    detail: str = ""


@dataclass
class SourceOutcome:
    raw: str
    status: str = "pending"  # ingested | unchanged | failed | planned | revisited | skipped
    error: str | None = None
    title: str | None = None
    source_page: str | None = None
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    contradictions: list[dict[str, str]] = field(default_factory=list)
    retracted: int = 0
    unsupported: list[str] = field(default_factory=list)
    kept_edits: list[str] = field(default_factory=list)  # hand edits of the source page kept
    replaced_edits: list[str] = field(default_factory=list)  # and those the source changed too
    commit: str | None = None
    stats: dict[str, GenerationStats] = field(default_factory=dict)  # by stage
    seconds: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {
            "raw": self.raw,
            "status": self.status,
            "error": self.error,
            "title": self.title,
            "source_page": self.source_page,
            "created": self.created,
            "updated": self.updated,
            "contradictions": self.contradictions,
            "retracted": self.retracted,
            "unsupported": self.unsupported,
            "kept_edits": self.kept_edits,
            "replaced_edits": self.replaced_edits,
            "commit": self.commit,
            "stats": {k: v.to_dict() for k, v in self.stats.items()},
            "seconds": self.seconds,
        }


@dataclass
class IngestReport:
    outcomes: list[SourceOutcome]
    dry_run: bool = False
    walls: dict[str, float] = field(default_factory=dict)  # stage → wall seconds of its batches
    # earlier sources whose facts went to pages this batch made (`ingest.revisit`)
    revisited: list[SourceOutcome] = field(default_factory=list)

    @property
    def failed(self) -> list[SourceOutcome]:
        return [o for o in self.outcomes if o.status == "failed"]

    def total_stats(self) -> GenerationStats:
        total = EMPTY_STATS
        for o in [*self.outcomes, *self.revisited]:
            for s in o.stats.values():
                total = total + s
        return total

    def stages(self) -> dict[str, dict[str, float | int | None]]:
        """Where each stage's time went, over every source (`GenerationStats.breakdown`):
        prefill, decode, rows per decode step, and the wall time outside the model."""
        totals: dict[str, GenerationStats] = {}
        for o in [*self.outcomes, *self.revisited]:
            for stage, s in o.stats.items():
                totals[stage] = totals.get(stage, EMPTY_STATS) + s
        return {
            stage: totals.get(stage, EMPTY_STATS).breakdown(self.walls.get(stage))
            for stage in sorted({*totals, *self.walls})
        }


@dataclass(frozen=True)
class IngestRequest:
    paths: Sequence[Path] = ()
    all_new: bool = False
    force: bool = False
    dry_run: bool = False
    rebuild: bool = False  # recompile every source from scratch (implies all_new and force)

    def __post_init__(self) -> None:
        if self.rebuild:
            object.__setattr__(self, "all_new", True)
            object.__setattr__(self, "force", True)


def collect(
    paths: WikiPaths, request: IngestRequest, vault: Vault
) -> tuple[list[str], list[SourceOutcome]]:
    """Raw paths to ingest, and outcomes for those refused before any work."""
    if not request.paths and not request.all_new:
        raise UsageError("name the sources to ingest, or use --all for every new or changed one")
    chosen: list[str] = []
    refused: list[SourceOutcome] = []
    for given in request.paths:
        try:
            rel = resolve_source_path(paths, given)
        except SourceError as exc:
            refused.append(SourceOutcome(str(given), "failed", error=exc.message))
            continue
        if (paths.root / rel).is_dir():
            prefix = rel.rstrip("/") + "/"
            chosen += [r for r in list_raw(paths) if r.startswith(prefix)]
        else:
            chosen.append(rel)
    if request.all_new:
        wanted = {"new", "changed"} | ({"ingested"} if request.force else set())
        chosen += [s.raw for s in source_states(paths, vault) if s.state in wanted]
    states = {s.raw: s.state for s in source_states(paths, vault)}
    result = []
    for rel in dict.fromkeys(chosen):
        if states.get(rel) == "ingested" and not request.force:
            refused.append(SourceOutcome(rel, "unchanged"))
        else:
            result.append(rel)
    return result, refused


def ingest(
    paths: WikiPaths,
    request: IngestRequest,
    *,
    extract_backend: Callable[[], Backend],
    write_backend: Callable[[], Backend],
    progress: ProgressFn | None = None,
    wait: float | None = None,
    on_wait: Callable[[str], None] | None = None,
    today: dt.date | None = None,
) -> IngestReport:
    """Ingest sources; backends are made lazily so a batch of no-ops never loads a model."""
    emit = progress or (lambda event: None)
    day = today or dt.date.today()
    enabled_finders(paths.config.ingest.disable_finders)  # an unknown name stops it before any work
    if request.dry_run:
        return _run(paths, request, None, extract_backend, write_backend, emit, day)
    with writing(paths, "ingest", wait=wait, on_wait=on_wait, on_commit=after_commit) as writer:
        return _run(paths, request, writer, extract_backend, write_backend, emit, day)


def _run(
    paths: WikiPaths,
    request: IngestRequest,
    writer: Writer | None,
    extract_backend: Callable[[], Backend],
    write_backend: Callable[[], Backend],
    emit: ProgressFn,
    today: dt.date,
) -> IngestReport:
    vault = Vault.load(paths.wiki)
    rels, outcomes = collect(paths, request, vault)
    agents_md = paths.agents_md.read_text(encoding="utf-8") if paths.agents_md.exists() else ""
    cfg = paths.config
    walls: dict[str, float] = {}
    extracted = _extract_all(paths, rels, outcomes, extract_backend, agents_md, emit, walls)
    # a rebuild removes the source pages first: their hand edits are replayed from these
    before = {p.path: p for p in vault if p.type == "source"} if request.rebuild else {}
    if request.rebuild and writer is not None and extracted:
        emit(ProgressEvent("", 0, len(rels), "clear", "removing compiled pages"))
        writer.commit(_clear_plan(paths, vault), today=today)
        vault = Vault.load(paths.wiki)
    with open_concepts(paths, vault) as concepts:  # the store's, looked up name by name
        earlier = [] if request.rebuild else _earlier(paths, vault, extracted, concepts)
        plans = plan_batch(
            [ex for _, ex in extracted],
            vault,
            existing_source_pages={
                raw: pages[0] for raw, pages in source_pages_by_raw(vault).items()
            },
            max_pages=cfg.ingest.max_pages_per_source,
            concepts=concepts,
            refer_back=cfg.ingest.refer_back,
            earlier=earlier,
        )
    revisits = [p for p in plans if p.revisit]
    plans = [p for p in plans if not p.revisit]
    for plan in plans:
        ex = plan.extraction
        if ex.episode:
            # an episode's one-off events are not semantic knowledge: `wikic consolidate`
            # makes pages from what recurs across episodes
            plan.dropped += [f"{t.name} (episode)" for t, _ in plan.topics]
            plan.topics = []
    pending: list[_Pending] = []
    for i, ((outcome, _), plan) in enumerate(zip(extracted, plans, strict=True), 1):
        outcome.source_page = plan.source_page
        if writer is None:
            outcome.status = "planned"
            outcome.created = [t.path for _, t in plan.topics if not t.exists]
            outcome.updated = [t.path for _, t in plan.topics if t.exists]
            continue
        pending.append(_Pending(i, outcome, plan))
    revisited = []
    for i, plan in enumerate(revisits, len(plans) + 1):
        outcome = SourceOutcome(plan.extraction.source.rel, title=plan.extraction.title)
        outcome.source_page = plan.source_page
        revisited.append(outcome)
        if writer is None:
            outcome.status = "planned"
            outcome.updated = [t.path for _, t in plan.topics]
            continue
        pending.append(_Pending(i, outcome, plan))
    if writer is not None:
        total = len(plans) + len(revisits)
        _write_all(
            paths, writer, pending, write_backend, agents_md, emit, total, today, before, walls
        )
    return IngestReport(outcomes, dry_run=writer is None, walls=walls, revisited=revisited)


def _earlier(
    paths: WikiPaths,
    vault: Vault,
    extracted: Sequence[tuple[SourceOutcome, Extraction]],
    concepts: StoredConcepts,
) -> list[EarlierSource]:
    """The earlier sources to read again for this batch (`ingest.revisit.earlier_sources`):
    those naming what the batch discusses and no page names yet."""
    batch = [ex for _, ex in extracted]
    resolver = Resolver(vault, concepts)
    names, words = batch_names(batch)
    unpaged = [n for n in names if resolver.find([n]) is None]
    unnamed = [w for w in words if resolver.find([w]) is None]
    cfg = paths.config.ingest
    return earlier_sources(
        lambda rel: load_source(paths, rel, max_bytes=cfg.max_source_bytes),
        vault,
        batch,
        unpaged,
        unnamed,
        cfg,
        is_episode=lambda ex: _episode_test(paths, ex.source)(ex.document.front_matter),
    )


def _extract_all(
    paths: WikiPaths,
    rels: list[str],
    outcomes: list[SourceOutcome],
    extract_backend: Callable[[], Backend],
    agents_md: str,
    emit: ProgressFn,
    walls: dict[str, float],
) -> list[tuple[SourceOutcome, Extraction]]:
    """Read and parse every source, then ask the model about the windows of all of them in one
    batch (rows of different sources share forward passes; see `extract_sources`). A source
    that cannot be read fails alone; a failing model call fails the sources of the batch."""
    cfg = paths.config
    jobs: list[tuple[int, SourceOutcome, ExtractionJob]] = []
    for i, rel in enumerate(rels, 1):
        outcome = SourceOutcome(rel)
        outcomes.append(outcome)
        try:
            emit(ProgressEvent(rel, i, len(rels), "load"))
            source = load_source(paths, rel, max_bytes=cfg.ingest.max_source_bytes)
        except WikicError as exc:
            _fail(outcome, exc, emit, i, len(rels))
            continue
        # outside the source's try: without a model every source would fail alike (a model that
        # is not installed), so the run stops with the one error and its hint
        backend = extract_backend()
        try:
            job = prepare_extraction(
                backend,
                source,
                agents_md=agents_md,
                config=cfg.ingest,
                max_context_tokens=cfg.generation.max_context_tokens,
                is_episode=_episode_test(paths, source),
            )
            jobs.append((i, outcome, job))
        except WikicError as exc:
            _fail(outcome, exc, emit, i, len(rels))
    if not jobs:
        return []
    windows = sum(len(job.requests) for _, _, job in jobs)
    i, first, _ = jobs[0]
    if windows:
        emit(
            ProgressEvent(
                first.raw,
                i,
                len(rels),
                "extract",
                f"{windows} windows of {len(jobs)} source(s) in one batch",
            )
        )
    start = time.perf_counter()
    try:
        replies = extract_sources(extract_backend(), [job for _, _, job in jobs])
    except WikicError as exc:
        for i, outcome, _ in jobs:
            _fail(outcome, exc, emit, i, len(rels))
        return []
    seconds = round(time.perf_counter() - start, 3)
    walls["extract"] = walls.get("extract", 0.0) + seconds
    extracted = []
    for (_, outcome, job), generations in zip(jobs, replies, strict=True):
        ex = finish_extraction(job, generations, cfg.ingest)  # code only: nothing to fail on
        outcome.seconds["extract"] = seconds  # the shared batch's wall time
        outcome.stats["extract"] = ex.stats
        outcome.title = ex.title
        extracted.append((outcome, ex))
    return extracted


def _episode_test(paths: WikiPaths, source: Source) -> Callable[[Mapping[str, Any]], bool]:
    cfg = paths.config
    return lambda front_matter: (
        episode_date(
            source.rel, front_matter, cfg, modified=_modified(paths, source), text=source.text
        )
        is not None
    )


def _modified(paths: WikiPaths, source: Source) -> dt.date | None:
    """The day the raw file last changed: the date of an undated note in an episode folder."""
    try:
        return dt.date.fromtimestamp((paths.root / source.rel).stat().st_mtime)
    except OSError:
        return None


@dataclass
class _Pending:
    index: int  # 1-based position in the batch
    outcome: SourceOutcome
    plan: SourcePlan


def _write_all(
    paths: WikiPaths,
    writer: Writer,
    pending: list[_Pending],
    write_backend: Callable[[], Backend],
    agents_md: str,
    emit: ProgressFn,
    n: int,
    today: dt.date,
    before: Mapping[str, Page],
    walls: dict[str, float],
) -> None:
    """Write and commit the planned sources, one commit each. The model calls of all sources
    that write no page in common go in one batch (a round); a source that writes a page an
    earlier one also writes waits for the next round, which reads the vault as that one's
    commit left it (so sources that share a page are committed in their order). If the round's
    batch fails, its sources are asked one by one, so a bad source fails alone.

    A source page's summary depends on its source alone, so the summaries of the sources that
    wait for a later round are asked in the current round's batch too (decoded beside the
    others, not later in a smaller batch) and kept for their round."""
    cfg = paths.config.ingest
    early: dict[int, Generation] = {}  # item index -> its summary's reply, asked a round ahead
    while pending:
        vault = Vault.load(paths.wiki)  # fresh: the earlier rounds are committed now
        round_: list[tuple[_Pending, WriteJob]] = []
        later: list[_Pending] = []
        ahead: list[tuple[int, Request]] = []  # summaries of later rounds' sources
        claimed: set[str] = set()
        for item in pending:
            plan = item.plan
            if plan.revisit and not {t.path for _, t in plan.topics} & claimed:
                # onto the pages the batch made: not one whose source failed before making it
                plan.topics = [(tp, t) for tp, t in plan.topics if t.path in vault.pages]
                if not plan.topics:
                    item.outcome.status = "skipped"
                    continue
            try:
                job = prepare_write(
                    item.plan,
                    vault,
                    agents_md=agents_md,
                    today=today,
                    summary_chars=cfg.summary_max_chars,
                    page_summary=cfg.page_summary,
                    contradiction_check=cfg.contradiction_check,
                )
            except WikicError as exc:
                _fail(item.outcome, exc, emit, item.index, n)
                continue
            writes = job.paths
            if writes & claimed:
                later.append(item)  # after the earlier source that writes one of its pages
                if job.summary_request is not None and item.index not in early:
                    ahead.append((item.index, job.summary_request))
            else:
                round_.append((item, job))
            claimed |= writes
        asked = [
            (item, job, job.requests[:-1] if item.index in early else job.requests)
            for item, job in round_
        ]
        replies, ahead_replies = _round_replies(
            write_backend, asked, [r for _, r in ahead], emit, n, walls
        )
        # none when the batch failed: those summaries are asked again in their own round
        early.update(zip((i for i, _ in ahead), ahead_replies, strict=False))
        for (item, job), answer in zip(round_, replies, strict=True):
            if isinstance(answer, WikicError):
                _fail(item.outcome, answer, emit, item.index, n)
                continue
            if item.index in early:
                answer = [*answer, early.pop(item.index)]
            page = item.plan.source_page
            current = vault.pages.get(page) or before.get(page)
            try:
                written = finish_write(job, answer)
                if item.plan.revisit:  # its source page is not written: no edits to replay
                    _commit(paths, writer, item, written, emit, n, today)
                    continue
                edits = replay_hand_edits(
                    paths, writer.repo, item.outcome.raw, written.pages[page], current
                )
                written.pages[page] = edits.page
                item.outcome.kept_edits = list(edits.kept)
                item.outcome.replaced_edits = list(edits.replaced)
                _commit(paths, writer, item, written, emit, n, today, edits.note)
            except WikicError as exc:
                _fail(item.outcome, exc, emit, item.index, n)
        pending = later


def _round_replies(
    write_backend: Callable[[], Backend],
    round_: list[tuple[_Pending, WriteJob, list[Request]]],
    ahead: list[Request],
    emit: ProgressFn,
    n: int,
    walls: dict[str, float],
) -> tuple[list[list[Generation] | WikicError], list[Generation]]:
    """Each job's replies to its requests, and the replies to `ahead` (later sources'
    summaries), from one batch; if that fails, from one batch per job (a failure then belongs
    to its source alone) and `ahead` is asked again in its own round."""
    rows = sum(len(requests) for _, _, requests in round_) + len(ahead)
    for item, _, requests in round_:
        emit(
            ProgressEvent(
                item.outcome.raw,
                item.index,
                n,
                "write",
                f"{len(requests)} model call(s), {rows} in one batch of {len(round_)} source(s)",
            )
        )
    start = time.perf_counter()
    if rows:
        write_backend()  # made outside the tries: a model that cannot be had stops the run
    ahead_replies: list[Generation] = []
    try:
        batch = _generate(write_backend, [*(r for _, _, rs in round_ for r in rs), *ahead])
        answers = iter(batch)
        replies: list[list[Generation] | WikicError] = [
            [next(answers) for _ in requests] for _, _, requests in round_
        ]
        ahead_replies = list(answers)
    except WikicError:
        replies = []
        for _, _, requests in round_:
            try:
                replies.append(_generate(write_backend, requests))
            except WikicError as exc:
                replies.append(exc)
    seconds = round(time.perf_counter() - start, 3)
    walls["write"] = walls.get("write", 0.0) + seconds
    for item, _, _ in round_:
        item.outcome.seconds["write"] = seconds  # the shared batch's wall time
    return replies, ahead_replies


def _generate(write_backend: Callable[[], Backend], requests: list[Request]) -> list[Generation]:
    return generate_batch(write_backend(), requests) if requests else []


def _commit(
    paths: WikiPaths,
    writer: Writer,
    item: _Pending,
    written: SourceWrite,
    emit: ProgressFn,
    n: int,
    today: dt.date,
    note: str | None = None,
) -> None:
    outcome, plan, i = item.outcome, item.plan, item.index
    rel = outcome.raw
    outcome.stats["write"] = written.stats
    emit(ProgressEvent(rel, i, n, "commit"))
    op = _operation_plan(paths, plan, written)
    op.note = note
    source = link(plan.source_page.removesuffix(".md"), alias=plan.extraction.title)
    if outcome.kept_edits:
        op.log_bullets.append(f"kept your edits of {source}: {', '.join(outcome.kept_edits)}")
    if outcome.replaced_edits:
        what = ", ".join(outcome.replaced_edits)
        op.log_bullets.append(f"replaced your edits of {source}, changed in {rel} too: {what}")
    result = writer.commit(op, today=today)
    outcome.status = "revisited" if plan.revisit else "ingested"
    outcome.commit = result.commit
    outcome.created, outcome.updated = written.created, written.updated
    outcome.retracted, outcome.unsupported = written.retracted, written.unsupported
    outcome.contradictions = [
        {"page": p, "new": new, "old": old, "why": why}
        for p, new, old, why in written.contradictions
    ]
    done = f"{len(written.created)} created, {len(written.updated)} updated"
    emit(ProgressEvent(rel, i, n, "done", f"revisited: {done}" if plan.revisit else done))


def _operation_plan(paths: WikiPaths, plan: SourcePlan, written: SourceWrite) -> Plan:
    wiki_rel = paths.rel(paths.wiki)
    ex = plan.extraction
    op = Plan("revisit" if plan.revisit else "ingest", ex.title)
    for path, page in sorted(written.pages.items()):
        op.write(f"{wiki_rel}/{path}", render_page(page))

    def names(pages: list[str]) -> str:
        return ", ".join(link(p.removesuffix(".md"), alias=written.pages[p].title) for p in pages)

    source = link(plan.source_page.removesuffix(".md"), alias=ex.title)
    if plan.revisit:
        op.log_bullets.append(f"revisited {source} ({ex.source.rel}) for pages made since")
    else:
        op.log_bullets.append(f"source: {source} ({ex.source.rel})")
    if written.created:
        op.log_bullets.append(f"created: {names(written.created)}")
    if written.updated:
        op.log_bullets.append(f"updated: {names(written.updated)}")
    for page_path, new, old, why in written.contradictions:
        title = written.pages[page_path].title
        op.log_bullets.append(
            f"contradiction on {link(page_path.removesuffix('.md'), alias=title)}: “{new}” vs “{old}” ({why})"
        )
    if written.retracted:
        op.log_bullets.append(f"retracted {written.retracted} fact(s) no longer in {ex.source.rel}")
    if written.unsupported:
        op.log_bullets.append(f"left without support: {names(written.unsupported)}")
    return op


def _clear_plan(paths: WikiPaths, vault: Vault) -> Plan:
    """Delete the pages ingest compiles (sources, entities, concepts); analyses and pages of
    other types are the user's and stay."""
    wiki_rel = paths.rel(paths.wiki)
    op = Plan("rebuild", "recompile every source from raw/")
    compiled = [p for p in vault if p.type in ("source", "entity", "concept")]
    for page in compiled:
        op.delete(f"{wiki_rel}/{page.path}")
    op.log_bullets.append(f"removed {len(compiled)} compiled page(s) before recompiling")
    return op


def _fail(outcome: SourceOutcome, exc: WikicError, emit: ProgressFn, i: int, n: int) -> None:
    outcome.status = "failed"
    outcome.error = exc.message
    emit(ProgressEvent(outcome.raw, i, n, "failed", exc.message))
