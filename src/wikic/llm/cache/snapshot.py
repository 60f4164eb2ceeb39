"""Boundary snapshots of mlx-lm prompt caches, and live caches rebuilt from a chain of them.

A `KVCache` layer is stored as a delta (the keys/values of its own segment) and rebuilt by
concatenating the chain; every other cache class (`RotatingKVCache`, `ArraysCache`, ...) is stored
as its full state exactly as the object holds it (buffer order, `offset`, `_idx`), so a restored
cache continues bit for bit like the one it was taken from. Nothing is ever trimmed.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from typing import Any

from wikic.llm import cpu_kernels
from wikic.llm.blas import blas_status, import_mlx_core
from wikic.llm.cache.disk import FORMAT_VERSION, Snapshot

mx = import_mlx_core()  # OpenBLAS first, then mlx

import mlx.nn as nn  # noqa: E402
from mlx.utils import tree_flatten  # noqa: E402
from mlx_lm.models import cache as cache_mod  # noqa: E402


class SnapshotMismatch(Exception):
    """A stored snapshot does not fit the model's caches (a miss, never shown to users).

    `key` names the offending snapshot when one is to blame (it and its descendants must go).
    """

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


def describe_caches(caches: Sequence[Any]) -> list[str]:
    """One line per layer: the cache class and the parameters that shape its state."""
    out = []
    for c in caches:
        name = type(c).__name__
        params = {k: getattr(c, k) for k in ("max_size", "keep", "chunk_size") if hasattr(c, k)}
        out.append(name + (json.dumps(params, sort_keys=True) if params else ""))
    return out


def runtime_fingerprint(model: nn.Module, step_size: int) -> dict[str, Any]:
    """Everything besides the weights that decides the exact floats a prefill produces."""
    import mlx_lm

    params: Any = tree_flatten(model.parameters())
    dtypes = sorted({str(v.dtype) for _, v in params})
    blas = blas_status()  # another BLAS sums in another order: not bit-identical
    return {
        "format": FORMAT_VERSION,
        "mlx": getattr(mx, "__version__", "?"),
        "mlx_lm": getattr(mlx_lm, "__version__", "?"),
        "device": str(mx.default_device()),
        "dtypes": dtypes,
        "caches": describe_caches(cache_mod.make_prompt_cache(model)),
        "step_size": step_size,
        "blas": [blas.active, os.path.basename(blas.library or "")],
        "kernels": cpu_kernels.installed(model),  # numpy's softmax/SwiGLU in prefill on CPU
    }


def root_key(model_fingerprint: str, runtime: dict[str, Any]) -> str:
    payload = json.dumps({"model": model_fingerprint, "runtime": runtime}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def chain_keys(root: str, segments: Sequence[Sequence[int]]) -> list[str]:
    """h_k = H(h_{k-1}, tokens of segment k) for every segment."""
    keys, prev = [], root
    for seg in segments:
        digest = hashlib.sha256(prev.encode())
        digest.update(b"\0" + b"".join(int(t).to_bytes(4, "little", signed=True) for t in seg))
        prev = digest.hexdigest()
        keys.append(prev)
    return keys


def take(
    caches: Sequence[Any], *, start: int, end: int
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The layer specs and owned array copies of `caches` at a boundary after `end` tokens."""
    specs: list[dict[str, Any]] = []
    arrays: dict[str, Any] = {}
    for i, c in enumerate(caches):
        if type(c) is cache_mod.KVCache:
            assert c.keys is not None and c.values is not None
            if c.offset != end:
                raise SnapshotMismatch(f"layer {i} holds {c.offset} tokens, expected {end}")
            # a compact copy: a slice would pin the whole live buffer
            arrays[f"{i}.k"] = mx.contiguous(c.keys[..., start:end, :])
            arrays[f"{i}.v"] = mx.contiguous(c.values[..., start:end, :])
            specs.append({"cls": "KVCache", "kind": "delta"})
        else:
            spec: dict[str, Any] = {"cls": type(c).__name__, "kind": "state"}
            spec["state"] = _encode(c.state, arrays, f"{i}.s")
            if hasattr(type(c), "meta_state"):  # newer mlx-lm keeps scalars apart
                spec["meta"] = _encode(c.meta_state, arrays, f"{i}.m")
            specs.append(spec)
    mx.eval(list(arrays.values()))
    return specs, arrays


def restore(template: Sequence[Any], chain: Sequence[Snapshot]) -> list[Any]:
    """Live caches positioned after `chain[-1]`, built from the root-first `chain`.

    `template` is a fresh `make_prompt_cache(model)`; raises SnapshotMismatch if any layer does not
    fit it. The result shares no Python array object with the snapshots (callers mutate it).
    """
    expected_start, expected_parent = 0, None
    for snap in chain:
        _check(template, snap)
        if (snap.start, snap.parent) != (expected_start, expected_parent):
            raise SnapshotMismatch("broken chain", snap.key)
        expected_start, expected_parent = snap.end, snap.key
    last = chain[-1]
    out = []
    for i, (want, spec) in enumerate(zip(template, last.spec["layers"], strict=True)):
        if spec["kind"] == "delta":
            out.append(_restore_kv(i, chain))
        else:
            out.append(_restore_state(i, spec, last, want))
    return out


