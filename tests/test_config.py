from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from wikic.config import Config, load_config, models_dir, parse_config, template_text
from wikic.errors import ConfigError


def _keys(data: dict, prefix: str = "") -> set[str]:
    keys = set()
    for k, v in data.items():
        keys.add(prefix + k)
        if isinstance(v, dict):
            keys |= _keys(v, prefix + k + ".")
    return keys


def test_template_holds_every_key_with_its_default() -> None:
    data = yaml.safe_load(template_text())
    assert parse_config(data) == Config()
    assert _keys(data) == _keys(Config().model_dump())


def test_every_template_line_has_a_comment() -> None:
    for line in template_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            assert "#" in line, f"no comment on: {line}"


def test_unknown_key_suggests_the_right_one() -> None:
    with pytest.raises(ConfigError) as err:
        parse_config({"ingest": {"max_source_byte": 3}})
    assert "ingest.max_source_byte" in err.value.message
    assert err.value.hint == "Did you mean 'ingest.max_source_bytes'?"


def test_bad_values_and_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"query\.context_tokens"):
        parse_config({"query": {"context_tokens": -1}})
    bad = tmp_path / "wikic.yaml"
    bad.write_text("model: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)
    bad.write_text("- a list\n")
    with pytest.raises(ConfigError, match="mapping"):
        load_config(bad)
    bad.write_text("")
    assert load_config(bad) == Config()


def test_roles_fall_back_to_model() -> None:
    cfg = parse_config({"model": "m", "roles": {"write": "w"}})
    assert cfg.model_for("write") == "w"
    assert cfg.model_for("extract") == "m"


def test_models_dir_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIKIC_MODELS_DIR", str(tmp_path / "env"))
    assert models_dir() == tmp_path / "env"
    assert models_dir(parse_config({"models_dir": str(tmp_path / "cfg")})) == tmp_path / "cfg"
    monkeypatch.delenv("WIKIC_MODELS_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert models_dir() == tmp_path / "xdg" / "wikic" / "models"
