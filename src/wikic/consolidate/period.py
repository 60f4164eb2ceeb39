"""One period of `wikic consolidate`: what recurs across the whole history up to the period's
end → per batch, one model call → code verifies → the edits → one committed operation.

What recurs is counted over every episode dated up to the end of the period, consolidated or
not, so the third note of a pattern creates or extends it whenever it arrives, citing all of
them; and a re-run over the same history finds the same items. A period is redone as a whole:
its earlier unedited lines are removed first, so a re-run or `--force` replaces what
consolidation wrote and nothing else.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from wikic.consolidate import prompts
from wikic.consolidate.digest import compose
from wikic.consolidate.episodes import Episode
from wikic.consolidate.evolve import changes
from wikic.consolidate.plan import PeriodPlan
from wikic.consolidate.recurring import Recurring, find_recurring, phrase
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
)
from wikic.consolidate.schemas import batch_model
from wikic.consolidate.targets import (
    Target,
    citing_sections,
    extended_section,
    suggest_targets,
    target,
)
from wikic.consolidate.verify import (
    DigestSentence,
    Pattern,
    Proposal,
    clean_name,
    digest_sentences,
    labels_of,
    name_ok,
    names_overlap,
    statement_of,
)
from wikic.consolidate.words import name_key
from wikic.llm.backend import Backend, GenerationStats
from wikic.operation.transaction import Plan
from wikic.paths import WikiPaths
from wikic.store.db import open_store
from wikic.vault.episodes import period_bounds
from wikic.vault.links import link
from wikic.vault.pages import Page, render_page
from wikic.vault.tree import Vault

MAX_OUTPUT_TOKENS = 640
SHOWN_SENTENCES = 4  # of an item's sentences, the prompt shows its latest this many
MAX_NOTES = 6


@dataclass
class Reading:
    """What one period's model calls gave, after code checked it."""

    digest: list[DigestSentence] = field(default_factory=list)
    proposals: dict[str, Proposal] = field(default_factory=dict)  # item key → proposal
    notes: list[str] = field(default_factory=list)
    stats: GenerationStats | None = None


@dataclass(frozen=True)
class Placed:
    pattern: Pattern
    page: str
    heading: str
    title: str


@dataclass
class PeriodResult:
    edits: Edits
    placed: list[Placed]
    recurring: list[Recurring]  # items of the period below `min_episodes` notes so far
    notes: list[str]
    stats: GenerationStats | None


def history_until(episodes: Sequence[Episode], key: str) -> list[Episode]:
    """The episodes dated up to the end of period `key`, consolidated or not."""
    _, end = period_bounds(key)
    return [e for e in episodes if e.date <= end]


