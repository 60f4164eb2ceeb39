"""Fast CPU matmuls for mlx on Linux: the mlx CPU wheel links a reference BLAS (~5 GFLOPS).

`ensure_fast_blas()` loads an optimized BLAS (Debian's OpenBLAS) with RTLD_GLOBAL *before*
`mlx.core` is first imported; libmlx then binds its `cblas_*` calls to it — measured as fast as
`LD_PRELOAD`, with no re-exec. After `mlx.core` is imported it can only report. Every wikic module
that needs mlx gets it through `import_mlx_core()`. This module never imports mlx on its own.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import importlib.util
import logging
import os
import sys
import sysconfig
import time
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import Literal

log = logging.getLogger(__name__)

ENV_VAR = "WIKIC_BLAS"  # "off": keep mlx's own BLAS; a path: load that library instead of OpenBLAS
APT_COMMAND = "sudo apt-get install libopenblas0-pthread"
ActiveBlas = Literal["openblas", "reference", "builtin", "none"]


@dataclass(frozen=True)
class BlasStatus:
    """Which BLAS mlx's CPU matmuls use in this process."""

    active: ActiveBlas  # openblas: fixed; reference: slow; builtin: mlx's own is fine; none: no mlx
    needs_fix: bool  # this mlx build links the slow reference BLAS
    library: str | None
    detail: str  # one sentence for humans
    gflops: float | None = None  # measured f32 matmul speed, when asked for

    def to_dict(self) -> dict[str, object]:
        return {
            "active": self.active,
            "needs_fix": self.needs_fix,
            "library": self.library,
            "detail": self.detail,
            "gflops": self.gflops,
        }


_status: BlasStatus | None = None


def reference_blas_path() -> Path | None:
    """The reference BLAS vendored by the mlx CPU wheel (Linux), found without importing mlx."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        spec = importlib.util.find_spec("mlx")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        libs = Path(location).parent / "mlx_cpu.libs"
        found = sorted(libs.glob("libblas*.so*"))
        if found:
            return found[0]
    return None


def find_openblas() -> Path | None:
    multiarch = sysconfig.get_config_var("MULTIARCH") or f"{os.uname().machine}-linux-gnu"
    candidates = [
        Path(f"/usr/lib/{multiarch}/libopenblas.so.0"),
        Path(f"/usr/lib/{multiarch}/openblas-pthread/libopenblas.so.0"),
        Path("/usr/lib64/libopenblas.so.0"),
        Path("/usr/lib/libopenblas.so.0"),
    ]
    found = ctypes.util.find_library("openblas")
    if found:
        candidates.append(Path(found) if os.sep in found else Path(f"/usr/lib/{multiarch}/{found}"))
    return next((p for p in candidates if p.exists()), None)


def ensure_fast_blas() -> BlasStatus:
    """Make mlx use an optimized BLAS if it would use the reference one. Idempotent, cheap."""
    global _status
    if _status is None:
        _status = _apply()
        if _status.active == "reference" and not _status.detail.startswith(ENV_VAR):
            log.warning("%s", _status.detail)  # asked for with WIKIC_BLAS=off: no warning
    return _status


def _apply() -> BlasStatus:
    reference = reference_blas_path()
    if reference is None:
        mlx_here = importlib.util.find_spec("mlx") is not None
        return BlasStatus(
            "builtin" if mlx_here else "none",
            False,
            None,
            "mlx uses its platform BLAS" if mlx_here else "mlx is not installed",
        )
    choice = os.environ.get(ENV_VAR, "").strip()
    if choice.lower() in ("off", "0", "none", "reference"):
        return BlasStatus(
            "reference",
            True,
            str(reference),
            f"{ENV_VAR}={choice}: using mlx's reference BLAS (slow: about 30x slower prefill)",
        )
    preload = os.environ.get("LD_PRELOAD", "")
    if "openblas" in preload:
        return BlasStatus("openblas", True, preload, "OpenBLAS is preloaded with LD_PRELOAD")
    if "mlx.core" in sys.modules:
        return BlasStatus(
            "reference",
            True,
            str(reference),
            "mlx was imported before wikic could "
            "load OpenBLAS, so CPU matmuls use the slow reference BLAS",
        )
    library = Path(choice) if choice else find_openblas()
    if library is None:
        return BlasStatus(
            "reference",
            True,
            str(reference),
            "OpenBLAS not found: mlx runs on its "
            f"slow reference BLAS. Install it with: {APT_COMMAND}",
        )
    try:
        ctypes.CDLL(str(library), mode=ctypes.RTLD_GLOBAL)
    except OSError as exc:
        return BlasStatus(
            "reference",
            True,
            str(reference),
            f"Could not load {library} ({exc}); mlx runs on its slow reference BLAS",
        )
    return BlasStatus("openblas", True, str(library), f"{library.name} loaded before mlx")


def import_mlx_core() -> ModuleType:
    """`mlx.core`, imported after `ensure_fast_blas()`. Use this instead of `import mlx.core`."""
    ensure_fast_blas()
    import mlx.core as mx

    return mx


def mlx_device() -> str:
    """Where mlx computes by default: "metal", "cuda" or "cpu"."""
    mx = import_mlx_core()
    if mx.metal.is_available():
        return "metal"
    cuda = getattr(mx, "cuda", None)
    return "cuda" if cuda is not None and cuda.is_available() else "cpu"


def measure_gflops(n: int = 512, seconds: float = 0.3) -> float:
    """f32 matmul speed of mlx in this process (GFLOPS), measured for about `seconds`."""
    mx = import_mlx_core()
    with mx.stream(mx.cpu):
        a, b = mx.random.normal((n, n)), mx.random.normal((n, n))
        mx.eval(a @ b)
        runs, start = 0, time.perf_counter()
        while runs < 2 or time.perf_counter() - start < seconds:
            mx.eval(a @ b)
            runs += 1
        elapsed = time.perf_counter() - start
    return 2 * n**3 * runs / elapsed / 1e9


def blas_status(*, measure: bool = False) -> BlasStatus:
    status = ensure_fast_blas()
    if measure and status.active != "none":
        return replace(status, gflops=round(measure_gflops(), 1))
    return status
