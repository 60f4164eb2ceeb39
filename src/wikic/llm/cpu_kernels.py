"""Faster attention and SwiGLU on CPU: their exponentials computed with numpy.

mlx's CPU backend evaluates `exp` one element at a time (~60 M/s on this 2-core machine, against
~280 M/s for numpy's vectorised `exp` on one core), and its attention for one query per row (a
decode step) takes 26 ms per layer at batch 8 and 2,600 tokens of context where the same sums in
numpy take 7. A prefill chunk of 256 tokens computes ~1.2 M exponentials per layer in SwiGLU and
heads × 256 × context in the softmax; at 1,000–2,000 tokens of context these took as long as all
of the chunk's matmuls. Measured with the default model (qwen2.5-coder-0.5b f32, OpenBLAS):
scripts/results/bench_prefill-kernels.json (`scripts/bench_prefill.py --kernels`) and
scripts/results/bench_context-kernels.json (`scripts/bench_context.py`).

`install(model)` (when wikic loads a model, and in `MlxBackend`) wraps the
`scaled_dot_product_attention` and `swiglu` that the model's modules call. The wrappers compute
the scores and the weighted sum with mlx's matmuls and only the softmax / SiLU in numpy (in
place, split across the cores), for f32 without a quantized cache or attention sinks; anything
else goes to mlx's own kernel. Every call — prefill chunk, decode step, batched step — takes
the same path, so warm == cold and batched == sequential hold as before. A
boolean mask excludes with float32's minimum as mlx does (a fully masked padding row averages
instead of turning into NaN). The choice is part of the prefix cache's runtime fingerprint, so
snapshots computed by one path are never restored into the other. On Apple silicon and CUDA
nothing is wrapped; `WIKIC_CPU_KERNELS=off` keeps mlx's kernels on the CPU too.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from wikic.llm.blas import import_mlx_core, mlx_device

mx = import_mlx_core()  # OpenBLAS first, then mlx

import numpy as np  # noqa: E402

ENV_VAR = "WIKIC_CPU_KERNELS"  # "off": mlx's own kernels everywhere
_MARK = "__wikic_cpu_kernel__"
_WRAPPED = ("scaled_dot_product_attention", "swiglu")
_MIN_ELEMENTS_PER_THREAD = 1 << 18  # below this a thread costs more than it saves
# Below these sizes mlx's own kernel is as fast as numpy plus a round trip that makes mlx wait:
# a decode step of one row needs ~1,000 tokens of context (14 heads) before numpy pays.
MIN_NUMPY_SCORES = 1 << 14  # heads × queries × keys of one call
MIN_NUMPY_ACTIVATIONS = 1 << 16  # SwiGLU elements: a prefill chunk, not a decode step

_WORKERS = max(1, os.cpu_count() or 1)
_pool: ThreadPoolExecutor | None = None


def enabled() -> bool:
    """Whether the numpy kernels are used: mlx computes on the CPU and they are not switched off."""
    return os.environ.get(ENV_VAR, "").lower() not in {"off", "0", "false"} and _on_cpu()


@functools.cache
def _on_cpu() -> bool:
    return mlx_device() == "cpu"


def install(model: Any) -> list[str]:
    """Wrap the kernels the model's modules call; returns the wrapped names (sorted)."""
    if not enabled():
        return []
    modules = {type(m).__module__ for m in model.modules()} | {type(model).__module__}
    for name in sorted(modules):
        module = sys.modules.get(name)
        if module is None:
            continue
        for attr in _WRAPPED:
            fn = getattr(module, attr, None)
            if callable(fn) and not getattr(fn, _MARK, False):
                setattr(module, attr, _WRAPPERS[attr](fn))
    return installed(model)


def installed(model: Any) -> list[str]:
    """The kernel names wrapped in the model's modules (part of the prefix cache's fingerprint)."""
    names: set[str] = set()
    for m in [model, *model.modules()]:
        module = sys.modules.get(type(m).__module__)
        for attr in _WRAPPED:
            if getattr(getattr(module, attr, None), _MARK, False):
                names.add(attr)
    return sorted(names) if enabled() else []


def _threads() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=_WORKERS)
    return _pool


def _forget_pool() -> None:
    global _pool
    _pool = None  # a forked child has none of the parent's threads: it starts its own


os.register_at_fork(after_in_child=_forget_pool)


