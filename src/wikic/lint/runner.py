"""`wikic lint` as one function: select rules, scan the wiki once, run the checks, maybe fix.

Read-only unless `fix`: then the fixable findings (and, with `semantic`, the contradictions the
model found) are repaired in one committed operation under the writer lock, waited for at most
`wait` seconds (LockBusyError otherwise), and the wiki is checked again for the report. The lock
is only taken when there is something to fix, so a clean wiki never contends with a writer.
Besides --fix, lint writes only machine state: the scan cache and the semantic verdict cache.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import gc
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from wikic.config import Config
from wikic.errors import UsageError
from wikic.lint.discover import check_missing_pages, check_suggested_links, linked_pages
from wikic.lint.findings import RULES, Finding, FixSummary, LintReport, check_rule_ids
from wikic.lint.fix import plan_fixes
from wikic.lint.rules_links import (
    LinkChecker,
    check_block_ids,
    check_facts,
    check_links,
    check_special_links,
)
from wikic.lint.rules_pages import (
    check_contradictions,
    check_duplicates,
    check_index,
    check_orphans,
    check_outdated,
    check_page_types,
    check_properties,
    check_unreadable,
)
from wikic.lint.rules_quality import (
    check_cut_summaries,
    check_empty_topics,
    check_fragment_facts,
    check_ingest_duplicates,
    check_instruction_titles,
)
from wikic.lint.rules_repo import (
    SourceChange,
    check_journal,
    check_sources,
    check_stale,
    check_uncommitted,
    check_uningested,
    source_changes,
    uncommitted,
)
from wikic.lint.rules_twins import check_twin_facts
from wikic.lint.scan import WikiScan, scan_wiki
from wikic.lint.semantic import ContradictionPair, Progress, SemanticResult, run_semantic
from wikic.lint.twins import check_similar_links, check_twin_pages, topic_vectors
from wikic.llm.backend import Backend
from wikic.operation.preflight import preflight
from wikic.operation.transaction import writing
from wikic.paths import WikiPaths
from wikic.prompts import lint as lint_prompts
from wikic.store.db import after_commit, open_store

DEFAULT_WAIT_S = 5.0


@dataclass(frozen=True)
class LintOptions:
    rules: tuple[str, ...] = ()  # only these rules (empty: all)
    ignore: tuple[str, ...] = ()  # skipped, in addition to wikic.yaml's lint.ignore
    semantic: bool = False  # also the semantic rules (LLM and similarity)
    fix: bool = False  # apply the deterministic fixes as one committed operation
    wait: float = DEFAULT_WAIT_S  # seconds --fix waits for the writer lock


def selected_rules(config: Config, options: LintOptions) -> tuple[str, ...]:
    """The rule ids this run checks, in catalogue order; unknown ids are errors."""
    check_rule_ids(config.lint.ignore, where="wikic.yaml lint.ignore")
    check_rule_ids(options.rules, where="--rule")
    check_rule_ids(options.ignore, where="--ignore")
    needs_semantic = [r for r in options.rules if RULES[r].semantic]
    if needs_semantic and not options.semantic:
        raise UsageError(
            f"rule {needs_semantic[0]} is a semantic check", hint="Add --semantic to run it."
        )
    # an explicit --rule wins over wikic.yaml's ignore list
    ignored = set(options.ignore) | (set(config.lint.ignore) - set(options.rules))
    chosen = options.rules or tuple(RULES)
    return tuple(
        r
        for r in RULES
        if r in chosen and r not in ignored and (options.semantic or not RULES[r].semantic)
    )


Check = tuple[tuple[str, ...], Callable[[], Iterable[Finding]]]


def structural_findings(
    scan: WikiScan, rules: set[str], *, today: dt.date | None = None
) -> list[Finding]:
    checker = LinkChecker(scan)

    @functools.cache
    def sources() -> list[SourceChange]:
        return source_changes(scan)

    checks: list[Check] = [
        (("unreadable-page",), lambda: check_unreadable(scan)),
        (
            (
                "broken-link",
                "ambiguous-link",
                "broken-anchor",
                "missing-citation-block",
                "invalid-block-id",
            ),
            lambda: check_links(scan, checker),
        ),
        (("broken-link", "broken-anchor"), lambda: check_special_links(scan, checker)),
        (("uncited-fact",), lambda: check_facts(scan, checker)),
        (("invalid-block-id",), lambda: check_block_ids(scan)),
        (("orphan-page",), lambda: check_orphans(scan)),
        (("index-drift",), lambda: check_index(scan)),
        (("duplicate-title",), lambda: check_duplicates(scan)),
        (("page-type",), lambda: check_page_types(scan)),
        (
            (
                "property-type",
                "deprecated-property",
                "unquoted-link-property",
                "nested-property",
                "invalid-tag",
            ),
            lambda: check_properties(scan),
        ),
        (("raw-modified", "raw-missing"), lambda: check_sources(scan, sources())),
        (("stale-page",), lambda: check_stale(scan, sources())),
        (("uningested-source", "unusable-source"), lambda: check_uningested(scan)),
        (("outdated-page",), lambda: check_outdated(scan, today=today)),
        (("open-contradiction",), lambda: check_contradictions(scan)),
        (("uncommitted-changes",), lambda: check_uncommitted(scan)),
        (("interrupted-operation",), lambda: check_journal(scan)),
        (("fragment-fact",), lambda: check_fragment_facts(scan)),
        (("cut-summary",), lambda: check_cut_summaries(scan)),
        (("instruction-title",), lambda: check_instruction_titles(scan)),
        (("empty-topic",), lambda: check_empty_topics(scan)),
        (("duplicate-from-one-ingest",), lambda: check_ingest_duplicates(scan)),
        (("twin-facts",), lambda: check_twin_facts(scan)),
    ]
    found: list[Finding] = []
    for emitted, run in checks:
        if rules.intersection(emitted):
            found.extend(f for f in run() if f.rule in rules)
    return found


def _overview(scan: WikiScan, missing: list[Finding]) -> str:
    """A short picture of the wiki for the questions prompt."""
    back = scan.backlinks
    hubs = sorted(
        (ps for ps in scan if ps.type in ("entity", "concept")),
        key=lambda ps: (-len(back.get(ps.path, ())), ps.path),
    )[:15]
    open_entries = [
        (ps.page.title, c.text[:100])
        for ps in scan
        for c in ps.contradictions
        if c.status == "open"
    ][:5]
    return lint_prompts.overview(
        len(scan.pages),
        [(ps.page.title, " ".join(ps.page.summary.split())[:100]) for ps in hubs],
        open_entries,
        [f.message.split("'")[1] for f in missing[:8]],
    )


def _semantic_findings(scan: WikiScan, sem: SemanticResult, rules: set[str]) -> list[Finding]:
    found: list[Finding] = []
    for pair in sem.pairs:
        ps = scan.pages.get(pair.page)
        if ps is None or _recorded(scan, pair):
            continue
        line = next((ps.line(f.start) for f in ps.facts if f.block == pair.a), None)
        finding = Finding(
            "warning",
            "contradiction",
            scan.rel(pair.page),
            f"^{pair.a} and ^{pair.b} cannot both be true: {pair.reason}",
            "`wikic lint --semantic --fix` records it under ## Contradictions as open.",
            fixable=True,
            line=line,
        )
        found.append(finding)
    if "open-question" in rules:
        found += [
            Finding(
                "info", "open-question", "", q, f'Find sources on it, or ask: wikic query "{q}"'
            )
            for q in sem.questions
        ]
    return found


def _recorded(scan: WikiScan, pair: ContradictionPair) -> bool:
    ps = scan.pages[pair.page]
    return any({pair.a, pair.b} <= {lnk.block for lnk in c.links} for c in ps.contradictions)


def apply_fixes(
    paths: WikiPaths,
    rules: set[str],
    pairs: list[ContradictionPair],
    *,
    wait: float,
    on_wait: Callable[[str], None] | None = None,
    today: dt.date | None = None,
) -> FixSummary:
    """Plan the fixes on a fresh scan under the writer lock and commit them as one operation."""
    with writing(paths, "lint", wait=wait, on_wait=on_wait, on_commit=after_commit) as writer:
        dirty = frozenset(p for p in uncommitted(paths) if p.endswith(".md"))
        # no scan cache here: edits go by offsets, so read every page as it is now
        fix = plan_fixes(scan_wiki(paths, use_cache=False), rules, pairs, skip=dirty, today=today)
        result = writer.commit(fix.plan, today=today)
    fixed = dict(fix.fixed) if result.changed else {}
    if writer.recovered:
        fixed["interrupted-operation"] = len(writer.recovered)
    return FixSummary(
        result.commit, result.changed, fixed, tuple(writer.recovered), tuple(fix.skipped)
    )


@contextlib.contextmanager
def _no_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector: a scan allocates ~10⁶ objects and makes no cycles,
    and the collector's repeated passes over them cost a third of the run."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _by_meaning(paths: WikiPaths, scan: WikiScan, enabled: set[str]) -> list[Finding]:
    """twin-page and suggested-link from the pages' embeddings (suggested-link by shared
    terms when search.embedding_model is none)."""
    if not enabled & {"twin-page", "suggested-link"}:
        return []
    with open_store(paths) as store:
        vectors = topic_vectors(store, scan)
    if vectors is None:
        return list(check_suggested_links(scan)) if "suggested-link" in enabled else []
    found: list[Finding] = []
    if "twin-page" in enabled:
        found += check_twin_pages(scan, vectors)
    if "suggested-link" in enabled:
        found += check_similar_links(scan, vectors, linked_pages(scan))
    return found


def run_lint(
    paths: WikiPaths,
    options: LintOptions = LintOptions(),
    *,
    backend: Backend | None = None,
    progress: Progress | None = None,
    on_wait: Callable[[str], None] | None = None,
    today: dt.date | None = None,
) -> LintReport:
    """Check the wiki; with `options.fix` repair what can be repaired first."""
    started = time.perf_counter()
    rules = selected_rules(paths.config, options)
    if options.fix and options.semantic:
        preflight(paths)  # the semantic checks take minutes: fail before them, not after
    enabled = set(rules)
    with _no_gc():
        scan = scan_wiki(paths)
        findings = structural_findings(scan, enabled, today=today)
        scan.save_cache()
    sem: SemanticResult | None = None
    if options.semantic and enabled & {"contradiction", "open-question"}:
        if backend is None:
            from wikic.llm.factory import make_backend

            backend = make_backend(paths.config, "lint", cache_dir=paths.kv_cache)
        missing = list(check_missing_pages(scan))
        sem = run_semantic(
            paths,
            backend,
            contradictions="contradiction" in enabled,
            questions="open-question" in enabled,
            overview=lambda: _overview(scan, missing),
            progress=progress,
        )
    fix: FixSummary | None = None
    pairs = sem.pairs if sem else []
    if options.fix and (any(f.fixable for f in findings) or pairs):
        fix = apply_fixes(paths, enabled, pairs, wait=options.wait, on_wait=on_wait, today=today)
        if fix.changed or fix.recovered:
            with _no_gc():
                scan = scan_wiki(paths)
                findings = structural_findings(scan, enabled, today=today)
                scan.save_cache()
    if options.semantic:
        if "missing-page" in enabled:
            findings += check_missing_pages(scan)
        findings += _by_meaning(paths, scan, enabled)
    if sem is not None:
        findings += _semantic_findings(scan, sem, enabled)
    return LintReport(
        findings=tuple(sorted(findings, key=Finding.sort_key)),
        pages=len(scan.pages) + len(scan.broken),
        rules=rules,
        seconds=time.perf_counter() - started,
        fix=fix,
        notes=tuple(sem.notes) if sem else (),
    )