def run_period(
    paths: WikiPaths,
    plan: PeriodPlan,
    history: Sequence[Episode],
    backend: Callable[[], Backend],
    agents_md: str,
    today: dt.date,
    on_batch: Callable[[int, int], None],
) -> PeriodResult:
    """The edits of one period (nothing written yet)."""
    cfg = paths.config.consolidate
    vault = Vault.load(paths.wiki)
    edits = Edits()
    marker = f"^c-{period_slug(plan.key)}-"
    for page in vault:  # a redo replaces what consolidating this period wrote before
        if marker in page.body:
            edits.pages[page.path] = Page(page.path, page.props, strip_period(page.body, plan.key))
    pages = {**vault.pages, **edits.pages}
    mine = {e.page for e in plan.episodes}
    items = [
        i
        for i in find_recurring(history_until(history, plan.key), min_episodes=2)
        if any(u.episode.page in mine for u in i.units)
    ]
    patterns = [i for i in items if len(i.episodes) >= cfg.min_episodes]
    reading = Reading()
    with open_store(paths) as store:
        suggested = {
            i.key: suggest_targets(store, pages, i, limit=cfg.suggested_targets) for i in patterns
        }
        for b, batch in enumerate(plan.batches, 1):
            on_batch(b, len(plan.batches))
            pages_of = {e.page for e in batch}
            shown = [i for i in items if any(u.episode.page in pages_of for u in i.units)]
            _ask(backend(), agents_md, batch, shown, suggested, cfg.min_episodes, reading)
    cited = citing_sections(pages.values())
    taken = {path.rsplit("/", 1)[-1].removesuffix(".md") for path in pages}
    for item in patterns:
        pattern = _pattern(item, reading, suggested.get(item.key, []), cited, pages)
        if pattern.target is not None:
            edits.pages.setdefault(pattern.target.page, pages[pattern.target.page])
        place_pattern(edits, pattern, plan.key, today, taken)
    placed = [Placed(p, path, h, edits.pages[path].title) for p, path, h in edits.placed]
    digest = compose(
        plan.episodes,
        items,
        reading.digest,
        [(x.pattern, x.page, x.heading, x.title) for x in placed],
        min_episodes=cfg.min_episodes,
    )
    previous = edits.pages.get(plan.digest_page) or vault.pages.get(plan.digest_page)
    edits.pages[plan.digest_page] = digest_page(
        plan.digest_page, plan.key, plan.title, digest, plan.episodes, previous, today
    )
    _link_episodes(edits, plan, history, placed, vault, today)
    below = [i for i in items if len(i.episodes) < cfg.min_episodes]
    return PeriodResult(edits, placed, below, reading.notes, reading.stats)


def _ask(
    backend: Backend,
    agents_md: str,
    episodes: Sequence[Episode],
    items: Sequence[Recurring],
    suggested: dict[str, list[Target]],
    min_episodes: int,
    reading: Reading,
) -> None:
    """One model call for a batch; what it proposes is checked into `reading`."""
    ids = {i.key: f"r{n}" for n, i in enumerate(items, 1)}
    targets: dict[str, Target] = {}
    shown = []
    for item in items:
        is_pattern = len(item.episodes) >= min_episodes
        offered = []
        for t in suggested.get(item.key, []) if is_pattern else []:
            tid = next(
                (k for k, v in targets.items() if (v.page, v.heading) == (t.page, t.heading)), None
            )
            if tid is None:
                tid = f"t{len(targets) + 1}"
                targets[tid] = t
            offered.append((tid, t))
        shown.append((ids[item.key], is_pattern, item, offered))
    labels = labels_of(episodes)
    gen = backend.generate(
        [
            prompts.schema_segment(agents_md),
            prompts.episodes_segment(episodes),
            prompts.recurring_segment(shown, SHOWN_SENTENCES),
            prompts.task_segment(min_episodes),
        ],
        schema=batch_model(
            list(labels),
            [ids[i.key] for i in items if len(i.episodes) >= min_episodes],
            list(targets),
        ),
        max_tokens=MAX_OUTPUT_TOKENS,
    )
    reading.stats = gen.stats if reading.stats is None else reading.stats + gen.stats
    reading.digest += digest_sentences(gen.value, labels, reading.notes)
    by_id = {ids[i.key]: i for i in items}
    for p in getattr(gen.value, "patterns", []):
        found = by_id.get(p.id)
        if found is None or found.key in reading.proposals:
            continue
        item = found
        name = clean_name(p.name)
        if not name_ok(name, item):
            reading.notes.append(
                f"name “{name[:60]}” does not say what recurs: code's phrase instead"
            )
            name = ""
        statement, _ = statement_of(p.statement, item, reading.notes)
        reading.proposals[item.key] = Proposal(name or None, statement, targets.get(p.target))