def _in_parallel(n_rows: int, row_size: int, fn: Callable[[slice], None]) -> None:
    """fn on blocks of rows, across the CPU's cores (numpy frees the GIL in its loops)."""
    n = min(_WORKERS, n_rows, max(1, n_rows * row_size // _MIN_ELEMENTS_PER_THREAD))
    if n == 1:
        fn(slice(0, n_rows))
        return
    bounds = np.linspace(0, n_rows, n + 1, dtype=int)
    list(_threads().map(lambda i: fn(slice(bounds[i], bounds[i + 1])), range(n)))


def _softmax_rows(scores: np.ndarray) -> Callable[[slice], None]:
    def run(rows: slice) -> None:
        block = scores[rows]
        block -= block.max(axis=-1, keepdims=True)
        np.exp(block, out=block)
        block /= block.sum(axis=-1, keepdims=True)

    return run


def _mask_scores(scores: np.ndarray, mask: Any) -> None:
    """Apply an mlx attention mask to scores shaped (B, kv_heads, rep, L, S), in place."""
    _, kv_heads, rep, length, keys = scores.shape
    if isinstance(mask, str):  # "causal": query i sits at position keys - length + i
        later = np.arange(keys)[None, :] > np.arange(length)[:, None] + (keys - length)
        scores[..., later] = -np.inf
        return
    m = np.asarray(mask)
    while m.ndim < 4:
        m = m[None]
    m = m[:, :, None] if m.shape[1] == 1 else m.reshape(m.shape[0], kv_heads, rep, *m.shape[2:])
    if m.dtype == np.bool_:  # excluded with the minimum, not -inf, as mlx does
        np.copyto(scores, np.finfo(np.float32).min, where=~np.broadcast_to(m, scores.shape))
    else:
        scores += m


def _wrap_attention(original: Callable[..., Any]) -> Callable[..., Any]:
    def attention(
        queries: Any,
        keys: Any,
        values: Any,
        cache: Any = None,
        scale: float = 1.0,
        mask: Any = None,
        **rest: Any,
    ) -> Any:
        batch, _, length, _ = queries.shape
        if (
            not enabled()
            or rest.get("sinks") is not None
            or hasattr(cache, "bits")
            or queries.dtype != mx.float32
            or keys.dtype != mx.float32
        ):
            return original(queries, keys, values, cache=cache, scale=scale, mask=mask, **rest)

        def attend(q: Any, k: Any, v: Any, m: Any) -> Any:
            if q.shape[1] * q.shape[2] * k.shape[2] < MIN_NUMPY_SCORES:
                return original(q, k, v, cache=cache, scale=scale, mask=m)
            return _attend(q, k, v, scale, m)

        # a decode step of a batch (or of its last row, still padded): each row exactly as it
        # would be decoded alone
        if length == 1 and (batch > 1 or mask is not None):
            heads, n_keys = queries.shape[1], keys.shape[2]
            starts = [0] * batch if mask is None else _left_padding(mask, batch, n_keys)
            if starts is None or all(heads * (n_keys - s) < MIN_NUMPY_SCORES for s in starts):
                return original(queries, keys, values, cache=cache, scale=scale, mask=mask, **rest)
            rows = [
                attend(queries[b : b + 1], keys[b : b + 1, :, s:], values[b : b + 1, :, s:], None)
                for b, s in enumerate(starts)
            ]  # each row attends to its own keys only, the left padding cut off
            return mx.concatenate(rows)
        return attend(queries, keys, values, mask)

    setattr(attention, _MARK, True)
    attention.__wrapped__ = original  # type: ignore[attr-defined]
    return attention


def _attend(queries: Any, keys: Any, values: Any, scale: float, mask: Any) -> Any:
    """Scores and the weighted sum by mlx's matmuls, the softmax by numpy, in place."""
    batch, heads, length, dim = queries.shape
    kv_heads, n_keys = keys.shape[1], keys.shape[2]
    rep = heads // kv_heads
    q = (queries * scale).reshape(batch, kv_heads, rep * length, dim)
    scores = np.array(q @ keys.swapaxes(-1, -2)).reshape(batch, kv_heads, rep, length, n_keys)
    if mask is not None:
        _mask_scores(scores, mask)
    rows = scores.reshape(-1, n_keys)
    _in_parallel(rows.shape[0], n_keys, _softmax_rows(rows))
    probs = mx.array(scores).reshape(batch, kv_heads, rep * length, n_keys)
    return (probs @ values).reshape(batch, heads, length, dim)


def _left_padding(mask: Any, batch: int, n_keys: int) -> list[int] | None:
    """Each row's count of masked keys when a boolean mask only hides a prefix of each row (the
    left padding of a batch), else None. Attending to the rest alone gives the row the very
    floats it gets decoded on its own: batched == sequential, bit for bit."""
    if not isinstance(mask, mx.array):
        return None  # "causal" or an unknown kind of mask
    m = np.asarray(mask)
    if m.dtype != np.bool_ or m.shape[-1] != n_keys:
        return None
    rows = np.broadcast_to(m, (batch, *m.shape[1:])).reshape(batch, -1, n_keys)
    if not (rows == rows[:, :1]).all():
        return None
    first = rows[:, 0]
    starts = [int(n_keys - row.sum()) for row in first]
    if any(s == n_keys or not row[s:].all() for row, s in zip(first, starts, strict=True)):
        return None  # a row masked entirely, or not only at its start
    return starts


def _silu_times(gate: np.ndarray, x: np.ndarray) -> Callable[[slice], None]:
    def run(rows: slice) -> None:
        g = gate[rows]
        with np.errstate(over="ignore"):  # exp(-g) = inf for very negative g: silu -> -0
            denominator = np.exp(-g)
        denominator += 1.0
        np.divide(g, denominator, out=g)
        g *= x[rows]

    return run


def _wrap_swiglu(original: Callable[..., Any]) -> Callable[..., Any]:
    def swiglu(gate: Any, x: Any) -> Any:
        if (
            not enabled()
            or gate.dtype != mx.float32
            or x.dtype != mx.float32
            or gate.shape != x.shape
            or gate.size < MIN_NUMPY_ACTIVATIONS
        ):
            return original(gate, x)
        g = np.array(gate).reshape(-1, gate.shape[-1])
        xs = np.asarray(x).reshape(g.shape)
        _in_parallel(g.shape[0], g.shape[1], _silu_times(g, xs))
        return mx.array(g).reshape(gate.shape)

    setattr(swiglu, _MARK, True)
    swiglu.__wrapped__ = original  # type: ignore[attr-defined]
    return swiglu


_WRAPPERS: dict[str, Callable[[Callable[..., Any]], Callable[..., Any]]] = {
    "scaled_dot_product_attention": _wrap_attention,
    "swiglu": _wrap_swiglu,
}
