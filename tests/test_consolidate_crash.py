"""SIGKILL a real `consolidate` process while it commits a period; the next command leaves the
wiki exactly as before or after the period, with a clean git status (as tests/test_crash.py
does for the bare operation)."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.helpers.consolidate_fakes import add_episodes
from tests.helpers.wikitools import git, make_wiki, snapshot
from tests.test_consolidate import NOTES

REPO = Path(__file__).resolve().parent.parent
DRIVER = textwrap.dedent(
    """
    import datetime as dt, os, signal, sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[3])
    from wikic.operation import journal
    from wikic.operation import transaction as operation
    from wikic.consolidate import ConsolidateRequest, consolidate
    from wikic.paths import open_paths
    from tests.helpers.consolidate_fakes import ConsolidateScript
    from tests.test_consolidate import DIGEST, PATTERN

    root, point = Path(sys.argv[1]), sys.argv[2]

    def die_on_call(owner, name, n, when=lambda *a, **k: True):
        real = getattr(owner, name)
        count = {"n": 0}
        def wrapper(*args, **kwargs):
            if when(*args, **kwargs):
                count["n"] += 1
                if count["n"] == n:
                    os.kill(os.getpid(), signal.SIGKILL)
            return real(*args, **kwargs)
        setattr(owner, name, wrapper)

    if point == "before-apply":
        die_on_call(journal.Journal, "apply", 1)
    elif point == "during-apply":
        die_on_call(journal.Journal, "_apply_one", 3)
    elif point == "before-commit":
        die_on_call(operation.Writer, "_git_commit", 1)
    elif point == "after-commit":
        die_on_call(journal.Journal, "set_state", 1, lambda self, state: state == "committed")

    backend = ConsolidateScript(DIGEST, [PATTERN]).backend()
    consolidate(open_paths(root), ConsolidateRequest(), backend=lambda: backend,
                today=dt.date(2026, 4, 13))
    """
)
POINTS = ["before-apply", "during-apply", "before-commit", "after-commit"]


@pytest.fixture(scope="module")
def states(tmp_path_factory: pytest.TempPathFactory):
    base = tmp_path_factory.mktemp("crash")
    paths = make_wiki(base / "template")
    add_episodes(paths, NOTES)
    (base / "driver.py").write_text(DRIVER)
    done = base / "done"
    shutil.copytree(paths.root, done)
    subprocess.run(
        [sys.executable, str(base / "driver.py"), str(done), "none", str(REPO)], check=True
    )
    return base, snapshot(paths.root), snapshot(done)


@pytest.mark.parametrize("point", POINTS)
def test_sigkill_during_consolidate_then_recover(states, point: str, tmp_path: Path) -> None:
    base, before, after = states
    assert before != after
    root = tmp_path / "w"
    shutil.copytree(base / "template", root)
    proc = subprocess.run([sys.executable, str(base / "driver.py"), str(root), point, str(REPO)])
    assert proc.returncode == -signal.SIGKILL
    subprocess.run(
        [sys.executable, "-m", "wikic", "-C", str(root), "status"], check=True, capture_output=True
    )
    assert git(root, "status", "--porcelain", "--", "wiki") == ""  # raw/ is never committed
    state = snapshot(root)
    assert state == (after if point == "after-commit" else before), point
