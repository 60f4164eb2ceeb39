"""The fast CPU BLAS path: detection, the RTLD_GLOBAL preload, its limits and its warnings.

Each scenario runs in a fresh interpreter: whether mlx.core is already imported decides what
`ensure_fast_blas` can do, and this pytest process has loaded OpenBLAS already.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from wikic.llm import blas

LINUX_CPU_WHEEL = blas.reference_blas_path() is not None
needs_wheel = pytest.mark.skipif(not LINUX_CPU_WHEEL, reason="not the Linux mlx CPU wheel")
needs_openblas = pytest.mark.skipif(blas.find_openblas() is None, reason="OpenBLAS not installed")


def _run(code: str, **env: str) -> dict[str, object]:
    environ = {k: v for k, v in os.environ.items() if k not in ("WIKIC_BLAS", "LD_PRELOAD")}
    environ.update(env)
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=environ,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    result["stderr"] = proc.stderr
    return result


STATUS = """
import json, logging
logging.basicConfig(level=logging.WARNING)
{before}
from wikic.llm import blas
status = blas.blas_status(measure=True)
print(json.dumps(status.to_dict()))
"""


@needs_wheel
def test_reference_blas_is_detected_without_importing_mlx() -> None:
    path = blas.reference_blas_path()
    assert (
        path is not None and path.name.startswith("libblas") and path.parent.name == "mlx_cpu.libs"
    )
    out = _run(
        "import json, sys; from wikic.llm import blas; blas.reference_blas_path(); "
        "print(json.dumps({'mlx': 'mlx.core' in sys.modules}))"
    )
    assert out["mlx"] is False


@needs_wheel
@needs_openblas
def test_preloading_openblas_makes_matmul_fast() -> None:
    fast = _run(STATUS.format(before=""))
    slow = _run(STATUS.format(before=""), WIKIC_BLAS="off")
    assert fast["active"] == "openblas" and slow["active"] == "reference"
    assert "WARNING" not in str(slow["stderr"])  # asked for: no warning
    assert float(fast["gflops"]) > 4 * float(slow["gflops"]), (fast["gflops"], slow["gflops"])  # type: ignore[arg-type]


@needs_wheel
def test_too_late_after_mlx_is_imported() -> None:
    out = _run(STATUS.format(before="import mlx.core"))
    assert out["active"] == "reference" and "imported before" in str(out["detail"])
    assert "WARNING" in str(out["stderr"])


@needs_wheel
def test_missing_openblas_warns_with_the_apt_command() -> None:
    out = _run(
        STATUS.format(before="from wikic.llm import blas as b; b.find_openblas = lambda: None")
    )
    assert out["active"] == "reference"
    assert blas.APT_COMMAND in str(out["detail"]) and blas.APT_COMMAND in str(out["stderr"])


@needs_wheel
def test_unloadable_library_is_reported_not_fatal() -> None:
    out = _run(STATUS.format(before=""), WIKIC_BLAS="/nonexistent/libopenblas.so.0")
    assert out["active"] == "reference" and "Could not load" in str(out["detail"])


@needs_wheel
@needs_openblas
def test_ld_preload_is_recognised() -> None:
    out = _run(STATUS.format(before=""), LD_PRELOAD=str(blas.find_openblas()))
    assert out["active"] == "openblas" and "LD_PRELOAD" in str(out["detail"])


@needs_wheel
@needs_openblas
def test_this_pytest_process_runs_on_openblas() -> None:
    """tests/_model_fixtures.py fixes the BLAS at plugin import, before any test imports mlx."""
    status = blas.blas_status()
    assert status.active == "openblas", status.detail
    # the reference BLAS does ~5 GFLOPS, OpenBLAS ~150 idle; 12 was seen with a model
    # running beside the tests: 2x the reference tells them apart on a loaded machine
    assert blas.measure_gflops(seconds=0.1) > 10


def test_status_is_idempotent() -> None:
    assert blas.ensure_fast_blas() is blas.ensure_fast_blas()
