"""The first command that needs the wiki's default built-in model installs it (one line saying
what and where, progress, then the command goes on); another missing model, or any install when
installs are switched off, is one error naming the exact `wikic model install` command.

The model is the tiny `tiny-test` built-in (local wheels); the backend made from it is the
scripted fake, so only the install is real here. tests/test_first_use_real.py runs the same path
with a real model and a real process."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.helpers.ingest_fakes import two_source_script
from tests.helpers.model_fixtures import TINY_MODEL
from tests.helpers.wikitools import make_wiki
from wikic.cli import app
from wikic.config import Config
from wikic.llm import factory
from wikic.llm.backend import Backend
from wikic.llm.models import store as model_store
from wikic.paths import WikiPaths

DATA = Path(__file__).parent / "data" / "ingest"
runner = CliRunner()


@pytest.fixture
def wiki(
    tmp_path: Path, tiny_builtin: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> WikiPaths:
    """A fresh wiki whose `model:` is the tiny built-in, not installed; one source in raw/."""
    paths = make_wiki(tmp_path / "w")
    (paths.root / "wikic.yaml").write_text(f"model: {TINY_MODEL}\n")
    shutil.copy(DATA / "kv-cache.md", paths.raw / "kv-cache.md")
    monkeypatch.setenv("WIKIC_WHEELS_DIR", str(tiny_builtin["wheels"]))
    monkeypatch.delenv("WIKIC_OFFLINE", raising=False)
    fake = two_source_script().backend()

    def make_backend(config: Config, role: str, *, cache_dir: Path | None) -> Backend:
        if config.backend == "mlx":  # the real factory resolves the model: installed by now
            assert model_store.installed(config.model_for(role), config) is not None  # type: ignore[arg-type]
        return fake

    monkeypatch.setattr(factory, "make_backend", make_backend)
    return paths


def _installed() -> bool:
    return model_store.installed(TINY_MODEL) is not None


def test_the_default_model_is_installed_on_first_use_and_the_ingest_goes_on(
    wiki: WikiPaths,
) -> None:
    result = runner.invoke(app, ["-C", str(wiki.root), "ingest", "--all", "--json"])
    assert result.exit_code == 0, result.output
    store = model_store.models_dir()
    assert (
        f"Installing the model {TINY_MODEL} (first use): " in result.stderr
        and f"converted once into {store / TINY_MODEL}" in result.stderr
    )
    # off a terminal: one plain line per stage instead of bars
    assert "Assemble + verify …" in result.stderr and "Convert …" in result.stderr
    assert f"Installed {TINY_MODEL} (float32" in result.stderr
    assert _installed()
    (outcome,) = json.loads(result.stdout)["sources"]
    assert outcome["status"] == "ingested"
    # the next command finds it installed and says nothing about it
    again = runner.invoke(app, ["-C", str(wiki.root), "ingest", "--force", "raw/kv-cache.md"])
    assert again.exit_code == 0, again.output
    assert "Installing" not in again.stderr


def test_nothing_to_do_installs_nothing(wiki: WikiPaths) -> None:
    (wiki.raw / "kv-cache.md").unlink()
    result = runner.invoke(app, ["-C", str(wiki.root), "ingest", "--all"])
    assert result.exit_code == 0, result.output
    assert not _installed() and "Installing" not in result.stderr


@pytest.mark.parametrize(
    ("how", "why"),
    [
        ("flag", "--offline forbids installing it"),
        ("env", "$WIKIC_OFFLINE forbids installing it"),
        ("config", "`auto_install: false` in wikic.yaml forbids installing it"),
    ],
)
def test_installs_can_be_switched_off(
    wiki: WikiPaths, monkeypatch: pytest.MonkeyPatch, how: str, why: str
) -> None:
    shutil.copy(DATA / "sliding-window.md", wiki.raw / "sliding-window.md")
    args = ["-C", str(wiki.root), "ingest", "--all"]
    if how == "flag":
        args.insert(0, "--offline")
    elif how == "env":
        monkeypatch.setenv("WIKIC_OFFLINE", "1")
    else:
        (wiki.root / "wikic.yaml").write_text(f"model: {TINY_MODEL}\nauto_install: false\n")
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    # one error for the run (not one per source), with the command that installs it
    assert result.stderr.count("Error:") == 1, result.stderr
    assert f"Model '{TINY_MODEL}' is not installed, and {why}" in result.stderr
    assert f"`wikic model install {TINY_MODEL}`" in result.stderr
    assert not _installed() and not list((wiki.wiki / "sources").glob("*.md"))


@pytest.mark.parametrize("where", ["role", "--model"])
def test_a_model_other_than_the_default_is_named_not_installed(wiki: WikiPaths, where: str) -> None:
    args = ["-C", str(wiki.root), "ingest", "--all"]
    if where == "role":
        (wiki.root / "wikic.yaml").write_text(
            f"model: {Config().model}\nroles:\n  extract: {TINY_MODEL}\n"
        )
    else:
        args += ["--model", TINY_MODEL]
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert f"Model '{TINY_MODEL}' is not installed" in result.stderr
    assert f"Install it with `wikic model install {TINY_MODEL}`" in result.stderr
    assert not _installed()


def test_an_interrupted_install_leaves_nothing_and_the_next_one_installs(
    wiki: WikiPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wikic.llm.models.gguf import convert

    real = convert.convert_gguf

    def interrupted(*args: object, **kwargs: object) -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr(convert, "convert_gguf", interrupted)
    result = runner.invoke(app, ["-C", str(wiki.root), "ingest", "--all"])
    assert result.exit_code == 130
    store = model_store.models_dir()
    assert [p.name for p in store.iterdir() if not p.name.endswith(".lock")] == []
    monkeypatch.setattr(convert, "convert_gguf", real)
    result = runner.invoke(app, ["-C", str(wiki.root), "ingest", "--all"])
    assert result.exit_code == 0, result.output
    assert _installed()


def test_a_model_server_needs_no_install(wiki: WikiPaths) -> None:
    (wiki.root / "wikic.yaml").write_text(f"model: {TINY_MODEL}\nbackend: http\n")
    result = runner.invoke(app, ["-C", str(wiki.root), "ingest", "--all"])
    assert result.exit_code == 0, result.output
    assert not _installed() and "Installing" not in result.stderr