def _pattern(
    item: Recurring,
    reading: Reading,
    suggested: Sequence[Target],
    cited: dict[tuple[str, str], set[tuple[str, str | None]]],
    pages: dict[str, Page],
) -> Pattern:
    """The pattern `item` becomes: its name, statement, changes and the section it goes to —
    the one already citing it, else the model's choice when about it, else the most similar
    section or page named by two of its words, else a page of the same name, else new."""
    proposal = reading.proposals.get(item.key, Proposal(None, None, None))
    found = changes(item.units)
    avoid = [u.ref for c in found for u in (c.before, c.after)]
    name = proposal.name or phrase(item, avoid) or " ".join(item.words[:3])
    statement, cites = statement_of(proposal.statement, item, [])
    chosen: Target | None = None
    section = extended_section(item, cited)
    if section is not None and section[0] in pages:
        chosen = target(pages[section[0]], section[1])
    elif proposal.target is not None and names_overlap(proposal.target, item):
        chosen = proposal.target
    else:
        chosen = next((t for t in suggested if names_overlap(t, item, at_least=2)), None)
    if chosen is None:
        key = name_key(name)
        same = next(
            (
                p
                for p in pages.values()
                if p.type in ("concept", "entity")
                and key in {name_key(n) for n in (p.title, *p.aliases)}
            ),
            None,
        )
        chosen = target(same, None) if same is not None else None
    return Pattern(item, name, statement, cites, chosen, tuple(found))


def _link_episodes(
    edits: Edits,
    plan: PeriodPlan,
    history: Sequence[Episode],
    placed: Sequence[Placed],
    vault: Vault,
    today: dt.date,
) -> None:
    """Each episode of the period links its digest and its patterns (and gets compressed);
    an earlier episode a pattern of this period cites links that pattern."""
    digest_link = link(plan.digest_page.removesuffix(".md"), alias=plan.title)
    by_page = {e.page: e for e in history}
    own = [e.page for e in plan.episodes]
    for page_path in dict.fromkeys([*own, *(e for x in placed for e in x.pattern.episodes)]):
        ep = by_page[page_path]
        links = [
            heading_link(x.page, x.heading, x.title)
            for x in placed
            if page_path in x.pattern.episodes
        ]
        if page_path in own:
            links.append(digest_link)
        page = edits.pages.get(page_path) or vault.pages[page_path]
        edits.pages[page_path] = episode_page(
            page, ep, plan.key, links, today, compress=page_path in own
        )


def operation(paths: WikiPaths, plan: PeriodPlan, result: PeriodResult, min_episodes: int) -> Plan:
    """The committed operation of a period: every page written (or an emptied pattern page
    removed) and a log entry saying what was done and why."""
    wiki_rel = paths.rel(paths.wiki)
    op = Plan("consolidate", plan.title)
    for path, page in sorted(result.edits.pages.items()):
        if is_emptied_pattern_page(page):
            op.delete(f"{wiki_rel}/{path}")
            op.log_bullets.append(f"removed {path}: its pattern is no longer found")
        else:
            op.write(f"{wiki_rel}/{path}", render_page(page))
    digest_link = link(plan.digest_page.removesuffix(".md"), alias=plan.title)
    op.log_bullets.append(f"digest: {digest_link} ({len(plan.episodes)} episodes)")
    for x in result.placed:
        p = x.pattern
        names = ", ".join(link(e.removesuffix(".md")) for e in p.episodes)
        verb = "new page" if x.page in result.edits.created else "extracted to"
        op.log_bullets.append(
            f"pattern “{p.name}” ({verb} {heading_link(x.page, x.heading, x.title)}): "
            f"{plural_episodes(len(p.episodes))}, {names}"
        )
        if p.changes:
            op.log_bullets.append(
                f"understanding changed for “{p.name}”: {len(p.changes)} dated entr"
                f"{'y' if len(p.changes) == 1 else 'ies'}"
            )
    for item in result.recurring:
        op.log_bullets.append(
            f"recurs, not yet a pattern: “{phrase(item)}” ({len(item.episodes)} distinct "
            f"episode(s) so far, {min_episodes} needed)"
        )
    op.log_bullets.append(f"compressed {len(plan.episodes)} episode(s): consolidated, gist")
    op.log_bullets += [f"note: {n}" for n in list(dict.fromkeys(result.notes))[:MAX_NOTES]]
    if plan.redo:
        op.log_bullets.append("redone: earlier lines of this period replaced")
    return op
