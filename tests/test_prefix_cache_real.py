"""PrefixCache on the real Gemma 3 270M, with a shared prefix longer than its 512-token window."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

if importlib.util.find_spec("mlx") is None:
    pytest.skip("mlx is not installed", allow_module_level=True)

pytestmark = [pytest.mark.mlx, pytest.mark.real_model, pytest.mark.slow]

TEXT = (
    "Paragraph {i}. Hybrid attention models keep a sliding window of recent keys in most layers "
    "and full attention in a few; a cache of such a model cannot be cut back to a shorter prefix "
    "once the window has wrapped, so it must be saved at the boundary itself. "
)


def _tokens(tokenizer: Any, template: str, n: int, start: int) -> list[int]:
    out: list[int] = []
    i = start
    while len(out) < n:
        out += tokenizer.encode(template.format(i=i), add_special_tokens=False)
        i += 1
    return out[:n]


def test_gemma3_reuses_a_prefix_longer_than_its_window(
    installed_model: Any, tmp_path: Path
) -> None:
    from mlx_lm.models.cache import RotatingKVCache
    from mlx_lm.server import LRUPromptCache

    from tests.helpers.tiny_models import greedy_decode, max_abs_diff
    from wikic.llm.cache.prefix import PrefixCache
    from wikic.llm.models.resolve import load_mlx_model

    resolved = installed_model("gemma3-270m")
    model, tokenizer = load_mlx_model(resolved)
    window = min(c.max_size for c in model.make_cache() if isinstance(c, RotatingKVCache))
    schema = _tokens(tokenizer, TEXT, 700, 0)
    catalog = _tokens(tokenizer, TEXT, 120, 100)
    task_a = _tokens(tokenizer, "Task {i}: list the claims. ", 24, 1)
    task_b = _tokens(tokenizer, "Task {i}: name the entities. ", 24, 2)
    assert len(schema) > window == 512

    def cache(directory: Path | None) -> PrefixCache:
        return PrefixCache(directory, fingerprint=resolved.fingerprint, max_bytes=1 << 30)

    cold = cache(None).prefill(model, [schema, catalog, task_b])
    cold_tokens, cold_seen = greedy_decode(model, cold.cache, cold.logits, 4)

    writer = cache(tmp_path)
    first = writer.prefill(model, [schema, catalog, task_a])
    warm = writer.prefill(model, [schema, catalog, task_b])
    assert (warm.source, warm.cached_tokens) == ("memory", len(schema) + len(catalog))

    fresh = cache(tmp_path)
    fresh.discard(fresh.keys(model, [schema, catalog, task_b])[-1])
    from_disk = fresh.prefill(model, [schema, catalog, task_b])
    assert (from_disk.source, from_disk.cached_tokens) == ("disk", len(schema) + len(catalog))

    for pre in (warm, from_disk):
        assert max_abs_diff(pre.logits, cold.logits) <= 1e-4
        tokens, seen = greedy_decode(model, pre.cache, pre.logits, 4)
        assert tokens == cold_tokens
        assert max(max_abs_diff(a, b) for a, b in zip(seen, cold_seen, strict=True)) <= 1e-4

    # the same workload through mlx-lm's own prompt cache reuses nothing on this model
    lru = LRUPromptCache()
    lru.insert_cache("gemma", [*schema, *catalog, *task_a], first.cache)
    _, rest = lru.fetch_nearest_cache("gemma", [*schema, *catalog, *task_b])
    assert len(rest) == len(schema) + len(catalog) + len(task_b)
