"""PrefixCache in one process: warm == cold at every boundary, for full and sliding-window models."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest

if importlib.util.find_spec("mlx") is None:  # checked without importing: OpenBLAS goes first
    pytest.skip("mlx is not installed", allow_module_level=True)
from wikic.llm.blas import import_mlx_core

mx = import_mlx_core()

from mlx_lm.models.cache import RotatingKVCache, make_prompt_cache  # noqa: E402

from tests.helpers.tiny_models import (  # noqa: E402
    TINY_WINDOW,
    greedy_decode,
    max_abs_diff,
    tiny_fingerprint,
    tiny_model,
    tiny_tokens,
)
from wikic.errors import CacheError  # noqa: E402
from wikic.llm.cache.prefix import PrefixCache  # noqa: E402

pytestmark = pytest.mark.mlx

TOL = 1e-4
CASES = [
    pytest.param(("llama", {}), id="llama"),
    pytest.param(("llama", {"sliding_window": TINY_WINDOW}), id="llama-swa"),
    pytest.param(("qwen2", {}), id="qwen2"),
    pytest.param(("gemma3_text", {}), id="gemma3_text"),
]
# a schema-like and a catalog-like prefix, both longer than the sliding window
PREFIX = [tiny_tokens(37, seed=1), tiny_tokens(29, seed=2)]
SUFFIX_A = tiny_tokens(11, seed=3)
SUFFIX_B = tiny_tokens(9, seed=4)


@pytest.fixture(scope="module", params=CASES)
def model(request: pytest.FixtureRequest) -> Any:
    arch, overrides = request.param
    return tiny_model(arch, **overrides)


def make_cache(model: Any, **kwargs: Any) -> PrefixCache:
    kwargs.setdefault("step_size", 8)
    return PrefixCache(None, fingerprint=tiny_fingerprint(model), max_bytes=1 << 30, **kwargs)


def cold(model: Any, segments: list[list[int]], **kwargs: Any) -> tuple[Any, list[int], list[Any]]:
    """Logits and a greedy continuation from a brand-new cache (nothing reused)."""
    pre = make_cache(model, **kwargs).prefill(model, segments)
    assert pre.cached_tokens == 0
    tokens, seen = greedy_decode(model, pre.cache, pre.logits, 6)
    return pre.logits, tokens, seen


def assert_same(model: Any, pre: Any, reference: tuple[Any, list[int], list[Any]]) -> None:
    logits, tokens, seen = reference
    assert max_abs_diff(pre.logits, logits) <= TOL
    warm_tokens, warm_seen = greedy_decode(model, pre.cache, pre.logits, 6)
    assert warm_tokens == tokens
    assert max(max_abs_diff(a, b) for a, b in zip(warm_seen, seen, strict=True)) <= TOL


def test_warm_from_memory_equals_cold(model: Any) -> None:
    cache = make_cache(model)
    first = cache.prefill(model, [*PREFIX, SUFFIX_A])
    assert (first.cached_tokens, first.source) == (0, "none")

    warm = cache.prefill(model, [*PREFIX, SUFFIX_B])
    prefix_len = sum(map(len, PREFIX))
    assert (warm.cached_tokens, warm.prefill_tokens) == (prefix_len, len(SUFFIX_B))
    assert warm.source == "memory"
    assert prefix_len > TINY_WINDOW
    assert_same(model, warm, cold(model, [*PREFIX, SUFFIX_B]))

    exact = cache.prefill(model, [*PREFIX, SUFFIX_B])
    assert (exact.cached_tokens, exact.prefill_tokens) == (prefix_len + len(SUFFIX_B), 0)
    assert_same(model, exact, cold(model, [*PREFIX, SUFFIX_B]))


def test_cold_prefill_matches_a_plain_forward_pass(model: Any) -> None:
    segments = [*PREFIX, SUFFIX_A]
    pre = make_cache(model).prefill(model, segments)
    flat = [t for seg in segments for t in seg]
    plain = model(mx.array(flat)[None], cache=make_prompt_cache(model))[0, -1]
    assert max_abs_diff(pre.logits, plain) <= TOL


@pytest.mark.parametrize("step_size", [3, 8, 40])
def test_every_boundary_depth_continues_exactly(model: Any, step_size: int) -> None:
    # a one-token segment takes the rotating cache's in-place path; step 40 > window 16
    segments = [
        tiny_tokens(45, seed=5),
        [7],
        tiny_tokens(step_size, seed=6),
        tiny_tokens(13, seed=7),
    ]
    reference = cold(model, segments, step_size=step_size)
    for depth in range(1, len(segments)):
        cache = make_cache(model, step_size=step_size)
        cache.prefill(model, segments[:depth])
        warm = cache.prefill(model, segments)
        assert warm.cached_tokens == sum(len(s) for s in segments[:depth])
        assert_same(model, warm, reference)


@pytest.mark.parametrize("suffix", [SUFFIX_A, [5]], ids=["chunk", "one-token"])
def test_decoding_the_returned_cache_leaves_the_snapshot_intact(
    model: Any, suffix: list[int]
) -> None:
    # after a one-token segment a rotating buffer is exactly window-sized and decoding assigns
    # into it in place: a snapshot sharing that array object would be corrupted
    cache = make_cache(model)
    segments = [*PREFIX, suffix]
    reference = cold(model, segments)
    for _ in range(3):  # the cold result, then warm ones
        warm = cache.prefill(model, segments)
        # decode past the window so a rotating cache wraps and writes in place
        greedy_decode(model, warm.cache, warm.logits, 2 * TINY_WINDOW)
    assert_same(model, cache.prefill(model, segments), reference)


def test_an_inner_boundary_asked_as_the_whole_prompt(model: Any) -> None:
    cache = make_cache(model)
    cache.prefill(model, [*PREFIX, SUFFIX_A])
    # PREFIX's last boundary was inner (no logits): its segment is recomputed once
    again = cache.prefill(model, PREFIX)
    assert (again.cached_tokens, again.prefill_tokens) == (len(PREFIX[0]), len(PREFIX[1]))
    assert_same(model, again, cold(model, PREFIX))
    exact = cache.prefill(model, PREFIX)
    assert exact.prefill_tokens == 0
    assert_same(model, exact, cold(model, PREFIX))


def test_rotating_layers_are_stored_whole_and_never_trimmed() -> None:
    model = tiny_model("gemma3_text")
    cache = make_cache(model)
    pre = cache.prefill(model, [*PREFIX, SUFFIX_A])
    rotating = [c for c in pre.cache if isinstance(c, RotatingKVCache)]
    assert rotating and all(c.offset == pre.prompt_tokens for c in rotating)
    assert all(c.max_size == TINY_WINDOW for c in rotating)


def test_empty_segments_add_no_boundary() -> None:
    model = tiny_model("llama")
    cache = make_cache(model)
    assert cache.keys(model, [PREFIX[0], [], SUFFIX_A]) == cache.keys(model, [PREFIX[0], SUFFIX_A])
    with pytest.raises(CacheError):
        cache.prefill(model, [[], []])


def test_keys_depend_on_model_runtime_and_tokens() -> None:
    model = tiny_model("llama")
    base = make_cache(model).keys(model, [*PREFIX, SUFFIX_A])
    assert len(set(base)) == 3
    other_step = make_cache(model, step_size=16).keys(model, [*PREFIX, SUFFIX_A])
    other_model = PrefixCache(None, fingerprint="other", max_bytes=1, step_size=8).keys(
        model, [*PREFIX, SUFFIX_A]
    )
    other_tail = make_cache(model).keys(model, [*PREFIX, SUFFIX_B])
    assert not set(base) & set(other_step)
    assert not set(base) & set(other_model)
    assert other_tail[:2] == base[:2] and other_tail[2] != base[2]
    # a segment boundary is part of the key: the same tokens split differently are a miss
    merged = make_cache(model).keys(model, [PREFIX[0] + PREFIX[1], SUFFIX_A])
    assert merged[-1] != base[-1]


def test_a_zero_budget_turns_reuse_off() -> None:
    model = tiny_model("qwen2")
    cache = PrefixCache(None, fingerprint=tiny_fingerprint(model), max_bytes=0, step_size=8)
    cache.prefill(model, [*PREFIX, SUFFIX_A])
    again = cache.prefill(model, [*PREFIX, SUFFIX_A])
    assert again.cached_tokens == 0
    assert cache.stats().memory_entries == 0


def test_memory_tier_is_bounded() -> None:
    model = tiny_model("gemma3_text")
    cache = make_cache(model, memory_entries=2)
    for seed in range(4):
        cache.prefill(model, [*PREFIX, tiny_tokens(5, seed=100 + seed)])
    stats = cache.stats()
    assert stats.memory_entries == 2
    assert stats.hits == 3 and stats.misses == 1


def test_bfloat16_model_round_trips_exactly(tmp_path: Any) -> None:
    model = tiny_model("gemma3_text", dtype=mx.bfloat16)
    fingerprint = tiny_fingerprint(model)
    segments = [*PREFIX, SUFFIX_A]
    PrefixCache(tmp_path, fingerprint=fingerprint, max_bytes=1 << 30, step_size=8).prefill(
        model, segments
    )
    fresh = PrefixCache(tmp_path, fingerprint=fingerprint, max_bytes=1 << 30, step_size=8)
    warm = fresh.prefill(model, segments)
    assert warm.source == "disk" and warm.prefill_tokens == 0
    assert warm.cache[0].keys.dtype == mx.bfloat16
    assert_same(model, warm, cold(model, segments))
