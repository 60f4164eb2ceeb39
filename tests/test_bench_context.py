"""scripts/bench_context.py: its table, and the measurement itself on a tiny random model."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.scripts import load_script

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "bench_context.py"


def _module():
    return load_script("bench_context")


def test_table_has_one_row_per_context() -> None:
    result = {
        "model": "m",
        "steps": 3,
        "exp_per_s": 45.0,
        "rows": [
            {"context": c, "prefill_256_tok_s": 90.0, "step_ms_b1": 200.0,
             "decode_tok_s_b1": 5.0, "step_ms_b8": 400.0, "decode_tok_s_b8": 20.0}
            for c in (300, 2600)
        ],
    }  # fmt: skip
    table = _module().render(result)
    assert "| 300 | 90.0 | 200.0 | 5.0 | 400.0 | 20.0 |" in table
    assert table.count("\n| 2600 |") == 1 and "45.0 M/s" in table
    assert "numpy kernels: not recorded" in table
    with_kernels = _module().render({**result, "kernels": ["swiglu"]})
    assert "numpy kernels: swiglu" in with_kernels
    assert "numpy kernels: none" in _module().render({**result, "kernels": []})


def test_bad_arguments_are_refused() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--contexts", "0"], capture_output=True, text=True
    )
    assert done.returncode == 2 and "positive" in done.stderr


def test_measure_on_a_tiny_model(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mlx.core")
    from tests.helpers.tiny_models import tiny_model
    from wikic.llm.models import resolve

    mod = _module()
    model = tiny_model("qwen2")
    monkeypatch.setattr(resolve, "resolve_model", lambda name, config=None: name)
    monkeypatch.setattr(resolve, "load_mlx_model", lambda resolved: (model, None))
    out = mod.measure("tiny", [40, 80], steps=1)
    assert [r["context"] for r in out["rows"]] == [40, 80]
    assert all(r["step_ms_b8"] > 0 and r["prefill_256_tok_s"] > 0 for r in out["rows"])
    assert out["exp_per_s"] > 0
