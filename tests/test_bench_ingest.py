"""scripts/bench_ingest.py: the summary it reports from a worker's raw numbers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.helpers.scripts import load_script

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
