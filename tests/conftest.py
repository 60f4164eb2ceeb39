"""Shared fixtures. Every test runs with temp user dirs: nothing touches ~ or the real caches."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.golden import isolate_user_dirs
from wikic.llm.fake import FakeBackend

REPO_ROOT = Path(__file__).resolve().parent.parent

# installed_model / real_models_env; importing it also puts mlx on OpenBLAS for this process
pytest_plugins = ["tests.helpers.model_fixtures"]


@pytest.fixture(scope="session", autouse=True)
def _isolated_session_dirs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The same isolation for module- and session-scoped fixtures, which run before any
    function-scoped one: they build wikis and commit too."""
    with pytest.MonkeyPatch.context() as mp:
        isolate_user_dirs(mp, tmp_path_factory.mktemp("session-home"))
        yield


@pytest.fixture(autouse=True)
def _isolated_user_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    isolate_user_dirs(monkeypatch, tmp_path_factory.mktemp("home"))


@pytest.fixture(autouse=True)
def _no_auto_rerank(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """search.rerank_model `auto` re-ranks nothing unless a test is marked `rerank` or runs a
    real model: a question's ranking must not depend on whether minilm's package is installed
    (tests/test_rerank.py covers the second stage)."""
    if request.node.get_closest_marker("rerank") or request.node.get_closest_marker("real_model"):
        return
    monkeypatch.setattr("wikic.store.rerank.package_installed", lambda: False)


@pytest.fixture
def fake_backend() -> FakeBackend:
    return FakeBackend()
