"""Running a snippet under several hash seeds: what a set's order would change shows up as
different outputs (`str` hashes differ per process unless PYTHONHASHSEED is fixed)."""

from __future__ import annotations

import os
import subprocess
import sys


def outputs_under_seeds(script: str, seeds: int) -> set[str]:
    """The stripped standard outputs of `python -c script` under hash seeds 0 … seeds - 1, run
    from the current directory (so `tests.…` imports)."""
    found = set()
    for seed in range(seeds):
        env = {**os.environ, "PYTHONHASHSEED": str(seed)}
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        found.add(done.stdout.strip())
    return found