def _check(template: Sequence[Any], snap: Snapshot) -> None:
    """Every layer of `snap` has the model's cache class, and its deltas the right length."""
    layers = snap.spec.get("layers")
    if not isinstance(layers, list) or len(layers) != len(template):
        raise SnapshotMismatch("layer count differs from the model's", snap.key)
    for i, (want, spec) in enumerate(zip(template, layers, strict=True)):
        name = type(want).__name__
        kind = "delta" if type(want) is cache_mod.KVCache else "state"
        if not isinstance(spec, dict) or (spec.get("cls"), spec.get("kind")) != (name, kind):
            raise SnapshotMismatch(f"layer {i} does not hold a {name}", snap.key)
        if kind == "delta":
            k, v = snap.arrays.get(f"{i}.k"), snap.arrays.get(f"{i}.v")
            n = snap.end - snap.start
            if (
                k is None
                or v is None
                or k.ndim != 4
                or v.ndim != 4
                or not k.shape[2] == v.shape[2] == n
            ):
                raise SnapshotMismatch(f"layer {i}: keys/values do not hold {n} tokens", snap.key)


def _restore_kv(i: int, chain: Sequence[Snapshot]) -> Any:
    keys = [snap.arrays[f"{i}.k"] for snap in chain]
    values = [snap.arrays[f"{i}.v"] for snap in chain]
    for snap, k, v in zip(chain, keys, values, strict=True):
        same = (k.shape[:2], k.shape[3], k.dtype) == (
            keys[0].shape[:2],
            keys[0].shape[3],
            keys[0].dtype,
        )
        if not same or (v.shape[:2], v.dtype) != (values[0].shape[:2], values[0].dtype):
            raise SnapshotMismatch(f"layer {i}: shape or dtype changes along the chain", snap.key)
    total = chain[-1].end
    step = cache_mod.KVCache.step
    spare = (total + step - 1) // step * step + step - total
    # room for the next tokens up front, so the suffix prefill writes in place (one copy in all)
    c = cache_mod.KVCache()
    c.keys = mx.concatenate(
        [*keys, mx.zeros((*keys[0].shape[:2], spare, keys[0].shape[3]), keys[0].dtype)], axis=2
    )
    c.values = mx.concatenate(
        [*values, mx.zeros((*values[0].shape[:2], spare, values[0].shape[3]), values[0].dtype)],
        axis=2,
    )
    c.offset = total
    return c


def _restore_state(i: int, spec: dict[str, Any], snap: Snapshot, want: Any) -> Any:
    cls: Any = type(want)
    obj = cls.__new__(cls)  # like mlx-lm's from_state: the state setter fills every field
    obj.state = _decode(spec["state"], snap.arrays)
    if "meta" in spec:
        obj.meta_state = _decode(spec["meta"], snap.arrays)
    for attr in ("max_size", "keep", "chunk_size"):
        if hasattr(want, attr) and getattr(obj, attr, None) != getattr(want, attr):
            raise SnapshotMismatch(f"layer {i}: {attr} differs", snap.key)
    offset = getattr(obj, "offset", None)
    if isinstance(offset, int) and offset != snap.end:
        raise SnapshotMismatch(f"layer {i}: offset {offset}, expected {snap.end}", snap.key)
    return obj


def _encode(value: Any, arrays: dict[str, Any], prefix: str) -> Any:
    if isinstance(value, mx.array):
        name = f"{prefix}{len(arrays)}"
        arrays[name] = mx.contiguous(value)  # a new object: the live cache assigns into its own
        return {"a": name}
    if value is None:
        return {"n": 0}
    if isinstance(value, bool):
        return {"b": value}
    if isinstance(value, int):
        return {"i": value}
    if isinstance(value, float):
        return {"f": value}
    if isinstance(value, str):
        return {"s": value}
    if isinstance(value, list | tuple):
        tag = "l" if isinstance(value, list) else "t"
        return {tag: [_encode(v, arrays, prefix) for v in value]}
    raise SnapshotMismatch(f"cannot snapshot a cache state holding {type(value).__name__}")


def _decode(spec: Any, arrays: dict[str, Any]) -> Any:
    if not isinstance(spec, dict) or len(spec) != 1:
        raise SnapshotMismatch("bad state spec")
    ((tag, value),) = spec.items()
    if tag == "a":
        if value not in arrays:
            raise SnapshotMismatch(f"missing array {value}")
        return mx.array(arrays[value])  # a copy: the caller's cache will assign into it
    if tag == "n":
        return None
    if tag in ("b", "i", "f", "s"):
        return value
    if tag in ("l", "t"):
        items = [_decode(v, arrays) for v in value]
        return items if tag == "l" else tuple(items)
    raise SnapshotMismatch(f"bad state tag {tag!r}")
