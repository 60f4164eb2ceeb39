"""PrefixCache on disk: fresh processes, corrupt files, eviction, concurrent writers, storage size."""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

if importlib.util.find_spec("mlx") is None:  # checked without importing: OpenBLAS goes first
    pytest.skip("mlx is not installed", allow_module_level=True)
from wikic.llm.blas import import_mlx_core

mx = import_mlx_core()

from mlx_lm.models.cache import KVCache  # noqa: E402

from tests.conftest import REPO_ROOT  # noqa: E402
from tests.helpers.tiny_models import (  # noqa: E402
    TINY_WINDOW,
    greedy_decode,
    max_abs_diff,
    tiny_fingerprint,
    tiny_model,
    tiny_tokens,
)
from wikic.llm.cache.disk import INDEX_NAME, DiskStore, Snapshot  # noqa: E402
from wikic.llm.cache.prefix import PrefixCache  # noqa: E402

pytestmark = pytest.mark.mlx

TOL = 1e-4
STEP = 8
PREFIX = [tiny_tokens(37, seed=1), tiny_tokens(29, seed=2)]
SUFFIX_A = tiny_tokens(11, seed=3)
SUFFIX_B = tiny_tokens(9, seed=4)
CASES = [
    pytest.param(("llama", {}), id="llama"),
    pytest.param(("qwen2", {}), id="qwen2"),
    pytest.param(("gemma3_text", {}), id="gemma3_text"),
]

