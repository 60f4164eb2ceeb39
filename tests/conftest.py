"""Shared fixtures. Every test runs with temp user dirs: nothing touches ~ or the real caches."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.golden import isolate_git_identity, isolate_user_dirs
from wikic.llm.fake import FakeBackend

REPO_ROOT = Path(__file__).resolve().parent.parent

# installed_model / real_models_env; importing it also puts mlx on OpenBLAS for this process
pytest_plugins = ["tests.helpers.model_fixtures"]


@pytest.fixture(autouse=True, scope="session")
def _isolated_git_identity(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The test git identity for module- and session-scoped fixtures too (the per-test one
    below sets the same): wikic's commits and log entries name it, never ~/.gitconfig's."""
    with pytest.MonkeyPatch.context() as mp:
        isolate_git_identity(mp, tmp_path_factory.mktemp("git-home"))
        yield


@pytest.fixture(autouse=True)
def _isolated_user_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    isolate_user_dirs(monkeypatch, tmp_path_factory.mktemp("home"))


@pytest.fixture
def fake_backend() -> FakeBackend:
    return FakeBackend()
