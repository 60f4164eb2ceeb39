"""Reciprocal rank fusion: several rankings of the same items made one.

An item's score is the sum over the rankings holding it of weight / (k + rank), rank from 1
(Cormack, Clarke and Büttcher, SIGIR 2009). Only ranks count, so BM25 scores and cosine
similarities, which live on different scales, never need calibrating against each other; an
item both rankings hold beats one that only one ranks a little higher.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)
RRF_K = 60  # the paper's constant; measured against 10 and 30 in scripts/bench_quality.py


def rrf(
    rankings: Sequence[Sequence[K]], *, k: int = RRF_K, weights: Sequence[float] | None = None
) -> list[tuple[K, float]]:
    """Items of all `rankings` (each best first, an item at most once per ranking), best
    first, with their fused scores; ties keep the order of first appearance."""
    weights = weights or [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError("one weight per ranking")
    scores: dict[K, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, item in enumerate(ranking, 1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    order = {item: n for n, item in enumerate(scores)}
    return sorted(scores.items(), key=lambda kv: (-kv[1], order[kv[0]]))