# Runs one prefill in a new interpreter and prints what it got, for cross-process checks.
WORKER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from tests.helpers.tiny_models import greedy_decode, tiny_fingerprint, tiny_model
    from wikic.llm.cache.prefix import PrefixCache

    args = json.loads(sys.argv[1])
    model = tiny_model(args["arch"], **args["overrides"])
    cache = PrefixCache(Path(args["dir"]), fingerprint=tiny_fingerprint(model),
                        max_bytes=args["max_bytes"], step_size=args["step"])
    time.sleep(max(0.0, args.get("start_at", 0) - time.time()))
    pre = cache.prefill(model, args["segments"])
    tokens, seen = greedy_decode(model, pre.cache, pre.logits, 6)
    print(json.dumps({"cached": pre.cached_tokens, "prefill": pre.prefill_tokens,
                      "source": pre.source, "logits": pre.logits.tolist(), "tokens": tokens,
                      "seen": [s.tolist() for s in seen]}))
    """
)


def run_worker(
    directory: Path, arch: str, overrides: dict[str, Any], segments: list[list[int]], **extra: Any
) -> subprocess.Popen[str]:
    args = {
        "dir": str(directory),
        "arch": arch,
        "overrides": overrides,
        "segments": segments,
        "max_bytes": 1 << 30,
        "step": STEP,
        **extra,
    }
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", WORKER, json.dumps(args)],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def worker_result(proc: subprocess.Popen[str]) -> dict[str, Any]:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def cold_reference(model: Any, segments: list[list[int]]) -> tuple[Any, list[int], list[Any]]:
    pre = PrefixCache(None, fingerprint="cold", max_bytes=1 << 30, step_size=STEP).prefill(
        model, segments
    )
    tokens, seen = greedy_decode(model, pre.cache, pre.logits, 6)
    return pre.logits, tokens, seen


def assert_matches(result: dict[str, Any], reference: tuple[Any, list[int], list[Any]]) -> None:
    logits, tokens, seen = reference
    assert max_abs_diff(mx.array(result["logits"]), logits) <= TOL
    assert result["tokens"] == tokens
    for got, want in zip(result["seen"], seen, strict=True):
        assert max_abs_diff(mx.array(got), want) <= TOL


def disk_cache(model: Any, directory: Path, max_bytes: int = 1 << 30) -> PrefixCache:
    return PrefixCache(
        directory, fingerprint=tiny_fingerprint(model), max_bytes=max_bytes, step_size=STEP
    )


def assert_same(model: Any, pre: Any, reference: tuple[Any, list[int], list[Any]]) -> None:
    tokens, seen = greedy_decode(model, pre.cache, pre.logits, 6)
    assert_matches(
        {"logits": pre.logits.tolist(), "tokens": tokens, "seen": [s.tolist() for s in seen]},
        reference,
    )


@pytest.mark.parametrize("case", CASES)
def test_warm_from_disk_in_a_fresh_process_equals_cold(tmp_path: Path, case: Any) -> None:
    arch, overrides = case
    model = tiny_model(arch, **overrides)
    disk_cache(model, tmp_path).prefill(model, [*PREFIX, SUFFIX_A])

    partial = run_worker(tmp_path, arch, overrides, [*PREFIX, SUFFIX_B])
    exact = worker_result(run_worker(tmp_path, arch, overrides, [*PREFIX, SUFFIX_A]))
    partial_result = worker_result(partial)

    assert partial_result["source"] == "disk"
    assert partial_result["cached"] == sum(map(len, PREFIX)) > TINY_WINDOW
    assert_matches(partial_result, cold_reference(model, [*PREFIX, SUFFIX_B]))
    assert (exact["source"], exact["prefill"]) == ("disk", 0)
    assert_matches(exact, cold_reference(model, [*PREFIX, SUFFIX_A]))


def _corrupt(path: Path, kind: str, other: Path) -> None:
    data = path.read_bytes()
    if kind == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif kind == "flipped-payload":
        pos = len(data) - 100
        path.write_bytes(data[:pos] + bytes([data[pos] ^ 0x10]) + data[pos + 1 :])
    elif kind == "garbage":
        path.write_bytes(os.urandom(len(data)))
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "wrong-key":
        path.write_bytes(other.read_bytes())
    elif kind in ("foreign-format", "edited-header"):
        arrays, meta = mx.load(str(path), format="safetensors", return_metadata=True)
        mx.eval(arrays)  # mx.load is lazy: read before the file is rewritten
        header = json.loads(meta["wikic"])
        if kind == "foreign-format":
            header["format"] = 999
        else:
            header["end"] += 1  # a valid-looking header whose checksum no longer matches
        with open(path, "wb") as f:
            mx.save_safetensors(f, arrays, {"wikic": json.dumps(header)})
    else:
        raise AssertionError(kind)


@pytest.mark.parametrize(
    "kind",
    [
        "truncated",
        "flipped-payload",
        "garbage",
        "empty",
        "wrong-key",
        "foreign-format",
        "edited-header",
    ],
)
def test_a_corrupt_entry_is_a_miss_with_the_cold_output(
    tmp_path: Path, kind: str, caplog: Any
) -> None:
    model = tiny_model("gemma3_text")
    writer = disk_cache(model, tmp_path)
    writer.prefill(model, [*PREFIX, SUFFIX_A])
    keys = writer.keys(model, [*PREFIX, SUFFIX_A])
    root = tmp_path / f"{keys[0]}.kvc"
    _corrupt(root, kind, tmp_path / f"{keys[2]}.kvc")

    with caplog.at_level(logging.WARNING):
        pre = disk_cache(model, tmp_path).prefill(model, [*PREFIX, SUFFIX_B])
    assert pre.cached_tokens == 0
    assert_same(model, pre, cold_reference(model, [*PREFIX, SUFFIX_B]))
    assert "dropping" in caplog.text
    # the bad file went, and the fresh cold run stored a good one in its place
    again = disk_cache(model, tmp_path).prefill(model, [*PREFIX, SUFFIX_A])
    assert again.source == "disk" and again.cached_tokens == sum(map(len, PREFIX))


def test_a_corrupt_leaf_falls_back_to_its_parent(tmp_path: Path) -> None:
    model = tiny_model("llama", sliding_window=TINY_WINDOW)
    writer = disk_cache(model, tmp_path)
    writer.prefill(model, [*PREFIX, SUFFIX_A])
    leaf = tmp_path / f"{writer.keys(model, [*PREFIX, SUFFIX_A])[2]}.kvc"
    _corrupt(leaf, "flipped-payload", leaf)
    pre = disk_cache(model, tmp_path).prefill(model, [*PREFIX, SUFFIX_A])
    assert (pre.cached_tokens, pre.prefill_tokens) == (sum(map(len, PREFIX)), len(SUFFIX_A))
    assert_same(model, pre, cold_reference(model, [*PREFIX, SUFFIX_A]))


def test_a_snapshot_that_does_not_fit_the_model_is_a_miss(tmp_path: Path) -> None:
    model = tiny_model("qwen2")
    writer = disk_cache(model, tmp_path)
    writer.prefill(model, [*PREFIX, SUFFIX_A])
    root_key = writer.keys(model, PREFIX)[0]
    root = DiskStore(tmp_path, 1 << 30).load(root_key)
    assert root is not None
    root.spec["layers"] = root.spec["layers"][:-1]  # valid file, checksum and all, wrong shape
    DiskStore(tmp_path, 1 << 30).commit([root])
    pre = disk_cache(model, tmp_path).prefill(model, [*PREFIX, SUFFIX_A])
    assert pre.cached_tokens == 0
    assert_same(model, pre, cold_reference(model, [*PREFIX, SUFFIX_A]))


def test_eviction_keeps_the_budget_and_parents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # equal costs: which leaf goes is decided by recency alone, not by how long each prefill
    # happened to take on a loaded machine (measured seconds made this test flaky)
    monkeypatch.setattr("wikic.llm.cache.disk._cost", lambda recompute_s, nbytes: 1.0)
    model = tiny_model("gemma3_text")
    probe = disk_cache(model, tmp_path / "probe")
    probe.prefill(model, [*PREFIX, SUFFIX_A])
    sizes = {p.name: p.stat().st_size for p in (tmp_path / "probe").glob("*.kvc")}
    keys = probe.keys(model, [*PREFIX, SUFFIX_A])
    budget = sizes[f"{keys[0]}.kvc"] + sizes[f"{keys[1]}.kvc"] + int(1.5 * sizes[f"{keys[2]}.kvc"])

    directory = tmp_path / "kv"
    for seed in range(5):
        suffix = tiny_tokens(11, seed=50 + seed)
        disk_cache(model, directory, budget).prefill(model, [*PREFIX, suffix])
        files = {p.name[:-4]: p.stat().st_size for p in directory.glob("*.kvc")}
        assert sum(files.values()) <= budget
        # the shared prefix (the parents) stays; the leaves take turns
        assert {keys[0], keys[1]} <= set(files)
        index = json.loads((directory / INDEX_NAME).read_text())
        assert set(index["entries"]) == set(files)
        assert all(e["parent"] in (None, *files) for e in index["entries"].values())
    stats = disk_cache(model, directory, budget).stats()
    assert stats.evictions >= 4 and stats.entries == 3
    last = [*PREFIX, tiny_tokens(11, seed=54)]
    pre = disk_cache(model, directory, budget).prefill(model, last)
    assert pre.prefill_tokens == 0
    assert_same(model, pre, cold_reference(model, last))


def test_a_budget_below_one_entry_stores_nothing(tmp_path: Path) -> None:
    model = tiny_model("llama")
    pre = disk_cache(model, tmp_path, max_bytes=1000).prefill(model, [*PREFIX, SUFFIX_A])
    assert pre.cached_tokens == 0
    assert not list(tmp_path.glob("*.kvc"))


def _snap(key: str, parent: str | None, recompute_s: float, n: int = 1024) -> Snapshot:
    return Snapshot(
        key=key,
        parent=parent,
        start=0 if parent is None else 4,
        end=4 if parent is None else 8,
        spec={},
        arrays={"x": mx.zeros((n,), mx.float32) + 1},
        recompute_s=recompute_s,
    )


def test_eviction_is_cost_aware_leaves_first(tmp_path: Path) -> None:
    store = DiskStore(tmp_path, 1 << 30)
    # the root is the cheapest to recompute, yet it stays while it has children
    store.commit(
        [_snap("root", None, 0.001), _snap("dear", "root", 9.0), _snap("cheap", "root", 0.5)]
    )
    size = (tmp_path / "dear.kvc").stat().st_size
    store.max_bytes = 2 * size + size // 2
    store.commit([])
    assert sorted(p.stem for p in tmp_path.glob("*.kvc")) == ["dear", "root"]
    store.max_bytes = size + size // 2
    store.commit([])
    assert [p.stem for p in tmp_path.glob("*.kvc")] == ["root"]
    assert store.stats().evictions == 2


def test_two_processes_writing_the_same_key(tmp_path: Path) -> None:
    arch, overrides = "gemma3_text", {}
    segments = [*PREFIX, SUFFIX_A]
    start_at = time.time() + 6.0  # both interpreters are up by then: the writes race
    procs = [run_worker(tmp_path, arch, overrides, segments, start_at=start_at) for _ in range(2)]
    results = [worker_result(p) for p in procs]
    model = tiny_model(arch, **overrides)
    reference = cold_reference(model, segments)
    for result in results:
        assert_matches(result, reference)
    index = json.loads((tmp_path / INDEX_NAME).read_text())
    assert len(index["entries"]) == 3 == len(list(tmp_path.glob("*.kvc")))
    assert not list(tmp_path.glob(".tmp-*"))
    pre = disk_cache(model, tmp_path).prefill(model, segments)
    assert (pre.source, pre.prefill_tokens) == ("disk", 0)
    assert_same(model, pre, reference)


def test_storage_grows_with_tokens_not_with_prefix_lengths(tmp_path: Path) -> None:
    model = tiny_model("llama")
    segments = [tiny_tokens(32, seed=60 + i) for i in range(4)]
    pre = disk_cache(model, tmp_path).prefill(model, segments)
    per_token = sum(2 * c.keys[..., :1, :].nbytes for c in pre.cache if isinstance(c, KVCache))
    sizes = [
        (tmp_path / f"{k}.kvc").stat().st_size
        for k in disk_cache(model, tmp_path).keys(model, segments)
    ]
    logits_bytes = pre.logits.nbytes
    for size in sizes[:-1]:
        assert 32 * per_token <= size < 1.2 * 32 * per_token
    assert sizes[-1] < 1.2 * 32 * per_token + logits_bytes
    # the sum of prefix lengths would be 32 + 64 + 96 + 128 tokens
    assert sum(sizes) < 1.2 * 128 * per_token + logits_bytes


def test_rotating_layers_store_only_their_window(tmp_path: Path) -> None:
    model = tiny_model("gemma3_text")
    segments = [tiny_tokens(100, seed=70), tiny_tokens(100, seed=71)]
    cache = disk_cache(model, tmp_path)
    cache.prefill(model, segments)
    leaf = DiskStore(tmp_path, 1 << 30).load(cache.keys(model, segments)[1])
    assert leaf is not None
    for name, array in leaf.arrays.items():
        if name.endswith((".k", ".v")):  # full-attention delta: this segment only
            assert array.shape[2] == 100
        elif array.ndim == 4:  # a sliding window state: bounded by window + one chunk
            assert array.shape[2] <= TINY_WINDOW - 1 + STEP


def test_a_lost_index_is_rebuilt_from_the_files(tmp_path: Path) -> None:
    model = tiny_model("qwen2")
    disk_cache(model, tmp_path).prefill(model, [*PREFIX, SUFFIX_A])
    (tmp_path / INDEX_NAME).write_text("{not json")
    pre = disk_cache(model, tmp_path).prefill(model, [*PREFIX, SUFFIX_B])
    assert pre.source == "disk"
    stats = disk_cache(model, tmp_path).stats()
    assert stats.entries == 4 and stats.tokens == sum(map(len, PREFIX)) + len(SUFFIX_A) + len(
        SUFFIX_B
    )


def test_an_unusable_directory_degrades_to_memory(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    model = tiny_model("llama")
    cache = disk_cache(model, blocker / "kv")
    cache.prefill(model, [*PREFIX, SUFFIX_A])
    warm = cache.prefill(model, [*PREFIX, SUFFIX_B])
    assert warm.source == "memory"
    assert cache.stats().entries == 0


def test_clear_and_discard(tmp_path: Path) -> None:
    model = tiny_model("llama")
    cache = disk_cache(model, tmp_path)
    cache.prefill(model, [*PREFIX, SUFFIX_A])
    cache.prefill(model, [*PREFIX, SUFFIX_B])
    keys = cache.keys(model, PREFIX)
    assert cache.discard(keys[1])  # the catalog boundary and both leaves on top of it
    assert cache.stats().entries == 1
    assert cache.prefill(model, [*PREFIX, SUFFIX_A]).cached_tokens == len(PREFIX[0])
    assert cache.clear() == 3
    assert cache.stats().entries == 0 and not list(tmp_path.glob("*.kvc"))
    assert cache.prefill(model, [*PREFIX, SUFFIX_A]).cached_tokens == 0
