"""The numpy kernels equal mlx's, follow the switch, and name themselves in the cache fingerprint."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest

if importlib.util.find_spec("mlx") is None:  # checked without importing: OpenBLAS goes first
    pytest.skip("mlx is not installed", allow_module_level=True)
from wikic.llm.blas import import_mlx_core

mx = import_mlx_core()

import numpy as np  # noqa: E402
from mlx_lm.models import base as mlx_base  # noqa: E402
from mlx_lm.models.activations import swiglu as mlx_swiglu  # noqa: E402
from mlx_lm.models.cache import make_prompt_cache  # noqa: E402

from tests.helpers.tiny_models import tiny_model, tiny_tokens  # noqa: E402
from wikic.llm import cpu_kernels  # noqa: E402
from wikic.llm.cache import snapshot  # noqa: E402

pytestmark = pytest.mark.mlx

TOL = 1e-5
ATTENTION = cpu_kernels._wrap_attention(mlx_base.scaled_dot_product_attention)
SWIGLU = cpu_kernels._wrap_swiglu(mlx_swiglu)


def _qkv(length: int, keys: int, heads: int = 4, kv_heads: int = 2, seed: int = 0) -> Any:
    mx.random.seed(seed)
    q = mx.random.normal((1, heads, length, 8))
    k = mx.random.normal((1, kv_heads, keys, 8))
    v = mx.random.normal((1, kv_heads, keys, 8))
    return q, k, v


@pytest.fixture(autouse=True)
def _kernels_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(cpu_kernels.ENV_VAR, raising=False)
    monkeypatch.setattr(cpu_kernels, "MIN_NUMPY_SCORES", 0)  # small shapes take numpy too
    monkeypatch.setattr(cpu_kernels, "MIN_NUMPY_ACTIVATIONS", 0)


def _both(fn: Any, *args: Any, **kwargs: Any) -> tuple[np.ndarray, np.ndarray]:
    """(mlx's result, the numpy kernel's result) of one wrapped call."""
    plain = np.array(fn.__wrapped__(*args, **kwargs))
    fast = np.array(fn(*args, **kwargs))
    return plain, fast


@pytest.mark.parametrize(
    ("length", "keys", "heads", "kv_heads"),
    [(7, 7, 4, 2), (5, 19, 4, 2), (300, 300, 2, 2), (3, 11, 6, 1)],
    ids=["square", "after-cache", "many-rows", "one-kv-head"],
)
def test_causal_attention_equals_mlx(length: int, keys: int, heads: int, kv_heads: int) -> None:
    q, k, v = _qkv(length, keys, heads, kv_heads)
    plain, fast = _both(ATTENTION, q, k, v, cache=None, scale=0.3, mask="causal")
    assert np.abs(plain - fast).max() < TOL


def test_attention_without_mask_and_with_array_masks_equals_mlx() -> None:
    q, k, v = _qkv(6, 10)
    for mask in (
        None,
        mx.array(np.tril(np.ones((6, 10), dtype=bool), k=4)),  # a boolean window mask
        mx.array(np.random.default_rng(0).normal(size=(1, 4, 6, 10)).astype(np.float32)),
        mx.array(np.random.default_rng(1).normal(size=(1, 1, 6, 10)).astype(np.float32)),
    ):
        plain, fast = _both(ATTENTION, q, k, v, cache=None, scale=0.5, mask=mask)
        assert np.abs(plain - fast).max() < TOL, mask


def test_swiglu_equals_mlx_including_large_negative_gates() -> None:
    mx.random.seed(3)
    gate = mx.random.normal((1, 130, 24)) * 40  # exp(-gate) overflows for the most negative
    x = mx.random.normal((1, 130, 24))
    plain, fast = _both(SWIGLU, gate, x)
    assert np.isfinite(fast).all()
    assert np.abs(plain - fast).max() < 1e-4


def test_batched_decode_steps_with_padding_masks_equal_mlx() -> None:
    q, k, v = _qkv(1, 30)
    q, k, v = (mx.concatenate([a, a * 0.5, a * 2]) for a in (q, k, v))  # three rows, one step
    pad = np.ones((3, 1, 1, 30), dtype=bool)
    pad[1, ..., :7] = False  # left padding of a shorter row
    pad[2] = False  # a row masked entirely: averaged as mlx does, never NaN
    plain, fast = _both(ATTENTION, q, k, v, cache=None, scale=0.3, mask=mx.array(pad))
    assert np.isfinite(fast).all()
    assert np.abs(plain - fast).max() < TOL


@pytest.mark.parametrize("arch", ["llama", "qwen2", "gemma3_text"])
def test_a_prefill_with_the_kernels_matches_mlx_logits(arch: str) -> None:
    model = tiny_model(arch)
    assert "scaled_dot_product_attention" in cpu_kernels.install(model)
    tokens = mx.array(tiny_tokens(40, seed=5))[None]
    logits = []
    for switch in ("off", "on"):
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv(cpu_kernels.ENV_VAR, switch)
            cache = make_prompt_cache(model)
            for i in range(0, 40, 16):  # prefill chunks, then two decode steps
                out = model(tokens[:, i : i + 16], cache=cache)
            for _ in range(2):
                out = model(mx.argmax(out[:, -1:], axis=-1), cache=cache)
            logits.append(np.array(out[0, -1]))
    assert np.abs(logits[0] - logits[1]).max() < 1e-4


def test_the_cache_fingerprint_names_the_kernels_and_the_switch_turns_them_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = tiny_model("qwen2")
    cpu_kernels.install(model)
    on = snapshot.runtime_fingerprint(model, 8)
    assert on["kernels"] == ["scaled_dot_product_attention", "swiglu"]
    monkeypatch.setenv(cpu_kernels.ENV_VAR, "off")
    assert cpu_kernels.install(model) == []
    off = snapshot.runtime_fingerprint(model, 8)
    assert off["kernels"] == [] and off != on  # snapshots of one path are never reused by the other
    q, k, v = _qkv(5, 5)
    switched_off = np.array(ATTENTION(q, k, v, cache=None, scale=0.3, mask="causal"))
    direct = mlx_base.scaled_dot_product_attention(q, k, v, None, 0.3, "causal")
    assert np.array_equal(switched_off, np.array(direct))  # mlx's own kernel


def test_small_calls_stay_with_mlx(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpu_kernels, "MIN_NUMPY_SCORES", 4 * 7 * 7 + 1)
    q, k, v = _qkv(7, 7)
    plain, fast = _both(ATTENTION, q, k, v, cache=None, scale=0.3, mask="causal")
    assert np.array_equal(plain, fast)
    monkeypatch.setattr(cpu_kernels, "MIN_NUMPY_SCORES", 4 * 7 * 7)
    plain, fast = _both(ATTENTION, q, k, v, cache=None, scale=0.3, mask="causal")
    assert not np.array_equal(plain, fast) and np.abs(plain - fast).max() < TOL


def test_a_prefix_cache_prefill_computes_with_the_kernels(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.helpers.tiny_models import tiny_fingerprint
    from wikic.llm.cache.prefix import PrefixCache

    calls: list[int] = []
    real = cpu_kernels._softmax_rows
    monkeypatch.setattr(cpu_kernels, "_softmax_rows", lambda s: calls.append(1) or real(s))
    model = tiny_model("llama")
    cache = PrefixCache(None, fingerprint=tiny_fingerprint(model), max_bytes=1 << 30, step_size=8)
    cache.prefill(model, [tiny_tokens(20, seed=1), tiny_tokens(5, seed=2)])
    assert cpu_kernels.installed(model) and calls


def test_bench_prefill_compares_the_kernels_in_fresh_processes(tmp_path: Any) -> None:
    import json
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "scripts" / "bench_prefill.py"
    args = ["--kernels", "--models", "tiny:qwen2", "--prefix-lengths", "40", "--repeats", "1"]
    proc = subprocess.run(
        [sys.executable, str(script), *args, "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    (row,) = json.loads((tmp_path / "bench_prefill-kernels.json").read_text())
    assert row["kernels_used"] == ["scaled_dot_product_attention", "swiglu"]
    assert row["mlx_kernels_tok_s"] > 0 and row["numpy_kernels_tok_s"] > 0
    assert row["max_logit_diff"] < 1e-4 and row["same_first_token"]


def test_a_forked_child_computes_with_threads_of_its_own() -> None:
    import multiprocessing

    assert _exp_rows_in_parallel() > 0  # the parent's thread pool exists now
    with multiprocessing.get_context("fork").Pool(1) as pool:  # without mlx: numpy only
        assert pool.apply_async(_exp_rows_in_parallel).get(timeout=60) > 0


def _exp_rows_in_parallel() -> float:
    rows = np.zeros((4096, 256), dtype=np.float32)  # 1 M elements: split across threads
    cpu_kernels._in_parallel(rows.shape[0], rows.shape[1], cpu_kernels._softmax_rows(rows))
    return float(rows.sum())


def test_a_padded_row_decodes_bit_for_bit_as_it_would_alone() -> None:
    q, k, v = _qkv(1, 30)
    pad = np.ones((1, 1, 1, 30), dtype=bool)
    pad[..., :7] = False  # the last row of a batch, still left-padded
    padded = np.array(ATTENTION(q, k, v, cache=None, scale=0.3, mask=mx.array(pad)))
    alone = np.array(ATTENTION(q, k[:, :, 7:], v[:, :, 7:], cache=None, scale=0.3, mask=None))
    assert np.array_equal(padded, alone)
    rows = (mx.concatenate([q, q * 2]), mx.concatenate([k, k]), mx.concatenate([v, v]))
    two = np.concatenate([pad, np.ones_like(pad)])  # two rows: one padded, one not
    batched = np.array(ATTENTION(*rows, cache=None, scale=0.3, mask=mx.array(two)))
    assert np.array_equal(batched[0], alone[0])
    unpadded = np.array(ATTENTION(q * 2, k, v, cache=None, scale=0.3, mask=None))
    assert np.array_equal(batched[1], unpadded[0])
