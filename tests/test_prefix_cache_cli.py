"""`wikic cache stats | clear` on the prefix cache of a wiki."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wikic.cli import app
from wikic.paths import open_paths

runner = CliRunner()


def make_plain_wiki(root: Path, extra_config: str = "") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "wikic.yaml").write_text(extra_config)
    return root


def test_stats_of_an_empty_cache(tmp_path: Path) -> None:
    root = make_plain_wiki(tmp_path / "w")
    result = runner.invoke(app, ["-C", str(root), "cache", "stats", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["entries"] == 0 and data["bytes"] == 0
    assert data["max_bytes"] == 2 * 1024**3
    assert data["directory"] == str(root / ".wikic" / "kv")
    assert not (root / ".wikic" / "kv").exists()  # looking does not create it

    text = runner.invoke(app, ["-C", str(root), "cache", "stats"])
    assert text.exit_code == 0, text.output
    assert "0 B of 2.0 GiB" in text.output


def test_stats_and_clear_need_a_wiki(tmp_path: Path) -> None:
    result = runner.invoke(app, ["-C", str(tmp_path), "cache", "clear"])
    assert result.exit_code == 1
    assert "no wiki found" in result.output


def test_the_cache_commands_do_not_import_mlx(tmp_path: Path) -> None:
    import subprocess

    root = make_plain_wiki(tmp_path / "w")
    code = (
        "import sys; from wikic.cli import app\n"
        "try:\n    app(['-C', sys.argv[1], 'cache', 'stats', '--json'])\n"
        "except SystemExit:\n    pass\n"
        "assert 'mlx' not in sys.modules, 'mlx imported'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.mlx
def test_stats_then_clear_with_entries(tmp_path: Path) -> None:
    pytest.importorskip("mlx.core")
    from tests.helpers.tiny_models import tiny_fingerprint, tiny_model, tiny_tokens
    from wikic.llm.cache.prefix import PrefixCache

    root = make_plain_wiki(tmp_path / "w", "cache:\n  max_bytes: 100000000\n")
    paths = open_paths(root)
    model = tiny_model("gemma3_text")
    cache = PrefixCache(
        paths.kv_cache,
        fingerprint=tiny_fingerprint(model),
        max_bytes=10**8,
        step_size=8,
        label="tiny-gemma",
    )
    prefix = tiny_tokens(40, seed=1)
    cache.prefill(model, [prefix, tiny_tokens(5, seed=2)])
    cache.prefill(model, [prefix, tiny_tokens(5, seed=3)])

    result = runner.invoke(app, ["-C", str(root), "cache", "stats", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["entries"] == 3 and data["bytes"] > 0
    assert (data["hits"], data["misses"]) == (1, 1)
    assert data["cached_tokens"] == 40 and data["tokens"] == 50
    assert data["max_bytes"] == 10**8
    assert data["by_label"]["tiny-gemma"]["entries"] == 3

    text = runner.invoke(app, ["-C", str(root), "cache", "stats"])
    assert text.exit_code == 0, text.output
    assert "1 hits, 1 misses" in text.output and "tiny-gemma" in text.output

    cleared = runner.invoke(app, ["-C", str(root), "cache", "clear", "--json"])
    assert cleared.exit_code == 0, cleared.output
    assert json.loads(cleared.output)["removed"] == 3
    after = json.loads(runner.invoke(app, ["-C", str(root), "cache", "stats", "--json"]).output)
    assert after["entries"] == 0 and after["hits"] == 0
    assert not list(paths.kv_cache.glob("*.kvc"))
