"""scripts/bench_ingest.py: the summary it reports from a worker's raw numbers."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.helpers.scripts import load_script
from wikic.config import load_config

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "bench_ingest.py"


def _module():
    return load_script("bench_ingest")


def test_summary_reports_prefill_ratio_and_aggregate_decode_rate() -> None:
    raw = {
        "source_tokens": 1000,
        "stages": {
            "extract": {"calls": 2, "prefill_tokens": 1100, "cached_tokens": 0,
                        "generated_tokens": 300, "decode_s": 20.0, "prompt_tokens": 1100},
            "write": {"calls": 5, "prefill_tokens": 200, "cached_tokens": 4000,
                      "generated_tokens": 100, "decode_s": 20.0, "prompt_tokens": 4200},
        },
    }  # fmt: skip
    out = _module().summarise(raw)
    assert out["prefilled_per_source_token"] == 1.3
    assert out["decode_tok_s"] == 10.0
    assert out["total"]["cached_tokens"] == 4000


def test_help() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True)
    assert proc.returncode == 0 and "fresh process" in proc.stdout


def test_http_dry_run_lists_the_arms_and_pinned_server_commands() -> None:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--backend", "http", "--servers", "1", "--dry-run"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(proc.stdout)
    assert [a["arm"] for a in plan["arms"]] == ["in-process", "1 server(s)"]
    (command,) = plan["arms"][1]["servers"]
    assert command.startswith("taskset -c 0 ") and "-m mlx_lm.server --model" in command
    too_many = subprocess.run(
        [sys.executable, str(SCRIPT), "--backend", "http", "--servers", "999", "--dry-run"],
        capture_output=True,
        text=True,
    )
    assert too_many.returncode != 0 and "needs a core each" in too_many.stderr


def test_an_http_arm_s_wiki_points_at_every_server(tmp_path: Path) -> None:
    source = tmp_path / "a.md"
    source.write_text("# A\n\nText.\n")
    urls = ["http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1"]
    wiki = _module().fresh_wiki([source], 3, urls)
    try:
        config = load_config(wiki / "wikic.yaml")
        assert config.backend == "http" and config.http.servers() == urls
        assert config.http.model == "default_model" and config.http.json_schema == "none"
        assert config.generation.batch_size == 3 and (wiki / "raw" / "a.md").is_file()
    finally:
        shutil.rmtree(wiki)
