"""Shared fixtures. Every test runs with temp user dirs: nothing touches ~ or the real caches."""

from __future__ import annotations

from pathlib import Path

import pytest

from wikic.llm.fake import FakeBackend

REPO_ROOT = Path(__file__).resolve().parent.parent

# installed_model / real_models_env; importing it also puts mlx on OpenBLAS for this process
pytest_plugins = ["tests.helpers.model_fixtures"]


@pytest.fixture(autouse=True)
def _isolated_user_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("WIKIC_MODELS_DIR", str(home / ".cache" / "wikic" / "models"))
    monkeypatch.delenv("WIKIC_DIR", raising=False)
    # git needs an identity for commits made by tests that use git directly
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    (home / ".gitconfig").write_text("[user]\n\tname = Test User\n\temail = test@example.com\n")


@pytest.fixture
def fake_backend() -> FakeBackend:
    return FakeBackend()
