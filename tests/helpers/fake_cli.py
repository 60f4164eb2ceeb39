"""Running the real `wikic` command line in its own process, with the scripted ingest fake as
its model (`two_source_script`; set WIKIC_FAKE_DELAY=SECONDS to make each model call slow)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
DRIVER = """
import os, sys, time
from tests.helpers.ingest_fakes import two_source_script
from wikic.cli import backends, main
from wikic.llm.fake import FakeBackend

script = two_source_script()
delay = float(os.environ.get("WIKIC_FAKE_DELAY") or 0)

def respond(call):
    time.sleep(delay)
    return script.respond(call)

fake = FakeBackend(respond)
backends.for_role = lambda paths, role, model=None: fake
sys.argv = ["wikic", *sys.argv[1:]]
main()
"""


def fake_wikic_command(*args: str) -> list[str]:
    return [sys.executable, "-c", DRIVER, *args]


def fake_wikic_env(**extra: str) -> dict[str, str]:
    """This process's environment (isolated by the test fixtures) with the repo importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p)
    env.update(extra)
    return env


def run_fake_wikic(
    *args: str, cwd: Path, timeout: float = 120, **kw: Any
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        fake_wikic_command(*args),
        cwd=cwd,
        env=fake_wikic_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        **kw,
    )
