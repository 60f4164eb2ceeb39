"""Planning a consolidation: which periods are due, and the episode batches of each period.

A period (ISO week or day) is due when one of its episodes is not consolidated, or when forced.
Batches keep date order and fit the token budget; an episode too long for the budget is cut to
the blocks that fit (never split across batches), so one call always sees whole blocks.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from wikic.consolidate.episodes import Episode, EpisodeBlock
from wikic.vault.episodes import Period, period_key, period_title

BLOCK_OVERHEAD_TOKENS = 6  # the "[e1p2] " label and the newline


@dataclass(frozen=True)
class PeriodPlan:
    key: str  # "2026-W14" or "2026-04-03"
    title: str
    episodes: tuple[Episode, ...]
    batches: tuple[tuple[Episode, ...], ...]
    redo: bool  # some episode was consolidated before: replace what was written for it

    @property
    def digest_page(self) -> str:
        return f"digests/{self.key}.md"


def in_range(day: dt.date, since: dt.date | None, until: dt.date | None) -> bool:
    return (since is None or day >= since) and (until is None or day <= until)


def plan_periods(
    episodes: Sequence[Episode],
    *,
    period: Period,
    since: dt.date | None = None,
    until: dt.date | None = None,
    force: bool = False,
    budget_tokens: int,
    count_tokens: Callable[[str], int],
) -> list[PeriodPlan]:
    """The due periods in date order, each with its batches."""
    grouped: dict[str, list[Episode]] = {}
    for ep in sorted(episodes, key=lambda e: (e.date, e.page)):
        if in_range(ep.date, since, until):
            grouped.setdefault(period_key(ep.date, period), []).append(ep)
    plans = []
    for key, members in grouped.items():
        if not force and all(e.consolidated is not None for e in members):
            continue
        plans.append(
            PeriodPlan(
                key=key,
                title=period_title(key),
                episodes=tuple(members),
                batches=tuple(batch(members, budget_tokens, count_tokens)),
                redo=any(e.consolidated is not None for e in members),
            )
        )
    return plans


def episode_tokens(ep: Episode, count_tokens: Callable[[str], int]) -> int:
    return count_tokens(ep.title) + sum(
        count_tokens(b.text) + BLOCK_OVERHEAD_TOKENS for b in ep.blocks
    )


def batch(
    episodes: Sequence[Episode], budget_tokens: int, count_tokens: Callable[[str], int]
) -> list[tuple[Episode, ...]]:
    """Consecutive episodes packed under `budget_tokens` of text per batch."""
    batches: list[tuple[Episode, ...]] = []
    current: list[Episode] = []
    used = 0
    for ep in episodes:
        ep = fit(ep, budget_tokens, count_tokens)
        cost = episode_tokens(ep, count_tokens)
        if current and used + cost > budget_tokens:
            batches.append(tuple(current))
            current, used = [], 0
        current.append(ep)
        used += cost
    if current:
        batches.append(tuple(current))
    return batches


def fit(ep: Episode, budget_tokens: int, count_tokens: Callable[[str], int]) -> Episode:
    """`ep` with only the leading blocks that fit the budget (at least one)."""
    used = count_tokens(ep.title)
    kept: list[EpisodeBlock] = []
    for b in ep.blocks:
        used += count_tokens(b.text) + BLOCK_OVERHEAD_TOKENS
        if kept and used > budget_tokens:
            break
        kept.append(b)
    return ep if len(kept) == len(ep.blocks) else replace(ep, blocks=tuple(kept))
