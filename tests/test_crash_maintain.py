"""SIGKILL a real process in the middle of rename, merge and delete: the next command recovers
the wiki to exactly before or after the operation, with a clean git status."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.helpers.maintain_fixtures import link_wiki
from tests.helpers.wikitools import git, snapshot

DRIVER = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    import git as gitpython
    from wikic.operation import journal
    from wikic.operation import transaction as operation
    from wikic.paths import open_paths
    from wikic.maintain.delete import delete_page
    from wikic.maintain.merge import merge_pages
    from wikic.maintain.rename import rename_page

    root, op, point = Path(sys.argv[1]), sys.argv[2], sys.argv[3]

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

    if point == "during-apply":
        die_on_call(journal.Journal, "_apply_one", 3)
    elif point == "before-commit":
        die_on_call(operation.Writer, "_git_commit", 1)
    elif point == "during-commit":
        die_on_call(gitpython.cmd.Git, "_call_process", 1,
                    lambda self, method, *a, **k: method == "commit")
    elif point == "after-commit":
        die_on_call(journal.Journal, "set_state", 1, lambda self, state: state == "committed")

    paths = open_paths(root)
    if op == "rename":
        rename_page(paths, "concepts/kv-cache", "Key-value cache")
    elif op == "merge":
        merge_pages(paths, "concepts/kv-caches", "concepts/kv-cache")
    else:
        delete_page(paths, "concepts/kv-caches")
    """
)
OPS = ["rename", "merge", "delete"]
POINTS = ["during-apply", "before-commit", "during-commit", "after-commit"]


@pytest.fixture(scope="module")
def states(tmp_path_factory: pytest.TempPathFactory):
    """The template wiki, its snapshot, and the snapshot after each operation."""
    base = tmp_path_factory.mktemp("crash-maintain")
    wiki = link_wiki(base / "template")
    (base / "driver.py").write_text(DRIVER)
    after = {}
    for op in OPS:
        done = base / f"done-{op}"
        shutil.copytree(wiki.root, done)
        subprocess.run([sys.executable, str(base / "driver.py"), str(done), op, "none"], check=True)
        after[op] = snapshot(done)
    return base, snapshot(wiki.root), after


@pytest.mark.parametrize("point", POINTS)
@pytest.mark.parametrize("op", OPS)
def test_sigkill_then_recover(states, op: str, point: str, tmp_path: Path) -> None:
    base, before, after = states
    assert before != after[op]
    root = tmp_path / "w"
    shutil.copytree(base / "template", root)
    proc = subprocess.run([sys.executable, str(base / "driver.py"), str(root), op, point])
    assert proc.returncode == -signal.SIGKILL
    lock = root / ".git" / "index.lock"
    for _ in range(50):  # a `git commit` the killed process started may still be finishing
        if not lock.exists():
            break
        time.sleep(0.1)
    status = subprocess.run(
        [sys.executable, "-m", "wikic", "-C", str(root), "status"], capture_output=True, text=True
    )
    assert status.returncode == 0, status.stderr
    assert git(root, "status", "--porcelain") == ""
    state = snapshot(root)
    if point == "after-commit":
        assert state == after[op]
    elif point == "during-commit":  # git may have finished the commit after the kill
        assert state in (before, after[op])
    else:
        assert state == before, f"{op} killed at {point} left the wiki half-changed"
    assert not any((root / ".wikic" / "journal").iterdir())
